// The server's per-request shortcuts (docs/server.md#benchmark) answer exactly as the slow paths do:
// ids echoed byte-exact whether or not the id scan is skipped, the fast lane's replies equal
// fastify's for the same request, the hot metrics print what prom-client prints for the same
// observations, one deadline timer serves every open request, and the replies of one event-loop
// turn are written together, each to its own request.
import { type OutgoingHttpHeaders, request } from 'node:http';
import { gzipSync } from 'node:zlib';
import { Counter, Histogram, Registry } from 'prom-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Services } from '../../src/core/services.js';
import { Admission } from '../../src/server/admission.js';
import { RequestScope } from '../../src/server/grade-runner.js';
import { type PendingReply, ReplyBatch } from '../../dist/server/fast-lane.js';
import { HotCounter, HotHistogram } from '../../src/server/hot-metrics.js';
import { idsArePlain } from '../../src/server/json-body.js';
import { ServerMetrics } from '../../src/server/metrics.js';
import { ANSWER_CHECK, post, start, type Running } from './helpers.js';

const holder = (text: string) => ({ arbiterBodyText: text, arbiterRawIds: null });

describe('idsArePlain: when the id scan may be skipped', () => {
  it('says yes for small integers and strings, escapes such as \\n and \\" included', () => {
    expect(idsArePlain(holder('{"samples":[{"id":3,"sample":{"output_text":"a\\nb \\"q\\" 1.5e3"}},{"id" : -42},{"id":"x\\ty"},{"id":0}]}'))).toBe(true);
    expect(idsArePlain(holder('{"samples":[{"sample":{"output_text":"no ids"}}]}'))).toBe(true);
    expect(idsArePlain(holder('{"samples":[{"id":123456789012345}]}'))).toBe(true);
  });
  it.each([
    ['-0', '{"samples":[{"id":-0}]}'],
    ['1.0', '{"samples":[{"id":1.0}]}'],
    ['1E0', '{"samples":[{"id":1E0}]}'],
    ['1e5', '{"samples":[{"id":1e5}]}'],
    ['16 digits', '{"samples":[{"id":1234567890123456}]}'],
    ['a \\u escape anywhere', '{"samples":[{"id":"\\u0041"}]}'],
    ['a \\u-spelt key', '{"samples":[{"\\u0069d":1.0}]}'],
    ['a \\/ escape', '{"samples":[{"id":"a\\/b"}]}'],
    ['a duplicate key', '{"samples":[{"id":1,"id":1.0}]}'],
    ['a nested id', '{"samples":[{"id":1,"item":{"id":2.5}}]}'],
  ])('says no for %s', (_what, text) => {
    expect(idsArePlain(holder(text))).toBe(false);
  });
});

describe('/v1/score and /get_reward through the fast lane and through fastify', () => {
  let srv: Running;
  beforeAll(async () => {
    srv = await start({ gsm8k: ANSWER_CHECK });
  });
  afterAll(() => srv.close());

  it('/v1/score echoes every id as sent, in a body whose texts hold escapes', async () => {
    const ids = ['-0', '1E0', '"a\\/b"', '7', '"x\\"y"', '10.50', '"\\u0041"', '3'];
    const body = `{"samples":[${ids.map((id, i) => `{"id":${id},"item":{"label":"${i}"},"sample":{"output_text":"line\\nA: ${i}"}}`).join(',')}]}`;
    const r = await post(`${srv.url}/v1/score`, body);
    expect(r.status).toBe(200);
    for (const id of ids) expect(r.text).toContain(`{"id":${id},`);
    expect(r.body.results.every((x: { score: number }) => x.score === 1)).toBe(true);
  });

  it('/v1/score with plain ids only: the parsed ids, in order', async () => {
    const body = `{"samples":[{"id":5,"item":{"label":"1"},"sample":{"output_text":"a\\nA: 1"}},{"id":"q\\"1","item":{"label":"2"},"sample":{"output_text":"A: 3"}}]}`;
    const r = await post(`${srv.url}/v1/score`, body);
    expect(r.text).toContain('{"id":5,');
    expect(r.text).toContain('{"id":"q\\"1",');
    expect(r.body.results.map((x: { score: number }) => x.score)).toEqual([1, 0]);
  });

  // a query string keeps a request out of the fast lane (it takes only the exact path): fastify answers it
  const strip = (t: string) => t.replace(/"duration_ms":[0-9.e+-]+/g, '"duration_ms":0');
  it.each([
    ['/v1/score', '{"samples":[{"id":1,"item":{"label":"4"},"sample":{"output_text":"A: 4"}},{"item":{"label":"4"},"sample":{"output_text":"A: 5"}}]}'],
    ['/v1/score', '{"samples":[{"id":1,"item":"not an object"}]}'],
    ['/v1/score', '{"samples":3}'],
    ['/v1/score', '{"grader":"nope","samples":[]}'],
    ['/v1/score', '{oops'],
    ['/get_reward', '{"query":["A: 1","A: 2"],"labels":["1","3"]}'],
    ['/get_reward', '{"query":"not a list"}'],
  ])('%s %s: the same status and body either way', async (path, body) => {
    const lane = await post(`${srv.url}${path}`, body);
    const fastify = await post(`${srv.url}${path}?via=fastify`, body);
    expect(lane.status).toBe(fastify.status);
    expect(lane.headers.get('content-type')).toBe(fastify.headers.get('content-type'));
    expect(strip(lane.text)).toBe(strip(fastify.text));
  });

  // node's client sends header names as given; the lane reads them from rawHeaders
  const rawPost = (url: string, headers: [string, string][], body: Buffer): Promise<{ status: number; text: string }> =>
    new Promise((resolve, reject) => {
      // with a list of headers node's client adds none of its own (not even Host)
      const req = request(url, { method: 'POST', headers: [['Host', new URL(url).host], ...headers].flat() as unknown as OutgoingHttpHeaders }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const json = Buffer.from('{"samples":[{"id":1,"item":{"label":"4"},"sample":{"output_text":"A: 4"}}]}');
  it.each([
    [
      'names in capitals',
      [
        ['CONTENT-TYPE', 'application/json'],
        ['Content-LENGTH', String(json.length)],
      ],
      json,
    ],
    [
      'a second content type after the first',
      [
        ['content-type', 'application/json'],
        ['Content-Type', 'text/plain'],
        ['content-length', String(json.length)],
      ],
      json,
    ],
    [
      'a gzip body',
      [
        ['Content-Type', 'application/json'],
        ['Content-Encoding', 'gzip'],
        ['Content-Length', String(gzipSync(json).length)],
      ],
      gzipSync(json),
    ],
    [
      'a text body',
      [
        ['Content-Type', 'text/plain'],
        ['Content-Length', String(json.length)],
      ],
      json,
    ],
  ] as [string, [string, string][], Buffer][])('%s: the same answer from the lane as from fastify', async (_what, headers, body) => {
    const lane = await rawPost(`${srv.url}/v1/score`, headers, body);
    const fastify = await rawPost(`${srv.url}/v1/score?via=fastify`, headers, body);
    expect(lane.status).toBe(fastify.status);
    expect(strip(lane.text)).toBe(strip(fastify.text));
  });

  it('many requests at once: each gets its own reply (replies written together at the end of a turn)', async () => {
    const n = 64;
    const replies = await Promise.all(
      Array.from({ length: n }, (_, i) =>
        post(`${srv.url}/v1/score`, `{"samples":[{"id":${i},"item":{"label":"${i}"},"sample":{"output_text":"A: ${i % 2 ? i : i + 1}"}}]}`),
      ),
    );
    replies.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.body.results).toHaveLength(1);
      expect(r.body.results[0].id).toBe(i);
      expect(r.body.results[0].score).toBe(i % 2 ? 1 : 0);
    });
  });
});

