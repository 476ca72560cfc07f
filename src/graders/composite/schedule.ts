// `schedule`: a sub-grader's score times a weight that depends on the training step (annealing a
// shaping term): the step is read per sample from a template (default {{item.global_step}}), the
// weight is interpolated between `points` [[step, weight], ...] (linear, cosine or constant), held
// at the first/last weight outside them; `exp` decays from one point [s0, w0] as w0·e^(-(t - s0)/T)
// (SophiaVL-R1's annealed thinking reward), w0 before s0. Step and weight are logged next to the score.
import { z } from 'zod';
import { childFailure, GradeFailure, type Result } from '../../core/result.js';
import { describe } from '../../core/sample.js';
import { renderValue } from '../../core/template.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';

const schema = graderSchema({
  grader: z.unknown(),
  /** Where the step comes from (default "{{item.global_step}}"). */
  step: z.string().min(1).optional(),
  points: z
    .array(z.tuple([z.number().finite().nonnegative(), z.number().finite()]))
    .min(1)
    .max(10_000),
  interpolation: z.enum(['linear', 'cosine', 'constant', 'exp']).optional(),
  /** The decay constant of `exp`: the weight falls by e every T steps. */
  T: z.number().finite().positive().optional(),
});
type Config = z.infer<typeof schema>;

/** The schedule's weight at `step` (`T`: the decay constant, for `exp` only). */
export function scheduleWeight(points: readonly [number, number][], step: number, kind: 'linear' | 'cosine' | 'constant' | 'exp', T?: number): number {
  if (kind === 'exp') {
    if (points.length !== 1 || !(T! > 0)) throw new RangeError('exp needs exactly one point [start_step, start_weight] and T > 0');
    const [s0, w0] = points[0]!;
    return step <= s0 ? w0 : w0 * Math.exp(-(step - s0) / T!);
  }
  if (step <= points[0]![0]) return points[0]![1];
  const last = points[points.length - 1]!;
  if (step >= last[0]) return last[1];
  let i = 0;
  while (points[i + 1]![0] <= step) i++;
  const [s0, w0] = points[i]!;
  const [s1, w1] = points[i + 1]!;
  if (kind === 'constant') return w0;
  const t = (step - s0) / (s1 - s0);
  if (kind === 'linear') return w0 + (w1 - w0) * t;
  return w1 + ((w0 - w1) * (1 + Math.cos(Math.PI * t))) / 2;
}

export const schedule: GraderType<Config> = {
  type: 'schedule',
  summary: 'sub-grader score × a weight scheduled by training step ({{item.global_step}}): linear, cosine or constant between points, or exp decay',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    if (cfg.grader === undefined) b.fail('grader', 'required sub-grader "grader" is missing');
    const inner = b.child(cfg.grader, 'grader', 'grader');
    const src = cfg.step ?? '{{item.global_step}}';
    const t = b.template('step', src);
    if (t.vars.length === 0) b.issue('step', `must be a template such as "{{item.global_step}}", got ${JSON.stringify(src)}`);
    for (let i = 1; i < cfg.points.length; i++) {
      if (!(cfg.points[i]![0] > cfg.points[i - 1]![0])) b.issue(`points[${i}]`, `steps must increase: ${cfg.points[i]![0]} after ${cfg.points[i - 1]![0]}`);
    }
    const kind = cfg.interpolation ?? 'linear';
    if (kind === 'exp') {
      if (cfg.T === undefined) b.issue('T', 'interpolation "exp" needs T, the decay constant in w0·e^(-(step - s0)/T)');
      if (cfg.points.length !== 1)
        b.issue('points', `interpolation "exp" takes one point [start_step, start_weight], got ${cfg.points.length} (use linear or cosine between several)`);
    } else if (cfg.T !== undefined) b.issue('T', `only used with interpolation "exp" (this schedule is ${kind})`);
    return async (input, ctx) => {
      const raw = renderValue(t, input);
      const step = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
      if (!Number.isFinite(step) || step < 0) throw new GradeFailure('bad_input', `step ${src} rendered to ${describe(raw)}, not a non-negative number`);
      const weight = scheduleWeight(cfg.points, step, kind, cfg.T);
      const r = await inner.grade(input, ctx);
      const components: Record<string, Result> = { [inner.name]: r };
      if (!r.valid || r.score === null) throw childFailure(`sub-grader "${inner.name}"`, r, components);
      return {
        score: weight * r.score,
        components,
        reason: `weight ${weight} at step ${step} times ${r.score}`,
        metadata: { step, weight, unscheduled: r.score, ...(kind === 'exp' ? { T: cfg.T } : {}) },
      };
    };
  },
};
