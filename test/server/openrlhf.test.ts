// POST /get_reward (OpenRLHF): prompt-prefix removal, EOS stripping, labels -> item.label, fallback
// rewards and invalid counts in extra_logs, component scores, grader selection — over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, endsWithAnswer, gsm8k, post, start, type Running } from './helpers.js';

let srv: Running;
const FALLBACK = -1;

beforeAll(async () => {
  srv = await start(
    {
      answer_check: ANSWER_CHECK,
      mixed: {
        type: 'multi',
        name: 'mixed',
        graders: {
          acc: ANSWER_CHECK,
          polite: { type: 'string_check', input: '{{sample.output_text}}', reference: 'thanks', operation: 'ilike' },
        },
        calculate_output: '0.8 * acc + 0.2 * polite',
      },
    },
    { fallbackReward: FALLBACK },
  );
});
afterAll(() => srv.close());

const chatml = (q: string) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;

describe('/get_reward', () => {
  it('grades real GSM8K solutions sent as ChatML queries with EOS and padding tokens', async () => {
    const data = gsm8k(200);
    const prompts = data.map((d) => chatml(d.question));
    const eos = ['<|im_end|>', '<|im_end|>\n<|endoftext|>', '<|endoftext|><|endoftext|>', '</s>', '<|eot_id|>'];
    // left padding on some queries, as a decoded left-padded batch has
    const queries = data.map((d, i) => (i % 7 === 0 ? '<|endoftext|><|endoftext|>' : '') + prompts[i] + d.solution + eos[i % eos.length]);
    const r = await post(`${srv.url}/get_reward`, { query: queries, prompts, labels: data.map((d) => d.label) });
    expect(r.status).toBe(200);
    const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));
    expect(r.body.rewards).toEqual(expected);
    expect(r.body.scores).toEqual(expected);
    expect(r.body.extra_logs.arbiter_invalid).toEqual(data.map(() => 0));
    // the suffix check agrees with the human correctness labels on real data
    const agree = data.filter((d, i) => (expected[i] === 1) === d.is_correct).length;
    expect(agree / data.length).toBeGreaterThan(0.95);
    expect(expected.some((x) => x === 1) && expected.some((x) => x === 0)).toBe(true);
  });

  it('gives the fallback reward to ungradable samples and counts them in extra_logs', async () => {
    const d = gsm8k(3);
    const r = await post(`${srv.url}/get_reward`, {
      query: [chatml(d[0]!.question) + d[0]!.solution + '<|im_end|>', 'something else entirely', chatml(d[2]!.question) + d[2]!.solution],
      prompts: [chatml(d[0]!.question), chatml(d[1]!.question), chatml(d[2]!.question)],
      labels: [d[0]!.label, d[1]!.label, null],
    });
    expect(r.status).toBe(200);
    expect(r.body.rewards[0]).toBe(endsWithAnswer(d[0]!.solution, d[0]!.label) ? 1 : 0);
    // query 1 does not start with its prompt: ungradable (grading the prompt could leak the answer)
    expect(r.body.rewards[1]).toBe(FALLBACK);
    expect(r.body.extra_logs.arbiter_invalid[1]).toBe(1);
    expect(r.body.extra_logs.arbiter_invalid[0]).toBe(0);
  });

  it('counts template errors (missing labels) as invalid with the fallback', async () => {
    const r = await post(`${srv.url}/get_reward`, { query: ['Q?A: 4'], prompts: ['Q?'] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ rewards: [FALLBACK], scores: [FALLBACK], extra_logs: { arbiter_invalid: [1] } });
  });

  it('reports each component score in extra_logs for a multi grader chosen by name', async () => {
    const r = await post(`${srv.url}/get_reward`, {
      grader: 'mixed',
      query: ['P:A: 4', 'P:thanks! A: 5</s>', 'P:A: 7'],
      prompts: ['P:', 'P:', 'P:'],
      labels: ['4', '5', '8'],
    });
    expect(r.status).toBe(200);
    expect(r.body.rewards.map((x: number) => Math.round(x * 100) / 100)).toEqual([0.8, 1, 0]);
    expect(r.body.extra_logs).toEqual({ arbiter_invalid: [0, 0, 0], acc: [1, 1, 0], polite: [0, 1, 0] });
  });

  it('selects the grader from the URL query string (OpenRLHF cannot add body fields)', async () => {
    const r = await post(`${srv.url}/get_reward?grader=mixed`, { query: ['thanks A: 1'], prompts: [''], labels: ['1'] });
    expect(r.body.extra_logs.polite).toEqual([1]);
    const u = await post(`${srv.url}/get_reward?grader=nope`, { query: ['x'] });
    expect(u.status).toBe(404);
    expect(u.body.error.code).toBe('unknown_grader');
    expect(u.body.error.message).toMatch(/answer_check, mixed/);
  });

  it('accepts the legacy query-only payload and OpenRLHF metas', async () => {
    const r = await post(`${srv.url}/get_reward`, { query: ['A: 9<|eot_id|>'], labels: ['9'], metas: [{ source: 'x' }] });
    expect(r.body.rewards).toEqual([1]);
  });

  it('rejects structurally wrong bodies with 400 naming the field', async () => {
    const a = await post(`${srv.url}/get_reward`, { query: ['a', 'b'], prompts: ['a'] });
    expect(a.status).toBe(400);
    expect(a.body.error.message).toMatch(/"prompts" has 1 entries but "query" has 2/);
    const b = await post(`${srv.url}/get_reward`, { prompts: ['a'] });
    expect(b.status).toBe(400);
    expect(b.body.error.message).toMatch(/"query" is required/);
    const c = await post(`${srv.url}/get_reward`, { query: ['a'], labels: 'x' });
    expect(c.status).toBe(400);
    const d = await post(`${srv.url}/get_reward`, { query: [42], prompts: [''] });
    expect(d.status).toBe(200);
    expect(d.body.extra_logs.arbiter_invalid).toEqual([1]);
  });
});
