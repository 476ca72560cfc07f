// trl_grpo (TRL GRPOTrainer._generate_and_score_completions): several reward functions per line
// (`scores`, or `components` named by reward_components), weighted and summed then normalised per
// group (sum_then_normalize), or each normalised within its group, summed, then normalised over the
// batch (normalize_then_sum, GDPO). TRL's epsilon 1e-4, nan-aware statistics.
import { z } from 'zod';
import type { ConfigIssue } from '../../core/errors.js';
import { describe } from '../../core/sample.js';
import { byGroup, live, single } from '../compute.js';
import type { AdvantageConfig } from '../config.js';
import { defineEstimator } from '../estimator.js';
import { badRow, finiteOrNull, isObj, whereOf, type Row } from '../rows.js';
import { scaled, scaleOf, stdUnbiased } from '../stats.js';

interface TrlOptions {
  scaleRewards: 'group' | 'batch' | 'none';
  aggregation: 'sum_then_normalize' | 'normalize_then_sum';
  rewardWeights?: number[];
  /** Read the rewards from these components of each line (`components.<name>.score`) instead of `scores`. */
  rewardComponents?: string[];
}

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

function weighted(c: AdvantageConfig<TrlOptions>, xs: number[], scale = 1): number {
  let s = 0;
  for (let k = 0; k < xs.length; k++) {
    const w = c.options.rewardWeights ? c.options.rewardWeights[k]! : 1;
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
function trlSumThenNormalize(batch: Row[], c: AdvantageConfig<TrlOptions>): void {
  sameWidth(batch);
  const groups = byGroup(batch).map((g) => live(g));
  // on the rewards / kr (kr = 1 unless their squares would leave the float64 range)
  const kr = scaleOf(groups.flatMap((g) => g.flatMap((x) => x.rewards!)));
  const r = new Map<Row, number>();
  for (const g of groups) for (const x of g) r.set(x, weighted(c, x.rewards!, kr));
  let batchStd = NaN;
  if (c.options.scaleRewards === 'batch') {
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
    const sd = c.options.scaleRewards === 'group' ? nanStd(vals) : batchStd;
    for (const x of g) {
      let a = r.get(x)! - m;
      a = c.options.scaleRewards !== 'none' ? a / (sd + TRL_EPS / kr) : a * kr;
      x.adv = Number.isNaN(a) ? 0 : a; // nan_to_num
    }
  }
}

/** normalize_then_sum (GDPO): each reward normalised within its group, summed, then over the batch. */
function trlNormalizeThenSum(batch: Row[], c: AdvantageConfig<TrlOptions>): void {
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

function read(rec: Record<string, unknown>, row: Row, cfg: AdvantageConfig<TrlOptions>): Row {
  const o = cfg.options;
  // With reward_components each component is its own reward function, valid or not on its own, as in TRL.
  if (rec.valid === false && !o.rewardComponents) {
    row.masked = 'invalid_grade';
    return row;
  }
  if (rec.valid !== undefined && typeof rec.valid !== 'boolean') return badRow(row, `field "valid" must be a boolean, got ${describe(rec.valid)}`);
  let vals: unknown[];
  let field: string;
  if (o.rewardComponents) {
    const comps = rec.components;
    if (!isObj(comps)) return badRow(row, 'field "components" is missing or not an object (reward_components reads components.<name>.score)');
    vals = o.rewardComponents.map((n) => {
      const c = comps[n];
      if (!isObj(c)) return undefined;
      return c.valid === false ? null : c.score;
    });
    const missing = o.rewardComponents.filter((_, i) => vals[i] === undefined);
    if (missing.length)
      return badRow(
        row,
        `component(s) ${missing.map((m) => `"${m}"`).join(', ')} missing from "components" (it has ${
          Object.keys(comps)
            .map((k) => `"${k}"`)
            .join(', ') || 'none'
        })`,
      );
    field = 'components';
  } else if (rec.scores !== undefined) {
    if (!Array.isArray(rec.scores)) return badRow(row, `field "scores" must be a list (one reward per reward function), got ${describe(rec.scores)}`);
    vals = rec.scores;
    field = 'scores';
  } else {
    if (rec.score === undefined) return badRow(row, 'field "score" (or "scores") is missing');
    vals = [rec.score];
    field = 'score';
  }
  const want = o.rewardWeights?.length;
  if (want !== undefined && vals.length !== want) return badRow(row, `${field} has ${vals.length} reward(s) but reward_weights has ${want}`);
  const rewards = new Array<number>(vals.length);
  let any = false;
  for (let i = 0; i < vals.length; i++) {
    const v = finiteOrNull(vals[i]);
    if (v === undefined) return badRow(row, `${field}${field === 'score' ? '' : `[${i}]`} must be a finite number or null, got ${describe(vals[i])}`);
    rewards[i] = v === null ? NaN : v;
    if (v !== null) any = true;
  }
  row.rewards = rewards;
  // TRL: a completion for which every reward function returned None is unscorable
  if (!any) row.masked = 'invalid_grade';
  return row;
}

function check(c: Record<string, unknown>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (c.multi_objective_aggregation === 'normalize_then_sum' && c.scale_rewards !== undefined) {
    issues.push({
      path: 'scale_rewards',
      message:
        'has no effect with multi_objective_aggregation "normalize_then_sum" (TRL normalises each reward per group, then the sum over the batch); leave it out',
    });
  }
  const w = c.reward_weights as number[] | undefined;
  const comps = c.reward_components as string[] | undefined;
  if (w && comps && w.length !== comps.length)
    issues.push({ path: 'reward_weights', message: `has ${w.length} weights but reward_components names ${comps.length} rewards` });
  if (comps && new Set(comps).size !== comps.length) issues.push({ path: 'reward_components', message: 'names a component twice' });
  return issues;
}

function resolve(c: Record<string, unknown>): TrlOptions {
  const sr = c.scale_rewards;
  const o: TrlOptions = {
    scaleRewards: sr === true || sr === undefined ? 'group' : sr === false ? 'none' : (sr as TrlOptions['scaleRewards']),
    aggregation: (c.multi_objective_aggregation as TrlOptions['aggregation'] | undefined) ?? 'sum_then_normalize',
  };
  if (c.reward_weights !== undefined) o.rewardWeights = c.reward_weights as number[];
  if (c.reward_components !== undefined) o.rewardComponents = c.reward_components as string[];
  return o;
}

const batchWide = (o: TrlOptions) => o.aggregation === 'normalize_then_sum' || o.scaleRewards === 'batch';

defineEstimator<TrlOptions>({
  name: 'trl_grpo',
  summary: "TRL's GRPO: weighted rewards normalised per group (or GDPO's normalize_then_sum)",
  source: 'TRL trl/trainer/grpo_trainer.py GRPOTrainer._generate_and_score_completions',
  options: {
    scale_rewards: z.union([z.enum(['group', 'batch', 'none']), z.boolean()]).optional(),
    reward_weights: z.array(z.number().finite()).min(1).max(1000).optional(),
    multi_objective_aggregation: z.enum(['sum_then_normalize', 'normalize_then_sum']).optional(),
    reward_components: z.array(z.string().min(1)).min(1).max(1000).optional(),
  },
  check,
  resolve,
  scope: (o) => (batchWide(o) ? 'batch' : 'group'),
  groupSizeRefusal: (o) =>
    batchWide(o)
      ? `trl_grpo with ${o.aggregation === 'normalize_then_sum' ? 'normalize_then_sum' : 'scale_rewards "batch"'} uses statistics over the whole batch, so no group can be finished early (set batch_size to bound memory)`
      : undefined,
  read,
  // computed per group when the statistics stay within it (sum_then_normalize with group or no scaling)
  group: (rows, c) => trlSumThenNormalize(rows, c),
  batch: (rows, c) => (c.options.aggregation === 'normalize_then_sum' ? trlNormalizeThenSum(rows, c) : trlSumThenNormalize(rows, c)),
});
