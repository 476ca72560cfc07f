// Every endpoint answers the same through the queue as in-process: a real redis-server, two real
// `arbiter worker` processes and two real `arbiter serve` processes (one with --queue, one
// without) get the same requests, and the replies are compared byte for byte once the timings
// (duration_ms, execution_time) are blanked. Byte-exact ids and JSON floats survive the trip.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServeProcess } from '../server/serve-process.js';
import { graderFiles, postJSON, startRedis, startWorker, type RedisProc, type WorkerProc } from './procs.js';

const eq = (ref: string) => ({ type: 'string_check', input: '{{sample.output_text}}', reference: ref, operation: 'eq' });
const like = (ref: string) => ({ type: 'string_check', input: '{{sample.output_text}}', reference: ref, operation: 'like' });

const GRADERS = {
  main: { type: 'multi', name: 'main', graders: { correct: eq('{{item.label}}'), mentions: like('{{item.label}}') }, calculate_output: 'correct + mentions' },
  grp: {
    type: 'weighted_sum',
    name: 'grp',
    graders: { acc: eq('{{item.label}}'), has: like('{{item.label}}') },
    weights: { acc: 1, has: 0.5 },
    normalize: 'group',
  },
};

let redis: RedisProc;
let workers: WorkerProc[] = [];
let local: ServeProcess;
let queued: ServeProcess;

beforeAll(async () => {
  redis = await startRedis();
  const files = graderFiles(GRADERS);
  const specs = ['--grader', `main=${files.main}`, '--grader', `grp=${files.grp}`];
  workers = await Promise.all([startWorker(redis.url, specs), startWorker(redis.url, specs)]);
  [local, queued] = await Promise.all([serve([...specs, '--allow-inline-graders']), serve([...specs, '--allow-inline-graders', '--queue', redis.url])]);
});

afterAll(async () => {
  await Promise.all([local?.stop(), queued?.stop(), ...workers.map((w) => w.kill())]);
  await redis?.stop();
});

/** The reply text with timings blanked (they differ run to run); everything else must match. */
const norm = (t: string) => t.replace(/"(duration_ms|execution_time)":[-0-9.e+]+/g, '"$1":0');

async function both(path: string, body: unknown): Promise<{ a: Awaited<ReturnType<typeof postJSON>>; b: Awaited<ReturnType<typeof postJSON>> }> {
  const [a, b] = await Promise.all([postJSON(local.url + path, body), postJSON(queued.url + path, body)]);
  return { a, b };
}

async function jobsCompleted(grader: string): Promise<number> {
  const text = await (await fetch(queued.url + '/metrics')).text();
  const m = new RegExp(`arbiter_redis_jobs_total\\{grader="${grader}",outcome="completed"\\} (\\d+)`).exec(text);
  return m ? Number(m[1]) : 0;
}

