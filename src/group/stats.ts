// Small numeric helpers shared by the advantage estimators and the monitors: mean, unbiased
// standard deviation (torch.std's default), verl's masked whitening constants, Pearson correlation,
// and a seeded PRNG for the spurious-reward control.

/** Magnitudes inside which plain float64 sums and squares of up to 2^50 values neither overflow nor underflow. */
const SAFE_LO = 2 ** -480;
const SAFE_HI = 2 ** 480;

/**
 * 1 when plain float64 arithmetic on `xs` is safe (the largest |x| is 0, non-finite, or between
 * 2^-480 and 2^480: sums and squares of them stay finite and normal); otherwise a power of two near
 * the largest |x|, to divide the values by before squaring (exact: dividing by a power of two loses
 * nothing) and multiply results back with. NaN entries are ignored.
 */
export function scaleOf(xs: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < xs.length; i++) {
    const a = Math.abs(xs[i]!);
    if (a > m) m = a;
  }
  if (m === 0 || !Number.isFinite(m) || (m >= SAFE_LO && m <= SAFE_HI)) return 1;
  return 2 ** Math.max(-1074, Math.floor(Math.log2(m)));
}

/** The values divided by `k` (the same array when k is 1). */
export function scaled(xs: number[], k: number): number[] {
  return k === 1 ? xs : xs.map((x) => x / k);
}

/** Arithmetic mean of `xs` (NaN for an empty list); scaled first when the sum could overflow. */
export function mean(xs: ArrayLike<number>): number {
  const k = scaleOf(xs);
  let s = 0;
  if (k === 1) for (let i = 0; i < xs.length; i++) s += xs[i]!;
  else for (let i = 0; i < xs.length; i++) s += xs[i]! / k;
  return (s / xs.length) * k;
}

/**
 * Unbiased (n - 1) standard deviation, as torch.std; NaN when fewer than two values. Values whose
 * squares would overflow or underflow are scaled first (the result itself is Infinity only when
 * the true standard deviation is beyond the float64 range).
 */
export function stdUnbiased(xs: ArrayLike<number>, m = mean(xs)): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const k = scaleOf(xs);
  let ss = 0;
  if (k === 1) {
    for (let i = 0; i < n; i++) {
      const d = xs[i]! - m;
      ss += d * d;
    }
    return Math.sqrt(ss / (n - 1));
  }
  const mk = m / k;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! / k - mk;
    ss += d * d;
  }
  return Math.sqrt(ss / (n - 1)) * k;
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
