// `reward_machine`: a reward machine (Icarte et al.: states U, initial u0, terminal states F, a
// transition function δu over the events true at a step and a reward δr per transition) run over a
// trajectory's steps. Events are field tests on a step or per-step graders; a transition's `on`
// is a formula over the event names (1 true, 0 false: `a and not b`). Optional time bounds make it
// a timed reward machine: a transition is enabled only while the clock of the current state (steps
// taken in it before this one, or the change of a time field since it was entered) is within
// [min, max]. At each step the first enabled transition (in config order) out of the current state
// whose `on` holds fires and gives its reward; none firing means the machine stays, reward 0.
// Reaching a terminal state ends the run (later steps get 0). Score: the sum of per-step rewards;
// the reason and metadata.path give the states passed through (changes of state, with the step).
import { z } from 'zod';
import type { Grader } from '../../core/grader.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { GradeFailure } from '../../core/result.js';
import { didYouMean } from '../../core/suggest.js';
import { getPath } from '../../io/path.js';
import { compileFormula, type Formula } from '../composite/formula.js';
import { DEFAULT_TRAJECTORY, fieldTest, fieldTestProblem, fieldTestSchema, gradeStep, readSteps, trajectoryField, type FieldTest, type Step } from './steps.js';

const graderEvent = z.strictObject({
  grader: z.record(z.string(), z.unknown()),
  /** The event holds when the grader's score is at least this (default 0.5). */
  min_score: z.number().finite().optional(),
});

const transition = z.strictObject({
  from: z.string().min(1),
  to: z.string().min(1),
  /** Formula over event names; the transition fires when it is non-zero. */
  on: z.string().min(1),
  reward: z.number().finite(),
  min_steps: z.number().int().nonnegative().optional(),
  max_steps: z.number().int().nonnegative().optional(),
  min_time: z.number().finite().optional(),
  max_time: z.number().finite().optional(),
});

const schema = graderSchema({
  trajectory: trajectoryField,
  events: z.record(z.string(), z.union([fieldTestSchema, graderEvent])),
  states: z.array(z.string().min(1)).min(1),
  initial: z.string().min(1),
  terminal: z.array(z.string().min(1)).optional(),
  transitions: z.array(transition),
  /** Step field holding a time stamp (for min_time / max_time). */
  time_field: z.string().min(1).optional(),
});
type Config = z.infer<typeof schema>;

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Edge {
  to: string;
  on: Formula;
  reward: number;
  bounds: { minSteps?: number; maxSteps?: number; minTime?: number; maxTime?: number };
}

type Event = { kind: 'field'; test: FieldTest } | { kind: 'grader'; grader: Grader; min: number };

