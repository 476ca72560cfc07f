// One verification: extract the answer from both sides, parse each into a typed value, compare,
// and explain. `checkMath` throws GradeFailure (for the grader runner); `verifyMath` never throws.
import { GradeFailure, type ErrorKind, type Outcome } from '../../core/result.js';
import { show, type Node } from './ast.js';
import { compareAnswers, DEFAULT_COMPARE, type CompareOptions } from './compare.js';
import { choiceLetter, extractAnswer, extractChoice, extractLastMath, leadingValue, type Extracted, type ExtractOptions } from './extract.js';
import { ParseError } from './lexer.js';
import { neverCloses } from '../../extract/read.js';
import { normalizeForms } from '../../extract/normalize.js';
import { stripThink } from '../../extract/think.js';
import { Budget, DEFAULT_LIMITS, LimitFailure, type MathLimits } from './limits.js';
import { parseMath, type ParsedAnswer } from './parser.js';

export interface MathOptions extends Partial<CompareOptions>, Partial<MathLimits>, ExtractOptions {
  /** Treat a reference that is a single letter A-J (optionally in parentheses) as a multiple-choice answer (default true). */
  choices?: boolean;
}

export type ResolvedMathOptions = CompareOptions & MathLimits & Required<ExtractOptions> & { choices: boolean };

export function resolveMathOptions(o: MathOptions = {}): ResolvedMathOptions {
  return {
    ...DEFAULT_COMPARE,
    ...DEFAULT_LIMITS,
    last_number: true,
    skip_think: true,
    whole: true,
    last_math: true,
    languages: true,
    join_phrases: true,
    choices: true,
    ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
  } as ResolvedMathOptions;
}

export interface MathVerdict {
  /** 1 when equivalent, 0 when not; null when the pair could not be graded. */
  score: number | null;
  valid: boolean;
  error?: { kind: ErrorKind; message: string };
  reason: string;
  /** The answer text taken from each side, and how it was found. */
  extracted: { output?: string; reference?: string; output_method?: string; reference_method?: string };
  /** The parsed values, printed. */
  parsed?: { output?: string; reference?: string };
}

/**
 * Parses an answer string; text that is not math becomes a text value (or undefined when it looks
 * like broken math). `role` `reference`: a chain whose earlier sides cannot be read states its
 * last value (a gold `1 = \\zzz = x = 0` is 0); never for an answer, where an unreadable left side
 * (`\\foo = 7`) would let anything in front of `= 7` pass as 7.
 */
