// Hard limits for untrusted math text and the per-item step budget. The budget is checked inside
// the parser and evaluator (no signals, no workers): every unit of work calls tick(). Outcomes are
// decided by counted work only (steps, depth, digits), so a sample gets the same grade on a slow
// and a fast machine; the wall clock, read every TIME_CHECK_EVERY ticks, is only a safety net far
// above the cost of a whole step budget, and hitting it is the machine's failure (`timeout`).
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
  /**
   * Wall-clock safety net for one budget, in milliseconds: never decides a grade. Far above what
   * max_steps costs (see DEFAULT_LIMITS); running past it with steps left is invalid `timeout`.
   */
  time_budget_ms: number;
}

export const DEFAULT_LIMITS: MathLimits = {
  max_input_chars: 1_000_000,
  max_answer_chars: 2_000,
  max_depth: 64,
  max_steps: 200_000,
  /**
   * Measured (issue 30) on the shared 2-core machine under load: the slowest verification in
   * test/math, Math-Verify's cases, the pair table and the hostile inputs spends a whole step
   * budget in 130-290 ms (nested sums, three budgets); ordinary pairs take under 0.1 ms (a
   * GC pause can reach ~130 ms). 5 s is over 15x that worst case and 50x one full step budget.
   */
  time_budget_ms: 5_000,
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

/** Reads the wall clock in ms (performance.now unless a test injects a slowed one). */
export type Clock = () => number;

export class Budget {
  private steps = 0;
  private nextCheck: number;
  private readonly deadline: number;
  constructor(
    readonly limits: MathLimits,
    private readonly clock: Clock = () => performance.now(),
  ) {
    this.deadline = clock() + limits.time_budget_ms;
    this.nextCheck = Math.min(TIME_CHECK_EVERY, limits.max_steps + 1);
  }
  /** Counts `n` units of work; throws LimitFailure past the step budget, or past the wall-clock safety net (`time`). */
  tick(n = 1): void {
    this.steps += n;
    if (this.steps < this.nextCheck) return;
    if (this.steps > this.limits.max_steps) {
      throw new LimitFailure('steps', `math verification exceeded its step budget (${this.limits.max_steps} steps)`);
    }
    this.nextCheck = Math.min(this.steps + TIME_CHECK_EVERY, this.limits.max_steps + 1);
    if (this.clock() > this.deadline) {
      throw new LimitFailure(
        'time',
        `math verification ran past its wall-clock safety net (time_budget_ms ${this.limits.time_budget_ms}) with ${this.steps} of max_steps ${this.limits.max_steps} spent: the machine was too slow or too loaded, not the sample's doing (grade it again)`,
      );
    }
  }
  get used(): number {
    return this.steps;
  }
}

/**
 * A hard limit or budget breached while parsing or comparing: which one, so the caller can say
 * whose doing it was. The counted limits are `limit_exceeded`; the wall-clock net is `timeout`.
 */
export class LimitFailure extends GradeFailure {
  constructor(
    readonly limit: 'depth' | 'steps' | 'time',
    message: string,
  ) {
    super(limit === 'time' ? 'timeout' : 'limit_exceeded', message);
  }
}

export function limitFailure(message: string): GradeFailure {
  return new LimitFailure('depth', message);
}
