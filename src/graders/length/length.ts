// `length`: a reward for the length of the output in chars, words or tokens.
//   target form: full score within `tolerance` of `target`, falling over `width` more units;
//   budget form: full score up to `free`, falling until `budget`, `exceed_score` beyond it.
// The fall is linear or cosine-shaped (shapes.ts). "Shorter is better only when correct" is a
// composition: a `gate` (or `multi`) around this grader and a correctness grader.
// The text is read through the extraction layer; `extract.think` defaults to `keep`: a length
// reward (like DAPO's overlong penalty) counts the whole response, reasoning included.
import { raisedCaps } from '../../core/capabilities.js';
import { z } from 'zod';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { renderString, renderValue, type Template } from '../../core/template.js';
import type { GradeInput } from '../../core/sample.js';
import { describe } from '../../core/sample.js';
import { ENCODINGS, UNITS, getEncoder, measure } from './measure.js';
import { shaped } from './shapes.js';
import { extractSchema, neverCloses, readText, resolveExtract, type ExtractSettings, type TextRead } from '../../extract/index.js';

/** A number, or a template rendering to one (e.g. "{{item.max_tokens}}"). */
const numberOrTemplate = z.union([z.number().nonnegative(), z.string().min(1)]);

const schema = graderSchema({
  input: z.string().optional(),
  unit: z.enum(UNITS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  target: numberOrTemplate.optional(),
  tolerance: z.number().nonnegative().optional(),
  width: z.number().positive().optional(),
  budget: numberOrTemplate.optional(),
  free: z.number().nonnegative().optional(),
  exceed_score: z.number().optional(),
  shape: z.enum(['linear', 'cosine']).optional(),
  /** Score at the ideal length (default 1) and at the far end (default 0). */
  max_score: z.number().optional(),
  min_score: z.number().optional(),
  max_chars: z.number().int().positive().optional(),
  /** think `keep` (default: the whole response is measured, reasoning included) or `strip` (the answer after it); from `whole`. */
  extract: extractSchema(['whole'] as const),
});
type Config = z.infer<typeof schema>;

const DEFAULT_MAX_CHARS = 1_000_000;

/** Compiles a number-or-template field into a per-sample resolver. */
function numberField(b: Parameters<GraderType['build']>[1], field: string, v: number | string): (s: GradeInput) => number {
  if (typeof v === 'number') return () => v;
  const t = b.template(field, v);
  if (t.vars.length === 0) {
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) b.fail(field, `must be a non-negative number or a template, got ${JSON.stringify(v)}`);
    return () => n;
  }
  return (s) => {
    const raw = renderValue(t, s);
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
    if (!Number.isFinite(n) || n < 0) throw new GradeFailure('bad_input', `${field} ${t.source} rendered to ${describe(raw)}, not a non-negative number`);
    return n;
  };
}

/** The text to measure: `input` or sample.output_text. */
export function textOf(input: Template | undefined, s: GradeInput): string {
  if (input) return renderString(input, s);
  if (typeof s.sample.output_text !== 'string')
    throw new GradeFailure('template_error', 'missing variable {{sample.output_text}}: the sample has no output_text (set "input" to choose the field)');
  return s.sample.output_text;
}

/**
 * The text measured, out of the raw text through the extraction layer: `text` (with `extracted`
 * metadata when it is not the raw text), or `unclosed` when stripping finds a block that never closes.
 */
export function measuredText(raw: string, extract: ExtractSettings<string>): { text: string; meta: { extracted?: TextRead } } | { unclosed: TextRead } {
  const got = readText(raw, extract);
  if (!got.ok) return { unclosed: got.read };
  return { text: got.text, meta: got.changed ? { extracted: got.read } : {} };
}

/** The reason for an output whose reasoning never closes: nothing after it to measure. */
export const NOTHING_TO_MEASURE = neverCloses('no answer to measure');

