// verifiers, from its own calling convention (test/integrations/clients/verifiers_rubric.py
// reproduces Rubric.score_group: signature inspection, group detection, maybe_await, float()):
// an async per-rollout function (micro-batched: one request per group) and an async group
// function, both on one keep-alive client; messages as verifiers' dict-like pydantic objects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endsWithAnswer, gsm8k, SHIPPED_GSM8K, start, type Running } from '../server/helpers.js';
import { CLIENTS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}verifiers_rubric.py`;
let srv: Running;

beforeAll(async () => {
  srv = await start(
    {
      // the shipped graders/gsm8k.json: the state's answer arrives as item.label
      gsm8k: SHIPPED_GSM8K,
      info_gold: { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.info.gold}}', operation: 'like' },
      fields: {
        type: 'format',
        check: 'json',
        input: '{{item}}',
        schema: {
          type: 'object',
          required: ['answer', 'label', 'info', 'prompt', 'question'],
          properties: { info: { required: ['id'] } },
          not: { anyOf: [{ required: ['state'] }, { required: ['parser'] }] },
        },
      },
    },
    { fallbackReward: -1 },
  );
});
afterAll(() => srv.close());

const data = gsm8k(16);
const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));
const states = data.map((d, i) => ({
  prompt: [{ role: 'user', content: d.question }],
  completion: [{ role: 'assistant', content: [{ type: 'text', text: d.solution }] }],
  answer: d.label,
  info: { id: i },
  question: d.question,
}));

describe('verifiers Rubric', () => {
  it('awaits the async rubric function per rollout; the group goes out as one request on one connection', async () => {
    for (const as_models of [false, true]) {
      const r = await runPython(CLIENT, { func: 'rubric', make: { grader: 'gsm8k' }, states, as_models }, { ARBITER_URL: srv.url });
      expect(r.stderr).toBe('');
      expect(r.out).toEqual({
        name: 'arbiter_gsm8k',
        is_group: false,
        scores: expected,
        types: ['float'],
        errors: [],
        requests_sent: 1,
        connections_opened: 1,
      });
    }
  });

  it('calls the async group function once with the plural objects', async () => {
    const r = await runPython(CLIENT, { func: 'group', make: { grader: 'gsm8k' }, states, as_models: true }, { ARBITER_URL: srv.url });
    expect(r.out).toMatchObject({ name: 'arbiter_group_gsm8k', is_group: true, scores: expected, errors: [], connections_opened: 1 });
  });

  it('awaits arbiter_score on one message object, as a v1 @vf.reward method does with trace.last_message', async () => {
    const r = await runPython(
      CLIENT,
      { func: 'score_one', make: { grader: 'gsm8k' }, message: { role: 'assistant', content: [{ type: 'text', text: 'so A: 12' }] }, item: { label: '12' } },
      { ARBITER_URL: srv.url },
    );
    expect(r.stderr).toBe('');
    expect(r.out).toEqual({ reward: 1, type: 'float' });
  });

  it("passes the row's plain fields, answer and info as the item, never the state or parser", async () => {
    const r = await runPython(CLIENT, { func: 'rubric', make: { grader: 'fields' }, states: states.slice(0, 2), as_models: true }, { ARBITER_URL: srv.url });
    expect(r.out.scores).toEqual([1, 1]);
  });

  it("gives the fallback for an ungradable rollout, and a refused request becomes the Rubric's logged 0.0", async () => {
    const two = [
      { prompt: 'q', completion: 'A: 1', answer: '1', info: {} },
      { prompt: 'q', completion: 'A: 1', answer: '1', info: { gold: '1' } },
    ];
    const r = await runPython(CLIENT, { func: 'rubric', make: { grader: 'info_gold', fallback: 0.25 }, states: two }, { ARBITER_URL: srv.url });
    expect(r.out.scores).toEqual([0.25, 1]);
    const env = await runPython(
      CLIENT,
      { func: 'group', make: { grader: 'info_gold' }, states: two },
      { ARBITER_URL: srv.url, ARBITER_FALLBACK_REWARD: '-0.5' },
    );
    expect(env.out.scores).toEqual([-0.5, 1]);
    const bad = await runPython(CLIENT, { func: 'rubric', make: { grader: 'nope' }, states: states.slice(0, 2) }, { ARBITER_URL: srv.url });
    expect(bad.out.scores).toEqual([0, 0]);
    expect(bad.out.errors[0]).toMatch(/ArbiterError.*HTTP 404/);
  });
});
