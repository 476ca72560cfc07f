// Issue 10 item 5: every reward and score a trainer-facing endpoint returns is a JSON float, so
// Python trainers (json.loads) get float, never int: OpenRLHF builds torch tensors from
// /get_reward's lists, and an int64 tensor breaks its std/var advantage code. Bodies are parsed
// with python3's json and the Python types checked, for whole-number rewards (1, 0, -1).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { floatJSON, floatList, floatNum, resultJSON } from '../../dist/server/index.js';
import { pythonTypes } from '../integrations/run-python.js';
import { ANSWER_CHECK, post, start, type Running } from './helpers.js';

let srv: Running;

const MIXED = {
  type: 'multi',
  name: 'mixed',
  graders: {
    acc: ANSWER_CHECK,
    polite: { type: 'string_check', input: '{{sample.output_text}}', reference: 'thanks', operation: 'ilike' },
  },
  calculate_output: 'acc + polite',
};

beforeAll(async () => {
  srv = await start({ answer_check: ANSWER_CHECK, mixed: MIXED }, { fallbackReward: -1, allowInlineGraders: true });
});
afterAll(() => srv.close());

const floats = (n: number) => new Array(n).fill('float');

describe('float writers', () => {
  it('write whole numbers with a fraction and keep every other number exact', () => {
    expect([0, 1, -1, 2, 1e20, 1e21, 0.5, -2.25, 1e-7, 123456789.125].map(floatNum)).toEqual([
      '0.0',
      '1.0',
      '-1.0',
      '2.0',
      '100000000000000000000.0',
      '1e+21',
      '0.5',
      '-2.25',
      '1e-7',
      '123456789.125',
    ]);
    expect([NaN, Infinity].map(floatNum)).toEqual(['null', 'null']);
    expect(floatList([1, null, 0.25])).toBe('[1.0,null,0.25]');
    for (const x of [0.1 + 0.2, 1 / 3, 5e-324, 1.7976931348623157e308]) expect(JSON.parse(floatNum(x))).toBe(x);
  });

  it('change nothing but the numbers under reward keys', () => {
    const v = { reward: 1, n: 3, nested: { scores: { a: 0, b: [1, 2] }, count: 2 }, text: 'x', none: null, skip: undefined };
    expect(floatJSON(v, new Set(['reward', 'scores']))).toBe(
      '{"reward":1.0,"n":3,"nested":{"scores":{"a":0.0,"b":[1.0,2.0]},"count":2},"text":"x","none":null}',
    );
    const r = {
      score: 1,
      valid: true,
      steps: [1, 0.5],
      components: { a: { score: 0, valid: true, metadata: { grader: 'a', type: 't', duration_ms: 3 } } },
      metadata: { grader: 'g', type: 't', duration_ms: 2, passed: true },
    };
    const s = resultJSON(r as never, 7);
    expect(s).toBe(
      '{"id":7,"score":1.0,"valid":true,"steps":[1.0,0.5],"components":{"a":{"score":0.0,"valid":true,"metadata":{"grader":"a","type":"t","duration_ms":3}}},"metadata":{"grader":"g","type":"t","duration_ms":2,"passed":true}}',
    );
    expect(JSON.parse(s)).toEqual({ id: 7, ...r });
  });

  it("writes a result's metadata exactly as JSON.stringify does, whatever it holds", () => {
    class Box {
      x = 1;
    }
    const withToJSON = { a: 1, toJSON: () => ({ b: 2 }) };
    const nullProto = Object.assign(Object.create(null) as Record<string, unknown>, { z: 'q' });
    const cases: unknown[] = [
      { grader: 'g', type: 't', duration_ms: 0.30422099999998, passed: false },
      { grader: 'quote "and" back\\slash\n\u0001', type: '\ud800 lone surrogate', 2: 'integer key first', k: 'after' },
      { n: Number.NaN, inf: Number.POSITIVE_INFINITY, neg0: -0, big: 1e21, tiny: 5e-324, u: undefined, f: () => 1, sym: Symbol('s') },
      { nested: { deep: [1, 'two', null, { three: true }] }, when: new Date(0), nul: null, box: new Box() },
      withToJSON,
      nullProto,
      new Box(),
      null,
      'a string',
      [1, 2],
    ];
    for (const metadata of cases) {
      const s = resultJSON({ score: 0.5, valid: true, metadata } as never);
      const want = JSON.stringify(metadata);
      expect(s).toBe(want === undefined ? '{"score":0.5,"valid":true}' : `{"score":0.5,"valid":true,"metadata":${want}}`);
    }
    // the same short strings again (written from the cache) and an integer past 2^53 (as its digits)
    expect(resultJSON({ score: 1, valid: true, metadata: { grader: 'g', type: 't', id: 12345678901234567891n } } as never)).toBe(
      '{"score":1.0,"valid":true,"metadata":{"grader":"g","type":"t","id":12345678901234567891}}',
    );
  });
});

