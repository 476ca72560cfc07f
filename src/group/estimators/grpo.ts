// grpo (verl compute_grpo_outcome_advantage): (s - mean) / (std + epsilon) within the uid group,
// std unbiased; without norm_adv_by_std_in_grpo, s - mean (Dr.GRPO).
import { z } from 'zod';
import { live, single } from '../compute.js';
import { defineEstimator } from '../estimator.js';
import { mean, scaled, scaleOf, stdUnbiased } from '../stats.js';

export interface GrpoOptions {
  epsilon: number;
  /** Divide by the group std (false = Dr.GRPO). */
  normByStd: boolean;
}

export const grpoOptions = {
  epsilon: z.number().positive().max(1).optional(),
  norm_adv_by_std_in_grpo: z.boolean().optional(),
};

export const resolveGrpo = (c: Record<string, unknown>): GrpoOptions => ({
  epsilon: (c.epsilon as number | undefined) ?? 1e-6,
  normByStd: (c.norm_adv_by_std_in_grpo as boolean | undefined) ?? true,
});

defineEstimator<GrpoOptions>({
  name: 'grpo',
  summary: '(s - mean_G) / (std_G + epsilon); with norm_adv_by_std_in_grpo false, s - mean_G (Dr.GRPO)',
  source: 'verl trainer/ppo/core_algos.py compute_grpo_outcome_advantage',
  options: grpoOptions,
  resolve: resolveGrpo,
  scope: 'group',
  group(rows, c) {
    const o = c.options;
    const xs = live(rows);
    if (xs.length === 0) return;
    if (xs.length === 1) {
      // verl: a group of one has mean 0 and std 1
      if (c.groupOfOne === 'zero') single(xs[0]!);
      else xs[0]!.adv = o.normByStd ? xs[0]!.score / (1 + o.epsilon) : xs[0]!.score;
      return;
    }
    const s = xs.map((r) => r.score);
    // on s / k: (s - m) / (sd + eps) = (y - my) / (sdy + eps / k)
    const k = scaleOf(s);
    const y = scaled(s, k);
    const m = mean(y);
    const sd = stdUnbiased(y, m);
    xs.forEach((r, i) => {
      r.adv = o.normByStd ? (y[i]! - m) / (sd + o.epsilon / k) : (y[i]! - m) * k;
    });
  },
});
