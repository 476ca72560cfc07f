// `tool_call` grader: compares the model's tool calls with BFCL-style accepted answers.
// exact = 1 only when every call matches (BFCL AST checker semantics), partial = fraction of
// calls and arguments right; the reason names the first mismatch. Mode `toolrl` scores ToolRL's
// reward instead (format + correctness, src/graders/tool_call/toolrl.ts).
import { raisedCaps } from '../../core/capabilities.js';
import { z } from 'zod';
import { stringifyExact } from '../../core/json.js';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { renderCompiled, renderValue, type Template, type ValueTemplate } from '../../core/template.js';
import type { GradeInput } from '../../core/sample.js';
import { matchCalls } from './match.js';
import { applyThink, extractCalls, extractSchema, neverCloses, partialCreditAlias, partialCreditField, resolveExtract } from '../../extract/index.js';
import { readAccepted, readFunctions } from './reference.js';
import { ParseError, type ToolCall } from './types.js';
import { firstToolBlock, readToolrlGold, TOOLRL_MIN, toolrlCorrectness, toolrlFormat } from './toolrl.js';

const DEFAULT_MAX_CHARS = 100_000;

const schema = graderSchema({
  /** The model's calls. Default: `sample.output_tools` when present, else `sample.output_text`. */
  input: z.string().optional(),
  /** Accepted answers in BFCL `possible_answer` form; `[]` means that no call is correct. */
  reference: z.unknown(),
  /** Function descriptions (for type checks): a template such as `{{item.function}}`, or a literal list. */
  functions: z.unknown().optional(),
  /** `bfcl` (default): BFCL's AST checker; `toolrl`: ToolRL's reward, format (0/1) + correctness in [-3, 3]. */
  mode: z.enum(['bfcl', 'toolrl']).optional(),
  /** Mode `toolrl`: add ToolRL's format term (default true; needs text input). */
  format_reward: z.boolean().optional(),
  /** true: fraction of calls and arguments right; false (default): 1 only when every call matches. Deprecated: scoring exact|partial. */
  partial_credit: partialCreditField,
  /** think `keep` (default) or `strip` (text input only); from `auto`: tool_calls, <tool_call> tags, (fenced) JSON or Python-style calls. */
  extract: extractSchema(['auto'] as const),
  /** Text or JSON input longer than this is not graded (`limit_exceeded`). */
  max_chars: z.number().int().positive().optional(),
});

function rawInput(t: Template | undefined, s: GradeInput): unknown {
  if (t) return renderValue(t, s);
  const out = s.sample.output_tools;
  if (out !== undefined && out !== null) return out;
  return s.sample.output_text ?? null;
}

export const toolCall: GraderType<z.infer<typeof schema>> = {
  type: 'tool_call',
  summary: "BFCL-style tool-call matching (simple, multiple, parallel, no-call), exact or partial credit, or ToolRL's reward",
  schema,
  aliases: [partialCreditAlias('scoring', 'exact', 'partial')],
  capabilities: (cfg) => [...PURE, ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS })],
  build(cfg, b) {
    if (cfg.reference === undefined) b.fail('reference', 'required field is missing (BFCL possible_answer list, or [] for "no call")');
    const input = cfg.input === undefined ? undefined : b.template('input', cfg.input);
    const reference: ValueTemplate = b.value('reference', cfg.reference);
    const functions: ValueTemplate | undefined = cfg.functions === undefined ? undefined : b.value('functions', cfg.functions);
    const partialScoring = cfg.partial_credit === true;
    const think = resolveExtract(cfg.extract, { think: 'keep', from: 'auto' }).think;
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    if (cfg.mode === 'toolrl') {
      if (cfg.partial_credit !== undefined) b.fail('partial_credit', 'has no effect with mode toolrl (ToolRL always gives partial credit)');
      return toolrlGrade(input, reference, think, maxChars, cfg.format_reward ?? true);
    }
    if (cfg.format_reward !== undefined) b.fail('format_reward', 'applies only to mode toolrl');

    return (s) => {
      const answers = readAccepted(renderCompiled(reference, s));
      const fns = functions === undefined ? undefined : readFunctions(renderCompiled(functions, s));
      const raw = rawInput(input, s);
      const size = typeof raw === 'string' ? raw.length : (stringifyExact(raw) ?? '').length;
      if (size > maxChars) throw new ResponseFault('limit_exceeded', `tool-call input has ${size} characters, over max_chars ${maxChars}`);
      let calls: ToolCall[];
      let parseNote = '';
      const text = typeof raw === 'string' ? applyThink(raw, think) : raw;
      if (text === undefined)
        return {
          score: 0,
          reason: neverCloses('no call given'),
          metadata: { exact: false, partial: 0, mismatch: 'parse_error', calls: [] },
        };
      try {
        calls = extractCalls(text);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        if (typeof raw !== 'string') {
          return { score: 0, reason: `malformed tool calls: ${e.message}`, metadata: { mismatch: 'parse_error', calls: [] } };
        }
        calls = []; // prose: the model made no call
        parseNote = ` (text held no parsable call: ${e.message})`;
      }
      const m = matchCalls(calls, answers, fns);
      const score = m.exact ? 1 : partialScoring ? m.partial : 0;
      return {
        score,
        reason: m.exact ? (answers.length ? `all ${answers.length} call(s) match` : 'no call made, as expected') : `${m.reason}${parseNote}`,
        metadata: { exact: m.exact, partial: m.partial, ...(m.kind ? { mismatch: m.kind } : {}), calls: calls.map((c) => c.name), pairs: m.pairs },
      };
    };
  },
};

