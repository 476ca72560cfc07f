// The tau_bench grader. Proof: the gold actions of all 50 airline and 115 retail test tasks score 1;
// a dropped call or a changed argument scores 0 with a reason naming the first difference; outputs,
// episode ends, formats, per-turn credit and GiGPO anchors behave as documented.
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, Services, type Result } from '../../dist/index.js';
import { goldMessages } from '../../dist/envs/tau_bench/gold.js';
import { loadTasks, readTask, TAU_DOMAINS } from '../../dist/envs/tau_bench/domain.js';
import { dataPath } from '../helpers/data.js';

// tau-bench's data (README "Benchmark data"): this file fails at once, naming the path, when it is absent
dataPath('tau-bench/airline/flights.json');

type Dom = 'airline' | 'retail';
type Msg = Record<string, any>;
const services = new Services();
const WRITES = new Set([
  'book_reservation',
  'cancel_reservation',
  'send_certificate',
  'update_reservation_baggages',
  'update_reservation_flights',
  'update_reservation_passengers',
  'cancel_pending_order',
  'exchange_delivered_order_items',
  'modify_pending_order_address',
  'modify_pending_order_items',
  'modify_pending_order_payment',
  'modify_user_address',
  'return_delivered_order_items',
]);

const graders = new Map<string, ReturnType<typeof loadGrader>>();
function grader(domain: Dom, extra: Record<string, unknown> = {}) {
  const key = domain + JSON.stringify(extra);
  let g = graders.get(key);
  if (!g) graders.set(key, (g = loadGrader({ type: 'tau_bench', domain, messages: '{{sample.messages}}', task: '{{item}}', ...extra })));
  return g;
}
const tasks = (d: Dom) => loadTasks(d) as Record<string, any>[];
const gold = (d: Dom, i: number): Msg[] => JSON.parse(JSON.stringify(goldMessages(TAU_DOMAINS[d], readTask(tasks(d)[i]))));
const run = (d: Dom, item: unknown, messages: unknown, extra: Record<string, unknown> = {}): Promise<Result> =>
  grade(grader(d, extra), { item: item as Record<string, unknown>, sample: { messages } }, { services });

/** Index of the last assistant message calling a state-changing tool that succeeded, or -1. */
function lastWrite(m: Msg[]): number {
  for (let i = m.length - 1; i >= 0; i--) {
    if (m[i]!.tool_calls && WRITES.has(m[i]!.tool_calls[0].function.name) && !String(m[i + 1]!.content).startsWith('Error')) return i;
  }
  return -1;
}

