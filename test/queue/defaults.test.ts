// Crash recovery on the default settings: a worker SIGKILLed while it holds a job has that job back
// in the queue (lock expiry + stalled check) and graded by the other worker well inside the default
// request deadline, so every sample comes back right and no job is completed twice; settings whose
// recovery cannot fit the deadline are refused at start. Real redis-server, workers and server; the
// judge's requests are held by a gate so the victim provably dies mid-job.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../helpers/openai-test-server.js';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { Gate, graderFiles, judgeConfig, postJSON, type RedisProc, runCli, startRedis, startWorker, type WorkerProc } from './procs.js';

const gate = new Gate();
const judgeServer = new TestServer({ chat: gate.handler, record: false });
let redis: RedisProc;
let file: string;
const workers: WorkerProc[] = [];
let s: ServeProcess | undefined;

beforeAll(async () => {
  await judgeServer.start();
  redis = await startRedis();
  file = graderFiles({
    judge: judgeConfig(judgeServer.url),
  }).judge!;
});

afterAll(async () => {
  gate.release();
  await s?.stop('SIGKILL');
  await Promise.all(workers.map((w) => w.kill('SIGKILL')));
  await redis?.stop();
  await judgeServer.close();
});

describe('recovery settings', () => {
  it('the old defaults (30 s lock, 30 s stalled check) are refused against the 30 s deadline, naming both values', async () => {
    const r = await runCli(['worker', '--queue', redis.url, '--grader', file, '--lock-ms', '30000', '--stalled-ms', '30000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--lock-ms 30000 with --stalled-ms 30000 brings a dead worker's job back after up to 60000 ms/);
    expect(r.stderr).toMatch(/--deadline-ms 30000: under 15000 ms/);
  });

  it('the defaults (5 s lock, 3 s check: back within 8 s) need a deadline above 16 s', async () => {
    const r = await runCli(['worker', '--queue', redis.url, '--grader', file, '--deadline-ms', '16000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--lock-ms 5000 with --stalled-ms 3000 brings a dead worker's job back after up to 8000 ms/);
    // a stalled check slower than the lock counts twice
    const slow = await runCli(['worker', '--queue', redis.url, '--grader', file, '--lock-ms', '1000', '--stalled-ms', '8000']);
    expect(slow.code).toBe(2);
    expect(slow.stderr).toMatch(/after up to 16000 ms/);
  });
});

describe('a worker SIGKILLed mid-batch on the default settings', () => {
  it('every result comes back right within the default deadline, and no job is completed twice', async () => {
    // defaults for lock, stalled check, heartbeat and deadline; one job at a time per worker, so 16
    // held judge requests mean each of the two workers holds one 8-sample job
    workers.push(...(await Promise.all([0, 1].map(() => startWorker(redis.url, ['--grader', file, '--jobs', '1'])))));
    const [a, b] = workers as [WorkerProc, WorkerProc];
    s = await serve(['--queue', redis.url, '--grader', file, '--queue-batch', '8']);
    const N = 200;
    const held = gate.hold(16);
    const reply = postJSON(s.url + '/v1/score', {
      samples: Array.from({ length: N }, (_, i) => ({ id: `q${i}`, item: {}, sample: { output_text: `answer ${i}` } })),
    });
    await held;
    const victimJob = (await a.waitFor((e) => e.event === 'active', 'the victim holding a job')).job!;
    await b.waitFor((e) => e.event === 'active', 'the other worker holding a job');
    expect(await a.kill('SIGKILL')).toBe('SIGKILL');
    gate.release();
    const r = await reply;
    expect(r.status).toBe(200);
    expect(r.json.results).toHaveLength(N);
    r.json.results.forEach((x: { id: string }, i: number) => {
      expect(x).toMatchObject({ id: `q${i}`, valid: true, score: 7 });
    });
    // the victim's job was put back by the stalled check and completed by the survivor
    await b.waitFor((e) => e.event === 'completed' && e.job === victimJob, "the survivor completing the victim's job");
    const metrics = await (await fetch(s.url + '/metrics')).text();
    expect(metrics).toMatch(/arbiter_redis_retries_total\{reason="stalled"\} [1-9]/);
    // each of the 25 jobs completed exactly once in Redis's event stream
    const queue = b.events.find((e) => e.event === 'serving')!.queue!;
    const rc = new Redis(redis.url);
    try {
      const events = await rc.xrange(`arbiter:${queue}:events`, '-', '+');
      const completions = new Map<string, number>();
      for (const [, f] of events) if (f[1] === 'completed') completions.set(f[f.indexOf('jobId') + 1]!, (completions.get(f[f.indexOf('jobId') + 1]!) ?? 0) + 1);
      expect(completions.size).toBe(N / 8);
      expect([...completions.values()].every((n) => n === 1)).toBe(true);
    } finally {
      rc.disconnect();
    }
  }, 60_000);
});
