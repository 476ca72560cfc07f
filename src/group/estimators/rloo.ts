// rloo (verl compute_rloo_outcome_advantage): s · n/(n-1) - mean · n/(n-1), i.e. s minus the mean
// of the other responses of its uid group.
import { live, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import { mean, scaled, scaleOf } from '../stats.js';

defineEstimator<Record<string, never>>({
  name: 'rloo',
  summary: 's_i · n/(n-1) - mean_G · n/(n-1) (s_i minus the mean of the others)',
  source: 'verl trainer/ppo/core_algos.py compute_rloo_outcome_advantage',
  options: {},
  resolve: () => ({}),
  scope: 'group',
  group(rows, c) {
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
  },
});