export const length: GraderType<Config> = {
  type: 'length',
  summary: 'length reward in chars/words/tokens: a target (± tolerance) or a budget, linear or cosine-shaped',
  // BPE on hostile text can use its whole 2 s tokenizing budget: under a deadline, off the event loop
  cpu_heavy: (cfg) => (cfg.unit ?? 'tokens') === 'tokens',
  schema,
  capabilities: (cfg) => [...PURE, ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS })],
  // the tokenizer loads (seconds) before the first grade, not inside its budget
  warm: async (cfg) => {
    if ((cfg.unit ?? 'tokens') === 'tokens') await getEncoder(cfg.encoding ?? 'o200k_base');
  },
  build(cfg, b) {
    if ((cfg.target === undefined) === (cfg.budget === undefined))
      b.fail(cfg.target === undefined ? 'target' : 'budget', 'set exactly one of "target" and "budget"');
    if (cfg.encoding !== undefined && (cfg.unit ?? 'tokens') !== 'tokens') b.issue('encoding', 'only used with unit "tokens"');
    const targetOnly = ['tolerance', 'width'] as const;
    const budgetOnly = ['free', 'exceed_score'] as const;
    for (const f of cfg.target !== undefined ? budgetOnly : targetOnly)
      if (cfg[f] !== undefined) b.issue(f, `not used with "${cfg.target !== undefined ? 'target' : 'budget'}"`);
    const input = cfg.input !== undefined ? b.template('input', cfg.input) : undefined;
    const unit = cfg.unit ?? 'tokens';
    const enc = cfg.encoding ?? 'o200k_base';
    const kind = cfg.shape ?? 'linear';
    const near = cfg.max_score ?? 1;
    const far = cfg.min_score ?? 0;
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    const target = cfg.target !== undefined ? numberField(b, 'target', cfg.target) : undefined;
    const budget = cfg.budget !== undefined ? numberField(b, 'budget', cfg.budget) : undefined;
    const tolerance = cfg.tolerance ?? 0;
    const free = cfg.free ?? 0;
    const floor = Math.min(near, far, cfg.exceed_score ?? far);
    const extract = resolveExtract(cfg.extract, { think: 'keep', from: 'whole' });
    return async (s) => {
      const raw = textOf(input, s);
      if (raw.length > maxChars) throw new ResponseFault('limit_exceeded', `input has ${raw.length} characters (limit max_chars=${maxChars})`, { floor });
      // the target / budget are the item's: a bad one stays invalid even when the response gives no answer
      const T = target?.(s);
      const width = T === undefined ? 0 : (cfg.width ?? T);
      if (T !== undefined && width <= 0) throw new GradeFailure('bad_input', 'target is 0, so the default width (= target) is 0: set "width"');
      const B = budget?.(s);
      if (B !== undefined && free > B) throw new GradeFailure('bad_input', `free (${free}) exceeds the budget (${B})`);
      const read = measuredText(raw, extract);
      if ('unclosed' in read) return { score: floor, reason: NOTHING_TO_MEASURE, metadata: { unit, extracted: read.unclosed } };
      const n = await measure(read.text, unit, enc);
      const metadata = { length: n, unit, ...read.meta };
      if (T !== undefined) {
        const d = Math.abs(n - T);
        const x = Math.max(0, d - tolerance) / width;
        return { score: shaped(kind, x, near, far), reason: `${n} ${unit}, target ${T}${tolerance ? ` ± ${tolerance}` : ''}`, metadata };
      }
      if (B === undefined) throw new Error('length: neither target nor budget (refused at load)');
      if (n > B) return { score: cfg.exceed_score ?? far, reason: `${n} ${unit} exceeds the budget of ${B}`, metadata };
      const x = B === free ? 0 : Math.max(0, n - free) / (B - free);
      return { score: shaped(kind, x, near, far), reason: `${n} of ${B} ${unit}`, metadata };
    };
  },
};
