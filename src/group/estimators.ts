// The advantage estimators, written from the trainers' definitions (verl trainer/ppo/core_algos.py,
// verl-agent gigpo/core_gigpo.py, TRL GRPOTrainer._generate_and_score_completions). Masked rows
// (invalid grades, bad input) never enter a statistic; they keep advantage 0. Arithmetic is float64
// (the trainers use float32), so values agree to ~1e-7.
import type { AdvantageConfig } from './config.js';
import { whereOf, type GroupKey, type Row } from './rows.js';
import { mean, stdUnbiased } from './stats.js';

/** verl's masked_mean denominator offset and masked_whiten's variance offset. */
const WHITEN_EPS = 1e-8;

function live(rows: Row[]): Row[] {
  const out: Row[] = [];
  for (const r of rows) if (!r.masked) out.push(r);
  return out;
}

function single(r: Row): void {
  r.masked = 'single_in_group';
  r.adv = 0;
}

/** Splits rows by group key, keeping first-appearance order (rows without a key are skipped). */
export function byGroup(rows: Row[]): Row[][] {
  const m = new Map<GroupKey, Row[]>();
  for (const r of rows) {
    if (r.group === undefined) continue;
    let g = m.get(r.group);
    if (!g) m.set(r.group, (g = []));
    g.push(r);
  }
  return [...m.values()];
}

// ---- verl outcome estimators (one group at a time) ----

/** grpo: (s - mean) / (std + eps), std unbiased; without norm_adv_by_std_in_grpo, s - mean (Dr.GRPO). */
function grpo(rows: Row[], c: AdvantageConfig): void {
  const xs = live(rows);
  if (xs.length === 0) return;
  if (xs.length === 1) {
    // verl: a group of one has mean 0 and std 1
    if (c.groupOfOne === 'zero') single(xs[0]!);
    else xs[0]!.adv = c.normByStd ? xs[0]!.score / (1 + c.epsilon) : xs[0]!.score;
    return;
  }
  const s = xs.map((r) => r.score);
  const m = mean(s);
  const sd = stdUnbiased(s, m);
  for (const r of xs) r.adv = c.normByStd ? (r.score - m) / (sd + c.epsilon) : r.score - m;
}

/** rloo: s * n/(n-1) - mean * n/(n-1), i.e. s minus the mean of the others. */
function rloo(rows: Row[], c: AdvantageConfig): void {
  const xs = live(rows);
  if (xs.length === 0) return;
  const n = xs.length;
  if (n === 1) {
    if (c.groupOfOne === 'zero') single(xs[0]!);
    else xs[0]!.adv = xs[0]!.score; // verl leaves a lone score unchanged
    return;
  }
  const m = mean(xs.map((r) => r.score));
  const f = n / (n - 1);
  for (const r of xs) r.adv = r.score * f - m * f;
}

/** opo: s - sum(len * s) / sum(len), the length-weighted group baseline. */
function opo(rows: Row[], c: AdvantageConfig): void {
  const xs = live(rows);
  if (xs.length === 0) return;
  if (xs.length === 1) {
    if (c.groupOfOne === 'zero') single(xs[0]!);
    else xs[0]!.adv = xs[0]!.score; // verl: baseline 0
    return;
  }
  let sl = 0;
  let sls = 0;
  for (const r of xs) {
    sl += r.len;
    sls += r.len * r.score;
  }
  if (sl === 0) {
    for (const r of xs) {
      r.masked = 'no_tokens';
      r.error = {
        kind: 'bad_input',
        message: `${whereOf(r)}: every response in its group has response_length 0, so OPO's length-weighted baseline is undefined`,
      };
    }
    return;
  }
  const bsl = sls / sl;
  for (const r of xs) r.adv = r.score - bsl;
}

