// prime (PRIME-RL/PRIME training/verl/trainer/ppo/core_algos.py compute_rloo_returns, with the
// process rewards' batch_norm of training/verl/workers/actor/dp_prime.py): RLOO applied to each
// reward source on its own — the implicit process rewards (one per response token, field
// `process_rewards`) and the outcome reward (`score`, on the last token) — each turned into a
// discounted return, the returns summed, and the sum whitened over every response token of the batch.
// `process_rewards_from` names another field (a dotted path), so that the token rewards the `prm`
// protocol `implicit` puts in a component's metadata feed the estimator in the same pass.
import { z } from 'zod';
import { getPath } from '../../io/path.js';
import { byGroup, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import { badRow, MAX_RESPONSE_TOKENS, readScore, type Row } from '../rows.js';
import { whiten, withTokens, type TokenValues } from '../whiten.js';

interface PrimeOptions {
  /** PRIME's reward_model_gamma: the discount of the process-reward return. */
  processGamma: number;
  /** PRIME's verifier_gamma: the discount of the outcome-reward return. */
  outcomeGamma: number;
  /** PRIME's prime_norm: "batch_norm" divides every process reward by the batch's largest |reverse cumulative sum| + 1e-6. */
  processNorm: 'batch_norm' | 'none';
  /** Where the per-token process rewards are (dotted path; default "process_rewards"). */
  processFrom: string;
}

/** dp_prime.py's offset in the batch_norm denominator. */
const NORM_EPS = 1e-6;

/** Per row: the RLOO-transformed process rewards are p_t · f - pBase, the outcome's o · f - oBase (f = n/(n-1)). */
interface GroupTerms {
  f: number;
  pBase: number;
  oAdv: number;
}

defineEstimator<PrimeOptions>({
  name: 'prime',
  summary:
    'per token: RLOO of the process rewards (p_t·n/(n-1) - Σ_j mean(p_j)/(n-1)) and of the outcome (s_i minus the mean of the others, on the last token), each a discounted return, summed, whitened over the batch',
  source: 'PRIME-RL/PRIME training/verl/trainer/ppo/core_algos.py compute_rloo_returns',
  options: {
    process_gamma: z.number().min(0).max(1).optional(),
    outcome_gamma: z.number().min(0).max(1).optional(),
    process_norm: z.enum(['batch_norm', 'none']).optional(),
    process_rewards_from: z.string().min(1).max(200).optional(),
  },
  resolve: (c) => ({
    processGamma: (c.process_gamma as number | undefined) ?? 1.0,
    outcomeGamma: (c.outcome_gamma as number | undefined) ?? 1.0,
    processNorm: (c.process_norm as PrimeOptions['processNorm'] | undefined) ?? 'batch_norm',
    processFrom: (c.process_rewards_from as string | undefined) ?? 'process_rewards',
  }),
  // n/(n-1) has no value for a group of one: such a line is always masked single_in_group
  groupOfOne: false,
  reads: ['response_length', 'process_rewards'],
  scope: 'batch',
  tokenLevel: true,
  needsLength: true,
  read(rec, row, cfg) {
    // an invalid grade has no process rewards to read: it is masked as invalid
    if (rec.valid === false) return readScore(rec, row, cfg);
    const from = cfg.options.processFrom;
    const p = getPath(rec, from);
    if (p !== undefined) {
      if (!Array.isArray(p) || !p.every((x) => typeof x === 'number' && Number.isFinite(x)))
        return badRow(row, `field "${from}" must be a list of finite numbers (one implicit process reward per response token)`);
      if (p.length > MAX_RESPONSE_TOKENS) return badRow(row, `${from} has ${p.length} entries, over the limit of ${MAX_RESPONSE_TOKENS}`, 'limit_exceeded');
      if (row.len >= 0 && row.len !== p.length) return badRow(row, `${from} has ${p.length} entries but response_length is ${row.len}`);
      row.len = p.length;
      row.tokenRewards = p as number[];
    }
    return readScore(rec, row, cfg);
  },
  batch(batch, c) {
    const { processGamma, outcomeGamma, processNorm } = c.options;
    let xs = withTokens(batch);
    // one batch, one set of reward sources: a line without process rewards beside lines with them is refused
    if (xs.some((r) => r.tokenRewards) && xs.some((r) => !r.tokenRewards)) {
      for (const r of xs)
        if (!r.tokenRewards)
          badRow(
            r,
            `field "${c.options.processFrom}" is missing, but other lines of the batch have it (PRIME needs both reward sources on every line or none)`,
          );
      xs = xs.filter((r) => r.tokenRewards);
    }
    const groups: Row[][] = [];
    for (const g of byGroup(xs)) {
      if (g.length === 1) single(g[0]!);
      else groups.push(g);
    }
    const rows = groups.flat();
    // batch_norm (dp_prime.py): divide by the largest |Σ_{s>=t} p_s| over the batch's tokens, plus 1e-6
    let scale = 1;
    if (processNorm === 'batch_norm' && rows.some((r) => r.tokenRewards)) {
      let top = 0;
      for (const r of rows) {
        let run = 0;
        const p = r.tokenRewards!;
        for (let t = p.length - 1; t >= 0; t--) {
          run += p[t]!;
          if (Math.abs(run) > top) top = Math.abs(run);
        }
      }
      scale = 1 / (top + NORM_EPS);
    }
    const terms = new Map<Row, GroupTerms>();
    for (const g of groups) {
      const n = g.length;
      const f = n / (n - 1);
      // the process baseline: every line's mean process reward (its own included), summed, over n - 1
      let meanSum = 0;
      let outSum = 0;
      for (const r of g) {
        outSum += r.score;
        if (r.tokenRewards) {
          let s = 0;
          for (const x of r.tokenRewards) s += x * scale;
          meanSum += s / r.tokenRewards.length;
        }
      }
      const pBase = meanSum / (n - 1);
      for (const r of g) terms.set(r, { f, pBase, oAdv: r.score * f - outSum / (n - 1) });
    }
    const values: TokenValues = (r) => {
      const t = terms.get(r)!;
      const p = r.tokenRewards;
      const out = new Float64Array(r.len);
      let proc = 0;
      let outc = 0;
      for (let i = r.len - 1; i >= 0; i--) {
        if (p) proc = p[i]! * scale * t.f - t.pBase + processGamma * proc;
        outc = (i === r.len - 1 ? t.oAdv : 0) + outcomeGamma * outc;
        out[i] = proc + outc;
      }
      return out;
    };
    whiten(rows, values);
  },
});