describe('proof: gold actions score 1, mutated ones 0 with the first difference named', () => {
  for (const d of ['airline', 'retail'] as Dom[]) {
    it(`all ${d} test tasks: gold 1; without the last write call 0; with a changed argument 0`, async () => {
      const all = tasks(d);
      expect(all.length).toBe(d === 'airline' ? 50 : 115);
      let mutated = 0;
      let readOnly = 0;
      for (let i = 0; i < all.length; i++) {
        const m = gold(d, i);
        const r = await run(d, all[i], m);
        expect(r.valid, `${d} ${i}: ${r.error?.message}`).toBe(true);
        expect(r.score, `${d} ${i}: ${r.reason}`).toBe(1);
        expect(r.components!.state!.score).toBe(1);
        expect(r.components!.outputs!.score).toBe(1);
        expect(r.steps!.length).toBe(m.filter((x) => x.role === 'assistant').length);

        const w = lastWrite(m);
        if (w < 0) {
          // a task the gold solves without changing the database: an extra write must cost the reward
          readOnly++;
          const extra =
            d === 'airline'
              ? { name: 'cancel_reservation', arguments: '{"reservation_id": "NO6JO3"}' }
              : {
                  name: 'modify_user_address',
                  arguments: `{"user_id": ${JSON.stringify(all[i]!.user_id)}, "address1": "1 Elm St", "address2": "", "city": "X", "state": "CA", "country": "USA", "zip": "00000"}`,
                };
          const more = [
            ...m.slice(0, 2),
            { role: 'assistant', content: null, tool_calls: [{ id: 'w', type: 'function', function: extra }] },
            { role: 'tool', tool_call_id: 'w', content: '' },
            ...m.slice(2),
          ];
          const rx = await run(d, all[i], more);
          expect(rx.score, `${d} ${i} extra write`).toBe(0);
          expect(rx.reason).toMatch(
            d === 'airline'
              ? /differs from the gold actions' at reservations\["NO6JO3"\]\.payment_history\[1\]: \{'payment_id': .+\} vs \(absent\) \(trajectory vs gold\)$/
              : /differs from the gold actions' at users\[".+"\]\.address\.address1: '1 Elm St' vs/,
          );
          continue;
        }
        mutated++;
        const dropped = [...m.slice(0, w), ...m.slice(w + 2)];
        const r0 = await run(d, all[i], dropped);
        expect(r0.score, `${d} ${i} dropped`).toBe(0);
        expect(r0.reason).toMatch(/^reward 0: the database differs from the gold actions' at (users|reservations|orders)\[".+"\]/);

        const changed = JSON.parse(JSON.stringify(m));
        const call = changed[w].tool_calls[0].function;
        const args = JSON.parse(call.arguments);
        const key = Object.keys(args).find((k) => typeof args[k] === 'string')!;
        args[key] += 'X';
        call.arguments = JSON.stringify(args);
        const r1 = await run(d, all[i], changed);
        expect(r1.score, `${d} ${i} changed ${key}`).toBe(0);
        expect(r1.reason).toMatch(/the database differs from the gold actions' at /);
        expect(r1.metadata.tool_errors).toBeGreaterThan(0);
      }
      expect([mutated, readOnly]).toEqual(d === 'airline' ? [30, 20] : [104, 11]);
    }, 60_000);
  }

  it('an int where the gold has a float (and back) is a different database', async () => {
    const i = tasks('airline').findIndex((t) => t.actions.some((a: any) => a.name === 'send_certificate'));
    const m = gold('airline', i);
    const at = m.findIndex((x) => x.tool_calls?.[0].function.name === 'send_certificate');
    const fn = m[at]!.tool_calls[0].function;
    const amount = JSON.parse(fn.arguments).amount as number;
    fn.arguments = fn.arguments.replace(`"amount": ${amount}`, `"amount": ${amount}.0`);
    const r = await run('airline', tasks('airline')[i], m);
    expect(r.score).toBe(0);
    expect(r.reason).toContain(`.amount: ${amount}.0 vs ${amount} (trajectory vs gold)`);
  });
});

describe('outputs, episode end and formats', () => {
  const withOutputs = (d: Dom) => tasks(d).findIndex((t) => t.outputs.length > 0);

  it('a required output must appear in a reply: lowercased, commas removed', async () => {
    const i = withOutputs('retail');
    const t = tasks('retail')[i]!;
    const m = gold('retail', i);
    m[m.length - 2] = { role: 'assistant', content: 'I looked everything up for you.' };
    const r = await run('retail', t, m);
    expect(r.score).toBe(0);
    expect(r.components!.state!.score).toBe(1);
    expect(r.reason).toBe(`reward 0: required output ${t.outputs.map((o: string) => JSON.stringify(o)).join(', ')} never told to the user`);
    m[m.length - 2] = { role: 'assistant', content: t.outputs.map((o: string) => o.toUpperCase().replace(/(\d)(\d{3})\./, '$1,$2.')).join(' and ') };
    expect((await run('retail', t, m)).score).toBe(1);
    // text next to a tool call is not a reply in tau-bench
    const n = gold('retail', i);
    n.splice(n.length - 2, 1);
    const firstCall = n.findIndex((x) => x.tool_calls);
    n[firstCall]!.content = t.outputs.join(' ');
    n.splice(n.length - 1, 0, { role: 'assistant', content: 'Done.' });
    expect((await run('retail', t, n)).components!.outputs!.score).toBe(0);
  });

  it('an episode that never ended scores 0 (tau-bench records 0), unless require_done is false', async () => {
    const m = gold('airline', 0).slice(0, -1); // no ###STOP###
    const r = await run('airline', tasks('airline')[0], m);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/^reward 0: the episode never ended/);
    expect(r.components!.state!.score).toBe(1);
    expect((await run('airline', tasks('airline')[0], m, { require_done: false })).score).toBe(1);
  });

  it('nothing after the end is replayed: messages after ###STOP###, calls after a transfer', async () => {
    const m = gold('airline', 0);
    const extra = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'x', type: 'function', function: { name: 'cancel_reservation', arguments: '{"reservation_id": "HATHAT"}' } }],
      },
      { role: 'tool', tool_call_id: 'x', content: '...' },
    ];
    const r = await run('airline', tasks('airline')[0], [...m, ...extra]);
    expect(r.score).toBe(1);
    expect(r.metadata.ignored_after_end).toBe(2);
    const i = tasks('retail').findIndex((t) => t.actions.at(-1)?.name === 'transfer_to_human_agents' && t.actions.some((a: any) => WRITES.has(a.name)));
    const g = gold('retail', i); // ends with the transfer call and its result
    expect(g.at(-2)!.tool_calls[0].function.name).toBe('transfer_to_human_agents');
    const after = [...g, ...gold('retail', i).slice(2, 4)]; // repeat the first call after the transfer
    const rt = await run('retail', tasks('retail')[i], after);
    expect(rt.score).toBe(1);
    expect(rt.metadata.ended_by).toBe('transfer');
    expect(rt.components!.done!.reason).toBe('the agent transferred to a human agent');
  });

  it("reads tau-bench's ReAct records and bare action lists", async () => {
    const t = tasks('retail')[withOutputs('retail')]!;
    const react: Msg[] = [
      { role: 'system', content: 'policy' },
      { role: 'user', content: 'hi' },
    ];
    for (const a of t.actions) {
      react.push({ role: 'assistant', content: `Thought:\nI will call it.\nAction:\n${JSON.stringify({ name: a.name, arguments: a.kwargs })}` });
      react.push({ role: 'user', content: 'API output: ...' });
    }
    react.push({
      role: 'assistant',
      content: `Thought:\nanswer\nAction:\n${JSON.stringify({ name: 'respond', arguments: { content: t.outputs.join(' ') } })}`,
    });
    react.push({ role: 'user', content: '###STOP###' });
    expect((await run('retail', t, react, { format: 'react' })).score).toBe(1);
    const g = loadGrader({ type: 'tau_bench', domain: 'retail', actions: '{{sample.actions}}' });
    const actions = [...t.actions, { name: 'respond', kwargs: { content: t.outputs.join(' ') } }];
    const r = await grade(g, { item: t, sample: { actions } }, { services });
    expect(r.score).toBe(1);
    expect(r.metadata.ended_by).toBe('end_of_actions');
  });

  it('a tool call named "respond" is a reply, as tau-bench turns it into its respond action', async () => {
    const i = withOutputs('retail');
    const t = tasks('retail')[i]!;
    const m = gold('retail', i);
    m[m.length - 2] = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'r', type: 'function', function: { name: 'respond', arguments: JSON.stringify({ content: t.outputs.join(' ') }) } }],
    };
    const r = await run('retail', t, m);
    expect(r.score).toBe(1);
    expect(r.metadata.ended_by).toBe('user_stop');
  });

  it('runs every tool call of a message, or only the first with first_tool_call_only', async () => {
    const i = tasks('airline').findIndex((t) => t.actions.filter((a: any) => WRITES.has(a.name)).length >= 2);
    const m = gold('airline', i);
    const calls = m.filter((x) => x.tool_calls).map((x) => x.tool_calls[0]);
    const merged = [m[0], m[1], { role: 'assistant', content: null, tool_calls: calls }, m.at(-2), m.at(-1)];
    expect((await run('airline', tasks('airline')[i], merged)).score).toBe(1);
    expect((await run('airline', tasks('airline')[i], merged, { first_tool_call_only: true })).score).toBe(0);
  });
});