/** grpo_passk: only the best response gets r_max - r_second (over std + eps when normalising). */
function grpoPassk(rows: Row[], c: AdvantageConfig): void {
  const xs = live(rows);
  if (xs.length === 0) return;
  if (xs.length === 1) {
    single(xs[0]!); // verl refuses groups under 2 for Pass@k
    return;
  }
  let iMax = 0;
  for (let i = 1; i < xs.length; i++) if (xs[i]!.score > xs[iMax]!.score) iMax = i;
  let second = -Infinity;
  for (let i = 0; i < xs.length; i++) if (i !== iMax && xs[i]!.score > second) second = xs[i]!.score;
  let a = xs[iMax]!.score - second;
  if (c.normByStd) a = a / (stdUnbiased(xs.map((r) => r.score)) + c.epsilon);
  for (const r of xs) r.adv = 0;
  xs[iMax]!.adv = a;
}

// ---- GiGPO (verl-agent): episode groups plus step groups of identical anchor observations ----

function gigpo(rows: Row[], c: AdvantageConfig): void {
  // A step's return-to-go includes every later step's reward: when one of them is unknown (an
  // invalid or malformed line of the same trajectory), the earlier steps cannot be scored either.
  const lastBad = new Map<GroupKey, number>();
  rows.forEach((r, i) => {
    if (r.masked && r.traj !== undefined) lastBad.set(r.traj, i);
  });
  rows.forEach((r, i) => {
    if (!r.masked && r.traj !== undefined && (lastBad.get(r.traj) ?? -1) > i) r.masked = 'depends_on_invalid';
  });
  const xs = live(rows);
  if (xs.length === 0) return;
  const remove = c.mode === 'mean_norm';
  if (xs.length === 1 && c.groupOfOne === 'zero') {
    single(xs[0]!);
    return;
  }
  // episode advantage: statistics over every step row of the group (compute_mean_std_cross_steps)
  const ep = new Map<Row, number>();
  if (xs.length === 1) {
    const s = xs[0]!.score;
    ep.set(xs[0]!, remove ? s : s / (1 + c.epsilon)); // verl-agent: mean 0, std 1
  } else {
    const s = xs.map((r) => r.score);
    const m = mean(s);
    const sd = stdUnbiased(s, m);
    for (const r of xs) ep.set(r, remove ? r.score - m : (r.score - m) / (sd + c.epsilon));
  }
  // discounted step returns per trajectory, in the order the steps appear
  const ret = new Map<Row, number>();
  const trajs = new Map<GroupKey, Row[]>();
  for (const r of xs) {
    let t = trajs.get(r.traj!);
    if (!t) trajs.set(r.traj!, (t = []));
    t.push(r);
  }
  for (const t of trajs.values()) {
    let running = 0;
    for (let i = t.length - 1; i >= 0; i--) {
      running = t[i]!.stepReward + c.gamma * running;
      ret.set(t[i]!, running);
    }
  }
  // step groups: identical anchor observations within the episode group
  const clusters = new Map<string, Row[]>();
  for (const r of xs) {
    let k = clusters.get(r.anchor!);
    if (!k) clusters.set(r.anchor!, (k = []));
    k.push(r);
  }
  for (const k of clusters.values()) {
    if (k.length === 1) {
      // a lone step is its own mean: step advantage 0 (std 1)
      const r = k[0]!;
      r.adv = ep.get(r)! + c.stepAdvantageW * 0;
      continue;
    }
    const v = k.map((r) => ret.get(r)!);
    const m = mean(v);
    const sd = stdUnbiased(v, m);
    for (const r of k) {
      const st = remove ? ret.get(r)! - m : (ret.get(r)! - m) / (sd + c.epsilon);
      r.adv = ep.get(r)! + c.stepAdvantageW * st;
    }
  }
}

// ---- TRL GRPO ----

const TRL_EPS = 1e-4;

function nanMean(xs: number[]): number {
  let s = 0;
  let n = 0;
  for (const x of xs) if (!Number.isNaN(x)) (s += x), n++;
  return n ? s / n : NaN;
}

/** TRL's nanstd: unbiased over the non-NaN values, NaN with fewer than two. */
function nanStd(xs: number[]): number {
  const v = xs.filter((x) => !Number.isNaN(x));
  return v.length > 1 ? stdUnbiased(v) : NaN;
}

