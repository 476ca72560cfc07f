// `count_bonus` and `episodic_bonus`: count-based novelty over a step's state key. count_bonus
// counts visits over the whole run (every trajectory this grader has graded, and a restored
// state_file): the bonus of step t is 1/sqrt(N(s_t)), N counting this visit. episodic_bonus counts
// within one trajectory only: 1/sqrt(n(s_t)), or with mode "first_visit" 1 on the first visit to a
// state and 0 after. Raw bonuses are then scaled as RLeXplore's BaseReward does (intrinsic.ts).
// Score: the sum of the scaled per-step bonuses, which are the result's `steps`.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../core/registry.js';
import { DEFAULT_TRAJECTORY, readSteps, trajectoryField } from './steps.js';
import { bonusCapabilities, bonusFields, buildStateKey, isBaseState, keySchema, newBaseState, RunState, scaleBonuses, type BaseState } from './intrinsic.js';

const countSchema = graderSchema({ trajectory: trajectoryField, key: keySchema, ...bonusFields });
const episodicSchema = graderSchema({ trajectory: trajectoryField, key: keySchema, mode: z.enum(['inverse_sqrt', 'first_visit']).optional(), ...bonusFields });

interface CountState extends BaseState {
  counts: Record<string, number>;
}

const isCountState = (x: unknown): x is CountState =>
  isBaseState(x) &&
  typeof (x as CountState).counts === 'object' &&
  (x as CountState).counts !== null &&
  Object.values((x as CountState).counts).every((n) => typeof n === 'number');

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
    const run = new RunState<CountState>('count_bonus', cfg.state_file, () => ({ ...newBaseState(), counts: {} }), isCountState);
    return async (input, ctx) => {
      const steps = readSteps(traj, input);
      const keys = await Promise.all(steps.map((s, t) => keyOf(input, s, t, ctx)));
      // from here on synchronous: concurrent grades never interleave their updates
      const st = run.get();
      const raw = keys.map((k) => {
        const n = (Object.hasOwn(st.counts, k) ? st.counts[k]! : 0) + 1;
        st.counts[k] = n;
        return 1 / Math.sqrt(n);
      });
      const bonus = scaleBonuses(raw, cfg, st);
      run.save();
      const total = bonus.reduce((a, x) => a + x, 0);
      return {
        score: total,
        steps: bonus,
        reason: `count bonus over ${steps.length} step(s) (raw 1/sqrt(N): ${fmt(raw)}; ${cfg.normalize ?? 'rms'}) = ${total}`,
        metadata: { raw, distinct_states: Object.keys(st.counts).length, trajectories: st.graded },
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
    const run = new RunState<BaseState>('episodic_bonus', cfg.state_file, newBaseState, isBaseState);
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
      run.save();
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
