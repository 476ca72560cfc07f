// `length`: a reward for the length of the output in chars, words or tokens.
//   target form: full score within `tolerance` of `target`, falling over `width` more units;
//   budget form: full score up to `free`, falling until `budget`, `exceed_score` beyond it.
// The fall is linear or cosine-shaped (shapes.ts). "Shorter is better only when correct" is a
// composition: a `gate` (or `multi`) around this grader and a correctness grader.
import { z } from 'zod';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { renderString, renderValue, type Template } from '../../core/template.js';
import type { GradeInput } from '../../core/sample.js';
import { describe } from '../../core/sample.js';
import { ENCODINGS, UNITS, getEncoder, measure } from './measure.js';
import { shaped } from './shapes.js';

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

export const length: GraderType<Config> = {
  type: 'length',
  summary: 'length reward in chars/words/tokens: a target (± tolerance) or a budget, linear or cosine-shaped',
  // BPE on hostile text can use its whole 2 s tokenizing budget: under a deadline, off the event loop
  cpu_heavy: (cfg) => (cfg.unit ?? 'tokens') === 'tokens',
  schema,
  capabilities: PURE,
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
    // start loading the tokenizer now (seconds, once per process) rather than on the first sample
    if (unit === 'tokens') void getEncoder(enc).catch(() => {});
    const kind = cfg.shape ?? 'linear';
    const near = cfg.max_score ?? 1;
    const far = cfg.min_score ?? 0;
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    const target = cfg.target !== undefined ? numberField(b, 'target', cfg.target) : undefined;
    const budget = cfg.budget !== undefined ? numberField(b, 'budget', cfg.budget) : undefined;
    const tolerance = cfg.tolerance ?? 0;
    const free = cfg.free ?? 0;
    return async (s) => {
      const text = textOf(input, s);
      if (text.length > maxChars)
        throw new ResponseFault('limit_exceeded', `input has ${text.length} characters (limit max_chars=${maxChars})`, {
          floor: Math.min(near, far, cfg.exceed_score ?? far),
        });
      const n = await measure(text, unit, enc);
      const metadata = { length: n, unit };
      if (target) {
        const T = target(s);
        const width = cfg.width ?? T;
        if (width <= 0) throw new GradeFailure('bad_input', 'target is 0, so the default width (= target) is 0: set "width"');
        const d = Math.abs(n - T);
        const x = Math.max(0, d - tolerance) / width;
        return { score: shaped(kind, x, near, far), reason: `${n} ${unit}, target ${T}${tolerance ? ` ± ${tolerance}` : ''}`, metadata };
      }
      const B = budget!(s);
      if (free > B) throw new GradeFailure('bad_input', `free (${free}) exceeds the budget (${B})`);
      if (n > B) return { score: cfg.exceed_score ?? far, reason: `${n} ${unit} exceeds the budget of ${B}`, metadata };
      const x = B === free ? 0 : Math.max(0, n - free) / (B - free);
      return { score: shaped(kind, x, near, far), reason: `${n} of ${B} ${unit}`, metadata };
    };
  },
};