describe('every endpoint through the queue equals in-process', () => {
  it('/v1/score: results in order, byte-exact ids, floats, bad samples in place', async () => {
    const before = await jobsCompleted('main');
    const body =
      '{"grader":"main","samples":[' +
      '{"id":1e999,"item":{"label":"4"},"sample":{"output_text":"4"}},' +
      '{"id":12345678901234567891,"item":{"label":"4"},"sample":{"output_text":"the answer is 4"}},' +
      '{"id":"\\u0041","item":{"label":"4"},"sample":{"output_text":"5"}},' +
      '{"id":1.0,"item":{},"sample":{"output_text":"4"}},' +
      '{"id":7,"item":{"label":"4"}},' +
      Array.from({ length: 300 }, (_, i) => `{"id":"s${i}","item":{"label":"${i % 7}"},"sample":{"output_text":"${i % 3}"}}`).join(',') +
      ']}';
    const { a, b } = await both('/v1/score', body);
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(norm(b.text)).toBe(norm(a.text));
    expect(b.text).toContain('"id":1e999,');
    expect(b.text).toContain('"id":12345678901234567891,');
    expect(b.text).toContain('"id":"\\u0041",');
    expect(b.json.results[0].score).toBe(2);
    expect(b.text).toContain('"score":2.0');
    expect(b.json.results[3].error.kind).toBe('template_error');
    expect(b.json.results[4].error.kind).toBe('bad_input');
    expect(b.json.results).toHaveLength(305);
    // it really went through the queue
    expect(await jobsCompleted('main')).toBeGreaterThan(before);
  });

  it('/v1/score: an item holding an integer past 2^53 goes through the queue exactly (BullMQ cannot write a BigInt)', async () => {
    const body =
      '{"grader":"main","samples":[{"id":"big","item":{"label":123456789012345678901234567890},"sample":{"output_text":"123456789012345678901234567890"}},' +
      '{"id":"off","item":{"label":123456789012345678901234567890},"sample":{"output_text":"123456789012345678901234567891"}}]}';
    const { a, b } = await both('/v1/score', body);
    expect(b.status).toBe(200);
    expect(norm(b.text)).toBe(norm(a.text));
    const scores = (JSON.parse(b.text) as { results: { score: number; valid: boolean }[] }).results.map((r) => [r.valid, r.score]);
    expect(scores).toEqual([
      [true, 2],
      [true, 0],
    ]);
  });

  it('/get_reward (OpenRLHF)', async () => {
    const { a, b } = await both('/get_reward?grader=main', {
      query: ['Q: 2+2? 4<|im_end|>', 'Q: 2+3? it is 5', 'X'],
      prompts: ['Q: 2+2? ', 'Q: 2+3? ', 'Q'],
      labels: ['4', '5', '1'],
    });
    expect(b.status).toBe(200);
    expect(norm(b.text)).toBe(norm(a.text));
    expect(b.json.rewards).toEqual([2, 1, 0]);
  });

  it('/v1/graders/run at all three paths, named and inline graders', async () => {
    for (const path of ['/v1/graders/run', '/v1/fine_tuning/alpha/graders/run', '/fine_tuning/alpha/graders/run']) {
      const { a, b } = await both(path, { grader: 'main', model_sample: '4', item: { label: '4' } });
      expect(b.status).toBe(200);
      expect(norm(b.text)).toBe(norm(a.text));
      expect(b.json.reward).toBe(2);
    }
    // inline graders are graded by the server itself (workers only have the operator's graders)
    const { a, b } = await both('/v1/graders/run', { grader: eq('{{item.label}}'), model_sample: '4', item: { label: '4' } });
    expect(norm(b.text)).toBe(norm(a.text));
    expect(b.json.reward).toBe(1);
    const invalid = await both('/v1/graders/run', { grader: 'main', model_sample: '4', item: {} });
    expect(norm(invalid.b.text)).toBe(norm(invalid.a.text));
    expect(invalid.b.json.metadata.errors.invalid_variable_error).toBe(true);
  });

  it('/reward (slime), bare float and dict, with the validity headers', async () => {
    for (const q of ['', '?format=dict']) {
      for (const body of [
        { prompt: 'p', response: 'x 4', label: '4' },
        { prompt: 'p', response: 'x' },
      ]) {
        const { a, b } = await both('/reward' + q + (q ? '&' : '?') + 'grader=main', body);
        expect(b.status).toBe(200);
        expect(norm(b.text)).toBe(norm(a.text));
        expect(b.headers.get('x-arbiter-valid')).toBe(a.headers.get('x-arbiter-valid'));
        expect(b.headers.get('x-arbiter-error-kind')).toBe(a.headers.get('x-arbiter-error-kind'));
      }
    }
  });

  it('/verify (NeMo-Gym), with and without the rollout prefix', async () => {
    const row = {
      responses_create_params: { input: [{ role: 'user', content: '2+2?' }] },
      label: '4',
      extra: 12345678,
      response: { output: [{ type: 'message', content: [{ type: 'output_text', text: '4' }] }] },
    };
    for (const path of ['/verify?grader=main', '/ng-rollout/r1/verify?grader=main']) {
      const { a, b } = await both(path, row);
      expect(b.status).toBe(200);
      expect(norm(b.text)).toBe(norm(a.text));
      expect(b.json.reward).toBe(2);
      expect(b.json.reward_components).toEqual({ correct: 1, mentions: 1 });
    }
  });

  it('/v1/groups: the group stage runs on the server over results graded by workers', async () => {
    const samples = [
      { id: 'a', uid: 'p1', item: { label: '4' }, sample: { output_text: '4' } },
      { id: 'b', uid: 'p1', item: { label: '4' }, sample: { output_text: 'is 4' } },
      { id: 'c', uid: 'p1', item: { label: '4' }, sample: { output_text: '5' } },
      { id: 'd', uid: 'p2', item: { label: '1' }, sample: { output_text: '1' } },
      { id: 'e', uid: 'p2', item: { label: '1' }, sample: { output_text: '2' } },
    ];
    const before = await jobsCompleted('grp');
    const { a, b } = await both('/v1/groups', { grader: 'grp', samples, advantages: { estimator: 'grpo' } });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(norm(b.text)).toBe(norm(a.text));
    expect(b.json.results.every((r: { valid: boolean }) => r.valid)).toBe(true);
    expect(await jobsCompleted('grp')).toBeGreaterThan(before);
    // graded alone, the same grader refuses (it needs its group): the flag crossed the queue
    const alone = await both('/v1/score', { grader: 'grp', samples: [samples[0]] });
    expect(norm(alone.b.text)).toBe(norm(alone.a.text));
    expect(alone.b.json.results[0].error.kind).toBe('config_error');
  });

  it('/healthz reports the queue and its live workers', async () => {
    const h = (await (await fetch(queued.url + '/healthz')).json()) as any;
    expect(h.executor.kind).toBe('redis_queue');
    expect(h.executor.redis_ok).toBe(true);
    expect(h.executor.graders.main.workers).toBe(2);
    const m = await (await fetch(queued.url + '/metrics')).text();
    expect(m).toMatch(/^arbiter_redis_up 1$/m);
    expect(m).toMatch(/^arbiter_redis_workers\{grader="main"\} 2$/m);
    expect(m).toMatch(/^arbiter_redis_workers_total 2$/m);
    expect(m).toMatch(/^arbiter_redis_waiting_samples 0$/m);
    expect(Number(/^arbiter_redis_job_duration_seconds_count\{grader="main"\} (\d+)$/m.exec(m)?.[1])).toBeGreaterThan(0);
    expect(m).toMatch(/^arbiter_redis_queue_jobs\{queue="g-[0-9a-f]{24}",state="completed"\} \d+$/m);
    // the workers' grades are recorded by the server like its own
    expect(Number(/^arbiter_grades_total\{grader="main",type="multi",valid="true"\} (\d+)$/m.exec(m)?.[1])).toBeGreaterThan(300);
  });
});
