// opo (verl compute_opo_outcome_advantage): s - Σ(len · s) / Σ len, the length-weighted baseline of
// the uid group.
import { live, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import { whereOf } from '../rows.js';
import { scaleOf } from '../stats.js';

defineEstimator<Record<string, never>>({
  name: 'opo',
  summary: 's_i - Σ len·s / Σ len (length-weighted baseline)',
  source: 'verl trainer/ppo/core_algos.py compute_opo_outcome_advantage',
  options: {},
  resolve: () => ({}),
  reads: ['response_length'],
  scope: 'group',
  needsLength: true,
  group(rows, c) {
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
  },
});
