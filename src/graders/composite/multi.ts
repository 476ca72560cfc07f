// `multi` (OpenAI grader schema): run sub-graders (an object keyed by variable name, or a list)
// concurrently and combine their scores with a `calculate_output` formula (default: the mean);
// `steps_from` passes one sub-grader's per-step rewards through as this grader's `steps`. A formula
// with group functions (group_mean(think, acc == 1), rank(x), ...) needs the whole group: such a
// multi must be the root, grades groups only, and its group stage evaluates the formula per member.
import { z } from 'zod';
import { compileFormula, FormulaError, groupScope, type Env, type Formula } from './formula.js';
import { childFailure, GradeFailure, type Result } from '../../core/result.js';
import type { Grader } from '../../core/grader.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { inGroupStage, needsGroup, registerGroupStage } from './group-stage.js';

const schema = graderSchema({
  graders: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]),
  calculate_output: z.string().optional(),
  /** What an invalid component does: make the whole grade invalid (default), or count as 0. */
  invalid_components: z.enum(['invalidate', 'zero']).optional(),
  /** Key of a sub-grader whose per-step rewards (`steps`, e.g. a prm's) become this grader's `steps`. */
  steps_from: z.string().optional(),
});

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

export const multi: GraderType<z.infer<typeof schema>> = {
  type: 'multi',
  summary: 'combine named sub-graders with a formula (+ - * / ^, min max abs floor ceil exp sqrt log)',
  schema,
  capabilities: PURE, // own; the registry adds every sub-grader's
  build(cfg, b) {
    const children: [string, Grader][] = [];
    if (Array.isArray(cfg.graders)) {
      cfg.graders.forEach((c, i) => {
        const nm = c && typeof c === 'object' && typeof (c as { name?: unknown }).name === 'string' ? (c as { name: string }).name : `grader_${i}`;
        const key = IDENT.test(nm) ? nm : nm.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
        if (children.some(([k]) => k === key)) b.issue(`graders[${i}]`, `duplicate sub-grader name "${key}"`);
        children.push([key, b.child(c, `graders[${i}]`, key)]);
      });
    } else {
      for (const [key, c] of Object.entries(cfg.graders)) {
        if (!IDENT.test(key)) b.issue(`graders.${key}`, `sub-grader key "${key}" must be an identifier usable in the formula`);
        children.push([key, b.child(c, `graders.${key}`, key)]);
      }
    }
    if (children.length === 0) b.fail('graders', 'needs at least one sub-grader');
    let formula: Formula | undefined;
    if (cfg.calculate_output !== undefined) {
      try {
        formula = compileFormula(cfg.calculate_output);
        const keys = new Set(children.map(([k]) => k));
        const unknown = formula.variables.filter((v) => !keys.has(v));
        if (unknown.length) b.issue('calculate_output', `unknown variable(s) ${unknown.join(', ')} (sub-graders: ${[...keys].join(', ')})`);
      } catch (e) {
        b.issue('calculate_output', (e as Error).message);
      }
    }
    const group = formula !== undefined && formula.groupCalls.length > 0;
    if (group && b.path !== '')
      b.fail('calculate_output', `${formula!.groupCalls[0]} needs the whole group, so this multi must be the root grader (it is at ${b.path})`);
    const name = b.name;
    const zeroInvalid = cfg.invalid_components === 'zero';
    const stepsFrom = cfg.steps_from;
    if (stepsFrom !== undefined && !children.some(([k]) => k === stepsFrom)) {
      b.issue('steps_from', `unknown sub-grader "${stepsFrom}" (sub-graders: ${children.map(([k]) => k).join(', ')})`);
    }
    return async (input, ctx) => {
      if (group && !inGroupStage(ctx)) throw needsGroup(name, `computes ${formula!.groupCalls[0]}`);
      const results = await Promise.all(children.map(([, g]) => g.grade(input, ctx)));
      const components: Record<string, Result> = {};
      const env: Record<string, number> = {};
      let firstInvalid: [string, Result] | undefined;
      children.forEach(([k], i) => {
        const r = results[i]!;
        components[k] = r;
        if (r.valid && r.score !== null) env[k] = r.score;
        else {
          firstInvalid ??= [k, r];
          env[k] = 0;
        }
      });
      if (firstInvalid && !zeroInvalid) {
        const [k, r] = firstInvalid;
        throw childFailure(`component "${k}"`, r, components);
      }
      let score: number;
      if (group) {
        // the group stage evaluates the formula once the whole group is graded
        score = 0;
      } else if (formula) {
        try {
          score = formula.evaluate(env);
        } catch (e) {
          if (e instanceof FormulaError) throw new GradeFailure('formula_error', e.message, { components });
          throw e;
        }
        if (!Number.isFinite(score)) {
          throw new GradeFailure('formula_error', `formula "${formula.source}" gave ${score} with ${JSON.stringify(env)}`, { components });
        }
      } else {
        score = Object.values(env).reduce((a, v) => a + v, 0) / children.length;
      }
      const values = Object.entries(env)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ');
      const out = {
        score,
        components,
        reason: formula ? `${formula.source} with ${values}${group ? ' and the group' : ''}` : `mean of ${values}`,
        ...(group ? { metadata: { values: env, group_stage: 'pending' } } : {}),
      };
      if (stepsFrom === undefined) return out;
      const src = components[stepsFrom]!;
      if (!src.valid) {
        // zero-counted in the formula, but its step rewards do not exist: none are made up
        throw new GradeFailure(
          src.error?.kind ?? 'internal_error',
          `component "${stepsFrom}" (steps_from) could not be graded, so there are no step rewards: ${src.error?.message ?? 'invalid'}`,
          { components },
        );
      }
      if (!Array.isArray(src.steps))
        throw new GradeFailure(
          'config_error',
          `component "${stepsFrom}" (steps_from) returned no per-step rewards; use a grader that returns steps (type prm)`,
          { components },
        );
      return { ...out, steps: src.steps };
    };
  },
};

/** Compiled group formulas by the config object that names them (freed with the grader). */
const compiled = new WeakMap<object, Formula>();

/** Evaluates a group formula for each member of one group (the valid ones; the others stay out of it). */
registerGroupStage('multi', (config, results) => {
  const live = results.filter((r) => r.valid && r.metadata.group_stage === 'pending');
  if (live.length === 0) return;
  const src = config.calculate_output as string;
  let formula = compiled.get(config);
  if (!formula) compiled.set(config, (formula = compileFormula(src)));
  const scope = groupScope(live.map((r) => r.metadata.values as Env));
  for (const r of live) {
    const env = r.metadata.values as Env;
    const seen: Record<string, number> = {};
    let score: number;
    try {
      score = formula.evaluate(env, scope, seen);
      if (!Number.isFinite(score)) throw new FormulaError(`formula "${src}" gave ${score} with ${JSON.stringify(env)} and ${JSON.stringify(seen)}`);
    } catch (e) {
      if (!(e instanceof FormulaError)) throw e;
      Object.assign(r, { score: null, valid: false, error: { kind: 'formula_error', message: e.message } });
      Object.assign(r.metadata, { group_stage: 'failed', group_n: live.length });
      continue;
    }
    r.score = score;
    const terms = [...Object.entries(env), ...Object.entries(seen)].map(([k, v]) => `${k}=${v}`).join(', ');
    r.reason = `${src} = ${score} with ${terms} (group of ${live.length})`;
    Object.assign(r.metadata, { group_stage: 'done', group_n: live.length, group_values: seen });
  }
});
