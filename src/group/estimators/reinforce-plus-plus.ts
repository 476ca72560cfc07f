// reinforce_plus_plus (verl compute_reinforce_plus_plus_outcome_advantage): per token, the
// discounted return R_t = r_t + gamma · R_{t+1} (the score on the last token unless
// token_level_rewards are given), whitened over every response token of the batch.
import { z } from 'zod';
import { defineEstimator } from '../estimator.js';
import { badRow, readScore, requireLength } from '../rows.js';
import { scaleOf } from '../stats.js';
import { MAX_RESPONSE_TOKENS } from '../rows.js';
import { whiten, withTokens, type TokenValues } from '../whiten.js';

defineEstimator<{ gamma: number }>({
  name: 'reinforce_plus_plus',
  summary: 'per token: discounted return R_t = r_t + gamma · R_{t+1}, whitened over every response token of the batch',
  source: 'verl trainer/ppo/core_algos.py compute_reinforce_plus_plus_outcome_advantage',
  options: { gamma: z.number().min(0).max(1).optional() },
  resolve: (c) => ({ gamma: (c.gamma as number | undefined) ?? 1.0 }),
  groupOfOne: false,
  reads: ['response_length', 'token_level_rewards'],
  scope: 'batch',
  tokenLevel: true,
  needsLength: true,
  needsUid: false,
  filters: false,
  read(rec, row, cfg) {
    const t = rec.token_level_rewards;
    if (t !== undefined) {
      if (!Array.isArray(t) || !t.every((x) => typeof x === 'number' && Number.isFinite(x)))
        return badRow(row, 'field "token_level_rewards" must be a list of finite numbers');
      if (t.length > MAX_RESPONSE_TOKENS)
        return badRow(row, `token_level_rewards has ${t.length} entries, over the limit of ${MAX_RESPONSE_TOKENS}`, 'limit_exceeded');
      if (row.len >= 0 && row.len !== t.length) return badRow(row, `token_level_rewards has ${t.length} entries but response_length is ${row.len}`);
      row.len = t.length;
      row.tokenRewards = t as number[];
    }
    return requireLength(row, cfg) ?? readScore(rec, row, cfg);
  },
  batch(batch, c) {
    const gamma = c.options.gamma;
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
  },
});
