// `count_bonus` and `episodic_bonus`: count-based novelty over a step's state key. count_bonus
// counts visits over the whole run (every trajectory this grader has graded, and a restored
// state_file): the bonus of step t is 1/sqrt(N(s_t)), N counting this visit; it keeps at most
// `max_states` states, forgetting the least recently seen. episodic_bonus counts
// within one trajectory only: 1/sqrt(n(s_t)), or with mode "first_visit" 1 on the first visit to a
// state and 0 after. Raw bonuses are then scaled as RLeXplore's BaseReward does (intrinsic.ts).
// Score: the sum of the scaled per-step bonuses, which are the result's `steps`. count_bonus with
// `scope: "group"` counts over the responses to one prompt instead (every member's trajectory, in
// full: N(s) is the group's visits to s, whatever order the members finish in); it is a group
// stage (root only, graded through gradeGroup / POST /v1/groups), without run state.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../core/registry.js';
import { inGroupStage, needsGroup, registerGroupStage } from '../composite/group-stage.js';
import { DEFAULT_TRAJECTORY, readSteps, trajectoryField } from './steps.js';
import {
  bonusCapabilities,
  bonusFields,
  buildStateKey,
  isBaseState,
  keySchema,
  newBaseState,
  newRms,
  RunState,
  scaleBonuses,
  stored,
  type BaseState,
  type BonusConfig,
  updateRms,
} from './intrinsic.js';

/** The distinct states count_bonus keeps by default (see `max_states`). */
const DEFAULT_MAX_STATES = 100_000;

const countSchema = graderSchema({
  trajectory: trajectoryField,
  key: keySchema,
  scope: z.enum(['run', 'group']).optional(),
  /** Distinct states kept (default 100000); past it the least recently seen is forgotten (its count dropped). */
  max_states: z.number().int().min(1).optional(),
  ...bonusFields,
});
const episodicSchema = graderSchema({ trajectory: trajectoryField, key: keySchema, mode: z.enum(['inverse_sqrt', 'first_visit']).optional(), ...bonusFields });

/** Visit counts by state key, least recently seen first (a Map keeps that order as keys are re-set). */
interface CountState extends BaseState {
  counts: Map<string, number>;
  /** States forgotten over the run at `max_states`. */
  evicted: number;
}

/** The stored form: the counts as [key, count] pairs in that order. */
interface StoredCounts extends BaseState {
  counts: [string, number][];
  evicted: number;
}

const isStoredCounts = (x: unknown): x is StoredCounts =>
  isBaseState(x) &&
  typeof (x as StoredCounts).evicted === 'number' &&
  Array.isArray((x as StoredCounts).counts) &&
  (x as StoredCounts).counts.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'number');

const decodeCounts = (x: unknown): CountState | undefined => (isStoredCounts(x) ? { ...x, counts: new Map(x.counts) } : undefined);
const encodeCounts = (s: CountState): StoredCounts => ({ ...s, counts: [...s.counts] });

/** The first 20 values, for a reason. */
export const fmt = (xs: readonly number[]) =>
  xs
    .slice(0, 20)
    .map((x) => Number(x.toPrecision(4)))
    .join(', ') + (xs.length > 20 ? `, … (${xs.length} in all)` : '');

export const countBonus: GraderType<z.infer<typeof countSchema>> = {
  type: 'count_bonus',
  summary: 'count-based novelty over a run: 1/sqrt(N(s)) per step of a trajectory, N over every trajectory graded (state saved to state_file)',
  capabilities: bonusCapabilities,
  schema: countSchema,
  build(cfg, b) {
    const traj = b.value('trajectory', cfg.trajectory ?? DEFAULT_TRAJECTORY);
    const keyOf = buildStateKey(cfg.key, b);
    const maxStates = cfg.max_states ?? DEFAULT_MAX_STATES;
    const run = new RunState<CountState>(
      'count_bonus',
      cfg.state_file,
      () => ({ ...newBaseState(), counts: new Map(), evicted: 0 }),
      decodeCounts,
      encodeCounts,
    );
    const group = cfg.scope === 'group';
    if (group && b.path !== '') b.fail('scope', `scope "group" counts across the group, so this count_bonus must be the root grader (it is at ${b.path})`);
    if (group && cfg.state_file !== undefined) b.issue('state_file', 'scope "group" keeps no run state');
    if (group && cfg.kappa !== undefined) b.issue('kappa', 'scope "group" keeps no run state, so there is no decay over trajectories');
    if (group && cfg.max_states !== undefined) b.issue('max_states', 'scope "group" keeps no run state (the counts are those of one group)');
    const name = b.name;
    return async (input, ctx) => {
      if (group && !inGroupStage(ctx)) throw needsGroup(name, 'counts visits');
      const steps = readSteps(traj, input);
      const keys = await Promise.all(steps.map((s, t) => keyOf(input, s, t, ctx)));
      if (group)
        return {
          score: 0,
          reason: `count bonus over ${steps.length} step(s); counted across the group when graded as a group`,
          metadata: { group_stage: 'pending', keys },
        };
      // from here on synchronous: concurrent grades never interleave their updates
      const st = run.get();
      let evicted = 0;
      const raw = keys.map((k) => {
        const n = (st.counts.get(k) ?? 0) + 1;
        // re-set last: the Map's order is that of the last visits
        st.counts.delete(k);
        st.counts.set(k, n);
        if (st.counts.size > maxStates) {
          st.counts.delete(st.counts.keys().next().value!);
          evicted++;
        }
        return 1 / Math.sqrt(n);
      });
      st.evicted += evicted;
      const bonus = scaleBonuses(raw, cfg, st);
      run.save(ctx.services);
      const total = bonus.reduce((a, x) => a + x, 0);
      return {
        score: total,
        steps: bonus,
        reason:
          `count bonus over ${steps.length} step(s) (raw 1/sqrt(N): ${fmt(raw)}; ${cfg.normalize ?? 'rms'}) = ${total}` +
          (evicted ? `; ${evicted} least recently seen state(s) forgotten at max_states ${maxStates}` : ''),
        metadata: { raw, distinct_states: st.counts.size, trajectories: st.graded, max_states: maxStates, evicted, evicted_total: st.evicted },
      };
    };
  },
};

