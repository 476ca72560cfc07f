// gigpo (verl-agent gigpo/core_gigpo.py compute_gigpo_outcome_advantage): an episode part over
// every step row of the uid group plus step_advantage_w × a step part over the steps whose anchor
// observation is identical (discounted step returns along each trajectory).
import { z } from 'zod';
import { live, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import { badRow, canonical, finiteOrNull, key, type GroupKey, type Row } from '../rows.js';
import { describe } from '../../core/sample.js';
import { mean, scaled, scaleOf, stdUnbiased } from '../stats.js';

interface GigpoOptions {
  mode: 'mean_norm' | 'mean_std_norm';
  stepAdvantageW: number;
  gamma: number;
  epsilon: number;
}

defineEstimator<GigpoOptions>({
  name: 'gigpo',
  summary: 'episode part + step_advantage_w × step part (steps grouped by identical anchor_obs)',
  source: 'verl-agent gigpo/core_gigpo.py compute_gigpo_outcome_advantage',
  options: {
    mode: z.enum(['mean_norm', 'mean_std_norm']).optional(),
    step_advantage_w: z.number().finite().optional(),
    gamma: z.number().min(0).max(1).optional(),
    epsilon: z.number().positive().max(1).optional(),
    enable_similarity: z.boolean().optional(),
  },
  check: (c) =>
    c.enable_similarity === true
      ? [
          {
            path: 'enable_similarity',
            message: 'similarity-based step groups are not supported: anchor observations are grouped by exact equality (leave enable_similarity out or false)',
          },
        ]
      : [],
  resolve: (c) => ({
    mode: (c.mode as GigpoOptions['mode'] | undefined) ?? 'mean_norm',
    stepAdvantageW: (c.step_advantage_w as number | undefined) ?? 1.0,
    gamma: (c.gamma as number | undefined) ?? 1.0,
    epsilon: (c.epsilon as number | undefined) ?? 1e-6,
  }),
  reads: ['traj_uid', 'anchor_obs', 'step_reward', 'episode_return'],
  scope: 'group',
  groupSizeRefusal: () => 'a GiGPO group holds every step of every trajectory of a prompt, so its line count varies (set batch_size to bound memory)',
  filters: false,
  read(rec, row) {
    const t = key(rec.traj_uid);
    if (t === undefined)
      return badRow(
        row,
        rec.traj_uid === undefined
          ? 'field "traj_uid" (the trajectory) is missing'
          : `field "traj_uid" must be a string or number, got ${describe(rec.traj_uid)}`,
      );
    row.traj = t;
    if (rec.anchor_obs === undefined) return badRow(row, 'field "anchor_obs" (the observation this step acted on) is missing');
    row.anchor = canonical(rec.anchor_obs);
    if (rec.valid === false) {
      row.masked = 'invalid_grade';
      return row;
    }
    if (rec.valid !== undefined && typeof rec.valid !== 'boolean') return badRow(row, `field "valid" must be a boolean, got ${describe(rec.valid)}`);
    const er = finiteOrNull(rec.episode_return);
    const sr = finiteOrNull(rec.step_reward);
    if (er === null || sr === null) {
      row.masked = 'invalid_grade';
      return row;
    }
    if (er === undefined)
      return badRow(
        row,
        rec.episode_return === undefined
          ? 'field "episode_return" is missing'
          : `field "episode_return" must be a finite number, got ${describe(rec.episode_return)}`,
      );
    if (sr === undefined)
      return badRow(
        row,
        rec.step_reward === undefined ? 'field "step_reward" is missing' : `field "step_reward" must be a finite number, got ${describe(rec.step_reward)}`,
      );
    row.score = er;
    row.stepReward = sr;
    return row;
  },
  group(rows, c) {
    const o = c.options;
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
    const remove = o.mode === 'mean_norm';
    if (xs.length === 1 && c.groupOfOne === 'zero') {
      single(xs[0]!);
      return;
    }
    // episode advantage: statistics over every step row of the group (compute_mean_std_cross_steps)
    const ep = new Map<Row, number>();
    if (xs.length === 1) {
      const s = xs[0]!.score;
      ep.set(xs[0]!, remove ? s : s / (1 + o.epsilon)); // verl-agent: mean 0, std 1
    } else {
      const s = xs.map((r) => r.score);
      const k = scaleOf(s);
      const y = scaled(s, k);
      const m = mean(y);
      const sd = stdUnbiased(y, m);
      xs.forEach((r, i) => ep.set(r, remove ? (y[i]! - m) * k : (y[i]! - m) / (sd + o.epsilon / k)));
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
        running = t[i]!.stepReward / ks + o.gamma * running;
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
        r.adv = ep.get(r)! + o.stepAdvantageW * 0;
        continue;
      }
      const v = k.map((r) => ret.get(r)!);
      const m = mean(v);
      const sd = stdUnbiased(v, m);
      for (const r of k) {
        const st = remove ? (ret.get(r)! - m) * ks : (ret.get(r)! - m) / (sd + o.epsilon / ks);
        r.adv = ep.get(r)! + o.stepAdvantageW * st;
      }
    }
  },
});
