// slime (`--rm-type remote_rm --rm-url http://HOST:PORT/reward`), from its own calling convention
// (test/integrations/clients/slime.py reproduces slime/rollout/rm_hub/__init__.py remote_rm):
// {prompt, response, label} per sample, the reply JSON is the reward (a bare float, or a dict read
// with --reward-key), retries with exponential backoff on any error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, endsWithAnswer, gsm8k, post, SHIPPED_GSM8K, start, type Running } from '../server/helpers.js';
import { CLIENTS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}slime.py`;
let srv: Running;
let dict: Running;

const MIXED = {
  type: 'multi',
  graders: { acc: ANSWER_CHECK, polite: { type: 'string_check', input: '{{sample.output_text}}', reference: 'thank', operation: 'ilike' } },
  calculate_output: '0.9 * acc + 0.1 * polite',
};

beforeAll(async () => {
  srv = await start({ answer_check: ANSWER_CHECK, mixed: MIXED, gsm8k: SHIPPED_GSM8K }, { fallbackReward: -1 });
  dict = await start({ mixed: MIXED }, { rewardFormat: 'dict' });
});
afterAll(async () => {
  await srv.close();
  await dict.close();
});

const data = gsm8k(40);
const samples = data.map((d) => ({ prompt: [{ role: 'user', content: d.question }], response: d.solution, label: d.label }));
const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));

describe('slime remote_rm', () => {
  it("grades with the shipped graders/gsm8k.json: slime's label is item.label", async () => {
    const r = await runPython(CLIENT, { url: `${srv.url}/reward?grader=gsm8k`, samples });
    expect(r.stderr).toBe('');
    expect(r.out.map((x: { value: number }) => x.value)).toEqual(expected);
    expect(expected).toContain(1);
    expect(expected).toContain(0);
  });

  it('takes the bare float reply as the reward (default format)', async () => {
    const r = await runPython(CLIENT, { url: `${srv.url}/reward?grader=answer_check`, samples });
    expect(r.stderr).toBe('');
    expect(r.out.map((x: { value: number }) => x.value)).toEqual(expected);
    expect(new Set(r.out.map((x: { value_type: string }) => x.value_type))).toEqual(new Set(['float']));
    expect(new Set(r.out.map((x: { attempts: number }) => x.attempts))).toEqual(new Set([1]));
  });

  it('reads the dict reply with --reward-key reward (?format=dict, or the server option)', async () => {
    for (const url of [`${srv.url}/reward?grader=mixed&format=dict`, `${dict.url}/reward`]) {
      const r = await runPython(CLIENT, { url, samples: samples.slice(0, 10), reward_key: 'reward' });
      expect(r.out.map((x: { value: number }) => x.value)).toEqual(expected.slice(0, 10).map((e) => 0.9 * e));
      expect(r.out[0].value_type).toBe('float');
      expect(r.out[0].reward).toMatchObject({
        score: 0.9 * expected[0]!,
        valid: true,
        components: { acc: { score: expected[0], valid: true }, polite: { score: 0 } },
        metadata: { type: 'multi' },
      });
    }
  });

  it('gets the fallback reward and x-arbiter-valid: false for a sample it cannot grade', async () => {
    const r = await runPython(CLIENT, {
      url: `${srv.url}/reward?grader=answer_check`,
      samples: [
        { prompt: 'Q', response: 'A: 1', label: null },
        { prompt: 'Q', response: 'A: 1', label: '1' },
      ],
    });
    // a null label renders as text "null": graded, wrong
    expect(r.out.map((x: { value: number }) => x.value)).toEqual([0, 1]);
    const bad = await post(`${srv.url}/reward?grader=answer_check&format=dict`, { prompt: 'Q', response: null, label: '1' });
    expect(bad.status).toBe(200);
    expect(bad.headers.get('x-arbiter-valid')).toBe('false');
    expect(bad.headers.get('x-arbiter-error-kind')).toBe('bad_input');
    expect(bad.body).toMatchObject({
      reward: -1,
      score: null,
      valid: false,
      error: { kind: 'bad_input', message: 'field "response" must be a string, got null' },
    });
    const missing = await post(`${srv.url}/reward`, { prompt: 'Q' });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toMatch(/field "response" is required/);
    const fmt = await post(`${srv.url}/reward?format=xml`, { prompt: 'Q', response: 'x' });
    expect(fmt.status).toBe(400);
  });

  it('retries a refused request 10 times with backoff, then raises (never a made-up reward)', async () => {
    const r = await runPython(CLIENT, { url: `${srv.url}/reward?grader=nope`, samples: samples.slice(0, 1), backoff_scale: 0.001 });
    expect(r.out[0].raised).toMatch(/HTTPError 404/);
    expect(r.out[0].attempts).toBe(10);
  });
});
