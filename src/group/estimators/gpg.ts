// gpg (verl compute_gpg_outcome_advantage, GPG: "Group Policy Gradient"): the group-centred score
// scaled by the batch's share of non-zero rewards, alpha · (s - mean_G) / f_norm with
// alpha = (scorable lines of the batch) / max(1, lines whose score is not 0). No std division.
// verl counts every line of the batch; here, as for every estimator, lines that are not scorable
// (invalid grades, malformed, filtered, and with group_of_one "zero" the lone line of a group) are
// left out of both counts.
import { z } from 'zod';
import { byGroup, live, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import type { Row } from '../rows.js';
import { mean, scaled, scaleOf } from '../stats.js';

defineEstimator<{ fNorm: number }>({
  name: 'gpg',
  summary: 'alpha · (s_i - mean_G) / f_norm, alpha = scorable lines of the batch / lines with a non-zero score',
  source: 'verl trainer/ppo/core_algos.py compute_gpg_outcome_advantage',
  options: { f_norm: z.number().positive().finite().optional() },
  resolve: (c) => ({ fNorm: (c.f_norm as number | undefined) ?? 1.0 }),
  // alpha counts over the whole batch
  scope: 'batch',
  batch(batch, c) {
    const centred = new Map<Row, number>();
    for (const g of byGroup(batch)) {
      const xs = live(g);
      if (xs.length === 0) continue;
      if (xs.length === 1) {
        if (c.groupOfOne === 'zero') single(xs[0]!);
        else centred.set(xs[0]!, xs[0]!.score); // verl: mean 0 for a group of one
        continue;
      }
      const s = xs.map((r) => r.score);
      const k = scaleOf(s);
      const y = scaled(s, k);
      const m = mean(y);
      xs.forEach((r, i) => centred.set(r, (y[i]! - m) * k));
    }
    let nonZero = 0;
    for (const r of centred.keys()) if (r.score !== 0) nonZero++;
    const alpha = centred.size / Math.max(1, nonZero);
    for (const [r, d] of centred) r.adv = (alpha * d) / c.options.fNorm;
  },
});
