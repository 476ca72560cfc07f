// `weighted_sum`: Σ weight_k × component_k over named sub-graders, with every component and its
// weighted part logged next to the total. `normalize: "group"` first normalises each component
// across the responses to the same prompt, (x - mean) / (std + epsilon) with the unbiased std
// (GDPO-style, before the sum); `"group_mean"` only centres. Both need the group, so they are only
// allowed at the root and grade through gradeGroup / POST /v1/groups.
import { z } from 'zod';
import { childFailure, type Result } from '../../core/result.js';
import type { Grader } from '../../core/grader.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { groupStats, inGroupStage, needsGroup, registerGroupStage } from './group-stage.js';

const schema = graderSchema({
  graders: z.record(z.string(), z.unknown()),
  /** Weight per sub-grader key (default 1). */
  weights: z.record(z.string(), z.number().finite()).optional(),
  normalize: z.enum(['none', 'group', 'group_mean']).optional(),
  /** Added to the group std (normalize "group" only; default 1e-6). */
  epsilon: z.number().positive().max(1).optional(),
});
type Config = z.infer<typeof schema>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const weightedSum: GraderType<Config> = {
  type: 'weighted_sum',
  summary: 'weighted sum of named sub-graders; normalize "group" normalises each component across the group first (GDPO-style)',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    const children: [string, Grader][] = [];
    for (const [key, c] of Object.entries(cfg.graders)) {
      if (!IDENT.test(key)) b.issue(`graders.${key}`, `sub-grader key "${key}" must be an identifier`);
      children.push([key, b.child(c, `graders.${key}`, key)]);
    }
    if (children.length === 0) b.fail('graders', 'needs at least one sub-grader');
    const weights: Record<string, number> = {};
    for (const [k] of children) weights[k] = cfg.weights?.[k] ?? 1;
    for (const k of Object.keys(cfg.weights ?? {}))
      if (!(k in cfg.graders)) b.issue(`weights.${k}`, `no sub-grader named "${k}" (sub-graders: ${children.map(([c]) => c).join(', ')})`);
    const mode = cfg.normalize ?? 'none';
    if (mode !== 'group' && cfg.epsilon !== undefined) b.issue('epsilon', 'only used with normalize "group"');
    if (mode !== 'none' && b.path !== '')
      b.fail('normalize', `normalize "${mode}" needs the whole group, so this weighted_sum must be the root grader (it is at ${b.path})`);
    const name = b.name;
    return async (input, ctx) => {
      if (mode !== 'none' && !inGroupStage(ctx)) throw needsGroup(name, mode === 'group' ? 'normalises each component' : 'centres each component');
      const results = await Promise.all(children.map(([, g]) => g.grade(input, ctx)));
      const components: Record<string, Result> = {};
      const raw: Record<string, number> = {};
      const weighted: Record<string, number> = {};
      let total = 0;
      for (let i = 0; i < children.length; i++) {
        const [k] = children[i]!;
        const r = results[i]!;
        components[k] = r;
        if (!r.valid || r.score === null) throw childFailure(`component "${k}"`, r, components);
        raw[k] = r.score;
        weighted[k] = weights[k]! * r.score;
        total += weighted[k]!;
      }
      const terms = Object.keys(raw)
        .map((k) => `${weights[k]} * ${k}(${raw[k]})`)
        .join(' + ');
      if (mode === 'none') return { score: total, components, reason: `${terms} = ${total}`, metadata: { weights, weighted } };
      return {
        score: total,
        components,
        reason: `${terms}; normalised across the group (${mode}) when graded as a group`,
        metadata: { weights, raw, group_stage: 'pending' },
      };
    };
  },
};

registerGroupStage('weighted_sum', (config, results) => {
  const mode = config.normalize as string;
  const eps = (config.epsilon as number | undefined) ?? 1e-6;
  const live = results.filter((r) => r.valid && r.metadata.group_stage === 'pending');
  if (live.length === 0) return;
  const weights = live[0]!.metadata.weights as Record<string, number>;
  const stats: Record<string, { mean: number; std: number | null; n: number }> = {};
  for (const k of Object.keys(weights)) {
    const st = groupStats(live.map((r) => (r.metadata.raw as Record<string, number>)[k]!));
    stats[k] = { mean: st.mean, std: Number.isNaN(st.std) ? null : st.std, n: st.n };
  }
  for (const r of live) {
    const raw = r.metadata.raw as Record<string, number>;
    const normalized: Record<string, number> = {};
    const weighted: Record<string, number> = {};
    let total = 0;
    for (const [k, w] of Object.entries(weights)) {
      const st = stats[k]!;
      // a lone response has no group to be normalised against: its component is 0
      const v = st.n < 2 ? 0 : mode === 'group' ? (raw[k]! - st.mean) / (st.std! + eps) : raw[k]! - st.mean;
      normalized[k] = v;
      weighted[k] = w * v;
      total += w * v;
    }
    r.score = total;
    Object.assign(r.metadata, { group_stage: 'done', normalize: mode, normalized, weighted, group: stats });
  }
});
