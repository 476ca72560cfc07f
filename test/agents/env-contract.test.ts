// The contract every registered environment family keeps (hono's common.case pattern: one suite,
// run over every family of src/envs/families.ts, so a new family is checked without a line here):
// its example episode resets to an observation and valid tool schemas; a bad action is a clear
// EnvOptionError or a valid step (a penalty, an error observation), never a crash; the same seed
// plays the same episode twice; a scripted text-only agent reaches the end with a final reward that
// is a number in the family's declared range; the trajectory in /state is chat messages. Families
// that need a simulated user get an in-process one (it answers twice, then says ###STOP###).
import { describe, expect, it } from 'vitest';
import { EnvOptionError, type EnvFamily, type Episode, type StepResult, type UserSimulator } from '../../dist/agents/index.js';
import { ENV_FAMILIES, listEnvs } from '../../dist/envs/index.js';

/** A simulated user that needs no model: a fixed opening, one reply, then the stop word. */
class CountingUser implements UserSimulator {
  private n = 0;
  async reset(instruction: string): Promise<string> {
    this.n = 0;
    return `Hello, I need help (${instruction.length} characters of instructions).`;
  }
  async step(): Promise<string> {
    return ++this.n >= 2 ? '###STOP###' : 'Could you say more?';
  }
}
const deps = { user: () => new CountingUser() };

/** What a text-only agent says every turn: no tool call, nothing any family can execute. */
const TEXT = { role: 'assistant', content: 'I am not sure what to do.' };
const MAX_TURNS = 200;

async function open(f: EnvFamily, seed: number): Promise<{ ep: Episode; observation: string }> {
  const ep = f.create(f.example(seed), deps);
  const r = await ep.reset();
  return { ep, observation: r.observation };
}

/** Plays the text-only agent to the end; the observations, rewards and done flags of every step. */
async function playText(ep: Episode): Promise<StepResult[]> {
  const out: StepResult[] = [];
  for (let i = 0; i < MAX_TURNS; i++) {
    const s = await ep.step(TEXT);
    out.push(s);
    if (s.done) return out;
  }
  throw new Error(`${ep.env}: not done after ${MAX_TURNS} text-only turns`);
}

function expectStep(s: StepResult, where: string): void {
  expect(typeof s.observation, where).toBe('string');
  expect(typeof s.done, where).toBe('boolean');
  expect(s.reward === null || Number.isFinite(s.reward), `${where}: reward ${s.reward}`).toBe(true);
  expect(s.info && typeof s.info === 'object', where).toBe(true);
}

const BAD_ACTIONS: [string, unknown][] = [
  ['a number', 42],
  ['null', null],
  ['a list', [1, 2]],
  ['a user message', { role: 'user', content: 'hi' }],
  ['an unknown tool', { name: 'no_such_tool_anywhere', arguments: { x: 1 } }],
  [
    'a tool call with broken JSON arguments',
    { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { name: 'x', arguments: '{"a": ' } }] },
  ],
  ['a tool call without a name', { role: 'assistant', content: null, tool_calls: [{ id: 'c0', type: 'function', function: { arguments: '{}' } }] }],
];

describe('the registry', () => {
  it('holds every family of src/envs/families.ts, the demonstration family included', () => {
    const names = listEnvs().map((f) => f.name);
    expect(names).toEqual(ENV_FAMILIES.map((f) => f.name));
    expect(names).toEqual(expect.arrayContaining(['bfcl_multi_turn', 'frozenlake', 'tau_bench']));
  });
});

describe.each(listEnvs().map((f) => [f.name, f] as const))('environment family %s', (name, family) => {
  it('describes itself, and its example episode resets to an observation with valid tool schemas', async () => {
    expect(family.describe()).toBeTypeOf('object');
    const t = family.tools(family.example(0));
    expect(typeof t.system_prompt).toBe('string');
    const { ep, observation } = await open(family, 0);
    expect(ep.env).toBe(name);
    expect(observation.length).toBeGreaterThan(0);
    expect(Array.isArray(ep.tools)).toBe(true);
    for (const tool of [...ep.tools, ...t.tools]) {
      expect(tool.type).toBe('function');
      expect(tool.function.name).toMatch(/^[A-Za-z0-9_.-]+$/);
      expect(tool.function.parameters).toBeTypeOf('object');
    }
    const st = ep.state();
    expect(st).toMatchObject({ env: name, done: false });
    expect(st.messages.every((m) => ['system', 'user', 'assistant', 'tool'].includes(m.role))).toBe(true);
    ep.close();
  });

  it('refuses options it cannot use with an EnvOptionError', () => {
    expect(() => family.create({ ...family.example(0), no_such_option_zz: 1 }, deps)).toThrow(EnvOptionError);
  });

  it.each(BAD_ACTIONS)('a bad action (%s) is a clear EnvOptionError or a valid step, never a crash', async (_what, action) => {
    const { ep } = await open(family, 1);
    let step: StepResult | undefined;
    try {
      step = await ep.step(action);
    } catch (e) {
      expect(e, String(e)).toBeInstanceOf(EnvOptionError);
      expect((e as Error).message.length).toBeGreaterThan(10);
    }
    if (step) {
      expectStep(step, `${name} after a bad action`);
      if (step.done) {
        const [lo, hi] = family.rewardRange(family.example(1));
        expect(step.reward).toBeGreaterThanOrEqual(lo);
        expect(step.reward).toBeLessThanOrEqual(hi);
      }
    }
    // the episode still answers: its state reads, and a step after the end is refused clearly
    expect(ep.state().env).toBe(name);
    if (step?.done) await expect(ep.step(TEXT)).rejects.toBeInstanceOf(EnvOptionError);
  });

  it('plays the same episode twice for a seed, to a final reward in the declared range', async () => {
    for (const seed of [0, 3]) {
      const a = await open(family, seed);
      const b = await open(family, seed);
      expect(b.observation).toBe(a.observation);
      const ra = await playText(a.ep);
      const rb = await playText(b.ep);
      expect(rb.map((s) => [s.observation, s.reward, s.done])).toEqual(ra.map((s) => [s.observation, s.reward, s.done]));
      ra.forEach((s, i) => expectStep(s, `${name} seed ${seed} step ${i}`));
      const last = ra[ra.length - 1]!;
      const [lo, hi] = family.rewardRange(family.example(seed));
      expect(lo).toBeLessThanOrEqual(hi);
      expect(typeof last.reward).toBe('number');
      expect(last.reward).toBeGreaterThanOrEqual(lo);
      expect(last.reward).toBeLessThanOrEqual(hi);
      expect(a.ep.state()).toMatchObject({ env: name, done: true, reward: last.reward });
      expect(a.ep.state().messages.filter((m) => m.role === 'assistant')).toHaveLength(ra.length);
    }
  });
});