/** Mode `toolrl`: ToolRL's format term plus its correctness term; what the response causes is a valid score, -3 at worst. */
function toolrlGrade(input: Template | undefined, reference: ValueTemplate, think: 'keep' | 'strip', maxChars: number, withFormat: boolean) {
  return (s: GradeInput) => {
    const gold = readToolrlGold(renderCompiled(reference, s));
    const raw = rawInput(input, s);
    if (withFormat && typeof raw !== 'string')
      throw new GradeFailure(
        'bad_input',
        'ToolRL format reward needs the response text; the input is structured (set format_reward: false to score correctness alone)',
      );
    const size = typeof raw === 'string' ? raw.length : (stringifyExact(raw) ?? '').length;
    if (size > maxChars) throw new ResponseFault('limit_exceeded', `tool-call input has ${size} characters, over max_chars ${maxChars}`, { floor: TOOLRL_MIN });
    const format = withFormat && typeof raw === 'string' ? toolrlFormat(raw, gold) : 0;
    const floor = (why: string, fault?: string) => ({
      score: format + TOOLRL_MIN,
      reason: `ToolRL ${format + TOOLRL_MIN} (format ${format}, correctness ${TOOLRL_MIN}): ${why}`,
      metadata: { format, correctness: TOOLRL_MIN, mismatch: 'parse_error', ...(fault ? { response_fault: fault } : {}), calls: [] },
    });
    let calls: ToolCall[] = [];
    if (gold.calls.length > 0) {
      const text = typeof raw === 'string' ? applyThink(raw, think) : raw;
      if (text === undefined) return floor(neverCloses('no call given'));
      let source: unknown = text;
      if (typeof text === 'string') {
        source = firstToolBlock(text);
        if (source === undefined) return floor('the response has no <tool_call> … </tool_call> block');
      }
      try {
        calls = extractCalls(source);
      } catch (e) {
        if (!(e instanceof ParseError)) throw e;
        return floor(`the tool calls cannot be read: ${e.message}`, 'unparsable');
      }
    }
    const c = toolrlCorrectness(calls, gold);
    const score = format + c.reward;
    const what = gold.calls.length === 0 ? 'the gold makes no call (correctness 0, as ToolRL)' : `score ${round(c.score)} of ${c.max}, names ${round(c.names)}`;
    return {
      score,
      reason: `ToolRL ${round(score)} (format ${format}, correctness ${round(c.reward)}): ${what}`,
      metadata: {
        format,
        correctness: c.reward,
        toolrl_score: c.score,
        toolrl_max: c.max,
        name_score: c.names,
        pairs: c.pairs,
        calls: calls.map((x) => x.name),
      },
    };
  };
}

const round = (x: number) => Math.round(x * 1000) / 1000;
