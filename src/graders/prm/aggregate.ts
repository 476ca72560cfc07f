// From per-step scores to rewards: the aggregate of a solution (min, product, mean, last, geometric
// mean, sum, and PURE's soft minimum), the first step under a threshold, and the anti-hacking
// transforms of the process-reward literature: clip (keep only what falls below a threshold) and
// delta (differences between adjacent steps).

export const AGGREGATES = ['min', 'product', 'mean', 'last', 'geo_mean', 'sum', 'pure'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

/** Aggregates that only make sense over probabilities in [0, 1] (refused after a transform). */
export const PROBABILITY_AGGREGATES: readonly Aggregate[] = ['product', 'geo_mean', 'pure'];

/** PURE's default temperature of the soft minimum. */
export const PURE_TEMPERATURE = 0.1;

/**
 * PURE's min-form credit assignment over step probabilities p_t (p_right of a two-class PRM):
 * the process reward of a step is PR_t = p_t - (1 - p_t) = 2 p_t - 1, each step gets the weight
 * w_t = softmax(-PR / T)_t, its credit is w_t * PR_t, and the solution's reward is the sum of the
 * credits, which tends to min_t PR_t as T -> 0. Scale: [-1, 1].
 */
export function pureMinForm(probs: readonly number[], temperature = PURE_TEMPERATURE): { score: number; weights: number[]; credits: number[] } {
  const pr = probs.map((p) => 2 * p - 1);
  const logits = pr.map((r) => -r / temperature);
  const top = Math.max(...logits);
  const ex = logits.map((l) => Math.exp(l - top));
  const z = ex.reduce((a, b) => a + b, 0);
  const weights = ex.map((e) => e / z);
  const credits = pr.map((r, i) => weights[i]! * r);
  return { score: credits.reduce((a, b) => a + b, 0), weights, credits };
}

/** The solution's reward from its step scores (at least one). */
export function aggregateSteps(steps: readonly number[], how: Aggregate, temperature = PURE_TEMPERATURE): number {
  if (steps.length === 0) throw new RangeError('no steps to aggregate');
  switch (how) {
    case 'min':
      return Math.min(...steps);
    case 'product':
      return steps.reduce((a, b) => a * b, 1);
    case 'mean':
      return steps.reduce((a, b) => a + b, 0) / steps.length;
    case 'sum':
      return steps.reduce((a, b) => a + b, 0);
    case 'last':
      return steps[steps.length - 1]!;
    case 'geo_mean':
      // exp of the mean log; a zero step makes it zero (log would be -Infinity)
      return steps.some((s) => s === 0) ? 0 : Math.exp(steps.reduce((a, s) => a + Math.log(s), 0) / steps.length);
    case 'pure':
      return pureMinForm(steps, temperature).score;
  }
}

/** Index (0-based) of the first step whose score is below `threshold`, or -1 when none is. */
export function firstBelow(steps: readonly number[], threshold: number): number {
  return steps.findIndex((s) => s < threshold);
}

export interface Transforms {
  /** Clip: each step becomes min(score - clip, 0), so only what falls below the threshold counts (as a penalty). */
  clip?: number;
  /** Delta: step t becomes score_t - score_{t+1}; the last step keeps its score (returns telescope to the step's own score). */
  delta?: boolean;
}

/** Applies clip, then delta (the order of the Clip-Delta combination), to step scores. */
export function transformSteps(steps: readonly number[], t: Transforms): number[] {
  let out = steps.slice();
  if (t.clip !== undefined) {
    const eta = t.clip;
    out = out.map((s) => Math.min(s - eta, 0));
  }
  if (t.delta) {
    const src = out;
    out = src.map((s, i) => (i + 1 < src.length ? s - src[i + 1]! : s));
  }
  return out;
}