describe('Python sees floats on every trainer-facing endpoint', () => {
  it('/get_reward (OpenRLHF): rewards, scores and every extra_logs list', async () => {
    const r = await post(`${srv.url}/get_reward?grader=mixed`, {
      query: ['P:thanks A: 4', 'P:A: 5', 'nope'],
      prompts: ['P:', 'P:', 'P:'],
      labels: ['4', '4', '4'],
    });
    expect(r.status).toBe(200);
    expect(r.body.rewards).toEqual([2, 0, -1]);
    const [t] = await pythonTypes([{ text: r.text, paths: ['rewards.*', 'scores.*', 'extra_logs.*.*'] }]);
    expect(t).toEqual({ 'rewards.*': floats(3), 'scores.*': floats(3), 'extra_logs.*.*': floats(9) });
  });

  it('/v1/score: each result score, component scores and the mean', async () => {
    const r = await post(`${srv.url}/v1/score`, {
      grader: 'mixed',
      samples: [
        { item: { label: '4' }, sample: { output_text: 'A: 4' } },
        { item: {}, sample: { output_text: 'A: 4' } },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { score: number | null }) => x.score)).toEqual([1, null]);
    const [t] = await pythonTypes([
      { text: r.text, paths: ['results.0.score', 'results.0.components.*.score', 'summary.mean_score', 'summary.count', 'results.0.id'] },
    ]);
    // counts and ids stay integers; only scores are floats
    expect(t).toEqual({
      'results.0.score': ['float'],
      'results.0.components.*.score': ['float', 'float'],
      'summary.mean_score': ['float'],
      'summary.count': ['int'],
      'results.0.id': ['int'],
    });
  });

  it('/v1/graders/run and the SDK path: reward, sub_rewards, metadata.scores', async () => {
    const docs = [];
    for (const path of ['/v1/graders/run', '/v1/fine_tuning/alpha/graders/run']) {
      const r = await post(`${srv.url}${path}`, { grader: 'mixed', model_sample: 'thanks A: 4', item: { label: '4' } });
      expect(r.status).toBe(200);
      expect(r.body.reward).toBe(2);
      docs.push({ text: r.text, paths: ['reward', 'sub_rewards.*', 'metadata.scores.*'] });
    }
    for (const t of await pythonTypes(docs)) expect(t).toEqual({ reward: ['float'], 'sub_rewards.*': floats(2), 'metadata.scores.*': floats(2) });
  });

  it('/reward (slime): the bare number and the dict', async () => {
    const a = await post(`${srv.url}/reward?grader=answer_check`, { prompt: 'Q', response: 'A: 4', label: '4' });
    const b = await post(`${srv.url}/reward?grader=mixed&format=dict`, { prompt: 'Q', response: 'A: 4', label: '4' });
    expect(a.text).toBe('1.0');
    expect(b.body).toMatchObject({ reward: 1, score: 1, valid: true, components: { acc: { score: 1 }, polite: { score: 0 } } });
    const t = await pythonTypes([
      { text: a.text, paths: [''] },
      { text: b.text, paths: ['reward', 'score', 'components.*.score'] },
    ]);
    expect(t).toEqual([{ '': ['float'] }, { reward: ['float'], score: ['float'], 'components.*.score': floats(2) }]);
  });

  it('/verify (NeMo-Gym): reward, reward_components, arbiter_invalid; the echoed row keeps its types', async () => {
    const row = { responses_create_params: { input: [{ role: 'user', content: 'Q' }], max_output_tokens: 16 }, label: '4', _ng_task_index: 3 };
    const response = {
      id: 'r',
      object: 'response',
      output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'A: 4', annotations: [] }] }],
    };
    const v = await post(`${srv.url}/verify?grader=mixed`, { ...row, response });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ ...row, response, reward: 1, reward_components: { acc: 1, polite: 0 }, arbiter_invalid: 0 });
    const [t] = await pythonTypes([
      { text: v.text, paths: ['reward', 'reward_components.*', 'arbiter_invalid', '_ng_task_index', 'responses_create_params.max_output_tokens'] },
    ]);
    expect(t).toEqual({
      reward: ['float'],
      'reward_components.*': floats(2),
      arbiter_invalid: ['float'],
      _ng_task_index: ['int'],
      'responses_create_params.max_output_tokens': ['int'],
    });
  });
});
