// Hard limits for untrusted math text and the per-item step/time budget. The budget is checked
// inside the parser and evaluator (no signals, no workers): every unit of work calls tick(), and
// every TIME_CHECK_EVERY ticks the wall clock is read; exceeding either cap throws limit_exceeded.
import { GradeFailure } from '../../core/result.js';

export interface MathLimits {
  /** Longest model output or reference accepted, in characters. */
  max_input_chars: number;
  /** Longest extracted answer that is parsed, in characters. */
  max_answer_chars: number;
  /** Deepest bracket/function nesting the parser follows. */
  max_depth: number;
  /** Work units (tokens, nodes, evaluations) one verification may spend. */
  max_steps: number;
  /** Wall-clock budget for one verification, in milliseconds. */
  time_budget_ms: number;
}

export const DEFAULT_LIMITS: MathLimits = {
  max_input_chars: 1_000_000,
  max_answer_chars: 2_000,
  max_depth: 64,
  max_steps: 200_000,
  time_budget_ms: 50,
};

/**
 * Largest power (in result bits, about 19,700 decimal digits) computed exactly with BigInt; any
 * exact intermediate value is capped at 4x this. Beyond it values are compared on a log scale,
 * where they can be told apart but never proven equal (see evaluate.ts `magnitude`).
 */
export const MAX_EXACT_BITS = 65_536;
/**
 * The magnitude limit: the largest value (in bits, 2^262144 is about 10^78913) that a comparison
 * the ordinary caps could not decide is evaluated to, exactly or with interval arithmetic
 * (precise.ts). A reference over it is undecidable (invalid); an answer over it, with the
 * reference within it, is the answer's doing: a valid 0 naming the limit.
 */
export const MAX_PRECISE_BITS = 4 * MAX_EXACT_BITS;
/** Largest n for which n! and binomials are computed exactly (5000! has 16,326 digits). */
export const MAX_EXACT_FACTORIAL = 5_000;

const TIME_CHECK_EVERY = 512;

export class Budget {
  private steps = 0;
  private nextCheck: number;
  private readonly deadline: number;
  constructor(readonly limits: MathLimits) {
    this.deadline = performance.now() + limits.time_budget_ms;
    this.nextCheck = Math.min(TIME_CHECK_EVERY, limits.max_steps + 1);
  }
  /** Counts `n` units of work; throws limit_exceeded past the step or time budget. */
  tick(n = 1): void {
    this.steps += n;
    if (this.steps < this.nextCheck) return;
    if (this.steps > this.limits.max_steps) {
      throw new LimitFailure('steps', `math verification exceeded its step budget (${this.limits.max_steps} steps)`);
    }
    this.nextCheck = Math.min(this.steps + TIME_CHECK_EVERY, this.limits.max_steps + 1);
    if (performance.now() > this.deadline) {
      throw new LimitFailure('time', `math verification exceeded its time budget (${this.limits.time_budget_ms} ms)`);
    }
  }
  get used(): number {
    return this.steps;
  }
}

/** A hard limit or budget breached while parsing or comparing: which one, so the caller can say whose doing it was. */
export class LimitFailure extends GradeFailure {
  constructor(
    readonly limit: 'depth' | 'steps' | 'time',
    message: string,
  ) {
    super('limit_exceeded', message);
  }
}

export function limitFailure(message: string): GradeFailure {
  return new LimitFailure('depth', message);
}
