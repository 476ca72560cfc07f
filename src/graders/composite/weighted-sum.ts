// `weighted_sum`: Σ weight_k × component_k over named sub-graders, with every component and its
// weighted part logged next to the total. `normalize: "group"` first normalises each component
// across the responses to the same prompt, (x - mean) / (std + epsilon) with the unbiased std
// (GDPO-style, before the sum); `"group_mean"` only centres. Both need the group, so they are only
// allowed at the root and grade through gradeGroup / POST /v1/groups. A weight may be a formula
// over the components (formula.ts), e.g. SophiaVL-R1's trust weight
// "group_mean(think, acc == 1) >= group_mean(think, acc != 1) ? 1 : exp(...)": one with group
// functions makes the grader a group stage too, and is evaluated on the raw (un-normalised) values.
import { z } from 'zod';
import { childFailure, GradeFailure, type Result } from '../../core/result.js';
import type { Grader } from '../../core/grader.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { compileFormula, FormulaError, groupScope, type Env, type Formula, type GroupScope } from './formula.js';
import { groupStats, inGroupStage, needsGroup, registerGroupStage } from './group-stage.js';

const schema = graderSchema({
  graders: z.record(z.string(), z.unknown()),
  /** Weight per sub-grader key (default 1): a number, or a formula over the components. */
  weights: z.record(z.string(), z.union([z.number().finite(), z.string().min(1)])).optional(),
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
    const formulas: Record<string, Formula> = {};
    for (const [k] of children) {
      const w = cfg.weights?.[k] ?? 1;
      if (typeof w === 'number') {
        weights[k] = w;
        continue;
      }
      const f = compileWeight(w, `weights.${k}`, children, b);
      if (f) formulas[k] = f;
    }
    for (const k of Object.keys(cfg.weights ?? {}))
      if (!(k in cfg.graders)) b.issue(`weights.${k}`, `no sub-grader named "${k}" (sub-graders: ${children.map(([c]) => c).join(', ')})`);
    const groupWeights = Object.entries(formulas).filter(([, f]) => f.groupCalls.length > 0);
    if (groupWeights.length && b.path !== '')
      b.fail(
        `weights.${groupWeights[0]![0]}`,
        `${groupWeights[0]![1].groupCalls[0]} needs the whole group, so this weighted_sum must be the root grader (it is at ${b.path})`,
      );
    const mode = cfg.normalize ?? 'none';
    const pending = mode !== 'none' || groupWeights.length > 0;
    if (mode !== 'group' && cfg.epsilon !== undefined) b.issue('epsilon', 'only used with normalize "group"');
    if (mode !== 'none' && b.path !== '')
      b.fail('normalize', `normalize "${mode}" needs the whole group, so this weighted_sum must be the root grader (it is at ${b.path})`);
    const name = b.name;
    return async (input, ctx) => {
      if (mode !== 'none' && !inGroupStage(ctx)) throw needsGroup(name, mode === 'group' ? 'normalises each component' : 'centres each component');
      if (groupWeights.length && !inGroupStage(ctx)) throw needsGroup(name, `weighs "${groupWeights[0]![0]}" by ${groupWeights[0]![1].groupCalls[0]}`);
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
      }
      if (pending) {
        const terms = Object.keys(raw)
          .map((k) => `${k in weights ? weights[k] : `(${cfg.weights![k]})`} * ${k}(${raw[k]})`)
          .join(' + ');
        const how = [mode !== 'none' ? `normalised across the group (${mode})` : '', groupWeights.length ? 'group weights' : ''].filter(Boolean).join(' with ');
        return { score: 0, components, reason: `${terms}; ${how} when graded as a group`, metadata: { weights, raw, group_stage: 'pending' } };
      }
      const w = { ...weights };
      for (const [k, f] of Object.entries(formulas)) w[k] = evalWeight(k, f, raw, undefined, components);
      for (const k of Object.keys(raw)) {
        weighted[k] = w[k]! * raw[k]!;
        total += weighted[k]!;
      }
      const terms = Object.keys(raw)
        .map((k) => `${w[k]} * ${k}(${raw[k]})`)
        .join(' + ');
      return { score: total, components, reason: `${terms} = ${total}`, metadata: { weights: w, weighted } };
    };
  },
};

