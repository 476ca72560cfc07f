// A damped Newton's method for smooth, strictly convex objectives (the L2-regularised
// Bradley–Terry fits of `arbiter learn`): solve H p = -g by Cholesky, step with backtracking
// (Armijo), stop when the gradient's largest entry is below `tol` or the Newton decrement
// (the predicted decrease) is down to the objective's rounding. Written here rather than taken
// from a library: the fits have tens to a few thousand parameters, the exact Hessian is cheap and
// Newton converges in a handful of iterations to machine precision (so the fitted weights are
// reproducible), and no JS optimisation package in reach is both well kept and small.

export interface Evaluation {
  value: number;
  gradient: number[];
  /** The Hessian, dense, row-major (symmetric). */
  hessian: number[][];
}

export interface NewtonResult {
  x: number[];
  value: number;
  iterations: number;
  converged: boolean;
  /** The gradient's largest absolute entry at x. */
  gradMax: number;
}

/** Solves A x = b for a symmetric positive definite A (Cholesky); undefined when A is not positive definite. */
export function choleskySolve(a: readonly (readonly number[])[], b: readonly number[]): number[] | undefined {
  const n = b.length;
  const l: number[][] = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i]![j]!;
      for (let k = 0; k < j; k++) s -= l[i]![k]! * l[j]![k]!;
      if (i === j) {
        if (!(s > 0)) return undefined;
        l[i]![i] = Math.sqrt(s);
      } else l[i]![j] = s / l[j]![j]!;
    }
  }
  const y = new Array<number>(n).fill(0);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i]![k]! * y[k]!;
    y[i] = s / l[i]![i]!;
  }
  const x = new Array<number>(n).fill(0);
  for (let i = n - 1; i >= 0; i--) {
    let s = y[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k]![i]! * x[k]!;
    x[i] = s / l[i]![i]!;
  }
  return x;
}

const maxAbs = (v: readonly number[]) => v.reduce((m, x) => Math.max(m, Math.abs(x)), 0);

/** Minimises f from x0. `f(x, withHessian)` evaluates the objective (the Hessian only when asked). */
export function newton(
  f: (x: readonly number[], withHessian: boolean) => Evaluation,
  x0: readonly number[],
  opts: { maxIterations?: number; tol?: number } = {},
): NewtonResult {
  const maxIt = opts.maxIterations ?? 100;
  const tol = opts.tol ?? 1e-10;
  let x = [...x0];
  let e = f(x, true);
  for (let it = 0; it < maxIt; it++) {
    const gMax = maxAbs(e.gradient);
    if (gMax < tol) return { x, value: e.value, iterations: it, converged: true, gradMax: gMax };
    const neg = e.gradient.map((g) => -g);
    // a Hessian that is not numerically positive definite gets a growing ridge (Levenberg)
    let p: number[] | undefined;
    for (let ridge = 0; p === undefined; ridge = ridge === 0 ? 1e-10 : ridge * 100) {
      if (ridge > 1e10)
        p = neg; // gradient descent as the last resort
      else p = choleskySolve(ridge === 0 ? e.hessian : e.hessian.map((row, i) => row.map((v, j) => (i === j ? v + ridge : v))), neg);
    }
    const slope = p.reduce((s, pi, i) => s + pi * e.gradient[i]!, 0);
    // a Newton decrement (gᵀH⁻¹g) near the objective's rounding: the quadratic region, where the
    // objective can no longer tell steps apart; full steps, kept while they shrink the gradient
    if (-slope <= 1e-10 * Math.max(1, Math.abs(e.value))) {
      const xn = x.map((xi, i) => xi + p[i]!);
      const en = f(xn, true);
      if (!(maxAbs(en.gradient) < gMax)) return { x, value: e.value, iterations: it, converged: true, gradMax: gMax };
      x = xn;
      e = en;
      continue;
    }
    let t = 1;
    let next: Evaluation | undefined;
    let xn: number[] = x;
    for (let k = 0; k < 60; k++) {
      xn = x.map((xi, i) => xi + t * p[i]!);
      const v = f(xn, false);
      if (v.value <= e.value + 1e-4 * t * slope) {
        next = v;
        break;
      }
      t /= 2;
    }
    if (!next) return { x, value: e.value, iterations: it, converged: gMax < Math.sqrt(tol), gradMax: gMax };
    x = xn;
    e = f(x, true);
  }
  const gMax = maxAbs(e.gradient);
  return { x, value: e.value, iterations: maxIt, converged: gMax < tol, gradMax: gMax };
}