describe('ReplyBatch: the replies of one event-loop turn', () => {
  afterEach(() => {
    vi.useRealTimers();
  });
  const reply = (name: string) =>
    ({ res: { name, destroy: vi.fn() }, status: 200, body: name, headers: undefined, route: '/r', t0: 0 }) as unknown as PendingReply;

  it('are written at the end of the turn, in the order they became ready, with one scheduled flush', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const batch = new ReplyBatch((r) => written.push(r.body));
    const timers0 = vi.getTimerCount();
    batch.push(reply('a'));
    batch.push(reply('b'));
    batch.push(reply('c'));
    expect(written).toEqual([]);
    expect(vi.getTimerCount() - timers0).toBe(1);
    vi.runAllTimers();
    expect(written).toEqual(['a', 'b', 'c']);
    // a later turn schedules again
    batch.push(reply('d'));
    expect(written).toEqual(['a', 'b', 'c']);
    vi.runAllTimers();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
  });

  it('one reply that cannot be written is destroyed; the others are still written', () => {
    vi.useFakeTimers();
    const written: string[] = [];
    const batch = new ReplyBatch((r) => {
      if (r.body === 'bad') throw new Error('write failed');
      written.push(r.body);
    });
    const bad = reply('bad');
    batch.push(reply('a'));
    batch.push(bad);
    batch.push(reply('b'));
    vi.runAllTimers();
    expect(written).toEqual(['a', 'b']);
    expect(bad.res.destroy).toHaveBeenCalledTimes(1);
  });
});

describe('hot metrics', () => {
  it('print exactly what prom-client prints for the same counts and observations', async () => {
    const a = new Registry();
    const b = new Registry();
    const buckets = [0.001, 0.01, 0.1, 1];
    const pc = new Counter({ name: 't_requests_total', help: 'requests', labelNames: ['route', 'status'], registers: [a] });
    const ph = new Histogram({ name: 't_latency_seconds', help: 'latency', labelNames: ['route'], buckets, registers: [a] });
    const hc = new HotCounter(b, 't_requests_total', 'requests', ['route', 'status']);
    const hh = new HotHistogram(b, 't_latency_seconds', 'latency', ['route'], buckets);
    const seen: [string, string, number][] = [
      ['/a', '200', 0.0004],
      ['/a', '200', 0.001],
      ['/a', '400', 0.05],
      ['/b', '200', 3],
      ['/a', '200', 0.5],
    ];
    for (const [route, status, v] of seen) {
      pc.labels(route, status).inc();
      ph.labels(route).observe(v);
      hc.cell(route, status).value++;
      hh.cell(route).observe(v);
    }
    expect(await b.metrics()).toBe(await a.metrics());
    expect(() => hc.cell('/a')).toThrow(/2 label values expected/);
  });
});

describe('request deadlines', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('one timer serves every open request, and each expires at its own deadline', () => {
    vi.useFakeTimers();
    const admission = new Admission(4, 100);
    const deps = { admission, services: new Services(), metrics: new ServerMetrics(admission, 0), deadlineMs: 1000 };
    const fired: string[] = [];
    const open = (name: string) => {
      const s = new RequestScope(deps);
      s.onAbort(() => fired.push(name));
      return s;
    };
    const timers0 = vi.getTimerCount();
    const a = open('a');
    // many requests begin and end behind the long-running one
    for (let i = 0; i < 5000; i++) open(`x${i}`).end();
    vi.advanceTimersByTime(500);
    const b = open('b');
    const c = open('c');
    c.end();
    expect(vi.getTimerCount() - timers0).toBe(1);
    vi.advanceTimersByTime(499);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['a']);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(['a', 'b']);
    a.end();
    b.end();
  });
});
