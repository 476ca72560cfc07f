// Nothing lost, nothing twice, never a hang: real redis-server, real `arbiter worker` and
// `arbiter serve --queue` processes, and a judge grader on a local OpenAI-compatible server that
// holds its requests, so a job is provably mid-grade when a worker is SIGKILLed, frozen (SIGSTOP,
// like a network cut) or asked to stop, or when Redis restarts and forgets every job. Each step
// waits for an event (a held request, a worker's job event, a process exit), never for time.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../helpers/openai-test-server.js';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { CutProxy, Gate, graderFiles, judgeConfig, postJSON, type RedisProc, startRedis, startWorker, type WorkerProc } from './procs.js';

const gate = new Gate();
const judgeServer = new TestServer({ chat: gate.handler });
let redis: RedisProc;
let files: Record<string, string>;
const workers = new Set<WorkerProc>();
const servers = new Set<ServeProcess>();

// a lost lock is noticed after 1.5 s, a dead worker's job is back in the queue by the next 300 ms check
const FAST = ['--lock-ms', '1500', '--stalled-ms', '300', '--heartbeat-ms', '200'];

async function worker(...graders: string[]): Promise<WorkerProc> {
  const w = await startWorker(redis.url, [...graders.flatMap((g) => ['--grader', files[g]!]), ...FAST]);
  workers.add(w);
  return w;
}

async function server(args: string[]): Promise<ServeProcess> {
  const s = await serve(['--queue', redis.url, ...args]);
  servers.add(s);
  return s;
}

async function metric(s: ServeProcess, name: string, labels: string): Promise<number> {
  const text = await (await fetch(s.url + '/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** The worker (of `ws`) that took job `jobId`, or the first to take any job of `grader`. */
function whoTakes(ws: WorkerProc[], pred: (e: { event: string; job?: string }) => boolean): Promise<{ w: WorkerProc; job: string }> {
  return Promise.race(ws.map((w) => w.waitFor((e) => e.event === 'active' && pred(e), 'a job').then((e) => ({ w, job: e.job! }))));
}

const samples = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `q${i}`, item: {}, sample: { output_text: `answer ${i}` } }));

