// Small numeric helpers shared by the advantage estimators and the monitors: mean, unbiased
// standard deviation (torch.std's default), verl's masked whitening constants, Pearson correlation,
// and a seeded PRNG for the spurious-reward control.

/** Arithmetic mean of `xs` (NaN for an empty list). */
export function mean(xs: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i]!;
  return s / xs.length;
}

/** Unbiased (n - 1) standard deviation, as torch.std; NaN when fewer than two values. */
export function stdUnbiased(xs: ArrayLike<number>, m = mean(xs)): number {
  const n = xs.length;
  if (n < 2) return NaN;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m;
    ss += d * d;
  }
  return Math.sqrt(ss / (n - 1));
}

/** Pearson correlation of two equal-length series; NaN when either is constant or n < 2. */
export function pearson(xs: ArrayLike<number>, ys: ArrayLike<number>): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return NaN;
  return sxy / Math.sqrt(sxx * syy);
}

/** mulberry32: a tiny deterministic PRNG (uniform in [0, 1)). */
export { seededRandom as prng } from '../core/random.js';

/** Fisher-Yates shuffle of a copy of `xs` with `rand`. */
export function shuffled<T>(xs: readonly T[], rand: () => number): T[] {
  const a = xs.slice();
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
  return a;
}
