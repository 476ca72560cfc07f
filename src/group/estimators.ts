// The advantage estimators, written from the trainers' definitions (verl trainer/ppo/core_algos.py,
// verl-agent gigpo/core_gigpo.py, TRL GRPOTrainer._generate_and_score_completions). Masked rows
// (invalid grades, bad input) never enter a statistic; they keep advantage 0. Arithmetic is float64
// (the trainers use float32), so values agree to ~1e-7. Scores so large or small that their squares
// leave the float64 range are divided by a power of two first (scaleOf: exact, and 1 for ordinary
// scores, which then take the plain arithmetic); an advantage whose true value is itself outside
// the range is masked `out_of_range` (maskNonFinite), never written as 0 or clamped.
import type { AdvantageConfig } from './config.js';
import { whereOf, type GroupKey, type Row } from './rows.js';
import { mean, scaled, scaleOf, stdUnbiased } from './stats.js';

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
  // on s / k: (s - m) / (sd + eps) = (y - my) / (sdy + eps / k)
  const k = scaleOf(s);
  const y = scaled(s, k);
  const m = mean(y);
  const sd = stdUnbiased(y, m);
  xs.forEach((r, i) => {
    r.adv = c.normByStd ? (y[i]! - m) / (sd + c.epsilon / k) : (y[i]! - m) * k;
  });
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
  const s = xs.map((r) => r.score);
  const k = scaleOf(s);
  const y = scaled(s, k);
  const m = mean(y);
  const f = n / (n - 1);
  xs.forEach((r, i) => {
    r.adv = (y[i]! * f - m * f) * k;
  });
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
  const k = scaleOf(xs.map((r) => r.score));
  let sl = 0;
  let sls = 0;
  for (const r of xs) {
    sl += r.len;
    sls += r.len * (r.score / k);
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
  for (const r of xs) r.adv = (r.score / k - bsl) * k;
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
  const s = xs.map((r) => r.score);
  const k = scaleOf(s);
  let a = xs[iMax]!.score / k - second / k;
  a = c.normByStd ? a / (stdUnbiased(scaled(s, k)) + c.epsilon / k) : a * k;
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
    const k = scaleOf(s);
    const y = scaled(s, k);
    const m = mean(y);
    const sd = stdUnbiased(y, m);
    xs.forEach((r, i) => ep.set(r, remove ? (y[i]! - m) * k : (y[i]! - m) / (sd + c.epsilon / k)));
  }
  // discounted step returns per trajectory, in the order the steps appear
  const ret = new Map<Row, number>();
  const trajs = new Map<GroupKey, Row[]>();
  for (const r of xs) {
    let t = trajs.get(r.traj!);
    if (!t) trajs.set(r.traj!, (t = []));
    t.push(r);
  }
  // the returns on step rewards / ks (ks = 1 unless their squares would leave the float64 range)
  const ks = scaleOf(xs.map((r) => r.stepReward));
  for (const t of trajs.values()) {
    let running = 0;
    for (let i = t.length - 1; i >= 0; i--) {
      running = t[i]!.stepReward / ks + c.gamma * running;
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
      const st = remove ? (ret.get(r)! - m) * ks : (ret.get(r)! - m) / (sd + c.epsilon / ks);
      r.adv = ep.get(r)! + c.stepAdvantageW * st;
    }
  }
}

// ---- TRL GRPO ----

const TRL_EPS = 1e-4;

function nanMean(xs: number[]): number {
  let s = 0;
  let n = 0;
  for (const x of xs) {
    if (Number.isNaN(x)) continue;
    s += x;
    n++;
  }
  return n ? s / n : NaN;
}

/** TRL's nanstd: unbiased over the non-NaN values, NaN with fewer than two. */
function nanStd(xs: number[]): number {
  const v = xs.filter((x) => !Number.isNaN(x));
  return v.length > 1 ? stdUnbiased(v) : NaN;
}

function weighted(c: AdvantageConfig, xs: number[], scale = 1): number {
  let s = 0;
  for (let k = 0; k < xs.length; k++) {
    const w = c.rewardWeights ? c.rewardWeights[k]! : 1;
    const v = w * (xs[k]! / scale);
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
  // on the rewards / kr (kr = 1 unless their squares would leave the float64 range)
  const kr = scaleOf(groups.flatMap((g) => g.flatMap((x) => x.rewards!)));
  const r = new Map<Row, number>();
  for (const g of groups) for (const x of g) r.set(x, weighted(c, x.rewards!, kr));
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
      a = c.scaleRewards !== 'none' ? a / (sd + TRL_EPS / kr) : a * kr;
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
      const raw = g.map((x) => x.rewards![k] ?? NaN);
      const kc = scaleOf(raw);
      const col = scaled(raw, kc);
      const m = nanMean(col);
      const sd = nanStd(col);
      for (let i = 0; i < g.length; i++) norm[i]![k] = (col[i]! - m) / (sd + TRL_EPS / kc);
    }
    g.forEach((x, i) => r.set(x, weighted(c, norm[i]!)));
  }
  const kv = scaleOf([...r.values()]);
  const vals = scaled([...r.values()], kv);
  const m = nanMean(vals);
  const sd = vals.length > 1 ? nanStd(vals) : 0;
  for (const [x, v] of r) {
    const a = (v / kv - m) / (sd + TRL_EPS / kv);
    x.adv = Number.isNaN(a) ? 0 : a;
  }
}

