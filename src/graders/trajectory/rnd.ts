// `rnd_bonus`: random network distillation (Burda et al.; RLeXplore's RND) over numeric feature
// vectors of a trajectory's steps. A fixed, randomly initialised network f and a predictor f̂ of
// the same shape (in -> hidden ReLU -> latent, PyTorch's default Linear initialisation, drawn from
// `seed`) read the observation after normalisation (running mean/std, clipped to [-5, 5]). The raw
// bonus of a step is the mean squared prediction error ||f(x) - f̂(x)||² / latent_dim (RLeXplore's
// mse over the latent), scaled as intrinsic.ts says; then the predictor takes `epochs` Adam steps
// on the trajectory's observations (the bonus is computed before the update, as RLeXplore does).
// The predictor, its optimiser state and the statistics are the run state (state_file). A
// trajectory whose work (steps × network size × epochs) is over MAX_WORK gets the floor score.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../core/registry.js';
import { seededRandom } from '../../core/random.js';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { getPath } from '../../io/path.js';
import { fmt } from './counts.js';
import {
  bonusCapabilities,
  bonusFields,
  isBaseState,
  isRms,
  newBaseState,
  newRms,
  RunState,
  scaleBonuses,
  stored,
  updateRms,
  type BaseState,
  type RmsState,
} from './intrinsic.js';
import { DEFAULT_TRAJECTORY, readSteps, trajectoryField, type Step } from './steps.js';

const MAX_DIM = 4096;
/** Most multiply-adds one grade may take (forward passes of both networks and the training steps). */
const MAX_WORK = 2e9;

const schema = graderSchema({
  trajectory: trajectoryField,
  /** Step fields (dotted paths) holding a number or a list of numbers, concatenated into the observation. */
  features: z.array(z.string().min(1)).min(1),
  seed: z.number().int().optional(),
  hidden: z.number().int().min(1).max(1024).optional(),
  latent_dim: z.number().int().min(1).max(1024).optional(),
  lr: z.number().positive().max(1).optional(),
  epochs: z.number().int().min(0).max(100).optional(),
  obs_norm: z.enum(['rms', 'none']).optional(),
  ...bonusFields,
});
type Config = z.infer<typeof schema>;

/** A two-layer network's parameters: w1 [hidden][in], b1, w2 [out][hidden], b2. */
export interface Net {
  w1: number[][];
  b1: number[];
  w2: number[][];
  b2: number[];
}

/** PyTorch's default nn.Linear initialisation: weights and biases uniform in ±1/sqrt(fan_in). */
export function initNet(inDim: number, hidden: number, out: number, seed: number): Net {
  const rnd = seededRandom(seed);
  const layer = (rows: number, cols: number) => {
    const bound = 1 / Math.sqrt(cols);
    const w = Array.from({ length: rows }, () => Array.from({ length: cols }, () => (rnd() * 2 - 1) * bound));
    const b = Array.from({ length: rows }, () => (rnd() * 2 - 1) * bound);
    return { w, b };
  };
  const l1 = layer(hidden, inDim);
  const l2 = layer(out, hidden);
  return { w1: l1.w, b1: l1.b, w2: l2.w, b2: l2.b };
}

/** The hidden activations (after ReLU) and the output of the network for x. */
export function forward(n: Net, x: readonly number[]): { h: number[]; y: number[] } {
  const h = n.w1.map((row, i) => {
    let s = n.b1[i]!;
    for (let j = 0; j < row.length; j++) s += row[j]! * x[j]!;
    return s > 0 ? s : 0;
  });
  const y = n.w2.map((row, i) => {
    let s = n.b2[i]!;
    for (let j = 0; j < row.length; j++) s += row[j]! * h[j]!;
    return s;
  });
  return { h, y };
}

/** Mean squared difference of two vectors. */
export function mse(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += (a[i]! - b[i]!) ** 2;
  return s / a.length;
}

interface Adam {
  t: number;
  m: Net;
  v: Net;
}

const zerosLike = (n: Net): Net => ({
  w1: n.w1.map((r) => r.map(() => 0)),
  b1: n.b1.map(() => 0),
  w2: n.w2.map((r) => r.map(() => 0)),
  b2: n.b2.map(() => 0),
});

/** One full-batch Adam step (β 0.9/0.999, ε 1e-8) on the mean squared error of pred against the targets over xs. */
export function adamStep(pred: Net, opt: Adam, xs: readonly number[][], targets: readonly number[][], lr: number): void {
  const g = zerosLike(pred);
  const k = targets[0]!.length;
  const scale = 2 / (xs.length * k); // d/dy of mean over batch and latent of (y - t)^2
  xs.forEach((x, n) => {
    const { h, y } = forward(pred, x);
    const dy = y.map((v, i) => (v - targets[n]![i]!) * scale);
    const dh = h.map(() => 0);
    dy.forEach((d, i) => {
      g.b2[i]! += d;
      const row = pred.w2[i]!;
      const grow = g.w2[i]!;
      for (let j = 0; j < h.length; j++) {
        grow[j]! += d * h[j]!;
        dh[j]! += d * row[j]!;
      }
    });
    dh.forEach((d, j) => {
      if (h[j]! <= 0) return;
      g.b1[j]! += d;
      const grow = g.w1[j]!;
      for (let i = 0; i < x.length; i++) grow[i]! += d * x[i]!;
    });
  });
  opt.t += 1;
  const b1c = 1 - 0.9 ** opt.t;
  const b2c = 1 - 0.999 ** opt.t;
  const upd = (p: number[], gr: number[], m: number[], v: number[]) => {
    for (let i = 0; i < p.length; i++) {
      m[i] = 0.9 * m[i]! + 0.1 * gr[i]!;
      v[i] = 0.999 * v[i]! + 0.001 * gr[i]! ** 2;
      p[i] = p[i]! - (lr * (m[i]! / b1c)) / (Math.sqrt(v[i]! / b2c) + 1e-8);
    }
  };
  pred.w1.forEach((r, i) => upd(r, g.w1[i]!, opt.m.w1[i]!, opt.v.w1[i]!));
  upd(pred.b1, g.b1, opt.m.b1, opt.v.b1);
  pred.w2.forEach((r, i) => upd(r, g.w2[i]!, opt.m.w2[i]!, opt.v.w2[i]!));
  upd(pred.b2, g.b2, opt.m.b2, opt.v.b2);
}