describe('diagnostics, limits and bad input', () => {
  it('reports tool errors, unusable arguments and record-vs-replay mismatches without changing the reward', async () => {
    const m = gold('airline', 0);
    m.splice(
      2,
      0,
      { role: 'assistant', content: null, tool_calls: [{ id: 'bad', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id": ' } }] },
      { role: 'tool', tool_call_id: 'bad', content: 'whatever' },
    );
    const toolMsg = m.findIndex((x, k) => x.role === 'tool' && k > 4);
    m[toolMsg]!.content = 'a different record';
    const r = await run('airline', tasks('airline')[0], m);
    expect(r.score).toBe(1);
    expect(r.metadata.tool_errors).toBe(1);
    expect((r.metadata.first_error as any).observation).toMatch(/^Error: tool call arguments are not valid JSON: Expecting value: line 1 column 13/);
    expect(r.metadata.observation_mismatches).toBe(2);
  });

  it("a tool that returns None ends the episode as tau-bench's exception does: reward 0", async () => {
    const call = (k: number) => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'send_certificate', arguments: '{"user_id": "mia_li_3668", "amount": 1}' } }],
    });
    const m = [
      { role: 'user', content: 'hi' },
      call(0),
      call(1),
      call(2),
      call(3),
      { role: 'assistant', content: 'bye' },
      { role: 'user', content: '###STOP###' },
    ];
    const r = await run('airline', { actions: [], outputs: [] }, m);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/^reward 0: the episode crashes: tool send_certificate returned None/);
  });

  it('malformed tasks and records are invalid (bad_input) naming the field; a trajectory over the limits is a valid 0', async () => {
    const r1 = await run('airline', { outputs: [] }, gold('airline', 0));
    expect(r1.error).toEqual({ kind: 'bad_input', message: 'task.actions must be a list of {name, kwargs}' });
    const r2 = await run('airline', tasks('airline')[0], 'not a list');
    expect(r2.error?.kind).toBe('bad_input');
    const r3 = await run('airline', tasks('airline')[0], [{ role: 'wizard', content: 'x' }]);
    expect(r3.error?.message).toMatch(/^messages: messages\[0\]\.role must be/);
    const r4 = await run(
      'airline',
      tasks('airline')[0],
      Array.from({ length: 10_001 }, () => ({ role: 'user', content: '' })),
    );
    expect(r4).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/trajectory has 10001 messages, over the limit of 10000/) });
    const many = Array.from({ length: 1_001 }, (_, k) => ({
      role: 'assistant',
      content: null,
      tool_calls: [{ id: `c${k}`, type: 'function', function: { name: 'think', arguments: '{"thought": ""}' } }],
    }));
    const r5 = await run('airline', tasks('airline')[0], many);
    expect(r5).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/^reward 0: messages: trajectory has more than 1000 actions/) });
    expect(() => loadGrader({ type: 'tau_bench', domain: 'airline', messages: '{{sample.messages}}', actions: '{{sample.actions}}' })).toThrow(
      /give either "messages" or "actions"/,
    );
    expect(() => loadGrader({ type: 'tau_bench', domain: 'hotel' })).toThrow(/domain/);
  });

  it("report_hashes gives tau-bench's data hashes", async () => {
    const r = await run('airline', tasks('airline')[0], gold('airline', 0), { report_hashes: true });
    expect(r.metadata.gt_data_hash).toBe('a825bc534ee4abad2f0f36d5d162989dcbae16dd509bd675feb7e9ffc86a1001');
    expect(r.metadata.data_hash).toBe(r.metadata.gt_data_hash);
  });
});

