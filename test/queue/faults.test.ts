// Faults between the server, Redis and the workers that recovery.test.ts does not cover: Redis
// SIGKILLed mid-batch and started again on the same port and data directory (an fsynced
// append-only file, so the queued jobs survive and none is added again), and a network cut between
// the server and Redis (a TCP proxy that drops every connection) while the workers finish the jobs:
// each with every result right, and each job completed once in Redis's event stream. The judge's
// requests are held by a gate so the batch is provably in flight when the fault strikes.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../helpers/openai-test-server.js';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { CutProxy, Gate, graderFiles, judgeConfig, postJSON, type RedisProc, startRedis, startWorker, type WorkerProc } from './procs.js';

const gate = new Gate();
const judgeServer = new TestServer({ chat: gate.handler, record: false });
let redis: RedisProc;
let file: string;
const workers: WorkerProc[] = [];
const servers: ServeProcess[] = [];
const FAST = ['--lock-ms', '1500', '--stalled-ms', '300', '--heartbeat-ms', '200'];

beforeAll(async () => {
  await judgeServer.start();
  redis = await startRedis({ persist: true });
  file = graderFiles({
    judge: judgeConfig(judgeServer.url),
  }).judge!;
  workers.push(...(await Promise.all([0, 1].map(() => startWorker(redis.url, ['--grader', file, '--jobs', '1', ...FAST])))));
});

afterAll(async () => {
  gate.release();
  await Promise.all(servers.map((s) => s.stop('SIGKILL')));
  await Promise.all(workers.map((w) => w.kill('SIGKILL')));
  await redis?.stop();
  await judgeServer.close();
});

const samples = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ id: `${tag}${i}`, item: {}, sample: { output_text: `answer ${tag} ${i}` } }));

async function metric(s: ServeProcess, line: string): Promise<number> {
  const text = await (await fetch(s.url + '/metrics')).text();
  const l = text.split('\n').find((x) => x.startsWith(line + ' '));
  return l ? Number(l.slice(line.length + 1)) : 0;
}

/** Completions per job id of this server's jobs (ids start with its server id) in the queue's event stream. */
async function completions(jobs: string[]): Promise<Map<string, number>> {
  const queue = workers[0]!.events.find((e) => e.event === 'serving')!.queue!;
  const rc = new Redis(redis.url);
  try {
    const out = new Map<string, number>(jobs.map((j) => [j, 0]));
    for (const [, f] of await rc.xrange(`arbiter:${queue}:events`, '-', '+')) {
      const id = f[f.indexOf('jobId') + 1]!;
      if (f[1] === 'completed' && out.has(id)) out.set(id, out.get(id)! + 1);
    }
    return out;
  } finally {
    rc.disconnect();
  }
}

/** Job ids the workers took, from their events. */
const jobsTaken = (prefix: string) => [
  ...new Set(workers.flatMap((w) => w.events.filter((e) => e.event === 'active' && e.job?.startsWith(prefix)).map((e) => e.job!))),
];

function expectAllRight(r: { status: number; json: any }, n: number, tag: string): void {
  expect(r.status).toBe(200);
  expect(r.json.results).toHaveLength(n);
  r.json.results.forEach((x: { id: string }, i: number) => expect(x).toMatchObject({ id: `${tag}${i}`, valid: true, score: 7 }));
}

describe('Redis and the network failing mid-batch', () => {
  it('Redis SIGKILLed mid-batch and restarted on its data directory: the queued jobs survive, every result right, each job completed once', async () => {
    const s = await serve(['--queue', redis.url, '--grader', file, '--queue-batch', '4']);
    servers.push(s);
    // each worker holds one 4-sample job; the other four jobs wait in Redis
    const held = gate.hold(8);
    const reply = postJSON(s.url + '/v1/score', { samples: samples(24, 'r') });
    await held;
    await redis.stop('SIGKILL');
    await redis.start();
    gate.release();
    const r = await reply;
    expectAllRight(r, 24, 'r');
    // the jobs were not forgotten (none re-added), and each of the six completed exactly once
    expect(await metric(s, 'arbiter_redis_retries_total{reason="lost"}')).toBe(0);
    const ids = r.json.results.length / 4;
    const serverJobs = jobsTaken('s');
    expect(serverJobs.length).toBeGreaterThanOrEqual(ids);
    const c = await completions(serverJobs);
    expect([...c.values()].filter((n) => n === 1)).toHaveLength(ids);
    expect([...c.values()].every((n) => n <= 1)).toBe(true);
  });

  it('the network between the server and Redis cut mid-batch: the workers finish, the server reads the results on reconnecting; each job completed once', async () => {
    const proxy = await new CutProxy(redis.port).start();
    try {
      const s = await serve(['--queue', `redis://127.0.0.1:${proxy.port}`, '--grader', file, '--queue-batch', '4', '--deadline-ms', '60000']);
      servers.push(s);
      const before = new Set(jobsTaken('s'));
      const held = gate.hold(8);
      const reply = postJSON(s.url + '/v1/score', { samples: samples(16, 'n') });
      await held;
      proxy.cut();
      gate.release();
      // the workers, on their own connections, complete all four jobs while the server is cut off
      const mine = () => jobsTaken('s').filter((j) => !before.has(j));
      const done = () => mine().filter((j) => workers.some((w) => w.events.some((e) => e.event === 'completed' && e.job === j))).length;
      await Promise.race(workers.map((w) => w.waitFor(() => done() >= 4, 'the four jobs completed')));
      expect(((await (await fetch(s.url + '/healthz')).json()) as any).executor.redis_ok).toBe(false);
      proxy.restore();
      const r = await reply;
      expectAllRight(r, 16, 'n');
      const c = await completions(mine());
      expect(c.size).toBe(4);
      expect([...c.values()].every((n) => n === 1)).toBe(true);
    } finally {
      await proxy.close();
    }
  });
});
