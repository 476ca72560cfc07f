// What crosses Redis: queue URLs parsed strictly, grader fingerprints (same config = same queue,
// any difference = another queue), and results checked before use — a rogue or garbled worker
// reply (a BullMQ worker in this test process answering a real server's jobs) never becomes a
// valid reward: it is an invalid `internal_error` naming the job.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGrader } from '../../dist/index.js';
import { createServer, type ArbiterServer } from '../../dist/server/index.js';
import { fingerprint, parseRedisUrl, queueExecutor, queueName } from '../../dist/queue/index.js';
import { postJSON, startRedis, type RedisProc } from './procs.js';

describe('queue URLs', () => {
  it('parses host, port, database, credentials and TLS', () => {
    expect(parseRedisUrl('redis://10.0.0.5:6380/3')).toMatchObject({ host: '10.0.0.5', port: 6380, db: 3, tls: false, display: 'redis://10.0.0.5:6380/3' });
    expect(parseRedisUrl('redis://localhost')).toMatchObject({ host: 'localhost', port: 6379, db: 0 });
    const t = parseRedisUrl('rediss://user:s%40cret@h:1');
    expect(t).toMatchObject({ username: 'user', password: 's@cret', tls: true });
    expect(t.display).not.toContain('cret');
    expect(parseRedisUrl('redis://[::1]:7000')).toMatchObject({ host: '::1', port: 7000 });
  });

  it('refuses anything else with a message naming the problem', () => {
    expect(() => parseRedisUrl('http://h:1')).toThrow(/must start with redis:\/\//);
    expect(() => parseRedisUrl('h:6379')).toThrow(/redis:\/\//);
    expect(() => parseRedisUrl('redis://h:1/db1')).toThrow(/database number/);
    expect(() => parseRedisUrl('redis://h:1/2?x=1')).toThrow(/query/);
    expect(() => parseRedisUrl('not a url')).toThrow(/not a URL/);
    expect(() => parseRedisUrl('redis://:pw@h:99999')).toThrow(/not a URL/);
  });
});

describe('grader fingerprints', () => {
  const cfg = { type: 'string_check', name: 'g', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' };
  it('the same config gives the same queue, whatever the key order', () => {
    const a = loadGrader(cfg);
    const b = loadGrader({ operation: 'eq', reference: '{{item.label}}', input: '{{sample.output_text}}', name: 'g', type: 'string_check' });
    expect(fingerprint(a)).toBe(fingerprint(b));
    expect(queueName(fingerprint(a))).toMatch(/^g-[0-9a-f]{24}$/);
  });
  it('any difference gives another queue', () => {
    const a = fingerprint(loadGrader(cfg));
    expect(fingerprint(loadGrader({ ...cfg, operation: 'like' }))).not.toBe(a);
    expect(fingerprint(loadGrader({ ...cfg, name: 'h' }))).not.toBe(a);
    expect(fingerprint(loadGrader({ ...cfg, pass_threshold: 1 }))).not.toBe(a);
  });
});

describe('a rogue worker cannot make a reward valid', () => {
  let redis: RedisProc;
  let server: ArbiterServer;
  let url: string;
  let rogue: Worker | undefined;
  const grader = loadGrader({ type: 'string_check', name: 'g', input: '{{sample.output_text}}', reference: 'yes', operation: 'eq' });

  beforeAll(async () => {
    redis = await startRedis();
    // the rogue advertises itself as a live worker of the grader (else the server fails the grader's
    // requests at once as unserved, and no reply of the rogue's would be read)
    const rc = new Redis(redis.url);
    await rc.set(
      'arbiter:workers:rogue',
      JSON.stringify({ id: 'rogue', graders: [{ name: 'g', queue: queueName(fingerprint(grader)), capabilities: [] }], refused: [] }),
    );
    rc.disconnect();
    server = createServer({ graders: { g: grader }, executor: queueExecutor({ url: redis.url }), deadlineMs: 20_000 });
    url = await server.listen({ port: 0 });
  });
  afterAll(async () => {
    await rogue?.close();
    await server?.close();
    await redis?.stop();
  });

  /** Answers every job of the grader's queue with `reply(job data)`. */
  function answer(reply: (data: { inputs: unknown[] }) => unknown): void {
    rogue = new Worker(queueName(fingerprint(grader)), async (job) => reply(job.data), {
      connection: { host: '127.0.0.1', port: redis.port, maxRetriesPerRequest: null },
      prefix: 'arbiter',
    });
  }

  const ok = { score: 1, valid: true, metadata: { grader: 'g', type: 'string_check', duration_ms: 1 } };
  const cases: [string, (d: { inputs: unknown[] }) => unknown, RegExp][] = [
    [
      'a valid result without a score',
      (d) => ({ v: 1, worker: 'rogue', results: d.inputs.map(() => ({ ...ok, score: null })) }),
      /result 0 of the job is not a well-formed result/,
    ],
    ['a non-finite score', (d) => ({ v: 1, worker: 'rogue', results: d.inputs.map(() => ({ ...ok, score: 'Infinity' })) }), /not a well-formed result/],
    ['too few results', (d) => ({ v: 1, worker: 'rogue', results: d.inputs.slice(1).map(() => ok) }), /returned 1 results for 2 samples/],
    ['another protocol version', (d) => ({ v: 99, worker: 'rogue', results: d.inputs.map(() => ok) }), /protocol version 99/],
    [
      'an unknown error kind',
      (d) => ({
        v: 1,
        worker: 'rogue',
        results: d.inputs.map(() => ({ score: null, valid: false, error: { kind: 'made_up', message: 'x' }, metadata: ok.metadata })),
      }),
      /not a well-formed result/,
    ],
  ];

  for (const [what, reply, msg] of cases) {
    it(what, async () => {
      await rogue?.close();
      answer(reply);
      const r = await postJSON(url + '/v1/score', {
        samples: [
          { item: {}, sample: { output_text: 'no' } },
          { item: {}, sample: { output_text: 'yes' } },
        ],
      });
      expect(r.status).toBe(200);
      for (const x of r.json.results) {
        expect(x.valid).toBe(false);
        expect(x.score).toBe(null);
        expect(x.error.kind).toBe('internal_error');
        expect(x.error.message).toMatch(msg);
      }
    });
  }

  it('a well-formed reply is taken as it is (the check is not a filter on scores)', async () => {
    await rogue?.close();
    answer((d) => ({ v: 1, worker: 'w', results: d.inputs.map((_, i) => ({ ...ok, score: i / 2 })) }));
    const r = await postJSON(url + '/v1/score', {
      samples: [
        { item: {}, sample: { output_text: 'no' } },
        { item: {}, sample: { output_text: 'yes' } },
      ],
    });
    expect(r.json.results.map((x: { score: number }) => x.score)).toEqual([0, 0.5]);
  });
});
