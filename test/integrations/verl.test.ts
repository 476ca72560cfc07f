// verl, from its own calling convention (test/integrations/clients/verl_loop.py reproduces verl's
// loading, the reward loop's NaiveRewardManager.run_single and the legacy batch manager): the async
// compute_score micro-batches concurrent samples into one /v1/score request, numpy values in
// ground_truth / extra_info arrive as JSON values, and the sync and batch forms keep working.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endsWithAnswer, get, gsm8k, registerTestTypes, SHIPPED_GSM8K, start, type Running } from '../server/helpers.js';
import { CLIENTS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}verl_loop.py`;
let srv: Running;
let busy: Running;

// scores 1 only when extra_info carries real JSON numbers and a list, as the dataset had them
const TYPED = {
  type: 'format',
  check: 'json',
  input: '{{item.extra_info}}',
  schema: {
    type: 'object',
    properties: { index: { type: 'integer' }, ratio: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
    required: ['index', 'ratio', 'tags'],
  },
};

beforeAll(async () => {
  registerTestTypes();
  srv = await start({
    // as integrations/README.md starts it: --grader openai/gsm8k=graders/gsm8k.json
    'openai/gsm8k': SHIPPED_GSM8K,
    typed: TYPED,
    label_is_int: { type: 'format', check: 'json', input: '{{item.label}}', schema: { type: 'integer' } },
  });
  busy = await start({ slow: { type: 'test_sleep', ms: 150 } }, { concurrency: 1, maxQueue: 2 });
});
afterAll(async () => {
  await srv.close();
  await busy.close();
});

const data = gsm8k(64);
const samples = data.map((d, i) => ({
  data_source: 'openai/gsm8k',
  solution_str: d.solution,
  ground_truth: { $np: 'str', v: d.label },
  extra_info: { index: { $np: 'int64', v: i }, split: 'test' },
}));
const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));
const scoreRequests = async (url: string) =>
  Number(/arbiter_http_requests_total\{route="\/v1\/score",method="POST",status="200"\} (\d+)/.exec((await get(`${url}/metrics`)).text)?.[1] ?? 0);

describe('verl reward loop (reward_model.use_reward_loop=True, the default)', () => {
  it('awaits compute_score_async per sample; 64 concurrent samples go out as one /v1/score request on one connection', async () => {
    const before = await scoreRequests(srv.url);
    const r = await runPython(CLIENT, { mode: 'loop', name: 'compute_score_async', samples }, { ARBITER_URL: srv.url });
    expect(r.stderr).toBe('');
    expect(r.out.info).toEqual({ is_coroutine_function: true, requests_sent: 1, connections_opened: 1 });
    expect(r.out.results.map((x: { reward_score: number }) => x.reward_score)).toEqual(expected);
    expect(r.out.results[0].reward_extra_info).toEqual({ score: expected[0], arbiter_invalid: 0 });
    expect((await scoreRequests(srv.url)) - before).toBe(1);
  });

  it('sends numpy scalars and arrays in ground_truth and extra_info as JSON numbers and lists', async () => {
    const typed = [
      {
        data_source: 'typed',
        solution_str: 'x',
        ground_truth: 'g',
        extra_info: { index: { $np: 'int64', v: 7 }, ratio: { $np: 'float64', v: 0.5 }, tags: { $np: 'array', v: [{ $np: 'str', v: 'a' }, 'b'] } },
      },
      { data_source: 'label_is_int', solution_str: 'x', ground_truth: { $np: 'int64', v: 42 } },
    ];
    for (const name of ['compute_score_async', 'compute_score']) {
      const r = await runPython(CLIENT, { mode: 'loop', name, samples: typed }, { ARBITER_URL: srv.url });
      expect(r.stderr).toBe('');
      expect(r.out.results.map((x: { reward_score: number }) => x.reward_score)).toEqual([1, 1]);
    }
  });

  it('runs the sync compute_score in the executor, one request per sample', async () => {
    const r = await runPython(CLIENT, { mode: 'loop', name: 'compute_score', samples: samples.slice(0, 8) }, { ARBITER_URL: srv.url });
    expect(r.out.info.is_coroutine_function).toBe(false);
    expect(r.out.results.map((x: { reward_score: number }) => x.reward_score)).toEqual(expected.slice(0, 8));
  });

  it('raises ArbiterError in every awaiting sample when the grader is unknown (no made-up rewards)', async () => {
    const r = await runPython(
      CLIENT,
      { mode: 'loop', name: 'compute_score_async', samples: [{ ...samples[0], data_source: 'no/such' }] },
      { ARBITER_URL: srv.url },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ArbiterError: .*HTTP 404: .*unknown grader \\"no\/such\\"/);
  });

  it('retries 429 (Retry-After) in the async client until a busy server has taken every batch', async () => {
    const slow = Array.from({ length: 4 }, (_, i) => ({ data_source: 'slow', solution_str: `A: ${i}`, ground_truth: String(i) }));
    const r = await runPython(
      CLIENT,
      { mode: 'loop', name: 'compute_score_async', samples: slow },
      { ARBITER_URL: busy.url, ARBITER_MAX_BATCH: '2', ARBITER_RETRIES: '30' },
    );
    expect(r.stderr).toBe('');
    expect(r.out.results.map((x: { reward_score: number }) => x.reward_score)).toEqual(new Array(4).fill(1));
    const m = (await get(`${busy.url}/metrics`)).text;
    expect(Number(/arbiter_queue_rejections_total\{route="\/v1\/score"\} (\d+)/.exec(m)?.[1] ?? 0)).toBeGreaterThan(0);
  });
});

describe('verl legacy batch manager (use_reward_loop=False, reward_manager=batch)', () => {
  it('calls compute_score_batch once with the whole batch', async () => {
    const r = await runPython(CLIENT, { mode: 'batch', name: 'compute_score_batch', samples: samples.slice(0, 16) }, { ARBITER_URL: srv.url });
    expect(r.stderr).toBe('');
    expect(r.out.results.map((x: { reward_score: number }) => x.reward_score)).toEqual(expected.slice(0, 16));
  });
});

describe('verl reward loop remote manager (reward_model.reward_manager=remote)', () => {
  const plain = data.map((d, i) => ({ data_source: 'openai/gsm8k', solution_str: d.solution, ground_truth: d.label, extra_info: { index: i } }));
  it('compute_score pickled into a separate process (a Ray worker) still reaches the client code, without PYTHONPATH', async () => {
    const r = await runPython(CLIENT, { mode: 'remote', name: 'compute_score', samples: plain.slice(0, 6) }, { ARBITER_URL: srv.url });
    expect(r.stderr).toBe('');
    if (r.out.error === 'cloudpickle is not installed') return; // Ray's pickler; nothing to reproduce without it
    expect(r.out.error).toBeUndefined();
    expect(r.out.results.map((x: { reward_score: number }) => x.reward_score)).toEqual(expected.slice(0, 6));
    expect(r.out.results.map((x: { reward_extra_info: { arbiter_invalid: number } }) => x.reward_extra_info.arbiter_invalid)).toEqual([0, 0, 0, 0, 0, 0]);
  });
});
