// `arbiter learn`: read preference rows (prefs.ts), split off a seeded held-out share, fit the
// Bradley–Terry model (bradley-terry.ts; per-user weights with shrinkage when asked), report
// accuracy and log-loss on both parts, and write the reward as a `weighted_sum` grader whose
// weights sit under the features' names: it scores a side exactly as the fit does (Σ_k w_k f_k in
// the features' order). Rows of segments export the per-step reward summed over a segment.
import { writeFile } from 'node:fs/promises';
import { seededRandom } from '../core/random.js';
import { IoError } from '../io/errors.js';
import { evaluate, fitBradleyTerry, type Metrics, type Pair } from './bradley-terry.js';
import { readPreferences, type SegmentModel } from './prefs.js';

export const DEFAULT_L2 = 1e-4;
export const DEFAULT_SHRINKAGE = 1;

export interface LearnOptions {
  input: string;
  output: string;
  config?: string;
  l2?: number;
  holdout?: number;
  seed?: number;
  perUser?: string;
  shrinkage?: number;
  segments?: SegmentModel;
}

export interface LearnSummary {
  input: string;
  output: string;
  kind: 'features' | 'segments' | 'graders';
  model: { preference: 'bradley_terry' | 'partial_return' | 'regret'; ties: 'half_credit'; l2: number; shrinkage?: number; per_user?: string };
  features: string[];
  weights: Record<string, number>;
  users?: Record<string, Record<string, number>>;
  pairs: { train: number; holdout: number; ties: number; skipped: number };
  skipped: { line: number; reason: string }[];
  train: Metrics;
  holdout: Metrics;
  solver: { method: 'newton'; iterations: number; converged: boolean; grad_max: number; objective: number };
  seed: number;
}

/** The grader that scores a side as the fit does. */
export function exportGrader(
  kind: LearnSummary['kind'],
  names: string[],
  weights: number[],
  graders: Record<string, unknown> | undefined,
  description: string,
) {
  const sub: Record<string, unknown> = {};
  for (const n of names) {
    if (kind === 'graders') sub[n] = graders![n];
    else if (kind === 'segments') sub[n] = { type: 'feature', value: '{{sample.trajectory}}', field: `features.${n}` };
    else sub[n] = { type: 'feature', value: `{{sample.features.${n}}}` };
  }
  return { type: 'weighted_sum', name: 'learned_reward', description, graders: sub, weights: Object.fromEntries(names.map((n, i) => [n, weights[i]!])) };
}

export async function learn(o: LearnOptions): Promise<LearnSummary> {
  const l2 = o.l2 ?? DEFAULT_L2;
  const holdout = o.holdout ?? 0.2;
  const seed = o.seed ?? 0;
  const read = await readPreferences(o.input, {
    ...(o.config !== undefined ? { config: o.config } : {}),
    ...(o.perUser !== undefined ? { perUser: o.perUser } : {}),
    ...(o.segments ? { segments: o.segments } : {}),
  });
  const dim = read.names.length;
  if (read.rows.length === 0)
    throw new IoError(`${o.input}: no usable preference rows${read.skipped.length ? ` (${read.skipped.length} skipped: ${read.skipped[0]!.reason})` : ''}`);
  const pairs: Pair[] = read.rows.map((r) => ({
    x: r.chosen.map((c, k) => c - r.rejected[k]!),
    y: r.tie ? 0.5 : 1,
    ...(r.user !== undefined ? { user: r.user } : {}),
  }));
  // seeded Fisher–Yates; the first round(n * holdout) pairs are held out (at least one is trained on)
  const order = pairs.map((_, i) => i);
  const rnd = seededRandom(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const nHold = Math.min(Math.round(pairs.length * holdout), pairs.length - 1);
  const held = order.slice(0, nHold).map((i) => pairs[i]!);
  const train = order.slice(nHold).map((i) => pairs[i]!);
  const perUser = o.perUser !== undefined;
  const shrinkage = perUser ? (o.shrinkage ?? DEFAULT_SHRINKAGE) : undefined;
  const fit = fitBradleyTerry(train, dim, { l2, ...(shrinkage !== undefined ? { shrinkage } : {}) });
  const named = (w: number[]) => Object.fromEntries(read.names.map((n, i) => [n, w[i]!]));
  const preference = read.kind !== 'segments' ? 'bradley_terry' : o.segments === 'regret' ? 'regret' : 'partial_return';
  const description = `arbiter learn: ${preference} preference model fitted on ${train.length} pair(s) of ${o.input} (L2 ${l2}${perUser ? `; shared weights of the per-user fit, shrinkage ${shrinkage}` : ''})`;
  const grader = exportGrader(read.kind, read.names, fit.weights, read.graders, description);
  try {
    await writeFile(o.output, JSON.stringify(grader, null, 2) + '\n');
  } catch (e) {
    throw new IoError(`cannot write ${o.output}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return {
    input: o.input,
    output: o.output,
    kind: read.kind,
    model: { preference, ties: 'half_credit', l2, ...(shrinkage !== undefined ? { shrinkage, per_user: o.perUser! } : {}) },
    features: read.names,
    weights: named(fit.weights),
    ...(perUser ? { users: Object.fromEntries(Object.entries(fit.users).map(([u, w]) => [u, named(w)])) } : {}),
    pairs: { train: train.length, holdout: held.length, ties: pairs.filter((p) => p.y === 0.5).length, skipped: read.skipped.length },
    skipped: read.skipped.slice(0, 20),
    train: evaluate(fit, train),
    holdout: evaluate(fit, held),
    solver: { method: 'newton', iterations: fit.solver.iterations, converged: fit.solver.converged, grad_max: fit.solver.gradMax, objective: fit.solver.value },
    seed,
  };
}

const f4 = (x: number | null) => (x === null ? 'n/a' : x.toFixed(4));

export function formatLearnSummary(s: LearnSummary): string {
  const lines = [
    `arbiter learn: ${s.pairs.train} training / ${s.pairs.holdout} held-out pair(s) (${s.pairs.ties} tie(s), ${s.pairs.skipped} skipped), ${s.features.length} feature(s), ${s.model.preference} model`,
    `solver: newton, ${s.solver.iterations} iteration(s), ${s.solver.converged ? 'converged' : `NOT converged (largest gradient entry ${s.solver.grad_max})`}`,
    `weights: ${Object.entries(s.weights)
      .map(([k, w]) => `${k} ${Number(w.toPrecision(6))}`)
      .join(', ')}`,
    `train: accuracy ${f4(s.train.accuracy)}, log-loss ${f4(s.train.log_loss)}`,
    `held-out: accuracy ${f4(s.holdout.accuracy)}, log-loss ${f4(s.holdout.log_loss)}`,
  ];
  if (s.users)
    lines.push(`per-user weights for ${Object.keys(s.users).length} user(s) (by "${s.model.per_user}", shrinkage ${s.model.shrinkage}) in --summary-json`);
  for (const k of s.skipped.slice(0, 3)) lines.push(`skipped line ${k.line}: ${k.reason}`);
  lines.push(`wrote ${s.output}`);
  return lines.join('\n');
}