interface RndState extends BaseState {
  dim: number;
  predictor: Net;
  adam: Adam;
  obs_rms: RmsState;
}

const isNet = (x: unknown): x is Net => {
  const n = x as Net;
  return typeof n === 'object' && n !== null && Array.isArray(n.w1) && Array.isArray(n.b1) && Array.isArray(n.w2) && Array.isArray(n.b2);
};
const isRndState = (x: unknown): x is RndState => {
  const s = x as RndState;
  return (
    isBaseState(x) && typeof s.dim === 'number' && isNet(s.predictor) && isRms(s.obs_rms) && typeof s.adam?.t === 'number' && isNet(s.adam.m) && isNet(s.adam.v)
  );
};

/** The observation of one step: the features' numbers, concatenated. */
function observe(step: Step, t: number, features: readonly string[]): number[] {
  const x: number[] = [];
  for (const f of features) {
    const v = getPath(step, f);
    const vs = Array.isArray(v) ? v : [v];
    for (const n of vs) {
      if (typeof n !== 'number' || !Number.isFinite(n))
        throw new GradeFailure('bad_input', `step ${t}: feature "${f}" must be a finite number or a list of them`);
      x.push(n);
    }
    if (x.length > MAX_DIM) throw new GradeFailure('bad_input', `step ${t}: the features have more than ${MAX_DIM} numbers`);
  }
  return x;
}

export const rndBonus: GraderType<Config> = {
  type: 'rnd_bonus',
  summary:
    'random network distillation over numeric step features: prediction error of a trained predictor against a fixed random network (state saved to state_file)',
  capabilities: bonusCapabilities,
  schema,
  build(cfg, b) {
    const traj = b.value('trajectory', cfg.trajectory ?? DEFAULT_TRAJECTORY);
    const seed = cfg.seed ?? 0;
    const hidden = cfg.hidden ?? 64;
    const latent = cfg.latent_dim ?? 16;
    const lr = cfg.lr ?? 1e-3;
    const epochs = cfg.epochs ?? 1;
    const obsNorm = (cfg.obs_norm ?? 'rms') === 'rms';
    const run = new RunState<RndState>(
      'rnd_bonus',
      cfg.state_file,
      () => {
        // the dimension is learned from the first trajectory (set below)
        const predictor = initNet(0, hidden, latent, seed + 1);
        return { ...newBaseState(), dim: 0, predictor, adam: { t: 0, m: zerosLike(predictor), v: zerosLike(predictor) }, obs_rms: newRms(0) };
      },
      stored(isRndState),
    );
    let target: Net | undefined;
    return (input, ctx) => {
      const steps = readSteps(traj, input);
      const xs = steps.map((s, t) => observe(s, t, cfg.features));
      const st = run.get();
      if (xs.length && st.dim === 0) {
        const d = xs[0]!.length;
        const predictor = initNet(d, hidden, latent, seed + 1);
        Object.assign(st, { dim: d, predictor, adam: { t: 0, m: zerosLike(predictor), v: zerosLike(predictor) }, obs_rms: newRms(d) });
      }
      xs.forEach((x, t) => {
        if (x.length !== st.dim)
          throw new GradeFailure('bad_input', `step ${t}: the features give ${x.length} number(s), the run's observations have ${st.dim}`);
      });
      const work = xs.length * (st.dim * hidden + hidden * latent) * (2 + 3 * epochs);
      if (work > MAX_WORK)
        throw new ResponseFault(
          'limit_exceeded',
          `trajectory of ${xs.length} step(s) needs about ${work.toExponential(2)} multiply-adds, more than the limit of ${MAX_WORK.toExponential(0)}`,
        );
      if (target?.w1[0]?.length !== st.dim) target = initNet(st.dim, hidden, latent, seed);
      if (obsNorm) updateRms(st.obs_rms, xs);
      const norm = obsNorm ? xs.map((x) => x.map((v, j) => Math.min(5, Math.max(-5, (v - st.obs_rms.mean[j]!) / Math.sqrt(st.obs_rms.var[j]!))))) : xs;
      const targets = norm.map((x) => forward(target!, x).y);
      const raw = norm.map((x, i) => mse(forward(st.predictor, x).y, targets[i]!));
      const bonus = scaleBonuses(raw, cfg, st);
      if (norm.length) for (let e = 0; e < epochs; e++) adamStep(st.predictor, st.adam, norm, targets, lr);
      run.save(ctx.services);
      const total = bonus.reduce((a, x) => a + x, 0);
      return {
        score: total,
        steps: bonus,
        reason: `RND bonus over ${steps.length} step(s) (raw prediction error: ${fmt(raw)}; ${cfg.normalize ?? 'rms'}) = ${total}`,
        metadata: { raw, trajectories: st.graded },
      };
    };
  },
};