function weighted(r: Row, c: AdvantageConfig, xs: number[]): number {
  let s = 0;
  for (let k = 0; k < xs.length; k++) {
    const w = c.rewardWeights ? c.rewardWeights[k]! : 1;
    const v = w * xs[k]!;
    if (!Number.isNaN(v)) s += v; // nansum
  }
  return s;
}

/** Every line of a batch must carry the same number of rewards (TRL's rewards_per_func matrix). */
function sameWidth(rows: Row[]): void {
  let k: number | undefined;
  for (const r of rows) {
    if (!r.rewards) continue;
    k ??= r.rewards.length;
    if (r.rewards.length !== k) {
      r.masked = 'bad_input';
      r.error = { kind: 'bad_input', message: `${whereOf(r)}: has ${r.rewards.length} reward(s) where earlier lines of the batch have ${k}` };
    }
  }
}

/** sum_then_normalize: weighted nansum of the rewards, minus the group mean, over a std (or none). */
function trlSumThenNormalize(batch: Row[], c: AdvantageConfig): void {
  sameWidth(batch);
  const groups = byGroup(batch).map((g) => live(g));
  const r = new Map<Row, number>();
  for (const g of groups) for (const x of g) r.set(x, weighted(x, c, x.rewards!));
  let batchStd = NaN;
  if (c.scaleRewards === 'batch') {
    const all = [...r.values()];
    batchStd = all.length > 1 ? nanStd(all) : 0;
  }
  for (const g of groups) {
    if (g.length === 0) continue;
    if (g.length === 1 && c.groupOfOne === 'zero') {
      single(g[0]!);
      continue;
    }
    const vals = g.map((x) => r.get(x)!);
    const m = nanMean(vals);
    const sd = c.scaleRewards === 'group' ? nanStd(vals) : batchStd;
    for (const x of g) {
      let a = r.get(x)! - m;
      if (c.scaleRewards !== 'none') a = a / (sd + TRL_EPS);
      x.adv = Number.isNaN(a) ? 0 : a; // nan_to_num
    }
  }
}

/** normalize_then_sum (GDPO): each reward normalised within its group, summed, then over the batch. */
function trlNormalizeThenSum(batch: Row[], c: AdvantageConfig): void {
  sameWidth(batch);
  const groups = byGroup(batch).map((g) => live(g));
  const r = new Map<Row, number>();
  for (const g of groups) {
    if (g.length === 0) continue;
    if (g.length === 1 && c.groupOfOne === 'zero') {
      single(g[0]!);
      continue;
    }
    const K = g[0]!.rewards!.length;
    const norm = g.map(() => new Array<number>(K));
    for (let k = 0; k < K; k++) {
      const col = g.map((x) => x.rewards![k] ?? NaN);
      const m = nanMean(col);
      const sd = nanStd(col);
      for (let i = 0; i < g.length; i++) norm[i]![k] = (col[i]! - m) / (sd + TRL_EPS);
    }
    g.forEach((x, i) => r.set(x, weighted(x, c, norm[i]!)));
  }
  const vals = [...r.values()];
  const m = nanMean(vals);
  const sd = vals.length > 1 ? nanStd(vals) : 0;
  for (const [x, v] of r) {
    const a = (v - m) / (sd + TRL_EPS);
    x.adv = Number.isNaN(a) ? 0 : a;
  }
}

// ---- token-level, whitened over the batch's response tokens (verl masked_whiten) ----

/** A row's token values, generated on demand (both statistics passes and the output call it). */
type TokenValues = (r: Row) => Float64Array;

/**
 * verl masked_whiten over every token of `rows`: mean = Σv / (N + 1e-8), variance = Σ(v - mean)² /
 * (N + 1e-8) · N / (N - 1), whitened = (v - mean) / sqrt(variance + 1e-8). Two passes, like verl;
 * the token values are regenerated per row rather than held for the whole batch.
 */