export const rewardMachine: GraderType<Config> = {
  type: 'reward_machine',
  summary: 'a (timed) reward machine over a trajectory: transitions on per-step events, reward per transition, the state path in the reason',
  capabilities: PURE,
  schema,
  build(cfg, b) {
    const states = new Set<string>();
    cfg.states.forEach((s, i) => {
      if (states.has(s)) b.issue(`states[${i}]`, `duplicate state "${s}"`);
      states.add(s);
    });
    const known = (s: string, field: string) => {
      if (!states.has(s)) b.issue(field, `unknown state "${s}"${didYouMean(s, states)} (states: ${[...states].join(', ')})`);
    };
    known(cfg.initial, 'initial');
    (cfg.terminal ?? []).forEach((s, i) => known(s, `terminal[${i}]`));
    const events = new Map<string, Event>();
    for (const [name, e] of Object.entries(cfg.events)) {
      if (!IDENT.test(name)) b.issue(`events.${name}`, `event name "${name}" must be an identifier usable in "on"`);
      if ('grader' in e) events.set(name, { kind: 'grader', grader: b.child(e.grader, `events.${name}.grader`, name), min: e.min_score ?? 0.5 });
      else {
        const p = fieldTestProblem(e);
        if (p) b.issue(`events.${name}`, p);
        events.set(name, { kind: 'field', test: e });
      }
    }
    const edges = new Map<string, Edge[]>();
    cfg.transitions.forEach((t, i) => {
      const at = `transitions[${i}]`;
      known(t.from, `${at}.from`);
      known(t.to, `${at}.to`);
      if (t.min_steps !== undefined && t.max_steps !== undefined && t.min_steps > t.max_steps) b.issue(`${at}.min_steps`, 'min_steps is above max_steps');
      if (t.min_time !== undefined && t.max_time !== undefined && t.min_time > t.max_time) b.issue(`${at}.min_time`, 'min_time is above max_time');
      if ((t.min_time !== undefined || t.max_time !== undefined) && cfg.time_field === undefined)
        b.issue(`${at}.${t.min_time !== undefined ? 'min_time' : 'max_time'}`, 'time bounds need "time_field" (the step field holding the time)');
      let on: Formula;
      try {
        on = compileFormula(t.on);
      } catch (e) {
        b.issue(`${at}.on`, (e as Error).message);
        return;
      }
      if (on.groupCalls.length) b.issue(`${at}.on`, `${on.groupCalls[0]} is not allowed in a transition`);
      for (const v of on.variables)
        if (!events.has(v)) b.issue(`${at}.on`, `unknown event "${v}"${didYouMean(v, events.keys())} (events: ${[...events.keys()].join(', ') || 'none'})`);
      const bounds: Edge['bounds'] = {};
      if (t.min_steps !== undefined) bounds.minSteps = t.min_steps;
      if (t.max_steps !== undefined) bounds.maxSteps = t.max_steps;
      if (t.min_time !== undefined) bounds.minTime = t.min_time;
      if (t.max_time !== undefined) bounds.maxTime = t.max_time;
      const list = edges.get(t.from) ?? [];
      list.push({ to: t.to, on, reward: t.reward, bounds });
      edges.set(t.from, list);
    });
    const terminal = new Set(cfg.terminal ?? []);
    const traj = b.value('trajectory', cfg.trajectory ?? DEFAULT_TRAJECTORY);
    const timeField = cfg.time_field;
    const timeOf = (s: Step, t: number): number => {
      const v = getPath(s, timeField!);
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new GradeFailure('bad_input', `step ${t}: time field "${timeField}" is not a finite number`);
      return v;
    };

    return async (input, ctx) => {
      const steps = readSteps(traj, input);
      const rewards: number[] = new Array(steps.length).fill(0);
      let u = cfg.initial;
      let enteredStep = 0; // first step taken in u
      let enteredTime = timeField !== undefined && steps.length ? timeOf(steps[0]!, 0) : 0;
      const path: { state: string; t: number | null; reward?: number }[] = [{ state: u, t: null }];
      let total = 0;
      for (let t = 0; t < steps.length && !terminal.has(u); t++) {
        const step = steps[t]!;
        const out = edges.get(u) ?? [];
        if (out.length === 0) continue;
        const now = timeField !== undefined ? timeOf(step, t) : 0;
        const needed = new Set(out.flatMap((e) => e.on.variables));
        const env: Record<string, number> = {};
        await Promise.all(
          [...needed].map(async (name) => {
            const ev = events.get(name)!;
            env[name] =
              ev.kind === 'field' ? Number(fieldTest(ev.test, step)) : Number((await gradeStep(ev.grader, input, step, t, ctx, `event "${name}"`)) >= ev.min);
          }),
        );
        const clock = t - enteredStep;
        const elapsed = now - enteredTime;
        const fired = out.find((e) => {
          const bd = e.bounds;
          if (bd.minSteps !== undefined && clock < bd.minSteps) return false;
          if (bd.maxSteps !== undefined && clock > bd.maxSteps) return false;
          if (bd.minTime !== undefined && elapsed < bd.minTime) return false;
          if (bd.maxTime !== undefined && elapsed > bd.maxTime) return false;
          return e.on.evaluate(env) !== 0;
        });
        if (!fired) continue;
        rewards[t] = fired.reward;
        total += fired.reward;
        // a self-loop (from = to) gives its reward but leaves the state, so its clock runs on; the
        // path records changes of state only
        if (fired.to === u) continue;
        path.push({ state: fired.to, t, reward: fired.reward });
        u = fired.to;
        enteredStep = t + 1;
        enteredTime = now;
      }
      const MAX_SHOWN = 50;
      const shown =
        path
          .slice(0, MAX_SHOWN + 1)
          .map((p, i) => (i === 0 ? p.state : `-[t=${p.t} ${p.reward! >= 0 ? '+' : ''}${p.reward}]-> ${p.state}`))
          .join(' ') + (path.length > MAX_SHOWN + 1 ? ` … (${path.length - 1} changes of state in all) … ${u}` : '');
      const done = terminal.has(u);
      return {
        score: total,
        steps: rewards,
        reason: `${shown}${done ? ' (terminal)' : ''}; ${steps.length} step(s), total ${total}`,
        metadata: { path, final_state: u, terminal: done },
      };
    };
  },
};
