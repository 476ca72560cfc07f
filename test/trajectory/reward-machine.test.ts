// reward_machine: per-step rewards, total and state path against the definition (δu, δr: the first
// enabled transition out of the current state whose formula holds fires; none: stay, reward 0;
// terminal: stop), computed in the test by a table-driven interpreter over random trajectories;
// grader events; timed transitions (steps and a time field); config errors at load; use in multi.
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, grade, loadGrader } from '../../dist/index.js';
import { registerBuiltinTypes } from '../../dist/graders/builtins.js';
import { seededRandom } from '../../dist/core/random.js';

beforeAll(() => registerBuiltinTypes());

const keyDoor = {
  type: 'reward_machine',
  trajectory: '{{item.trajectory}}',
  events: {
    key: { field: 'cell', equals: 'K' },
    door: { field: 'cell', equals: 'D' },
    lava: { field: 'cell', equals: 'L' },
  },
  states: ['start', 'has_key', 'done', 'dead'],
  initial: 'start',
  terminal: ['done', 'dead'],
  transitions: [
    { from: 'start', to: 'dead', on: 'lava', reward: -1 },
    { from: 'start', to: 'has_key', on: 'key', reward: 0.2 },
    { from: 'has_key', to: 'dead', on: 'lava', reward: -1 },
    { from: 'has_key', to: 'done', on: 'door', reward: 1 },
  ],
};

const run = (config: Record<string, unknown>, trajectory: unknown[]) => grade(loadGrader(config), { item: { trajectory }, sample: { output_text: '' } });

/** A trajectory of cells, one a character: `cells('K.D')`. */
const cells = (s: string) => [...s].map((cell) => ({ cell }));

/** keyDoor without lava: the key (rewarded `key`), then the door (1) within the bounds `door`, then `more` transitions. */
const keyThenDoor = (key: number, door: Record<string, number>, ...more: Record<string, unknown>[]) => ({
  ...keyDoor,
  transitions: [{ from: 'start', to: 'has_key', on: 'key', reward: key }, { from: 'has_key', to: 'done', on: 'door', reward: 1, ...door }, ...more],
});

/** The definition, table-driven: δ[u][cell] = [u', r]; no entry: stay with 0; a terminal state ends the run. */
function reference(trajectory: { cell: string }[]): { steps: number[]; path: string[] } {
  const delta: Record<string, Record<string, [string, number]>> = {
    start: { L: ['dead', -1], K: ['has_key', 0.2] },
    has_key: { L: ['dead', -1], D: ['done', 1] },
  };
  let u = 'start';
  const path = [u];
  const steps = trajectory.map((s) => {
    if (u === 'done' || u === 'dead') return 0;
    const hit = delta[u]?.[s.cell];
    if (!hit) return 0;
    u = hit[0];
    path.push(u);
    return hit[1];
  });
  return { steps, path };
}

