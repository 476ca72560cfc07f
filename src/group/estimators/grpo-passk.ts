// grpo_passk (verl compute_grpo_passk_outcome_advantage): only the best response of the uid group
// gets r_max - r_second (over std + epsilon when normalising); the others 0; ties: the first best.
import { live, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import { scaled, scaleOf, stdUnbiased } from '../stats.js';
import { grpoOptions, resolveGrpo, type GrpoOptions } from './grpo.js';

defineEstimator<GrpoOptions>({
  name: 'grpo_passk',
  summary: 'the best line only: (r_max - r_second) / (std_G + epsilon) (or unnormalised); others 0',
  source: 'verl trainer/ppo/core_algos.py compute_grpo_passk_outcome_advantage',
  options: grpoOptions,
  resolve: resolveGrpo,
  // verl refuses groups under 2 for Pass@k: there is no trainer arithmetic to choose
  groupOfOne: false,
  scope: 'group',
  group(rows, c) {
    const o = c.options;
    const xs = live(rows);
    if (xs.length === 0) return;
    if (xs.length === 1) {
      single(xs[0]!);
      return;
    }
    let iMax = 0;
    for (let i = 1; i < xs.length; i++) if (xs[i]!.score > xs[iMax]!.score) iMax = i;
    let second = -Infinity;
    for (let i = 0; i < xs.length; i++) if (i !== iMax && xs[i]!.score > second) second = xs[i]!.score;
    const s = xs.map((r) => r.score);
    const k = scaleOf(s);
    let a = xs[iMax]!.score / k - second / k;
    a = o.normByStd ? a / (stdUnbiased(scaled(s, k)) + o.epsilon / k) : a * k;
    for (const r of xs) r.adv = 0;
    xs[iMax]!.adv = a;
  },
});