describe('turn-level credit: per-turn rewards and GiGPO anchors', () => {
  it('progress climbs to 1 on the gold path; a tool error costs tool_error; the last turn adds the outcome', async () => {
    const i = tasks('airline').findIndex((t) => t.actions.filter((a: any) => WRITES.has(a.name)).length >= 2 && t.outputs.length === 0);
    const m = gold('airline', i);
    const r = await run('airline', tasks('airline')[i], m);
    const progress = r.metadata.progress as number[];
    expect(progress.at(-1)).toBe(1);
    expect(progress.every((p, k) => k === 0 || p >= progress[k - 1]!)).toBe(true);
    const total = r.steps!.reduce((a, b) => a + b, 0);
    expect(total).toBeCloseTo(0.5 * 1 + 1, 12); // progress 0 → 1 at weight 0.5, outcome 1 at weight 1
    const bad = [
      m[0],
      m[1],
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'e', type: 'function', function: { name: 'get_user_details', arguments: '{"user_id": "nobody_1"}' } }],
      },
      { role: 'tool', tool_call_id: 'e', content: 'Error: user not found' },
      ...m.slice(2),
    ];
    const rb = await run('airline', tasks('airline')[i], bad, { step_weights: { progress: 1, tool_error: 0.25, outcome: 2 } });
    expect(rb.steps![0]).toBeCloseTo(-0.25, 12);
    expect(rb.steps!.reduce((a, b) => a + b, 0)).toBeCloseTo(-0.25 + 1 + 2, 12);
  });

  it('the same state and observation give the same anchor across trajectories; the state anchor ignores the observation', async () => {
    const m = gold('retail', 0);
    const other = JSON.parse(JSON.stringify(m));
    other[1].content = 'a differently worded opening';
    const a = await run('retail', tasks('retail')[0], m);
    const b = await run('retail', tasks('retail')[0], other);
    const aa = a.metadata.anchors as string[];
    const bb = b.metadata.anchors as string[];
    expect(aa[0]).not.toBe(bb[0]); // the first observation differs
    expect(aa.slice(1)).toEqual(bb.slice(1)); // then the same tool results on the same states
    expect(new Set(aa).size).toBe(aa.length);
    const sa = (await run('retail', tasks('retail')[0], m, { anchor: 'state' })).metadata.anchors as string[];
    const sb = (await run('retail', tasks('retail')[0], other, { anchor: 'state' })).metadata.anchors as string[];
    expect(sa[0]).toBe(sb[0]);
  });
});

describe('cpu_heavy: under a time budget the replay runs in a killable worker', () => {
  it('the type is cpu_heavy; a budgeted grade goes to the worker pool and gives the inline result', async () => {
    const { getGraderType } = await import('../../dist/index.js');
    expect(getGraderType('tau_bench')?.cpu_heavy).toBe(true);
    const own = new Services();
    try {
      const item = tasks('retail')[3]!;
      const messages = gold('retail', 3);
      const inline = await grade(grader('retail'), { item, sample: { messages } }, { services: own });
      expect(own.has('workers:preempt')).toBe(false); // no budget: inline, no pool
      const budgeted = await grade(grader('retail', { timeout_ms: 60_000 }), { item, sample: { messages } }, { services: own });
      expect(own.has('workers:preempt')).toBe(true);
      expect(budgeted).toMatchObject({ valid: true, score: 1, steps: inline.steps, reason: inline.reason });
      expect(inline.score).toBe(1);
    } finally {
      await own.close();
    }
  });
});
