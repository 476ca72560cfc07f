// The wire formats of the process-reward protocols, as pure functions: Qwen2.5-Math-PRM's prompt
// for vLLM's STEP pooler (system, question, steps each ended by `<extra_0>`) and the reading of its
// [p_wrong, p_right] pairs; Math-Shepherd-style prompts ending at a step tag and P("+") over
// {"+", "-"} from completion logprobs; the ProcessBench-style critique prompt for a chat judge;
// and step labels given in the data. Every reader refuses what is not a valid step score.
import { GradeFailure } from '../../core/result.js';
import { describe as describeValue } from '../../core/sample.js';
import type { CompletionChoice } from '../../models/types.js';

/** Qwen2.5-Math-PRM's step separator and the system prompt its model card scores with. */
export const QWEN_PRM_SEPARATOR = '<extra_0>';
export const QWEN_PRM_SYSTEM = 'Please reason step by step, and put your final answer within \\boxed{}.';
const CHATML_MARKERS = ['<|im_start|>', '<|im_end|>'];

/** Slack allowed on a probability returned by a server (float rounding); values within it are clamped into [0, 1]. */
export const PROB_EPS = 1e-6;
/** How far a returned class distribution may be from summing to 1. */
export const SUM_EPS = 1e-3;

const RAW_CHARS = 2000;

function serverFailure(message: string, raw: unknown): GradeFailure {
  let text: string;
  try {
    text = JSON.stringify(raw) ?? String(raw);
  } catch {
    text = String(raw);
  }
  return new GradeFailure('judge_server_error', message, { raw: text.slice(0, RAW_CHARS) });
}

/** A probability from a server, or undefined when it is not one. */
function prob(x: unknown): number | undefined {
  if (typeof x !== 'number' || !Number.isFinite(x) || x < -PROB_EPS || x > 1 + PROB_EPS) return undefined;
  return Math.min(1, Math.max(0, x));
}

/** Refuses a text that holds `marker` (it would add or break a step in the prompt). */
export function refuseMarker(text: string, marker: string, where: string): void {
  if (text.includes(marker))
    throw new GradeFailure(
      'bad_input',
      `${where} contains "${marker}", which the PRM prompt uses as a delimiter: scoring it would misplace the step boundaries`,
    );
}

/** The assistant turn: every step followed by the separator. */
export function joinSteps(steps: readonly string[], separator: string): string {
  return steps.map((s) => s + separator).join('');
}

/**
 * The whole prompt in Qwen2.5's chat template (ChatML) with no generation prompt, as the PRM's
 * model card builds it: system, the question as the user turn, the separated steps as the assistant
 * turn. Question and steps must not carry ChatML markers or the separator.
 */
export function qwenPrmText(system: string, question: string, steps: readonly string[], separator: string): string {
  for (const m of CHATML_MARKERS) {
    if (system.includes(m)) throw new GradeFailure('config_error', `the system prompt contains the chat-template marker "${m}"`);
    if (question.includes(m)) throw new GradeFailure('bad_input', `the question contains the chat-template marker "${m}", which would break the PRM prompt`);
    steps.forEach((s, i) => {
      if (s.includes(m)) throw new GradeFailure('bad_input', `step ${i} contains the chat-template marker "${m}", which would break the PRM prompt`);
    });
  }
  refuseMarker(question, separator, 'the question');
  steps.forEach((s, i) => {
    refuseMarker(s, separator, `step ${i}`);
  });
  return `<|im_start|>system\n${system}<|im_end|>\n<|im_start|>user\n${question}<|im_end|>\n<|im_start|>assistant\n${joinSteps(steps, separator)}<|im_end|>\n`;
}

/**
 * Step scores from one vLLM STEP-pooler result: `data` holds one class distribution per separator
 * ([p_wrong, p_right] for Qwen2.5-Math-PRM); the score is the class at `labelIndex`. Anything else
 * (another count, non-probabilities, raw logits that do not sum to 1) is a server failure.
 */
export function readPoolingSteps(row: unknown, steps: number, labelIndex: number): number[] {
  const data = (row as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw serverFailure('the PRM server result has no "data" list of per-step outputs', row);
  if (data.length !== steps) {
    throw serverFailure(
      `the PRM server returned ${data.length} step outputs for ${steps} steps (a STEP pooler returns one per separator; a count that differs means the server pools other tokens or split the separator)`,
      row,
    );
  }
  return data.map((d, i) => {
    if (!Array.isArray(d) || d.length <= labelIndex || d.length < 2)
      throw serverFailure(
        `the PRM server's output for step ${i} is not a class distribution with an entry at label_index ${labelIndex}: ${describeValue(d)}`,
        row,
      );
    let sum = 0;
    for (const x of d) {
      if (prob(x) === undefined) throw serverFailure(`the PRM server's output for step ${i} holds ${JSON.stringify(x)}, not a probability`, row);
      sum += x as number;
    }
    if (Math.abs(sum - 1) > SUM_EPS)
      throw serverFailure(`the PRM server's output for step ${i} sums to ${sum}, not 1: it is not a softmax over the classes (raw logits?)`, row);
    return prob(d[labelIndex])!;
  });
}

export interface TagLayout {
  /** Text before the steps; `{question}` is replaced by the question. */
  prefix: string;
  /** One step; `{k}` (1-based), `{step}` and `{tag}` are replaced. Must hold `{tag}`. */
  step: string;
  tag: string;
}

export const MATH_SHEPHERD_LAYOUT: TagLayout = { prefix: '{question} ', step: 'Step {k}: {step} {tag}\n', tag: 'ки' };

function fillSlots(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(question|k|step|tag)\}/g, (m, k: string) => slots[k] ?? m);
}