function whiten(rows: Row[], values: TokenValues, constant?: Map<Row, number>): void {
  let n = 0;
  let sum = 0;
  for (const r of rows) {
    n += r.len;
    const c = constant?.get(r);
    if (c !== undefined) sum += c * r.len;
    else {
      const v = values(r);
      for (let t = 0; t < v.length; t++) sum += v[t]!;
    }
  }
  if (n < 2) {
    for (const r of rows) {
      r.masked = 'bad_input';
      r.error = { kind: 'bad_input', message: `${whereOf(r)}: whitening needs at least 2 response tokens of scorable lines in the batch, got ${n}` };
    }
    return;
  }
  const m = sum / (n + WHITEN_EPS);
  let ss = 0;
  for (const r of rows) {
    const c = constant?.get(r);
    if (c !== undefined) ss += r.len * (c - m) ** 2;
    else {
      const v = values(r);
      for (let t = 0; t < v.length; t++) ss += (v[t]! - m) ** 2;
    }
  }
  const variance = (ss / (n + WHITEN_EPS)) * (n / (n - 1));
  const inv = 1 / Math.sqrt(variance + WHITEN_EPS);
  for (const r of rows) {
    r.whiten = { mean: m, inv, values };
    const c = constant?.get(r);
    r.adv = ((c ?? values(r)[0]!) - m) * inv;
  }
}

/** The token advantages of a whitened row. */
export function tokenAdvantages(r: Row): number[] {
  const w = r.whiten!;
  const v = w.values(r);
  const out = new Array<number>(v.length);
  for (let t = 0; t < v.length; t++) out[t] = (v[t]! - w.mean) * w.inv;
  return out;
}

function withTokens(rows: Row[]): Row[] {
  const xs: Row[] = [];
  for (const r of live(rows)) {
    if (r.len === 0) r.masked = 'no_tokens';
    else xs.push(r);
  }
  return xs;
}

/** reinforce_plus_plus: discounted returns per token (the score on the last token), whitened. */
function reinforcePP(batch: Row[], c: AdvantageConfig): void {
  const gamma = c.gamma;
  const returns: TokenValues = (r) => {
    const ret = new Float64Array(r.len);
    let running = 0;
    for (let t = r.len - 1; t >= 0; t--) {
      const reward = r.tokenRewards ? r.tokenRewards[t]! : t === r.len - 1 ? r.score : 0;
      running = reward + gamma * running;
      ret[t] = running;
    }
    return ret;
  };
  whiten(withTokens(batch), returns);
}

/** reinforce_plus_plus_baseline: s minus the group mean on every token, whitened over the batch tokens. */
function reinforcePPBaseline(batch: Row[], c: AdvantageConfig): void {
  const xs = withTokens(batch);
  const centred = new Map<Row, number>();
  for (const g of byGroup(xs)) {
    if (g.length === 1) {
      if (c.groupOfOne === 'zero') single(g[0]!);
      else centred.set(g[0]!, g[0]!.score); // verl: mean 0 for a group of one
      continue;
    }
    const m = mean(g.map((r) => r.score));
    for (const r of g) centred.set(r, r.score - m);
  }
  const values: TokenValues = (r) => new Float64Array(r.len).fill(centred.get(r)!);
  whiten([...centred.keys()], values, centred);
}

const GROUP_FNS: Partial<Record<AdvantageConfig['estimator'], (rows: Row[], c: AdvantageConfig) => void>> = {
  grpo,
  rloo,
  opo,
  grpo_passk: grpoPassk,
  gigpo,
};

/** Computes one group (group-scope estimators only): the rows all share a uid. */
export function computeGroup(rows: Row[], c: AdvantageConfig): void {
  const fn = GROUP_FNS[c.estimator];
  if (fn) fn(rows, c);
  else computeBatch(rows, c);
}

/** Computes a whole batch: groups by uid where the estimator groups, statistics over the batch where it whitens. */
export function computeBatch(rows: Row[], c: AdvantageConfig): void {
  const fn = GROUP_FNS[c.estimator];
  if (fn) {
    for (const g of byGroup(rows)) fn(g, c);
    return;
  }
  if (c.estimator === 'reinforce_plus_plus') reinforcePP(rows, c);
  else if (c.estimator === 'reinforce_plus_plus_baseline') reinforcePPBaseline(rows, c);
  else if (c.aggregation === 'normalize_then_sum') trlNormalizeThenSum(rows, c);
  else trlSumThenNormalize(rows, c);
}