beforeAll(async () => {
  await judgeServer.start();
  redis = await startRedis();
  const judge = judgeConfig(judgeServer.url);
  files = graderFiles({
    judge,
    judge2: { ...judge, name: 'judge2', input: [{ role: 'user', content: 'Rate this: {{sample.output_text}}' }] },
    cheap: { type: 'string_check', name: 'cheap', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' },
    orphan: { type: 'string_check', name: 'orphan', input: '{{sample.output_text}}', reference: 'no worker loads this', operation: 'eq' },
    orphanAlt: { type: 'string_check', name: 'orphan', input: '{{sample.output_text}}', reference: 'another config', operation: 'eq' },
  });
});

afterAll(async () => {
  gate.release();
  await Promise.all([...servers].map((s) => s.stop('SIGKILL')));
  await Promise.all([...workers].map((w) => w.kill('SIGKILL')));
  await redis?.stop();
  await judgeServer.close();
});

describe('workers dying, freezing and stopping', () => {
  let s: ServeProcess;
  let a: WorkerProc;
  let b: WorkerProc;

  beforeAll(async () => {
    [a, b] = await Promise.all([worker('judge', 'cheap'), worker('judge', 'cheap')]);
    s = await server(['--grader', files.judge!, '--grader', files.cheap!, '--queue-batch', '4', '--deadline-ms', '60000']);
  });

  it('a worker SIGKILLed mid-job has its job graded by another (stalled-job recovery)', async () => {
    const held = gate.hold(4);
    const reply = postJSON(s.url + '/v1/score', { grader: 'judge', samples: samples(4) });
    await held;
    const { w: victim, job } = await whoTakes([a, b], () => true);
    const other = victim === a ? b : a;
    expect(await victim.kill('SIGKILL')).toBe('SIGKILL');
    workers.delete(victim);
    gate.release(); // the dead worker's held requests go nowhere; new ones are answered at once
    const r = await reply;
    expect(r.status).toBe(200);
    expect(r.json.results.map((x: { id: string }) => x.id)).toEqual(['q0', 'q1', 'q2', 'q3']);
    for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
    // the other worker took the same job over, and the judge saw every sample twice
    await other.waitFor((e) => e.event === 'completed' && e.job === job, 'the job completed by the other worker');
    expect(await metric(s, 'arbiter_redis_retries_total', 'reason="stalled"')).toBeGreaterThanOrEqual(1);
    if (victim === a) a = await worker('judge', 'cheap');
    else b = await worker('judge', 'cheap');
  });

  it('a job run twice (its worker frozen, then back) is recorded once: by the worker that kept the lock', async () => {
    const held = gate.hold(4);
    const reply = postJSON(s.url + '/v1/score', { grader: 'judge', samples: samples(4) });
    await held;
    const { w: frozen, job } = await whoTakes([a, b], (e) => !a.events.concat(b.events).some((x) => x.event === 'completed' && x.job === e.job));
    const other = frozen === a ? b : a;
    frozen.child.kill('SIGSTOP');
    // the frozen worker's lock runs out; the other one takes the job and (the judge now answering) completes it
    await other.waitFor((e) => e.event === 'completed' && e.job === job, 'the job taken over');
    const r = await reply;
    expect(r.json.results.map((x: { id: string }) => x.id)).toEqual(['q0', 'q1', 'q2', 'q3']);
    for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
    // the frozen worker wakes up, finishes its copy, and is refused: it no longer holds the lock
    frozen.child.kill('SIGCONT');
    gate.release();
    await frozen.waitFor(
      (e) => (e.event === 'lock_lost' || e.event === 'error') && (e.job === job || (e.message ?? '').includes(job)),
      'the frozen worker refused',
    );
    const redisClient = new Redis(redis.url);
    try {
      const queue = /"queue":"([^"]+)"/.exec(JSON.stringify(other.events.find((e) => e.job === job)))![1];
      const rv = JSON.parse((await redisClient.hget(`arbiter:${queue}:${job}`, 'returnvalue'))!);
      expect(rv.worker).toBe(other.id);
      const events = await redisClient.xrange(`arbiter:${queue}:events`, '-', '+');
      const completions = events.filter(([, f]) => f[1] === 'completed' && f[f.indexOf('jobId') + 1] === job);
      expect(completions).toHaveLength(1);
    } finally {
      redisClient.disconnect();
    }
    expect(frozen.events.some((e) => e.event === 'completed' && e.job === job)).toBe(false);
  });

  it('a worker cut off from Redis mid-job: another takes the job over; back on the network, its copy is refused and it serves again', async () => {
    const proxy = await new CutProxy(redis.port).start();
    const cut = await startWorker(`redis://127.0.0.1:${proxy.port}`, ['--grader', files.judge2!, ...FAST]);
    workers.add(cut);
    const s2 = await server(['--grader', files.judge2!, '--deadline-ms', '60000', '--queue-batch', '3']);
    try {
      const held = gate.hold(3);
      const reply = postJSON(s2.url + '/v1/score', { samples: samples(3) });
      await held;
      const { job } = await cut.waitFor((e) => e.event === 'active', 'the job on the worker to be cut off');
      proxy.cut();
      // a second worker, on the network, finds the job stalled once the cut worker's lock runs out
      const other = await worker('judge2');
      await other.waitFor((e) => e.event === 'completed' && e.job === job, 'the job taken over');
      const r = await reply;
      expect(r.json.results.map((x: { id: string }) => x.id)).toEqual(['q0', 'q1', 'q2']);
      for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
      proxy.restore();
      gate.release();
      await cut.waitFor(
        (e) => (e.event === 'lock_lost' || e.event === 'error') && (e.job === job || (e.message ?? '').includes(job!)),
        'the cut worker refused',
      );
      expect(cut.events.some((e) => e.event === 'completed' && e.job === job)).toBe(false);
      // reconnected, it takes jobs again
      await other.kill('SIGTERM');
      workers.delete(other);
      const again = await postJSON(s2.url + '/v1/score', { samples: samples(1) });
      expect(again.json.results[0]).toMatchObject({ valid: true, score: 7 });
      await cut.waitFor((e) => e.event === 'completed' && e.job !== job, 'the reconnected worker completing a job');
    } finally {
      await s2.stop();
      servers.delete(s2);
      await cut.kill();
      workers.delete(cut);
      await proxy.close();
    }
  });

  it('SIGTERM lets a worker finish its active job, then it exits 0', async () => {
    const held = gate.hold(4);
    const reply = postJSON(s.url + '/v1/score', { grader: 'judge', samples: samples(4) });
    await held;
    const { w: stopping, job } = await whoTakes([a, b], (e) => !a.events.concat(b.events).some((x) => x.event === 'completed' && x.job === e.job));
    const exit = stopping.kill('SIGTERM');
    await stopping.waitFor((e) => e.event === 'closing', 'closing');
    gate.release();
    const r = await reply;
    for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
    // the stopping worker itself completed it (its event may trail the server's reply)
    await stopping.waitFor((e) => e.event === 'completed' && e.job === job, 'the stopping worker completing its job');
    expect(await exit).toBe(0);
    workers.delete(stopping);
    if (stopping === a) a = await worker('judge', 'cheap');
    else b = await worker('judge', 'cheap');
  });

  it('Redis restarting mid-job (forgetting every job) costs a retry, not the results', async () => {
    const held = gate.hold(4);
    const reply = postJSON(s.url + '/v1/score', { grader: 'judge', samples: samples(4) });
    await held;
    await whoTakes([a, b], (e) => !a.events.concat(b.events).some((x) => x.event === 'completed' && x.job === e.job));
    await redis.stop();
    await redis.start();
    gate.release();
    const r = await reply;
    expect(r.status).toBe(200);
    expect(r.json.results.map((x: { id: string }) => x.id)).toEqual(['q0', 'q1', 'q2', 'q3']);
    for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
    expect(await metric(s, 'arbiter_redis_retries_total', 'reason="lost"')).toBeGreaterThanOrEqual(1);
  });

  it('SIGTERM on the server drains its in-flight request, then exits 0', async () => {
    const held = gate.hold(2);
    const reply = postJSON(s.url + '/v1/score', { grader: 'judge', samples: samples(2) });
    await held;
    const exit = s.stop('SIGTERM');
    servers.delete(s);
    gate.release();
    const r = await reply;
    for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
    expect(await exit).toBe(0);
  });
});

