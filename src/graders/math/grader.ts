// The `math` grader type: renders `input` (model output) and `reference` (gold answer or full
// solution), then verifies them with checkMath. Options are validated once at config load.
import { z } from 'zod';
import { GradeFailure } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { raisedCaps } from '../../core/capabilities.js';
import { renderValue } from '../../core/template.js';
import { extractSchema, renamed, resolveExtract, SKIP_THINK_ALIAS } from '../../extract/options.js';
import { DEFAULT_LIMITS } from './limits.js';
import { checkMath, resolveMathOptions } from './verify.js';

const schema = graderSchema({
  input: z.string().default('{{sample.output_text}}'),
  reference: z.string(),
  rel_tol: z.number().nonnegative().max(1).optional(),
  abs_tol: z.number().nonnegative().optional(),
  percent: z.enum(['either', 'strict', 'ignore']).optional(),
  strict_variables: z.boolean().optional(),
  units: z.enum(['strip', 'strict']).optional(),
  rounding: z.boolean().optional(),
  rounding_min_digits: z.number().int().min(1).max(17).optional(),
  decimal_comma: z.boolean().optional(),
  equation_values: z.boolean().optional(),
  set_relations: z.boolean().optional(),
  last_math: z.boolean().optional(),
  languages: z.boolean().optional(),
  join_phrases: z.boolean().optional(),
  last_number: z.boolean().optional(),
  /** think: `strip` (default) drops a leading reasoning block; `keep` reads it too. Deprecated: skip_think. */
  extract: extractSchema(['auto'] as const),
  whole: z.boolean().optional(),
  choices: z.boolean().optional(),
  /** Longest model output or reference, in characters. Deprecated name: max_input_chars. */
  max_chars: z.number().int().positive().max(100_000_000).optional(),
  max_answer_chars: z.number().int().positive().max(1_000_000).optional(),
  max_depth: z.number().int().positive().max(1_000).optional(),
  max_steps: z.number().int().positive().optional(),
  /** Wall-clock safety net per budget (default 5000): never decides a grade; past it the grade is invalid `timeout`. */
  time_budget_ms: z.number().positive().max(60_000).optional(),
});

type MathConfig = z.infer<typeof schema>;

/** The caps and budgets a request's inline math grader may lower but not raise (their defaults). */
const MATH_CAPS = {
  max_chars: DEFAULT_LIMITS.max_input_chars,
  max_answer_chars: DEFAULT_LIMITS.max_answer_chars,
  max_depth: DEFAULT_LIMITS.max_depth,
  max_steps: DEFAULT_LIMITS.max_steps,
  time_budget_ms: DEFAULT_LIMITS.time_budget_ms,
};

function asText(v: unknown, what: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (v === null || v === undefined) throw new GradeFailure('bad_input', `${what} is missing (got ${v === null ? 'null' : 'undefined'})`);
  throw new GradeFailure('bad_input', `${what} must be a string or number, got ${Array.isArray(v) ? 'an array' : typeof v}`);
}

export const mathGrader: GraderType<MathConfig> = {
  type: 'math',
  summary: 'math answer equivalence: extracts the final answer (boxed, "the answer is", ####, ...) and compares exactly, numerically and symbolically',
  schema: schema as unknown as z.ZodType<MathConfig>,
  aliases: [SKIP_THINK_ALIAS, renamed('max_input_chars', 'max_chars')],
  capabilities: (cfg) => [...PURE, ...raisedCaps(cfg, MATH_CAPS)],
  build(cfg, b) {
    const input = b.template('input', cfg.input);
    const reference = b.template('reference', cfg.reference);
    const { extract, max_chars, ...rest } = cfg;
    const think = resolveExtract(extract, { think: 'strip', from: 'auto' }).think;
    const opts = resolveMathOptions({
      ...rest,
      skip_think: think === 'strip',
      ...(max_chars !== undefined ? { max_input_chars: max_chars } : {}),
      time_budget_ms: cfg.time_budget_ms ?? DEFAULT_LIMITS.time_budget_ms,
    });
    return (s) => {
      const out = asText(renderValue(input, s), 'the model output');
      const ref = asText(renderValue(reference, s), 'the reference answer');
      return checkMath(out, ref, opts);
    };
  },
};
