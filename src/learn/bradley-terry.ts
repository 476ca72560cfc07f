// The Bradley–Terry preference model of `arbiter learn`: P(chosen ≻ rejected) = σ(w·x), where x is
// the chosen side's features minus the rejected side's. A tie is half-credit: its loss is
// -½ log σ(s) - ½ log σ(-s) (target ½; neither Rao–Kupper's nor Davidson's extra tie parameter).
// Objective: the mean loss over the training pairs + (λ/2)‖w‖². With per-user weights each user u
// has w + δ_u, and the objective adds (τ/2)Σ_u‖δ_u‖² (hierarchical shrinkage toward the shared w:
// τ large, every user gets w; a user seen in no training pair gets w). Minimised by newton.ts.
import { newton, type Evaluation, type NewtonResult } from './newton.js';

export interface Pair {
  /** Features of the chosen side minus those of the rejected side. */
  x: number[];
  /** 1: chosen preferred; 0.5: a tie. */
  y: number;
  user?: string;
}

export interface Fit {
  /** The shared weights. */
  weights: number[];
  /** Each training user's full weights (w + δ_u). */
  users: Record<string, number[]>;
  solver: NewtonResult;
}

const sigmoid = (s: number) => (s >= 0 ? 1 / (1 + Math.exp(-s)) : Math.exp(s) / (1 + Math.exp(s)));
const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

/** The loss of one pair at score s. */
export const pairLoss = (s: number, y: number) => y * softplus(-s) + (1 - y) * softplus(s);

export const dot = (a: readonly number[], b: readonly number[]) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

/** Fits the model; `shrinkage` (τ) turns on per-user weights for pairs that name a user. */
export function fitBradleyTerry(pairs: readonly Pair[], dim: number, opts: { l2: number; shrinkage?: number; maxIterations?: number }): Fit {
  const perUser = opts.shrinkage !== undefined;
  const userIds = perUser ? [...new Set(pairs.flatMap((p) => (p.user !== undefined ? [p.user] : [])))].sort() : [];
  const slot = new Map(userIds.map((u, i) => [u, (i + 1) * dim]));
  const n = pairs.length;
  const size = dim * (userIds.length + 1);
  const lambda = opts.l2;
  const tau = opts.shrinkage ?? 0;
  const f = (theta: readonly number[], withHessian: boolean): Evaluation => {
    const g = new Array<number>(size).fill(0);
    const h = withHessian ? Array.from({ length: size }, () => new Array<number>(size).fill(0)) : [];
    let value = 0;
    for (const p of pairs) {
      const off = p.user !== undefined ? slot.get(p.user) : undefined;
      let s = 0;
      for (let k = 0; k < dim; k++) s += (theta[k]! + (off !== undefined ? theta[off + k]! : 0)) * p.x[k]!;
      value += pairLoss(s, p.y) / n;
      const sg = sigmoid(s);
      const r = (sg - p.y) / n;
      const c = (sg * (1 - sg)) / n;
      const blocks = off !== undefined ? [0, off] : [0];
      for (const b of blocks) for (let k = 0; k < dim; k++) g[b + k]! += r * p.x[k]!;
      if (!withHessian) continue;
      for (const b1 of blocks)
        for (const b2 of blocks)
          for (let i = 0; i < dim; i++) {
            const row = h[b1 + i]!;
            const ci = c * p.x[i]!;
            for (let j = 0; j < dim; j++) row[b2 + j]! += ci * p.x[j]!;
          }
    }
    for (let i = 0; i < size; i++) {
      const reg = i < dim ? lambda : tau;
      value += (reg / 2) * theta[i]! ** 2;
      g[i]! += reg * theta[i]!;
      if (withHessian) h[i]![i]! += reg;
    }
    return { value, gradient: g, hessian: h };
  };
  const solver = newton(f, new Array<number>(size).fill(0), { maxIterations: opts.maxIterations ?? 100 });
  const weights = solver.x.slice(0, dim);
  const users: Record<string, number[]> = {};
  for (const [u, off] of slot) users[u] = weights.map((w, k) => w + solver.x[off + k]!);
  return { weights, users, solver };
}

/** The weights the fit gives a pair's user (the shared ones for an unknown user or none). */
export const weightsFor = (fit: Fit, user: string | undefined) => (user !== undefined && Object.hasOwn(fit.users, user) ? fit.users[user]! : fit.weights);

export interface Metrics {
  pairs: number;
  /** Of the pairs that are not ties: the fraction whose chosen side scores higher (equal scores count half); null with none. */
  accuracy: number | null;
  /** Mean loss (negative log-likelihood, ties at half-credit); null with no pairs. */
  log_loss: number | null;
}

export function evaluate(fit: Fit, pairs: readonly Pair[]): Metrics {
  let right = 0;
  let decided = 0;
  let loss = 0;
  for (const p of pairs) {
    const s = dot(weightsFor(fit, p.user), p.x);
    loss += pairLoss(s, p.y);
    if (p.y === 0.5) continue;
    decided += 1;
    right += s > 0 ? 1 : s === 0 ? 0.5 : 0;
  }
  return { pairs: pairs.length, accuracy: decided ? right / decided : null, log_loss: pairs.length ? loss / pairs.length : null };
}
