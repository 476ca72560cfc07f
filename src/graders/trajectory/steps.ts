// What the trajectory graders (reward_machine, count_bonus, episodic_bonus, rnd_bonus) share: the
// `trajectory` field (a template giving the list of steps, each a JSON object), the hard limit on
// its length, the input a per-step sub-grader sees, and field tests over one step.
import { z } from 'zod';
import type { Grader, GraderContext } from '../../core/grader.js';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { renderCompiled, type ValueTemplate } from '../../core/template.js';
import { getPath } from '../../io/path.js';

/** Most steps a trajectory may have; a longer one is the response's doing (a valid floor score). */
export const MAX_STEPS = 100_000;

/** The `trajectory` field: where the steps are (default `{{sample.trajectory}}`). */
export const trajectoryField = z.union([z.string().min(1), z.array(z.unknown())]).optional();
export const DEFAULT_TRAJECTORY = '{{sample.trajectory}}';

export type Step = Record<string, unknown>;

/** The steps of the trajectory `t` gives for this input. */
export function readSteps(t: ValueTemplate, input: GradeInput): Step[] {
  const raw = renderCompiled(t, input);
  if (!Array.isArray(raw)) throw new GradeFailure('bad_input', `trajectory must be a list of steps, got ${raw === null ? 'null' : typeof raw}`);
  if (raw.length > MAX_STEPS) throw new ResponseFault('limit_exceeded', `trajectory has ${raw.length} steps, more than the limit of ${MAX_STEPS}`);
  raw.forEach((s, i) => {
    if (s === null || typeof s !== 'object' || Array.isArray(s)) throw new GradeFailure('bad_input', `trajectory step ${i} must be a JSON object`);
  });
  return raw as Step[];
}

/** The input a per-step sub-grader sees: the item as it is, and a sample holding the step (`sample.step`, `sample.t`) with the step's JSON as output_text. */
export function stepInput(input: GradeInput, step: Step, t: number): GradeInput {
  return { item: input.item, sample: { output_text: JSON.stringify(step), step, t } };
}

/** Grades one step with a sub-grader; its failure is this grade's failure, named by `what`. */
export async function gradeStep(g: Grader, input: GradeInput, step: Step, t: number, ctx: GraderContext, what: string): Promise<number> {
  const r = await g.grade(stepInput(input, step, t), ctx);
  if (!r.valid || r.score === null) throw new GradeFailure(r.error?.kind ?? 'internal_error', `${what} at step ${t}: ${r.error?.message ?? 'invalid'}`);
  return r.score;
}

/** A test of one field of a step (dotted path): exactly one of the comparisons. */
export const fieldTestSchema = z.strictObject({
  field: z.string().min(1),
  equals: z.unknown().optional(),
  not_equals: z.unknown().optional(),
  in: z.array(z.unknown()).optional(),
  gt: z.number().finite().optional(),
  gte: z.number().finite().optional(),
  lt: z.number().finite().optional(),
  lte: z.number().finite().optional(),
  exists: z.boolean().optional(),
});
export type FieldTest = z.infer<typeof fieldTestSchema>;

const OPS = ['equals', 'not_equals', 'in', 'gt', 'gte', 'lt', 'lte', 'exists'] as const;

/** The comparison a field test names, or a message when it names none or several. */
export function fieldTestProblem(t: FieldTest): string | undefined {
  const ops = OPS.filter((k) => t[k] !== undefined || (k === 'equals' && Object.hasOwn(t, 'equals')));
  if (ops.length !== 1) return `a field test needs exactly one of ${OPS.join(', ')} (got ${ops.length ? ops.join(', ') : 'none'})`;
  return undefined;
}

/** Deep equality of JSON values. */
function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same((a as Step)[k], (b as Step)[k]));
}

/** Whether the step passes the test (a missing field passes only `exists: false` and `not_equals`). */
export function fieldTest(t: FieldTest, step: Step): boolean {
  const v = getPath(step, t.field);
  if (t.exists !== undefined) return (v !== undefined) === t.exists;
  if (Object.hasOwn(t, 'equals')) return same(v, t.equals);
  if (Object.hasOwn(t, 'not_equals')) return !same(v, t.not_equals);
  if (t.in !== undefined) return t.in.some((x) => same(v, x));
  if (typeof v !== 'number') return false;
  if (t.gt !== undefined) return v > t.gt;
  if (t.gte !== undefined) return v >= t.gte;
  if (t.lt !== undefined) return v < t.lt;
  return v <= t.lte!;
}
