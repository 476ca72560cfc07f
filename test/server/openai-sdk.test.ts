// The official `openai` npm package, pointed at a live server, calls the graders API at the SDK's
// own paths (client.fineTuning.alpha.graders.run / .validate -> {base}/fine_tuning/alpha/graders/…),
// with either base URL (…/v1 or the bare host), and its error classes and retries see arbiter's
// documented statuses: 404 unknown_grader, 401, 400 invalid_grader, 429 queue_full + Retry-After.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, endsWithAnswer, get, gsm8k, post, registerTestTypes, start, waitForHealth, type Running } from './helpers.js';

const TOKEN = 'sdk-token';
let srv: Running;
let busy: Running;

beforeAll(async () => {
  registerTestTypes();
  srv = await start(
    {
      answer_check: ANSWER_CHECK,
      combo: {
        type: 'multi',
        graders: { acc: ANSWER_CHECK, short: { type: 'string_check', input: '{{sample.output_text}}', reference: 'A:', operation: 'like' } },
        calculate_output: 'acc * short',
      },
    },
    { token: TOKEN, allowInlineGraders: true },
  );
  busy = await start({ slow: { type: 'test_sleep', ms: 300 } }, { token: TOKEN, concurrency: 1, maxQueue: 1 });
});
afterAll(async () => {
  await srv.close();
  await busy.close();
});

const client = (baseURL: string, extra: Partial<ConstructorParameters<typeof OpenAI>[0]> = {}) => new OpenAI({ apiKey: TOKEN, baseURL, ...extra });

describe('openai SDK graders API', () => {
  it('runs a loaded grader (by name) and an inline config with either base URL', async () => {
    const data = gsm8k(6);
    for (const base of [`${srv.url}/v1`, srv.url]) {
      const sdk = client(base);
      for (const d of data) {
        const r = await sdk.fineTuning.alpha.graders.run({ grader: 'answer_check' as never, model_sample: d.solution, item: { label: d.label } });
        expect(r.reward).toBe(endsWithAnswer(d.solution, d.label) ? 1 : 0);
        expect(r.metadata.name).toBe('answer_check');
        expect(r.metadata.type).toBe('string_check');
        expect(r.metadata.errors.sample_parse_error).toBe(false);
        expect(typeof r.metadata.execution_time).toBe('number');
      }
      // the SDK's own typed request: an OpenAI grader object
      const inline = await sdk.fineTuning.alpha.graders.run({
        grader: { type: 'string_check', name: 'eq', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'eq' },
        model_sample: '42',
        item: { answer: '42' },
      });
      expect(inline.reward).toBe(1);
      const multi = await sdk.fineTuning.alpha.graders.run({ grader: 'combo' as never, model_sample: 'so A: 7', item: { label: '7' } });
      expect(multi.sub_rewards).toEqual({ acc: 1, short: 1 });
      expect(multi.metadata.scores).toEqual({ acc: 1, short: 1 });
    }
  });

  it('validates configs at the SDK path and maps a bad one to BadRequestError', async () => {
    const sdk = client(`${srv.url}/v1`);
    const grader = { type: 'string_check' as const, name: 'eq', input: '{{sample.output_text}}', reference: 'x', operation: 'eq' as const };
    expect(await sdk.fineTuning.alpha.graders.validate({ grader })).toEqual({ grader });
    const bad = await sdk.fineTuning.alpha.graders.validate({ grader: { ...grader, operation: 'nope' as never } }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('invalid_grader');
  });

  it('surfaces unknown graders as NotFoundError and a wrong key as AuthenticationError (not retried)', async () => {
    const before = (await get(`${srv.url}/metrics`, { authorization: `Bearer ${TOKEN}` })).text;
    const count = (t: string, status: number) =>
      Number(
        new RegExp(`arbiter_http_requests_total\\{route="/v1/fine_tuning/alpha/graders/run",method="POST",status="${status}"\\} (\\d+)`).exec(t)?.[1] ?? 0,
      );
    const nf = await client(`${srv.url}/v1`)
      .fineTuning.alpha.graders.run({ grader: 'no_such' as never, model_sample: 'x' })
      .catch((e: unknown) => e);
    expect(nf).toBeInstanceOf(OpenAI.NotFoundError);
    expect((nf as InstanceType<typeof OpenAI.APIError>).code).toBe('unknown_grader');
    expect((nf as Error).message).toMatch(/unknown grader "no_such" \(loaded: answer_check, combo\)/);
    const denied = await client(`${srv.url}/v1`, { apiKey: 'wrong' })
      .fineTuning.alpha.graders.run({ grader: 'answer_check' as never, model_sample: 'x' })
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(OpenAI.AuthenticationError);
    const after = (await get(`${srv.url}/metrics`, { authorization: `Bearer ${TOKEN}` })).text;
    // the SDK does not retry 4xx other than 408/409/429: one request each
    expect(count(after, 404) - count(before, 404)).toBe(1);
  });

  it('gets 429 queue_full with Retry-After when the server is full, and the SDK retries it to success', async () => {
    const hold = [1, 2].map(() => post(`${busy.url}/v1/graders/run`, { grader: 'slow', model_sample: 'x' }, { authorization: `Bearer ${TOKEN}` }));
    await waitForHealth(busy.url, (h) => h.in_flight === 1 && h.queued === 1);
    const full = await client(`${busy.url}/v1`, { maxRetries: 0 })
      .fineTuning.alpha.graders.run({ grader: 'slow' as never, model_sample: 'x' })
      .catch((e: unknown) => e);
    expect(full).toBeInstanceOf(OpenAI.RateLimitError);
    expect((full as InstanceType<typeof OpenAI.APIError>).code).toBe('queue_full');
    expect(Number((full as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // with retries on, the SDK waits Retry-After and tries again until the queue has room
    const r = await client(`${busy.url}/v1`, { maxRetries: 5 }).fineTuning.alpha.graders.run({ grader: 'slow' as never, model_sample: 'x' });
    expect(r.reward).toBe(1);
    for (const h of await Promise.all(hold)) expect(h.status).toBe(200);
  });
});
