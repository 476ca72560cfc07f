// Protection over real HTTP: auth, body limits, malformed JSON, deadlines and timeouts, the bounded
// queue (429 + Retry-After), concurrency, crashing graders, client disconnects, graceful shutdown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGrader } from '../../dist/index.js';
import { createServer } from '../../dist/server/index.js';
import { ANSWER_CHECK, get, post, registerTestTypes, start, waitForHealth, type Running } from './helpers.js';

beforeAll(() => registerTestTypes());

describe('authentication', () => {
  let open: Running;
  let locked: Running;
  beforeAll(async () => {
    open = await start({ answer_check: ANSWER_CHECK });
    locked = await start({ answer_check: ANSWER_CHECK }, { token: 's3cret-token' });
  });
  afterAll(async () => {
    await open.close();
    await locked.close();
  });
  const body = { query: ['A: 1'], labels: ['1'] };

  it('needs no token when none is configured', async () => {
    expect((await post(`${open.url}/get_reward`, body)).body.rewards).toEqual([1]);
  });
  it('requires the bearer token on every endpoint but /healthz when configured', async () => {
    const none = await post(`${locked.url}/get_reward`, body);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post(`${locked.url}/get_reward`, body, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(`${locked.url}/get_reward`, body, { authorization: 's3cret-token' })).status).toBe(401);
    expect((await get(`${locked.url}/metrics`)).status).toBe(401);
    expect((await post(`${locked.url}/v1/score`, { samples: [] })).status).toBe(401);
    expect((await get(`${locked.url}/nothing-here`)).status).toBe(401);
    const ok = await post(`${locked.url}/get_reward`, body, { authorization: 'Bearer s3cret-token' });
    expect(ok.status).toBe(200);
    expect(ok.body.rewards).toEqual([1]);
    expect((await get(`${locked.url}/metrics`, { authorization: 'bearer s3cret-token' })).status).toBe(200);
    expect((await get(`${locked.url}/healthz`)).status).toBe(200);
  });
  it('refuses to bind a non-loopback address without a token unless insecure', async () => {
    const s = createServer({ graders: { g: loadGrader(ANSWER_CHECK) } });
    await expect(s.listen({ host: '0.0.0.0', port: 0 })).rejects.toThrow(/non-loopback.*--insecure/);
    await s.close();
    const t = createServer({ graders: { g: loadGrader(ANSWER_CHECK) }, token: 'x' });
    const url = await t.listen({ host: '0.0.0.0', port: 0 });
    expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+$/);
    await t.close();
  });
});