describe('no live worker, a full queue, Redis down', () => {
  it('a deep queue: 429 with Retry-After past the queue depth, before anything is queued', async () => {
    // one worker grading one job at a time, its first job held: the rest wait in Redis
    const w = await startWorker(redis.url, ['--grader', files.judge2!, '--jobs', '1', ...FAST]);
    const s = await server(['--grader', files.judge2!, '--queue-batch', '1', '--queue-max-depth', '10', '--max-batch', '10']);
    const held = gate.hold(1);
    const first = postJSON(s.url + '/v1/score', { samples: samples(8) });
    await held;
    // wait until the server counts the other 7 samples waiting (a condition, not a delay)
    for (let i = 0; i < 1000; i++) {
      const h = (await (await fetch(s.url + '/healthz')).json()) as any;
      if (h.executor.waiting_samples >= 7) break;
    }
    const refused = await postJSON(s.url + '/v1/score', { samples: samples(5) });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.json.error.code).toBe('queue_full');
    expect(refused.json.error.message).toMatch(/waiting in Redis/);
    gate.release();
    const r = await first;
    expect(r.status).toBe(200);
    for (const x of r.json.results) expect(x).toMatchObject({ valid: true, score: 7 });
    const h = (await (await fetch(s.url + '/healthz')).json()) as any;
    expect(h.executor.waiting_samples).toBe(0);
    expect(h.executor.pending_jobs).toBe(0);
    await s.stop();
    servers.delete(s);
    await w.kill();
  });

  it('a grader no live worker serves fails at once (config_error), naming a worker that serves its name with another config', async () => {
    // this worker serves a grader named "orphan" with another reference: another fingerprint
    const w = await worker('orphanAlt');
    const s = await server(['--grader', files.orphan!]);
    const waitedBefore = gate.total;
    // the server marks the grader unserved once its grace (two heartbeats + a reconnect) has passed
    for (let i = 0; i < 100_000; i++) {
      const h = (await (await fetch(s.url + '/healthz')).json()) as any;
      if (h.executor.graders.orphan.unserved) break;
    }
    const r = await postJSON(s.url + '/v1/score', { samples: samples(3) });
    expect(r.status).toBe(200);
    for (const x of r.json.results) {
      expect(x).toMatchObject({ valid: false, score: null, error: { kind: 'config_error' } });
      expect(x.error.message).toMatch(/no live worker serves grader "orphan" \(queue g-[0-9a-f]{24}\)/);
      expect(x.error.message).toContain(`worker ${w.id} serves a grader named "orphan" with a different config`);
    }
    // nothing was queued, and the other-config worker took nothing
    const h = (await (await fetch(s.url + '/healthz')).json()) as any;
    expect(h.executor.pending_jobs).toBe(0);
    expect(w.events.some((e) => e.event === 'active')).toBe(false);
    expect(gate.total).toBe(waitedBefore);
    await s.stop();
    servers.delete(s);
    await w.kill();
    workers.delete(w);
  });

  it('Redis down past the deadline: timeout results saying so, no hang; back up: graded again', async () => {
    const w = await worker('cheap');
    const s = await server(['--grader', files.cheap!, '--deadline-ms', '8000']);
    const body = {
      samples: [
        { item: { label: 'y' }, sample: { output_text: 'y' } },
        { item: { label: 'y' }, sample: { output_text: 'n' } },
      ],
    };
    expect((await postJSON(s.url + '/v1/score', body)).json.results.map((x: { score: number; error?: unknown }) => x.error ?? x.score)).toEqual([1, 0]);
    await redis.stop();
    const down = await postJSON(s.url + '/v1/score', body);
    expect(down.status).toBe(200);
    for (const x of down.json.results) {
      expect(x).toMatchObject({ valid: false, error: { kind: 'timeout' } });
      expect(x.error.message).toContain(`Redis at ${redis.url} unreachable`);
    }
    await redis.start();
    // the server and the worker reconnect on their own; the job is retried until it is in
    const up = await postJSON(s.url + '/v1/score', body);
    expect(up.json.results.map((x: { score: number; valid: boolean; error?: unknown }) => [x.valid, x.error ?? x.score])).toEqual([
      [true, 1],
      [true, 0],
    ]);
    await s.stop();
    servers.delete(s);
    await w.kill();
    workers.delete(w);
  });
});
