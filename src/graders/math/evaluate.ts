// Evaluation of scalar expressions: exactly as a BigInt rational when the value is rational
// (with caps on result size), else as a complex double at a given assignment of the variables.
// Double evaluation records when a value left floating-point range (RANGE), can estimate its own
// rounding error (withError), and constants beyond double range are measured on a log scale
// (magnitude), which can tell two huge values apart but never prove them equal.

export interface EvalMode {
  /** `div`: 50% is 0.5; `strip`: 50% is 50. */
  pct: 'div' | 'strip';
  /** `strip`: 30° is 30; `rad`: 30° is π/6. */
  deg: 'strip' | 'rad';
}

export * from './walk.js';
export * from './exact.js';
export * from './numeric.js';
export * from './magnitude.js';
