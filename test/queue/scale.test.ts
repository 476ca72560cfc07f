// The proof run: one `arbiter serve --queue`, three `arbiter worker` processes and a redis-server,
// all real; 100,000 samples sent as /v1/score batches; one worker SIGKILLed while it has a job
// (when it reports one active after it has done a few) and a fresh one started in its place. Every
// result must be present exactly once, in input order, with its id and the right score.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { graderFiles, postJSON, startRedis, startWorker, type RedisProc, type WorkerProc } from './procs.js';

const TOTAL = 100_000;
const BATCH = 4000;
const AT_ONCE = 4;

let redis: RedisProc;
let s: ServeProcess;
const workers: WorkerProc[] = [];
let file: string;

beforeAll(async () => {
  redis = await startRedis();
  file = graderFiles({ g: { type: 'string_check', name: 'g', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' } }).g!;
  const args = ['--grader', file, '--lock-ms', '2000', '--stalled-ms', '300', '--jobs', '4'];
  workers.push(...(await Promise.all([0, 1, 2].map(() => startWorker(redis.url, args)))));
  s = await serve(['--queue', redis.url, '--grader', file, '--deadline-ms', '120000', '--queue-batch', '256']);
});

afterAll(async () => {
  await s?.stop('SIGKILL');
  await Promise.all(workers.map((w) => w.kill('SIGKILL')));
  await redis?.stop();
});

/** Sample k: correct when k % 3 == 0 (so the expected score is known without grading). */
const sample = (k: number) => `{"id":"k${k}","item":{"label":"${k % 1000}"},"sample":{"output_text":"${k % 3 === 0 ? k % 1000 : 'x'}"}}`;

it('100,000 samples through 3 workers, one SIGKILLed mid-run and one started: each result once, in order, right', async () => {
  const victim = workers[0]!;
  // kill it when it reports a job active after it has completed five (so it dies holding work)
  const killed = victim
    .waitFor((e) => e.event === 'active' && victim.events.filter((x) => x.event === 'completed').length >= 5, 'the victim busy')
    .then(async (e) => {
      victim.child.kill('SIGKILL');
      await victim.exited;
      workers.push(await startWorker(redis.url, ['--grader', file, '--lock-ms', '2000', '--stalled-ms', '300', '--jobs', '4']));
      return e.job!;
    });
  const batches = Math.ceil(TOTAL / BATCH);
  const got: { id: string; score: number; valid: boolean }[][] = new Array(batches);
  let next = 0;
  const lane = async () => {
    while (next < batches) {
      const b = next++;
      const from = b * BATCH;
      const n = Math.min(BATCH, TOTAL - from);
      const body = '{"samples":[' + Array.from({ length: n }, (_, i) => sample(from + i)).join(',') + ']}';
      const r = await postJSON(s.url + '/v1/score', body);
      expect(r.status).toBe(200);
      got[b] = r.json.results;
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  const killedJob = await killed;
  expect(killedJob).toBeTruthy();
  // the restarted worker may be up only after the run above is done: more batches until it has
  // completed a job (bounded), so that "it took part" does not depend on how fast the run was
  const restarted = workers[3]!;
  for (let i = 0; i < 500 && !restarted.events.some((e) => e.event === 'completed'); i++) {
    const r = await postJSON(s.url + '/v1/score', '{"samples":[' + Array.from({ length: BATCH }, (_, j) => sample(j)).join(',') + ']}');
    expect(r.status).toBe(200);
  }

  let k = 0;
  let wrong = 0;
  for (const results of got) {
    for (const r of results) {
      if (r.id !== `k${k}` || r.valid !== true || r.score !== (k % 3 === 0 ? 1 : 0)) wrong++;
      k++;
    }
  }
  expect(k).toBe(TOTAL);
  expect(wrong).toBe(0);
  // the killed worker's job was taken over, and the restarted worker took part
  const text = await (await fetch(s.url + '/metrics')).text();
  expect(text).toMatch(/arbiter_redis_jobs_total\{grader="g",outcome="completed"\} \d+/);
  expect(workers[3]!.events.some((e) => e.event === 'completed')).toBe(true);
}, 300_000);