describe('reward_machine', () => {
  it('matches the definition on random trajectories: per-step rewards, total, final state, path in the reason', async () => {
    const rnd = seededRandom(3);
    const cells = ['.', '.', '.', 'K', 'D', 'L'];
    const g = loadGrader(keyDoor);
    for (let n = 0; n < 60; n++) {
      const trajectory = Array.from({ length: Math.floor(rnd() * 12) }, () => ({ cell: cells[Math.floor(rnd() * cells.length)]! }));
      const want = reference(trajectory);
      const r = await grade(g, { item: { trajectory }, sample: { output_text: '' } });
      expect(r.valid).toBe(true);
      expect(r.steps).toEqual(want.steps);
      expect(r.score).toBe(want.steps.reduce((a, x) => a + x, 0));
      expect((r.metadata.path as { state: string }[]).map((p) => p.state)).toEqual(want.path);
      for (const s of want.path) expect(r.reason).toContain(s);
    }
  });

  it('shows the path with the step and reward of each transition', async () => {
    const r = await run(keyDoor, cells('.K.DL'));
    expect(r.reason).toBe('start -[t=1 +0.2]-> has_key -[t=3 +1]-> done (terminal); 5 step(s), total 1.2');
    expect(r.steps).toEqual([0, 0.2, 0, 1, 0]);
    expect(r.metadata.terminal).toBe(true);
  });

  it('grader events: a per-step grader (sample.step is the step) holds when its score reaches min_score', async () => {
    const config = {
      ...keyDoor,
      events: {
        ...keyDoor.events,
        door: { grader: { type: 'string_check', input: '{{sample.step.cell}}', reference: 'D', operation: 'eq' }, min_score: 1 },
      },
    };
    const r = await run(config, cells('KD'));
    expect(r.steps).toEqual([0.2, 1]);
    const bad = await run(config, [{ cell: 'K' }, { nothing: 1 }]);
    expect(bad.valid).toBe(false);
    expect(bad.error?.message).toMatch(/event "door" at step 1/);
  });

  it('timed transitions: enabled only while the clock of the current state is within the bounds', async () => {
    // the door counts only within two steps of taking the key (steps taken in has_key before this one)
    const timed = keyThenDoor(0.2, { max_steps: 2 }, { from: 'has_key', to: 'start', on: 'not door', reward: 0, min_steps: 3 });
    // key at 0; door at 3: clock 2 → fires
    expect((await run(timed, cells('K..D'))).steps).toEqual([0.2, 0, 0, 1]);
    // key at 0; door at 4: clock 3, too late for the door; "not door" is false there, so the machine stays
    const late = await run(timed, cells('K...D'));
    expect(late.steps).toEqual([0.2, 0, 0, 0, 0]);
    expect(late.metadata.final_state).toBe('has_key');
    // no door by clock 3: back to start (min_steps), and a new key is rewarded again
    const back = await run(timed, cells('K....K'));
    expect(back.steps).toEqual([0.2, 0, 0, 0, 0, 0.2]);
    expect((back.metadata.path as { state: string; t: number | null }[]).map((p) => [p.state, p.t])).toEqual([
      ['start', null],
      ['has_key', 0],
      ['start', 4],
      ['has_key', 5],
    ]);
    // a time field: bounds on the change of "time" since the state was entered
    const clocked = { ...keyThenDoor(0.2, { min_time: 1.5, max_time: 3 }), time_field: 'time' };
    const clockedSteps = async (...at: [string, number][]) => {
      const r = await run(
        clocked,
        at.map(([cell, time]) => ({ cell, time })),
      );
      return r.steps;
    };
    expect(await clockedSteps(['K', 10], ['D', 11])).toEqual([0.2, 0]);
    expect(await clockedSteps(['K', 10], ['D', 11], ['D', 12.5])).toEqual([0.2, 0, 1]);
    expect(await clockedSteps(['K', 10], ['D', 13.5])).toEqual([0.2, 0]);
    const noTime = await run(clocked, cells('K'));
    expect(noTime.valid).toBe(false);
    expect(noTime.error?.kind).toBe('bad_input');
  });

  it('a self-loop gives its reward each step without leaving the state: the clock runs on, the path skips it', async () => {
    const loop = keyThenDoor(0, { max_steps: 1 }, { from: 'has_key', to: 'has_key', on: '1', reward: -0.1 });
    const soon = await run(loop, cells('K.D'));
    expect(soon.steps).toEqual([0, -0.1, 1]);
    expect(soon.reason).toBe('start -[t=0 +0]-> has_key -[t=2 +1]-> done (terminal); 3 step(s), total 0.9');
    // two self-loops later the clock is 2: the door is too late
    const late = await run(loop, cells('K..D'));
    expect(late.steps).toEqual([0, -0.1, -0.1, -0.1]);
  });

  it('a malformed automaton is a config error at load, with did-you-mean', () => {
    const issues = (config: Record<string, unknown>) => {
      try {
        loadGrader(config);
      } catch (e) {
        if (e instanceof ConfigError) return e.issues.map((i) => `${i.path}: ${i.message}`);
        throw e;
      }
      return [];
    };
    expect(issues({ ...keyDoor, initial: 'strat' })).toEqual(['initial: unknown state "strat" (did you mean "start"?) (states: start, has_key, done, dead)']);
    expect(issues({ ...keyDoor, transitions: [{ from: 'start', to: 'don', on: 'keys', reward: 1 }] })).toEqual([
      'transitions[0].to: unknown state "don" (did you mean "done"?) (states: start, has_key, done, dead)',
      'transitions[0].on: unknown event "keys" (did you mean "key"?) (events: key, door, lava)',
    ]);
    const { transitions: _t, ...rest } = keyDoor;
    expect(issues({ ...rest, transitons: [] })).toEqual(['transitons: unknown field "transitons" (did you mean "transitions"?)']);
    expect(issues({ ...keyDoor, transitions: [{ from: 'start', to: 'done', on: 'key', reward: 1, min_steps: 3, max_steps: 1, max_time: 2 }] })).toEqual([
      'transitions[0].min_steps: min_steps is above max_steps',
      'transitions[0].max_time: time bounds need "time_field" (the step field holding the time)',
    ]);
    expect(issues({ ...keyDoor, events: { key: { field: 'cell', equals: 'K', gt: 1 } } })[0]).toMatch(/^events\.key: a field test needs exactly one of/);
  });

  it('composes in multi: steps_from passes the per-step rewards through', async () => {
    const g = loadGrader({
      type: 'multi',
      graders: { rm: keyDoor, len: { type: 'feature', value: '{{item.n}}' } },
      calculate_output: 'rm - 0.01 * len',
      steps_from: 'rm',
    });
    const r = await grade(g, { item: { trajectory: cells('KD'), n: 2 }, sample: { output_text: '' } });
    expect(r.score).toBeCloseTo(1.2 - 0.02, 12);
    expect(r.steps).toEqual([0.2, 1]);
  });

  it('a trajectory that is not a list is bad input; one over the step limit is a valid floor score', async () => {
    const notList = await run(keyDoor, { cell: 'K' } as unknown as unknown[]);
    expect(notList.error?.kind).toBe('bad_input');
    const huge = await run(
      keyDoor,
      Array.from({ length: 100_001 }, () => ({ cell: '.' })),
    );
    expect(huge.valid).toBe(true);
    expect(huge.score).toBe(0);
    expect(huge.metadata.response_fault).toBe('limit_exceeded');
  });
});
