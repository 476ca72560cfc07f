// Invalid is not an escape from a low reward: trainers mask invalid grades, so what the response
// itself causes (an extra call arbiter cannot evaluate, too many actions, too many tool calls in a
// message, its own work budget) must be a valid score at the floor with a reason naming it, through
// the real graders and environments on real entries; what the response cannot be blamed for (a bad
// ground truth or task) stays invalid whatever the response is. (docs/bfcl-multi-turn.md, "Whose
// fault"; docs/agents.md, "Whose fault".)
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { getEnv, loadBfclCategory } from '../../dist/envs/index.js';
import { goldMessages } from '../../dist/envs/tau_bench/gold.js';
import { loadTasks, readTask, TAU_DOMAINS } from '../../dist/envs/tau_bench/domain.js';
import { grader as bfclGrader } from '../bfcl/helpers.js';
import { toolCallOf } from './bfcl-gold.js';
import { dataPath } from '../helpers/data.js';

// tau-bench's data (README "Benchmark data"): this file fails at once, naming the path, when it is absent
dataPath('tau-bench/airline/flights.json');

const g = bfclGrader();
const base0 = loadBfclCategory('base' as never).find((e: any) => e.id === 'multi_turn_base_0')!;
const item = { ...base0.raw, initial_config: base0.initialConfigText, ground_truth: base0.groundTruth };
const withTurn0 = (extra: string[]) => base0.groundTruth.map((t: string[], i: number) => (i === 0 ? [...t, ...extra] : t));

describe('bfcl_multi_turn grader: the model side is scored, the item side refused', () => {
  it('the ground truth scores 1 (the baseline)', async () => {
    expect(await grade(g, { item, sample: { output_turns: base0.groundTruth } })).toMatchObject({ valid: true, score: 1 });
  });

  it('an extra call abs(1) (a builtin arbiter does not evaluate): a valid 0 naming the call', async () => {
    const r = await grade(g, { item, sample: { output_turns: withTurn0(['abs(1)']) } });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.metadata.error_type).toBe('arbiter:model_call_not_evaluated');
    expect(r.metadata.failed_turn).toBe(0);
    expect(r.reason).toMatch(/^turn 0: evaluating "abs" .* in the call "abs\(1\)": arbiter does not evaluate it/);
    expect(r.steps).toEqual([0, 0, 0, 0]);
    // other builtins and module globals of BFCL's executor alike, anywhere in the episode
    for (const call of ['len([1, 2])', "json.dumps({'a': 1})", 'max(1, 2)']) {
      const later = base0.groundTruth.map((t: string[], i: number) => (i === 2 ? [...t, call] : t));
      const s = await grade(g, { item, sample: { output_turns: later } });
      expect(s, call).toMatchObject({ valid: true, score: 0 });
      expect(s.metadata.failed_turn, call).toBe(2);
      expect(s.reason, call).toContain(JSON.stringify(call));
    }
  });

  it("an unknown function is BFCL's NameError result: valid, scored as BFCL's checker scores it", async () => {
    // extra: the ground truth's results and state are still there (BFCL passes it)
    const extra = await grade(g, { item, sample: { output_turns: withTurn0(['summon_report(name=1)']) } });
    expect(extra).toMatchObject({ valid: true, score: 1 });
    // in place of the ground truth's mv: the state differs, a valid 0
    const instead = base0.groundTruth.map((t: string[], i: number) => (i === 0 ? [t[0], t[1], "move_file(source='final_report.pdf')"] : t));
    const r = await grade(g, { item, sample: { output_turns: instead } });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.metadata.error_type).toBe('multi_turn:instance_state_mismatch');
  });

  it('wrong argument types and calls that raise in the simulated API are error results: valid', async () => {
    const r = await grade(g, { item, sample: { output_turns: withTurn0(["mkdir(dir_name=['temp'])", "cd(folder='nowhere')", 'mv()']) } });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(1); // error results and no state change, as in BFCL
  });

  it('a tool call that does not decode, and a turn over max_calls_per_turn: a valid 0 naming it', async () => {
    const bad = base0.groundTruth.map((t: string[], i: number) => (i === 1 ? [...t, { name: 'grep', arguments: '{not json' }] : t));
    const r = await grade(g, { item, sample: { output_turns: bad } });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.metadata.error_type).toBe('arbiter:model_output_malformed');
    expect(r.reason).toMatch(/^turn 1: the model's output does not decode: .*arguments of grep are not valid JSON/);
    const many = withTurn0(Array.from({ length: 64 }, () => 'pwd()'));
    const m = await grade(g, { item, sample: { output_turns: many } });
    expect(m).toMatchObject({ valid: true, score: 0 });
    expect(m.reason).toMatch(/^turn 0: turn 0 has 67 calls, over max_calls_per_turn 64/);
  });

  it('a bad ground truth or item stays invalid, whatever the model output', async () => {
    const badGt = { ...item, ground_truth: withTurn0(['abs(1)']) };
    for (const output_turns of [base0.groundTruth, withTurn0(['abs(1)']), 'not json', [['pwd()']]]) {
      const r = await grade(g, { item: badGt, sample: { output_turns } });
      expect(r.valid, JSON.stringify(output_turns).slice(0, 40)).toBe(false);
      expect(r.error?.kind).toBe('bad_input');
      expect(r.error?.message).toMatch(/executing the ground truth's calls: evaluating "abs"/);
    }
    const unsimulated = await grade(g, { item: { ...item, involved_classes: ['WebSearchAPI'] }, sample: { output_turns: withTurn0(['abs(1)']) } });
    expect(unsimulated.error?.kind).toBe('bad_input');
  });
});

