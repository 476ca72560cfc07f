// reinforce_plus_plus_baseline (verl compute_reinforce_plus_plus_baseline_outcome_advantage): per
// token, s minus its uid group's mean, whitened over every response token of the batch.
import { byGroup, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import type { Row } from '../rows.js';
import { mean, scaleOf } from '../stats.js';
import { whiten, withTokens, type TokenValues } from '../whiten.js';

defineEstimator<Record<string, never>>({
  name: 'reinforce_plus_plus_baseline',
  summary: 'per token: s_i - mean_G, whitened over every response token of the batch',
  source: 'verl trainer/ppo/core_algos.py compute_reinforce_plus_plus_baseline_outcome_advantage',
  options: {},
  resolve: () => ({}),
  reads: ['response_length'],
  scope: 'batch',
  tokenLevel: true,
  needsLength: true,
  batch(batch, c) {
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
  },
});