// ---- token-level, whitened over the batch's response tokens (verl masked_whiten) ----

/** A row's token values, generated on demand (both statistics passes and the output call it). */
type TokenValues = (r: Row) => Float64Array;

/**
 * verl masked_whiten over every token of `rows`: mean = Σv / (N + 1e-8), variance = Σ(v - mean)² /
 * (N + 1e-8) · N / (N - 1), whitened = (v - mean) / sqrt(variance + 1e-8). Two passes, like verl;
 * the token values are regenerated per row rather than held for the whole batch. `values` (and
 * `constant`) give the token values divided by `k` (1 unless their squares would leave the float64
 * range): then (v - mean) / sqrt(variance + 1e-8) = (y - my) / sqrt(variance_y + 1e-8 / k²).
 */
function whiten(rows: Row[], values: TokenValues, constant?: Map<Row, number>, k = 1): void {
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
  // each row's largest |v - mean|: its token advantages are finite when that one's is
  const far = new Map<Row, number>();
  for (const r of rows) {
    const c = constant?.get(r);
    if (c !== undefined) {
      ss += r.len * (c - m) ** 2;
      far.set(r, Math.abs(c - m));
    } else {
      const v = values(r);
      let f = 0;
      for (let t = 0; t < v.length; t++) {
        const d = v[t]! - m;
        ss += d * d;
        if (Math.abs(d) > f) f = Math.abs(d);
      }
      far.set(r, f);
    }
  }
  const variance = (ss / (n + WHITEN_EPS)) * (n / (n - 1));
  const inv =
    k === 1 ? 1 / Math.sqrt(variance + WHITEN_EPS) : k > 1 ? 1 / Math.sqrt(variance + WHITEN_EPS / k / k) : k / Math.sqrt(k * k * variance + WHITEN_EPS);
  for (const r of rows) {
    r.whiten = { mean: m, inv, values };
    const c = constant?.get(r);
    r.adv = ((c ?? values(r)[0]!) - m) * inv;
    if (!Number.isFinite(far.get(r)! * inv)) r.adv = NaN; // some token's advantage is out of range: maskNonFinite masks the row
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
  const rows = withTokens(batch);
  const k = scaleOf(rows.flatMap((r) => r.tokenRewards ?? [r.score]));
  const returns: TokenValues = (r) => {
    const ret = new Float64Array(r.len);
    let running = 0;
    for (let t = r.len - 1; t >= 0; t--) {
      const reward = r.tokenRewards ? r.tokenRewards[t]! : t === r.len - 1 ? r.score : 0;
      running = reward / k + gamma * running;
      ret[t] = running;
    }
    return ret;
  };
  whiten(rows, returns, undefined, k);
}

/** reinforce_plus_plus_baseline: s minus the group mean on every token, whitened over the batch tokens. */
function reinforcePPBaseline(batch: Row[], c: AdvantageConfig): void {
  const xs = withTokens(batch);
  const k = scaleOf(xs.map((r) => r.score));
  const centred = new Map<Row, number>();
  for (const g of byGroup(xs)) {
    if (g.length === 1) {
      if (c.groupOfOne === 'zero') single(g[0]!);
      else centred.set(g[0]!, g[0]!.score / k); // verl: mean 0 for a group of one
      continue;
    }
    const m = mean(g.map((r) => r.score / k));
    for (const r of g) centred.set(r, r.score / k - m);
  }
  const values: TokenValues = (r) => new Float64Array(r.len).fill(centred.get(r)!);
  whiten([...centred.keys()], values, centred, k);
}

const GROUP_FNS: Partial<Record<AdvantageConfig['estimator'], (rows: Row[], c: AdvantageConfig) => void>> = {
  grpo,
  rloo,
  opo,
  grpo_passk: grpoPassk,
  gigpo,
};

/**
 * Masks `out_of_range` every row whose advantage came out non-finite: its true value (or one of its
 * token advantages) is beyond the float64 range (e.g. RLOO on scores ±1e308), so no number written
 * for it would be right.
 */
function maskNonFinite(rows: Row[]): void {
  for (const r of rows) {
    if (r.masked || Number.isFinite(r.adv)) continue;
    r.masked = 'out_of_range';
    r.error = { kind: 'limit_exceeded', message: `${whereOf(r)}: the advantage is outside the float64 range (scores too far apart for this estimator)` };
    r.adv = 0;
  }
}

/** Computes one group (group-scope estimators only): the rows all share a uid. */
export function computeGroup(rows: Row[], c: AdvantageConfig): void {
  const fn = GROUP_FNS[c.estimator];
  if (fn) {
    fn(rows, c);
    maskNonFinite(rows);
  } else computeBatch(rows, c);
}

/** Computes a whole batch: groups by uid where the estimator groups, statistics over the batch where it whitens. */
export function computeBatch(rows: Row[], c: AdvantageConfig): void {
  const fn = GROUP_FNS[c.estimator];
  if (fn) for (const g of byGroup(rows)) fn(g, c);
  else if (c.estimator === 'reinforce_plus_plus') reinforcePP(rows, c);
  else if (c.estimator === 'reinforce_plus_plus_baseline') reinforcePPBaseline(rows, c);
  else if (c.aggregation === 'normalize_then_sum') trlNormalizeThenSum(rows, c);
  else trlSumThenNormalize(rows, c);
  maskNonFinite(rows);
}
