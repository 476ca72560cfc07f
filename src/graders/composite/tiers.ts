// `tiers`: hierarchical gates. Tier i is graded only when every earlier tier reached its
// threshold; each graded tier adds weight × score, later tiers are skipped (and listed) after the
// first that falls short. E.g. format (0.1) → correctness (0.8) → conciseness (0.1): length is
// rewarded only for well-formatted correct answers.
import { z } from 'zod';
import { childFailure, type Result } from '../../core/result.js';
import type { Grader } from '../../core/grader.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';

const tier = z.strictObject({
  name: z.string().min(1).optional(),
  grader: z.unknown(),
  /** Score this tier must reach for the next one to be graded (default 1). */
  threshold: z.number().optional(),
  /** Multiplies this tier's score in the total (default 1). */
  weight: z.number().finite().optional(),
});

const schema = graderSchema({ tiers: z.array(tier).min(1).max(64) });
type Config = z.infer<typeof schema>;

export const tiers: GraderType<Config> = {
  type: 'tiers',
  summary: 'hierarchical gates: each tier is graded only when the earlier ones pass; the total is Σ weight × score of the graded tiers',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    const built: { name: string; g: Grader; threshold: number; weight: number }[] = [];
    cfg.tiers.forEach((t, i) => {
      if (t.grader === undefined) b.fail(`tiers[${i}].grader`, 'required sub-grader "grader" is missing');
      const gname =
        t.grader && typeof t.grader === 'object' && typeof (t.grader as { name?: unknown }).name === 'string' ? (t.grader as { name: string }).name : undefined;
      const name = t.name ?? gname ?? `tier_${i}`;
      if (built.some((x) => x.name === name)) b.issue(`tiers[${i}].name`, `duplicate tier name "${name}"`);
      if (i === cfg.tiers.length - 1 && t.threshold !== undefined)
        b.issue(`tiers[${i}].threshold`, 'the last tier has no tier after it to gate (leave threshold out)');
      built.push({ name, g: b.child(t.grader, `tiers[${i}].grader`, name), threshold: t.threshold ?? 1, weight: t.weight ?? 1 });
    });
    return async (input, ctx) => {
      const components: Record<string, Result> = {};
      const contributions: Record<string, number> = {};
      let total = 0;
      let reached = 0;
      for (let i = 0; i < built.length; i++) {
        const t = built[i]!;
        const r = await t.g.grade(input, ctx);
        components[t.name] = r;
        if (!r.valid || r.score === null) throw childFailure(`tier "${t.name}"`, r, components);
        contributions[t.name] = t.weight * r.score;
        total += t.weight * r.score;
        reached = i + 1;
        if (i < built.length - 1 && r.score < t.threshold) {
          const skipped = built.slice(i + 1).map((x) => x.name);
          return {
            score: total,
            components,
            reason: `tier "${t.name}" scored ${r.score} < ${t.threshold}: skipped ${skipped.join(', ')}`,
            metadata: { reached, contributions, skipped },
          };
        }
      }
      return { score: total, components, reason: `every tier passed its threshold; total ${total}`, metadata: { reached, contributions, skipped: [] } };
    };
  },
};