/**
 * One prompt per step for a token-probability PRM: the prefix, every step up to and including step
 * k in the step layout, cut right after step k's tag (so the next token is the PRM's +/- verdict).
 */
export function tagPrompts(question: string, steps: readonly string[], layout: TagLayout): string[] {
  const head = fillSlots(layout.prefix, { question });
  const out: string[] = [];
  let done = head;
  steps.forEach((s, i) => {
    const full = fillSlots(layout.step, { k: String(i + 1), step: s, tag: layout.tag });
    const cut = full.lastIndexOf(layout.tag);
    out.push(done + full.slice(0, cut + layout.tag.length));
    done += full;
  });
  return out;
}

/**
 * P(good) over {good, bad} at the first generated token of a completion (from its top logprobs):
 * exp(lp_good) / (exp(lp_good) + exp(lp_bad)), each summed over the alternatives that equal the
 * token after trimming whitespace. Both must be among the alternatives.
 */
export function readTagProbability(choice: CompletionChoice | undefined, good: string, bad: string, step: number): number {
  const top = choice?.logprobs?.top_logprobs?.[0];
  if (!top)
    throw serverFailure(`the PRM server's completion for step ${step} carries no top logprobs (does the server return "logprobs" for completions?)`, choice);
  let pg = 0;
  let pb = 0;
  let seenG = false;
  let seenB = false;
  for (const [tok, lp] of Object.entries(top)) {
    const t = tok.trim();
    if (t !== good && t !== bad) continue;
    if (typeof lp !== 'number' || Number.isNaN(lp) || lp > 1e-9)
      throw serverFailure(`the PRM server's logprob for "${tok}" at step ${step} is ${String(lp)}, not a log probability`, choice);
    if (t === good) {
      pg += Math.exp(lp);
      seenG = true;
    } else {
      pb += Math.exp(lp);
      seenB = true;
    }
  }
  if (!seenG || !seenB) {
    throw serverFailure(
      `the top logprobs at step ${step} do not hold both "${good}" and "${bad}" (found: ${Object.keys(top)
        .slice(0, 20)
        .map((t) => JSON.stringify(t))
        .join(', ')}); raise top_logprobs, or check step_tag and the tokens`,
      choice,
    );
  }
  const z = pg + pb;
  if (!(z > 0)) throw serverFailure(`the probabilities of "${good}" and "${bad}" at step ${step} are both 0`, choice);
  return pg / z;
}

/** ProcessBench's layout of a solution for a critique: each paragraph in `<paragraph_i>` tags, indexed from 0. */
export function taggedParagraphs(steps: readonly string[]): string {
  return steps.map((s, i) => `<paragraph_${i}>\n${s}\n</paragraph_${i}>`).join('\n\n');
}

/** Default critique prompt (written for arbiter, in ProcessBench's format); slots {question} and {steps}. */
export const CRITIQUE_PROMPT =
  'Below are a math problem and a proposed solution. The solution is split into paragraphs, each enclosed in ' +
  '<paragraph_i> tags and numbered from 0.\n\n[Math Problem]\n\n{question}\n\n[Solution]\n\n{steps}\n\n' +
  'Check the solution paragraph by paragraph. If a paragraph contains an error, give the index of the earliest ' +
  'paragraph that contains an error; if every paragraph is correct, give -1.\n\n' +
  'Write your final answer (the index alone) inside \\boxed{}.';

/** Step scores implied by a first wrong step: 1 before it, 0 from it on (all 1 for -1). */
export function scoresFromFirstError(firstError: number, steps: number): number[] {
  return Array.from({ length: steps }, (_, k) => (firstError === -1 || k < firstError ? 1 : 0));
}

/** A step label from the data as a score: true/false, or a number in [0, 1] (any finite number when `unbounded`: precomputed rewards such as log-ratios). */
function labelValue(v: unknown, where: string, unbounded: boolean): number {
  if (unbounded) {
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    throw new GradeFailure('bad_input', `${where} must be a finite number (label_range "unbounded"), got ${describeValue(v)}`);
  }
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= 1) return v;
  throw new GradeFailure('bad_input', `${where} must be true/false or a number in [0, 1], got ${describeValue(v)}`);
}

/** Step scores from per-step labels (one per step). */
export function scoresFromLabels(v: unknown, steps: number, where: string, unbounded = false): number[] {
  if (!Array.isArray(v)) throw new GradeFailure('bad_input', `${where} must be a list of step labels, got ${describeValue(v)}`);
  if (v.length !== steps) throw new GradeFailure('bad_input', `${where} has ${v.length} labels for ${steps} steps`);
  return v.map((x, i) => labelValue(x, `${where}[${i}]`, unbounded));
}

/** A first-error label (0-based step index, or -1 for none). */
export function firstErrorLabel(v: unknown, steps: number, where: string): number {
  const k = typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
  if (typeof k !== 'number' || !Number.isInteger(k) || k < -1 || k >= steps) {
    throw new GradeFailure('bad_input', `${where} must be -1 or a step index from 0 to ${steps - 1}, got ${describeValue(v)}`);
  }
  return k;
}

/** Step scores from a list of wrong steps, numbered from 1 (PRMBench's `error_steps`): those 0, the rest 1. */
export function scoresFromErrorSteps(v: unknown, steps: number, where: string): number[] {
  if (!Array.isArray(v)) throw new GradeFailure('bad_input', `${where} must be a list of step numbers (from 1), got ${describeValue(v)}`);
  const out = new Array<number>(steps).fill(1);
  v.forEach((k, i) => {
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > steps) {
      throw new GradeFailure('bad_input', `${where}[${i}] must be a step number from 1 to ${steps}, got ${describeValue(k)}`);
    }
    out[k - 1] = 0;
  });
  return out;
}