export function parseAnswer(text: string, budget: Budget, role: 'output' | 'reference' = 'output'): ParsedAnswer | undefined {
  const letter = choiceLetter(text);
  if (letter && /^\s*(?:\\text\{\s*)?\(/.test(text)) return { node: { k: 'choice', letter }, units: [] };
  try {
    return parseMath(text, budget);
  } catch (e) {
    if (!(e instanceof ParseError)) throw e;
    const plain = text.replace(/\\(?:text|textbf|textit|mathrm|mbox|emph)\s*\{([^{}]*)\}/g, '$1').trim();
    if (/^[A-Za-z][A-Za-z\s.'’-]*$/.test(plain)) return { node: { k: 'text', s: plain }, units: [] };
    // "1 = \zzz = x = 0": a reference chain whose earlier parts cannot be read still states its last value
    const eq = role === 'reference' ? lastTopLevelEquals(text) : -1;
    if (eq > 0) {
      try {
        return parseMath(text.slice(eq + 1), budget);
      } catch (e2) {
        if (!(e2 instanceof ParseError)) throw e2;
      }
    }
    return undefined;
  }
}

/** Index of the last "=" outside brackets (not part of <=, >=, !=), when the text has no list separators; else -1. */
function lastTopLevelEquals(s: string): number {
  let depth = 0;
  let last = -1;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '{' || ch === '(' || ch === '[') depth++;
    else if (ch === '}' || ch === ')' || ch === ']') depth--;
    else if (depth === 0 && (ch === ',' || ch === ';')) return -1;
    else if (depth === 0 && ch === '=' && !'<>!\\'.includes(s[i - 1] ?? '')) last = i;
  }
  return last;
}

/** Answer text compared literally: whitespace-insensitive. */
const sameText = (a: string, b: string) => a.replace(/\s+/g, '') === b.replace(/\s+/g, '');

function tooLong(what: string, n: number, cap: number): GradeFailure {
  return new GradeFailure('limit_exceeded', `${what} is ${n} characters, over the ${cap}-character limit`);
}

/**
 * What the response causes is a valid 0 naming the limit, never an invalid grade (invalid grades
 * are masked by trainers, so a wrong answer could escape its penalty by breaking a limit): an
 * output over max_input_chars, an answer over max_answer_chars or max_depth, an answer whose own
 * evaluation needs more than the step budget, an answer over the magnitude limit. Invalid is
 * left for what the response cannot be blamed for: the reference (missing, unparsable, over a
 * limit, or too costly to compare even with itself), and the grader's own precision running out
 * on a reasonable response, or its wall-clock safety net (`timeout`: the machine's failure, never
 * a floor). See docs/math.md, "Whose doing".
 */
function responseLimit(reason: string, metadata: Record<string, unknown> = {}): Outcome {
  return { score: 0, reason, metadata: { ...metadata, limit: true } };
}

/** Verifies one pair; throws GradeFailure for an unusable reference or when the grader itself could not decide. */
export function checkMath(output: string, reference: string, o: ResolvedMathOptions): Outcome {
  if (typeof reference !== 'string') throw new GradeFailure('bad_input', `reference must be a string, got ${typeof reference}`);
  if (typeof output !== 'string') throw new GradeFailure('bad_input', `model output must be a string, got ${typeof output}`);
  if (reference.length > o.max_input_chars) throw tooLong('the reference', reference.length, o.max_input_chars);
  if (output.length > o.max_input_chars) {
    return responseLimit(`the model output is ${output.length} characters, over the ${o.max_input_chars}-character limit (max_chars): scored 0`);
  }
  const budget = new Budget(o);

  let refEx = extractAnswer(reference, o, 'reference');
  if (!refEx) throw new GradeFailure('bad_input', 'the reference answer is empty', { extracted: { reference: reference.slice(0, 200) } });
  const refLetter = o.choices ? choiceLetter(refEx.text) : undefined;
  const isChoice = refLetter !== undefined && /^[A-J]$|\(/.test(refEx.text.replace(/\\text\{|\}/g, '').trim());
  // the same answer text as the reference is equal whatever it says (and costs no parsing)
  const early = isChoice ? undefined : extractAnswer(output, o, 'output');
  if (early && sameText(early.text, refEx.text)) {
    return {
      score: 1,
      reason: `answer ${JSON.stringify(early.text.slice(0, 200))} (${early.method}) vs reference (${refEx.method}): equivalent, identical answer text`,
      metadata: {
        extracted: { output: early.text.slice(0, 2000), reference: refEx.text.slice(0, 2000), output_method: early.method, reference_method: refEx.method },
      },
    };
  }
  if (refEx.text.length > o.max_answer_chars) {
    throw new GradeFailure('bad_input', `the reference answer is ${refEx.text.length} characters, over the ${o.max_answer_chars}-character limit`);
  }
  let ref: ParsedAnswer | undefined;
  if (isChoice) ref = { node: { k: 'choice', letter: refLetter! }, units: [] };
  else ref = parseAnswer(refEx.text, budget, 'reference');
  if (!ref && refEx.method === 'whole' && o.last_math) {
    // a reference that is prose without markers: its last math span
    const span = extractLastMath(reference, o);
    const parsed = span && parseAnswer(span.text, budget, 'reference');
    if (span && parsed) {
      refEx = span;
      ref = parsed;
    }
  }
  if (!ref) {
    throw new GradeFailure('bad_input', `could not parse the reference answer ${JSON.stringify(refEx.text.slice(0, 200))}`, {
      extracted: { reference: refEx.text, reference_method: refEx.method },
    });
  }
  const gold = ref;
  const goldEx = refEx;

  const outEx: Extracted | undefined =
    ref.node.k === 'choice' ? extractChoice(output, o) : refEx.method === 'last_math' ? extractAnswer(output, o, 'output') : early;
  const meta = (ex: Extracted | undefined, extra: Record<string, unknown> = {}) => ({
    extracted: { output: ex?.text?.slice(0, 2000), reference: goldEx.text, output_method: ex?.method, reference_method: goldEx.method },
    ...extra,
  });
  if (!outEx) {
    // the same reason every grader gives when the reasoning never closes (extractAnswer strips it after normalizing)
    const unclosed = o.skip_think !== false && stripThink(normalizeForms(output)) === undefined;
    return { score: 0, reason: unclosed ? neverCloses('no answer found') : 'no answer found', metadata: meta(outEx) };
  }
  const head = (ex: Extracted) =>
    `answer ${JSON.stringify(ex.text.length > 200 ? `${ex.text.slice(0, 200)}...` : ex.text)} (${ex.method}) vs reference ${JSON.stringify(goldEx.text)} (${goldEx.method})`;
  if (outEx.text.length > o.max_answer_chars) {
    return responseLimit(
      `${head(outEx)}: the answer is ${outEx.text.length} characters, over the ${o.max_answer_chars}-character limit (max_answer_chars): scored 0`,
      meta(outEx),
    );
  }

  /** Parses the output's answer and compares it with the reference, within `b`. */
  const respond = (b: Budget): Outcome => {
    let ex = outEx;
    let out: ParsedAnswer | undefined;
    if (gold.node.k === 'choice') out = { node: { k: 'choice', letter: ex.text }, units: [] };
    else {
      out = parseAnswer(ex.text, b);
      // "答案是 7，验证 8", "la respuesta es 7, con 2 pasos": the value a marker introduces, then a remark
      const lead = !out && (ex.method === 'answer_phrase' || ex.method === 'answer_tag') ? leadingValue(ex.text) : undefined;
      if (lead) {
        out = parseAnswer(lead, b);
        if (out) ex = { text: lead, method: ex.method };
      }
      // a short unmarked output that turns out to be prose: fall back to bold / the last number
      if (ex.method === 'whole' && (!out || (out.node.k === 'text' && gold.node.k !== 'text'))) {
        const again = extractAnswer(output, { ...o, whole: false }, 'output');
        if (again) {
          ex = again;
          if (ex.text.length > o.max_answer_chars) {
            return responseLimit(
              `${head(ex)}: the answer is ${ex.text.length} characters, over the ${o.max_answer_chars}-character limit (max_answer_chars): scored 0`,
              meta(ex),
            );
          }
          out = parseAnswer(again.text, b);
        }
      }
    }
    if (!out) {
      return { score: 0, reason: `${head(ex)}: could not parse the answer`, metadata: meta(ex, { parsed: { reference: show(gold.node) } }) };
    }
    const v = compareAnswers(gold, out, o, b);
    const parsed = { parsed: { output: show(out.node), reference: show(gold.node) } };
    if (v.unknown) {
      // never a guess: an undecidable comparison is not a valid 0 or 1
      const kind = v.cause === 'precision' ? 'precision_lost' : 'limit_exceeded';
      throw new GradeFailure(kind, `${head(ex)}: cannot decide, ${v.why}`, meta(ex, parsed));
    }
    return { score: v.equal ? 1 : 0, reason: `${head(ex)}: ${v.equal ? 'equivalent' : 'not equivalent'}, ${v.why}`, metadata: meta(ex, parsed) };
  };

  try {
    return respond(budget);
  } catch (e) {
    if (!(e instanceof LimitFailure)) throw e;
    if (e.limit === 'depth') return responseLimit(`${head(outEx)}: ${e.message} (max_depth): scored 0`, meta(outEx));
    if (e.limit === 'time') throw machineTimeout(e, head(outEx), meta(outEx));
    return attributeBudget(e, respond, gold, o, head(outEx), meta(outEx));
  }
}

/** The wall-clock safety net ran out with steps left: the machine's failure (invalid `timeout`), whatever the sample. */
function machineTimeout(e: LimitFailure, head: string, meta: Record<string, unknown>): GradeFailure {
  return new GradeFailure('timeout', `${head}: ${e.message}`, meta);
}

/**
 * The step budget ran out while reading or comparing the answer. Whose doing, decided by counted
 * work only (the same on any machine): the reference compared with itself gets a fresh budget,
 * and when that runs out too the reference (or the configured budget) is the problem: invalid.
 * Otherwise the answer gets a fresh budget of its own (the first one also paid for parsing the
 * reference): a result stands; running out of steps again means the answer's own evaluation is
 * over the step budget: a valid 0 naming it. The wall-clock net running out on either run is
 * the machine's: invalid `timeout`.
 */
function attributeBudget(
  first: LimitFailure,
  respond: (b: Budget) => Outcome,
  gold: ParsedAnswer,
  o: ResolvedMathOptions,
  head: string,
  meta: Record<string, unknown>,
): Outcome {
  try {
    compareAnswers(gold, gold, o, new Budget(o));
  } catch (e) {
    if (e instanceof LimitFailure && e.limit === 'time') throw machineTimeout(e, head, meta);
    if (e instanceof LimitFailure) {
      throw new GradeFailure('limit_exceeded', `${head}: ${first.message}; the reference compared with itself also exceeds it (${e.message})`, meta);
    }
    throw e;
  }
  try {
    return respond(new Budget(o));
  } catch (e) {
    if (!(e instanceof LimitFailure)) throw e;
    if (e.limit === 'time') throw machineTimeout(e, head, meta);
    return responseLimit(
      `${head}: evaluating the answer ${e.limit === 'depth' ? e.message : `exceeds the step budget (max_steps ${o.max_steps}), while the reference compared with itself fits`}: scored 0`,
      meta,
    );
  }
}

/** Library entry point: verifies a model output against a reference answer or solution. Never throws. */
export function verifyMath(output: string, reference: string, options: MathOptions | ResolvedMathOptions = {}): MathVerdict {
  const o = 'max_steps' in options && 'rel_tol' in options ? (options as ResolvedMathOptions) : resolveMathOptions(options);
  try {
    const r = checkMath(output, reference, o);
    const m = (r.metadata ?? {}) as Pick<MathVerdict, 'extracted' | 'parsed'>;
    return { score: r.score, valid: true, reason: r.reason ?? '', extracted: m.extracted ?? {}, ...(m.parsed ? { parsed: m.parsed } : {}) };
  } catch (e) {
    const kind: ErrorKind = e instanceof GradeFailure ? e.kind : 'internal_error';
    const message = e instanceof Error ? e.message : String(e);
    const m = (e instanceof GradeFailure ? e.metadata : undefined) as Pick<MathVerdict, 'extracted'> | undefined;
    return { score: null, valid: false, error: { kind, message }, reason: message, extracted: m?.extracted ?? {} };
  }
}

/** Parses one answer string into its typed value, printed (for debugging and docs). */
export function parseMathAnswer(text: string, options: MathOptions = {}): { value?: string; node?: Node; error?: string } {
  try {
    const p = parseAnswer(text, new Budget(resolveMathOptions(options)));
    return p ? { value: show(p.node), node: p.node } : { error: 'not a math answer' };
  } catch (e) {
    return { error: (e as Error).message };
  }
}