export const episodicBonus: GraderType<z.infer<typeof episodicSchema>> = {
  type: 'episodic_bonus',
  summary: 'episodic novelty within one trajectory: 1/sqrt(n(s)) (or 1 on a first visit) per step, counts reset per trajectory',
  capabilities: bonusCapabilities,
  schema: episodicSchema,
  build(cfg, b) {
    const traj = b.value('trajectory', cfg.trajectory ?? DEFAULT_TRAJECTORY);
    const keyOf = buildStateKey(cfg.key, b);
    const first = cfg.mode === 'first_visit';
    const run = new RunState<BaseState>('episodic_bonus', cfg.state_file, newBaseState, stored(isBaseState));
    return async (input, ctx) => {
      const steps = readSteps(traj, input);
      const keys = await Promise.all(steps.map((s, t) => keyOf(input, s, t, ctx)));
      const counts = new Map<string, number>();
      const raw = keys.map((k) => {
        const n = (counts.get(k) ?? 0) + 1;
        counts.set(k, n);
        return first ? Number(n === 1) : 1 / Math.sqrt(n);
      });
      const bonus = scaleBonuses(raw, cfg, run.get());
      run.save(ctx.services);
      const total = bonus.reduce((a, x) => a + x, 0);
      return {
        score: total,
        steps: bonus,
        reason: `episodic bonus over ${steps.length} step(s), ${counts.size} distinct state(s) (raw ${first ? 'first visit' : '1/sqrt(n)'}: ${fmt(raw)}; ${cfg.normalize ?? 'rms'}) = ${total}`,
        metadata: { raw, distinct_states: counts.size },
      };
    };
  },
};

registerGroupStage('count_bonus', (config, results) => {
  const live = results.filter((r) => r.valid && r.metadata.group_stage === 'pending');
  if (live.length === 0) return;
  const counts = new Map<string, number>();
  for (const r of live) for (const k of r.metadata.keys as string[]) counts.set(k, (counts.get(k) ?? 0) + 1);
  const cfg = config as BonusConfig;
  const raws = live.map((r) => (r.metadata.keys as string[]).map((k) => 1 / Math.sqrt(counts.get(k)!)));
  const mode = cfg.normalize ?? 'rms';
  // "rms": one std for the group, that of all its members' bonuses (or their discounted returns,
  // each trajectory's own) pooled with the scaler's prior; "minmax" and "none" per trajectory
  let sd = 1;
  if (mode === 'rms') {
    const rms = newRms(1);
    for (const raw of raws) {
      let ret = 0;
      updateRms(rms, cfg.gamma === undefined ? raw.map((x) => [x]) : raw.map((x) => [(ret = ret * cfg.gamma! + x)]));
    }
    sd = Math.sqrt(rms.var[0]!);
  }
  live.forEach((r, i) => {
    const raw = raws[i]!;
    const bonus = mode === 'rms' ? raw.map((x) => (x / sd) * (cfg.beta ?? 1)) : scaleBonuses(raw, cfg, newBaseState());
    const total = bonus.reduce((a, x) => a + x, 0);
    delete r.metadata.keys;
    r.score = total;
    r.steps = bonus;
    r.reason = `count bonus over ${raw.length} step(s), N over the group's ${live.length} trajectories (raw 1/sqrt(N): ${fmt(raw)}; ${cfg.normalize ?? 'rms'}) = ${total}`;
    Object.assign(r.metadata, { group_stage: 'done', raw, distinct_states: counts.size, group_n: live.length });
  });
});