function compileWeight(src: string, field: string, children: [string, Grader][], b: { issue(f: string, m: string): void }): Formula | undefined {
  try {
    const f = compileFormula(src);
    const keys = new Set(children.map(([k]) => k));
    const unknown = f.variables.filter((v) => !keys.has(v));
    if (unknown.length) b.issue(field, `unknown variable(s) ${unknown.join(', ')} (sub-graders: ${[...keys].join(', ')})`);
    return f;
  } catch (e) {
    b.issue(field, (e as Error).message);
    return undefined;
  }
}

function evalWeight(
  k: string,
  f: Formula,
  raw: Env,
  scope: GroupScope | undefined,
  components?: Record<string, Result>,
  seen?: Record<string, number>,
): number {
  let w: number;
  try {
    w = f.evaluate(raw, scope, seen);
  } catch (e) {
    if (e instanceof FormulaError) throw new GradeFailure('formula_error', `weight of "${k}": ${e.message}`, components ? { components } : undefined);
    throw e;
  }
  if (!Number.isFinite(w))
    throw new GradeFailure('formula_error', `weight of "${k}" (${f.source}) gave ${w} with ${JSON.stringify(raw)}`, components ? { components } : undefined);
  return w;
}

/** Compiled weight formulas per config object (freed with the grader), by source. */
const compiled = new WeakMap<object, Map<string, Formula>>();
const formulaOf = (config: object, src: string): Formula => {
  let m = compiled.get(config);
  if (!m) compiled.set(config, (m = new Map()));
  let f = m.get(src);
  if (!f) m.set(src, (f = compileFormula(src)));
  return f;
};

registerGroupStage('weighted_sum', (config, results) => {
  const mode = (config.normalize as string | undefined) ?? 'none';
  const eps = (config.epsilon as number | undefined) ?? 1e-6;
  const live = results.filter((r) => r.valid && r.metadata.group_stage === 'pending');
  if (live.length === 0) return;
  const keys = Object.keys(live[0]!.metadata.raw as Record<string, number>);
  const cw = (config.weights ?? {}) as Record<string, number | string>;
  const scope = groupScope(live.map((r) => r.metadata.raw as Env));
  const stats: Record<string, { mean: number; std: number | null; n: number }> = {};
  for (const k of mode === 'none' ? [] : keys) {
    const st = groupStats(live.map((r) => (r.metadata.raw as Record<string, number>)[k]!));
    stats[k] = { mean: st.mean, std: Number.isNaN(st.std) ? null : st.std, n: st.n };
  }
  for (const r of live) {
    const raw = r.metadata.raw as Record<string, number>;
    const normalized: Record<string, number> = {};
    const weights: Record<string, number> = {};
    const weighted: Record<string, number> = {};
    const seen: Record<string, number> = {};
    let total = 0;
    try {
      for (const k of keys) {
        const c = cw[k] ?? 1;
        weights[k] = typeof c === 'number' ? c : evalWeight(k, formulaOf(config, c), raw, scope, undefined, seen);
      }
    } catch (e) {
      if (!(e instanceof GradeFailure)) throw e;
      Object.assign(r, { score: null, valid: false, error: { kind: e.kind, message: e.message } });
      r.metadata.group_stage = 'failed';
      continue;
    }
    for (const k of keys) {
      let v = raw[k]!;
      if (mode !== 'none') {
        const st = stats[k]!;
        // a lone response has no group to be normalised against: its component is 0
        v = st.n < 2 ? 0 : mode === 'group' ? (raw[k]! - st.mean) / (st.std! + eps) : raw[k]! - st.mean;
        normalized[k] = v;
      }
      weighted[k] = weights[k]! * v;
      total += weights[k]! * v;
    }
    r.score = total;
    Object.assign(r.metadata, {
      group_stage: 'done',
      weights,
      weighted,
      ...(mode !== 'none' ? { normalize: mode, normalized, group: stats } : {}),
      ...(Object.keys(seen).length ? { group_values: seen, group_n: live.length } : {}),
    });
  }
});
