// Turns a Result that came back from a worker thread into what the calling grader returns: the
// outcome of a valid result, or a GradeFailure carrying the invalid result's kind, message and
// metadata (its components too), so the runner on this side builds the same result shape.
import { GradeFailure, type Outcome, type Result } from '../core/result.js';

/** The runner on this side sets these again; everything else in the metadata passes through. */
const RUNNER_FIELDS = new Set(['grader', 'type', 'duration_ms']);

/**
 * `keepRunnerFields`: pass the inner result's runner fields on too (the `threads` grader, whose inner
 * grader is a grader of its own: the runner keeps them as inner_grader, inner_type...). Without it
 * they are dropped (the preemption wrapper, where the worker ran this very grader).
 */
export function outcomeOf(r: Result, extra: Record<string, unknown> = {}, keepRunnerFields = false): Outcome {
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(r.metadata ?? {})) if (keepRunnerFields || !RUNNER_FIELDS.has(k)) metadata[k] = v;
  Object.assign(metadata, extra);
  if (!r.valid || r.score === null) {
    throw new GradeFailure(r.error?.kind ?? 'internal_error', r.error?.message ?? 'inner grader failed', {
      ...metadata,
      ...(r.components ? { components: r.components } : {}),
    });
  }
  return {
    score: r.score,
    metadata,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    ...(r.components ? { components: r.components } : {}),
    ...(r.steps ? { steps: r.steps } : {}),
  };
}

/** A rejection from the pool as a GradeFailure (an abort reason that is not one is a timeout). */
export function poolFailure(e: unknown): GradeFailure {
  if (e instanceof GradeFailure) return e;
  return new GradeFailure('timeout', `grade aborted: ${e instanceof Error ? e.message : String(e)}`);
}
