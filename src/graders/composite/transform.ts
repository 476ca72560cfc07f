// `transform`: a bounded / centred / clipped version of a sub-grader's score, against reward
// hacking: y = fn((x - center) / scale), then clipped to `clip`. `fn` is identity, sigmoid or tanh;
// `center` is a number or "group_mean" (the mean over the responses to the same prompt — a root-only
// group stage, graded through gradeGroup / POST /v1/groups). The input score and every step are logged.
import { z } from 'zod';
import { childFailure } from '../../core/result.js';
import type { Result } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { inGroupStage, needsGroup, registerGroupStage } from './group-stage.js';

const FNS = {
  identity: (x: number) => x,
  sigmoid: (x: number) => 1 / (1 + Math.exp(-x)),
  tanh: (x: number) => Math.tanh(x),
} as const;

const schema = graderSchema({
  grader: z.unknown(),
  fn: z.enum(['identity', 'sigmoid', 'tanh']).optional(),
  center: z.union([z.number().finite(), z.literal('group_mean')]).optional(),
  scale: z.number().positive().finite().optional(),
  clip: z.tuple([z.number(), z.number()]).optional(),
});
type Config = z.infer<typeof schema>;

function apply(x: number, center: number, scale: number, fn: keyof typeof FNS, clip: [number, number] | undefined) {
  const centered = (x - center) / scale;
  const transformed = FNS[fn](centered);
  let score = transformed;
  if (clip) score = Math.min(Math.max(score, clip[0]), clip[1]);
  return { score, meta: { input: x, center, centered, transformed, clipped: score !== transformed } };
}

export const transform: GraderType<Config> = {
  type: 'transform',
  summary: 'bounded/centred/clipped sub-grader score: clip(fn((x - center) / scale)), fn = identity | sigmoid | tanh; center may be the group mean',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    if (cfg.grader === undefined) b.fail('grader', 'required sub-grader "grader" is missing');
    const inner = b.child(cfg.grader, 'grader', 'grader');
    const fn = cfg.fn ?? 'identity';
    const scale = cfg.scale ?? 1;
    const clip = cfg.clip;
    if (clip && !(clip[0] <= clip[1])) b.issue('clip', `must be [min, max] with min <= max, got [${clip[0]}, ${clip[1]}]`);
    if (fn === 'identity' && cfg.center === undefined && cfg.scale === undefined && !clip)
      b.issue('fn', 'with fn "identity" and no center, scale or clip the transform does nothing');
    const group = cfg.center === 'group_mean';
    if (group && b.path !== '') b.fail('center', `center "group_mean" needs the whole group, so this transform must be the root grader (it is at ${b.path})`);
    const center = typeof cfg.center === 'number' ? cfg.center : 0;
    const name = b.name;
    return async (input, ctx) => {
      if (group && !inGroupStage(ctx)) throw needsGroup(name, 'centres its score on the group mean');
      const r = await inner.grade(input, ctx);
      const components: Record<string, Result> = { [inner.name]: r };
      if (!r.valid || r.score === null) throw childFailure(`sub-grader "${inner.name}"`, r, components);
      if (group)
        return {
          score: r.score,
          components,
          reason: `${fn} of the group-centred score, applied when graded as a group`,
          metadata: { fn, scale, input: r.score, group_stage: 'pending' },
        };
      const out = apply(r.score, center, scale, fn, clip);
      return {
        score: out.score,
        components,
        reason: `${fn}((${r.score} - ${out.meta.center}) / ${scale})${out.meta.clipped ? ', clipped' : ''} = ${out.score}`,
        metadata: { fn, scale, ...out.meta },
      };
    };
  },
};

registerGroupStage('transform', (config, results) => {
  const live = results.filter((r) => r.valid && r.metadata.group_stage === 'pending');
  if (live.length === 0) return;
  const xs = live.map((r) => r.metadata.input as number);
  const m = xs.reduce((a, x) => a + x, 0) / xs.length;
  const fn = (config.fn as keyof typeof FNS | undefined) ?? 'identity';
  const scale = (config.scale as number | undefined) ?? 1;
  const clip = config.clip as [number, number] | undefined;
  for (const r of live) {
    const out = apply(r.metadata.input as number, m, scale, fn, clip);
    r.score = out.score;
    Object.assign(r.metadata, out.meta, { group_stage: 'done', center_mode: 'group_mean', group_n: live.length });
  }
});