describe('request limits', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await start({ answer_check: ANSWER_CHECK }, { bodyLimit: 4096 });
  });
  afterAll(() => srv.close());

  it('answers 413 for an oversized body and keeps serving', async () => {
    const r = await post(`${srv.url}/get_reward`, { query: ['x'.repeat(10_000)] });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('body_too_large');
    expect((await post(`${srv.url}/get_reward`, { query: ['A: 2'], labels: ['2'] })).body.rewards).toEqual([1]);
  });
  it('answers 400 for malformed JSON, empty bodies and non-object bodies; 415 for other media types', async () => {
    const bad = await post(`${srv.url}/v1/score`, '{"samples": [');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('malformed_json');
    expect((await post(`${srv.url}/v1/score`, '')).status).toBe(400);
    const arr = await post(`${srv.url}/v1/score`, '[1,2]');
    expect(arr.status).toBe(400);
    expect(arr.body.error.message).toMatch(/must be a JSON object, got an array/);
    const txt = await fetch(`${srv.url}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<a/>' });
    expect(txt.status).toBe(415);
    const proto = await post(`${srv.url}/v1/score`, '{"__proto__": {"x": 1}, "samples": []}');
    expect(proto.status).toBe(400);
  });
  it('answers 404 with a JSON error for unknown routes', async () => {
    const r = await get(`${srv.url}/v2/nothing`);
    expect(r.status).toBe(404);
    expect(r.body.error.code).toBe('not_found');
  });
});

describe('deadlines, timeouts and crashes', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await start(
      {
        answer_check: ANSWER_CHECK,
        sleepy: { type: 'test_sleep', ms: 1500 },
        capped: { type: 'test_sleep', ms: 1500, timeout_ms: 100 },
        buggy: { type: 'test_throw' },
      },
      { deadlineMs: 300, fallbackReward: -5 },
    );
  });
  afterAll(() => srv.close());

  it('answers at the request deadline with timeout results when a grader ignores its signal', async () => {
    const r = await post(`${srv.url}/v1/score`, {
      grader: 'sleepy',
      samples: [
        { item: {}, output_text: 'a' },
        { item: {}, output_text: 'b' },
      ],
    });
    expect(r.status).toBe(200);
    expect(r.body.results.map((x: { error: { kind: string } }) => x.error.kind)).toEqual(['timeout', 'timeout']);
    // the grader would have scored 1 at 1500 ms; the deadline answered first
    expect(r.body.results[0].error.message).toMatch(/deadline of 300 ms/);
  });
  it("honours the grader's own timeout_ms", async () => {
    const r = await post(`${srv.url}/get_reward?grader=capped`, { query: ['x'] });
    expect(r.body.rewards).toEqual([-5]);
    expect(r.body.extra_logs.arbiter_invalid).toEqual([1]);
  });
  it('survives a grader that throws, and keeps serving others', async () => {
    const r = await post(`${srv.url}/v1/score`, { grader: 'buggy', samples: [{ item: {}, output_text: 'a' }] });
    expect(r.body.results[0].error).toMatchObject({ kind: 'internal_error', message: expect.stringMatching(/TypeError: boom/) });
    expect((await get(`${srv.url}/healthz`)).body.status).toBe('ok');
    expect((await post(`${srv.url}/get_reward`, { query: ['A: 3'], labels: ['3'] })).body.rewards).toEqual([1]);
  });
});

describe('bounded queue and concurrency', () => {
  it('refuses work beyond concurrency + queue with 429 and Retry-After, and recovers', async () => {
    const srv = await start({ slow: { type: 'test_sleep', ms: 400 } }, { concurrency: 2, maxQueue: 3, maxBatch: 5, deadlineMs: 10_000 });
    try {
      const first = post(`${srv.url}/v1/score`, { samples: Array.from({ length: 5 }, () => ({ item: {}, output_text: 'x' })) });
      await waitForHealth(srv.url, (h) => h.queued === 3);
      const h = await get(`${srv.url}/healthz`);
      expect(h.body).toMatchObject({ in_flight: 2, queued: 3 });
      const refused = await post(`${srv.url}/get_reward`, { query: ['x'] });
      expect(refused.status).toBe(429);
      expect(refused.body.error.code).toBe('queue_full');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const done = await first;
      expect(done.body.results.map((x: { score: number }) => x.score)).toEqual([1, 1, 1, 1, 1]);
      const after = await post(`${srv.url}/get_reward`, { query: ['x'] });
      expect(after.status).toBe(200);
      const m = await get(`${srv.url}/metrics`);
      expect(m.text).toMatch(/arbiter_queue_rejections_total\{route="\/get_reward"\} 1/);
    } finally {
      await srv.close();
    }
  });

  it('answers 200 concurrent requests, each with its own results', async () => {
    const srv = await start({ answer_check: ANSWER_CHECK }, { concurrency: 8, maxQueue: 1000 });
    try {
      const reqs = Array.from({ length: 200 }, (_, i) =>
        post(`${srv.url}/get_reward`, { query: [`P${i}|A: ${i}`, `P${i}|A: ${i + 1}`], prompts: [`P${i}|`, `P${i}|`], labels: [String(i), String(i)] }),
      );
      const res = await Promise.all(reqs);
      expect(res.every((r) => r.status === 200)).toBe(true);
      expect(res.map((r) => r.body.rewards)).toEqual(res.map(() => [1, 0]));
      const h = await get(`${srv.url}/healthz`);
      expect(h.body).toMatchObject({ in_flight: 0, queued: 0 });
    } finally {
      await srv.close();
    }
  });

  it('drops the queued samples of a client that disconnects', async () => {
    const srv = await start({ slow: { type: 'test_sleep', ms: 300 } }, { concurrency: 1, maxQueue: 50, deadlineMs: 10_000 });
    try {
      const ac = new AbortController();
      const p = fetch(`${srv.url}/v1/score`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ samples: Array.from({ length: 20 }, () => ({ item: {}, output_text: 'x' })) }),
        signal: ac.signal,
      }).catch((e: Error) => e);
      await waitForHealth(srv.url, (h) => h.queued === 19 && h.in_flight === 1);
      ac.abort();
      await p;
      // the 19 waiting samples leave the queue; only the one already grading keeps its slot
      await waitForHealth(srv.url, (h) => h.queued === 0);
      expect((await get(`${srv.url}/healthz`)).body.queued).toBe(0);
    } finally {
      await srv.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('finishes in-flight requests, then stops accepting', async () => {
    const srv = await start({ slow: { type: 'test_sleep', ms: 500 } });
    const inFlight = post(`${srv.url}/v1/score`, { samples: [{ item: {}, output_text: 'x' }] });
    await waitForHealth(srv.url, (h) => h.in_flight === 1);
    const closing = srv.close();
    const r = await inFlight;
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ score: 1, valid: true });
    await closing;
    await expect(fetch(`${srv.url}/healthz`)).rejects.toThrow();
  });
});
