// `gate`: run the `gate` grader first; only when it passes (score >= threshold) run `then` and use
// its score, otherwise score `otherwise` without running `then`. E.g. "shorter is better only when
// correct": gate = math correctness, then = a length reward.
import { z } from 'zod';
import { childFailure, type Result } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';

const schema = graderSchema({
  gate: z.unknown(),
  then: z.unknown(),
  threshold: z.number().optional(),
  otherwise: z.number().optional(),
});

export const gate: GraderType<z.infer<typeof schema>> = {
  type: 'gate',
  summary: 'score `then` only when the `gate` grader passes its threshold, else `otherwise` (default 0)',
  schema,
  capabilities: PURE, // own; the registry adds gate's and then's
  build(cfg, b) {
    if (cfg.gate === undefined) b.fail('gate', 'required sub-grader "gate" is missing');
    if (cfg.then === undefined) b.fail('then', 'required sub-grader "then" is missing');
    const g = b.child(cfg.gate, 'gate', 'gate');
    const t = b.child(cfg.then, 'then', 'then');
    const threshold = cfg.threshold ?? 1;
    const otherwise = cfg.otherwise ?? 0;
    return async (input, ctx) => {
      const gr = await g.grade(input, ctx);
      const components: Record<string, Result> = { gate: gr };
      if (!gr.valid || gr.score === null) {
        throw childFailure('gate', gr, components);
      }
      if (gr.score < threshold) {
        return { score: otherwise, components, reason: `gate scored ${gr.score} < ${threshold}` };
      }
      const tr = await t.grade(input, ctx);
      components.then = tr;
      if (!tr.valid || tr.score === null) {
        throw childFailure('then-grader', tr, components);
      }
      return { score: tr.score, components, reason: `gate scored ${gr.score} >= ${threshold}; then: ${tr.reason ?? `score ${tr.score}`}` };
    };
  },
};
