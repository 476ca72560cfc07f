// The group stage of composite graders whose score depends on the other responses to the same
// prompt (per-component normalisation across the group, centring on the group mean). Such a grader
// is only allowed at the root of a config; graded one sample at a time it refuses (config_error),
// and graded as a group (`gradeGroup`, POST /v1/groups) each sample is graded first and the group
// stage then turns the components into the final scores.
import type { GraderContext } from '../../core/grader.js';
import { GradeFailure, type Result } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';

const GROUP_STAGE = Symbol.for('arbiter.group_stage');

/** The context for grading the members of a group: marks that a group stage will follow. */
export function groupContext(ctx: GraderContext): GraderContext {
  const g: GraderContext & { [GROUP_STAGE]?: true } = {
    services: ctx.services,
    get signal() {
      return ctx.signal;
    },
  };
  g[GROUP_STAGE] = true;
  return g;
}

export function inGroupStage(ctx: GraderContext): boolean {
  return (ctx as { [GROUP_STAGE]?: true })[GROUP_STAGE] === true;
}

/** What a group-stage grader raises when it is graded on its own. */
export function needsGroup(name: string, what: string): GradeFailure {
  return new GradeFailure(
    'config_error',
    `grader "${name}" ${what} across the responses to one prompt, so it grades groups only: use POST /v1/groups or the library's gradeGroup`,
  );
}

/** What a group stage may use beyond the results: each member's input (undefined where it could not be read) and the grading context. */
export interface GroupStageScope {
  inputs: readonly (GradeInput | undefined)[];
  ctx: GraderContext;
}

/**
 * Finishes a group: `results` are the root grader's per-sample results (valid ones carry
 * metadata.group_stage), changed in place; `config` is the root grader's validated config (the
 * same object its build saw). A stage that grades again (majority_vote) returns a promise.
 */
export type GroupFinisher = (config: Readonly<Record<string, unknown>>, results: Result[], scope: GroupStageScope) => void | Promise<void>;

const finishers = new Map<string, GroupFinisher>();

/** Registers the group stage of a grader type (by type name). */
export function registerGroupStage(type: string, f: GroupFinisher): void {
  finishers.set(type, f);
}

export function groupStageOf(type: string): GroupFinisher | undefined {
  return finishers.get(type);
}

/** Sample mean and unbiased std of the values (std NaN for fewer than two). */
export function groupStats(xs: number[]): { mean: number; std: number; n: number } {
  const n = xs.length;
  let s = 0;
  for (const x of xs) s += x;
  const mean = s / n;
  if (n < 2) return { mean, std: NaN, n };
  let ss = 0;
  for (const x of xs) ss += (x - mean) ** 2;
  return { mean, std: Math.sqrt(ss / (n - 1)), n };
}