describe('the BFCL environment: a response arbiter cannot run ends the episode at the floor', () => {
  const fam = getEnv('bfcl_multi_turn')!;
  const tc = (name: string, args: unknown) => ({ id: `c_${name}`, type: 'function', function: { name, arguments: JSON.stringify(args) } });

  it('a tool call abs(x=1): done, reward 0 (valid), the reason names the call', async () => {
    const ep = fam.create({ entry_id: 'multi_turn_base_0' }, {});
    await ep.reset();
    const gt0 = base0.groundTruth[0]!.map((c: string, k: number) => toolCallOf(c, base0.involvedClasses, `g${k}`));
    await ep.step({
      role: 'assistant',
      content: null,
      tool_calls: gt0.map((c: any) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    });
    const r = await ep.step({ role: 'assistant', content: null, tool_calls: [tc('abs', { x: 1 })] });
    expect(r.done).toBe(true);
    expect(r.reward).toBe(0);
    const st = ep.state() as any;
    expect(st.reward).toBe(0);
    expect(st.reward_info.valid).toBe(true);
    expect(st.reward_info.reason).toMatch(/^turn 0: the model's call "abs\(x=1\)" cannot be run \(evaluating "abs"/);
    expect(st.error).toBeUndefined();
    // the record grades the same (the call is in output_turns)
    const again = await grade(
      loadGrader({
        type: 'bfcl_multi_turn',
        reference: '{{item.ground_truth}}',
        initial_config: '{{item.initial_config}}',
        involved_classes: '{{item.involved_classes}}',
        entry_id: '{{item.id}}',
      }),
      { item: st.item, sample: st.sample },
    );
    expect(again).toMatchObject({ valid: true, score: 0 });
  });

  it('prompting mode: text the decoder would eval beyond literals ([cd(folder=len + 1)]): done, reward 0 (valid)', async () => {
    const ep = fam.create({ entry_id: 'multi_turn_base_0', mode: 'prompting' }, {});
    await ep.reset();
    const r = await ep.step({ role: 'assistant', content: '[cd(folder=len + 1)]' });
    expect(r).toMatchObject({ done: true, reward: 0 });
    const st = ep.state() as any;
    expect(st.reward_info.valid).toBe(true);
    expect(st.reward_info.reason).toMatch(/^turn 0: the response cannot be decoded as BFCL decodes it \(the prompting decoder would evaluate "len"/);
  });

  it('a response with more tool calls than the limit: done, reward 0 (valid)', async () => {
    const ep = fam.create({ entry_id: 'multi_turn_base_0' }, {});
    await ep.reset();
    const r = await ep.step({ role: 'assistant', content: null, tool_calls: Array.from({ length: 65 }, () => tc('pwd', {})) });
    expect(r).toMatchObject({ done: true, reward: 0 });
    const st = ep.state() as any;
    expect(st.reward_info.valid).toBe(true);
    expect(st.reward_info.reason).toMatch(/action has 65 tool calls, over the limit of 64/);
  });
});

describe('tau_bench: too many actions is the trajectory at the floor; a task whose gold actions crash is invalid', () => {
  const services = new Services();
  const tauGrader = loadGrader({ type: 'tau_bench', domain: 'airline', messages: '{{sample.messages}}', task: '{{item}}' });
  const task0 = loadTasks('airline')[0] as Record<string, unknown>;
  const think = (k: number) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'think', arguments: '{"thought": ""}' } }],
  });

  it('1,001 actions (the gold trajectory padded): a valid 0 naming the limit', async () => {
    const gold = JSON.parse(JSON.stringify(goldMessages(TAU_DOMAINS.airline, readTask(task0))));
    expect((await grade(tauGrader, { item: task0, sample: { messages: gold } }, { services })).score).toBe(1);
    const padded = [gold[0], ...Array.from({ length: 1_001 }, (_, k) => think(k)), ...gold.slice(1)];
    const r = await grade(tauGrader, { item: task0, sample: { messages: padded } }, { services });
    expect(r).toMatchObject({ valid: true, score: 0 });
    expect(r.reason).toMatch(/^reward 0: messages: trajectory has more than 1000 actions/);
    expect(r.metadata.error_type).toBe('trajectory_limit_exceeded');
    const long = await grade(
      tauGrader,
      { item: task0, sample: { messages: Array.from({ length: 10_001 }, () => ({ role: 'user', content: '' })) } },
      { services },
    );
    expect(long).toMatchObject({ valid: true, score: 0 });
  });

  it('a tool call without a name and a malformed ReAct action are the agent’s: valid 0; a record that is no trajectory: invalid', async () => {
    const noName = await grade(
      tauGrader,
      {
        item: task0,
        sample: {
          messages: [
            { role: 'user', content: 'hi' },
            { role: 'assistant', content: null, tool_calls: [{ id: 'x', function: { arguments: '{}' } }] },
          ],
        },
      },
      { services },
    );
    expect(noName).toMatchObject({ valid: true, score: 0 });
    const role = await grade(tauGrader, { item: task0, sample: { messages: [{ role: 'wizard', content: 'x' }] } }, { services });
    expect(role.error?.kind).toBe('bad_input');
  });

  it('a task whose gold actions crash (send_certificate returns None the 4th time): invalid whatever the trajectory', async () => {
    const cert = { name: 'send_certificate', kwargs: { user_id: 'mia_li_3668', amount: 1 } };
    const bad = { actions: [cert, cert, cert, cert], outputs: [] };
    for (const messages of [[{ role: 'user', content: 'hi' }], [think(0)], Array.from({ length: 1_001 }, (_, k) => think(k))]) {
      const r = await grade(tauGrader, { item: bad, sample: { messages } }, { services });
      expect(r.valid).toBe(false);
      expect(r.error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/^task: a gold action crashed: tool send_certificate returned None/) });
    }
  });

  it('the tau-bench environment: an action over the tool-call limit ends the episode at the floor (valid)', async () => {
    const user = { reset: async () => 'hi', step: async () => 'ok' };
    const ep = getEnv('tau_bench')!.create({ domain: 'airline', task_index: 0 }, { user: () => user } as never);
    await ep.reset();
    const r = await ep.step({ role: 'assistant', content: null, tool_calls: Array.from({ length: 65 }, (_, k) => think(k).tool_calls[0]) });
    expect(r).toMatchObject({ done: true, reward: 0 });
    expect(r.info.reason).toMatch(/action has 65 tool calls, over the limit of 64/);
    expect((ep.state() as any).reward).toBe(0);
    expect(() =>
      getEnv('tau_bench')!.create(
        {
          domain: 'airline',
          task: {
            instruction: 'x',
            actions: [
              { name: 'send_certificate', kwargs: { user_id: 'mia_li_3668', amount: 1 } },
              { name: 'send_certificate', kwargs: { user_id: 'mia_li_3668', amount: 1 } },
              { name: 'send_certificate', kwargs: { user_id: 'mia_li_3668', amount: 1 } },
              { name: 'send_certificate', kwargs: { user_id: 'mia_li_3668', amount: 1 } },
            ],
            outputs: [],
          },
        },
        { user: () => user } as never,
      ),
    ).toThrow(/gold action crashed/);
  });
});
