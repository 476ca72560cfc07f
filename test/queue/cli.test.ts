// The CLI around the queue: settings refused with clear messages and exit 2 (bad URLs, queue-only
// options without --queue, an unreachable Redis), and a worker that only takes jobs it can grade:
// without a working sandbox it does not serve a code grader (and says why, in its heartbeat too),
// so the server's code samples wait for a worker that can (timeout naming the grader), then fail at
// once naming the worker that refused it.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../server/serve-process.js';
import { freePort, graderFiles, postJSON, runCli, startRedis, startWorker, type RedisProc } from './procs.js';

let redis: RedisProc;
let files: Record<string, string>;

beforeAll(async () => {
  redis = await startRedis();
  files = graderFiles({
    cheap: { type: 'string_check', name: 'cheap', input: '{{sample.output_text}}', reference: 'x', operation: 'eq' },
    code: { type: 'code', name: 'code', format: 'asserts', language: 'python', tests: '{{item.tests}}' },
  });
});
afterAll(async () => {
  await redis?.stop();
});

describe('usage errors', () => {
  it('serve: a URL that is not redis:// is refused', async () => {
    const r = await runCli(['serve', '--grader', files.cheap!, '--port', '0', '--queue', 'http://127.0.0.1:6379']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--queue: .*must start with redis:\/\//);
  });
  it('serve: queue settings without --queue are refused', async () => {
    const r = await runCli(['serve', '--grader', files.cheap!, '--port', '0', '--queue-batch', '8']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/need --queue/);
  });
  it('serve and worker: an unreachable Redis is a clear startup error', async () => {
    const port = await freePort();
    const s = await runCli(['serve', '--grader', files.cheap!, '--port', '0', '--queue', `redis://127.0.0.1:${port}`]);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(new RegExp(`cannot reach Redis at redis://127.0.0.1:${port}: .*ECONNREFUSED`));
    const w = await runCli(['worker', '--grader', files.cheap!, '--queue', `redis://127.0.0.1:${port}`]);
    expect(w.code).toBe(2);
    expect(w.stderr).toMatch(/cannot reach Redis/);
  });
  it('serve: a queue depth below the largest batch is refused', async () => {
    const r = await runCli(['serve', '--grader', files.cheap!, '--port', '0', '--queue', redis.url, '--queue-max-depth', '10']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/max depth \(10 samples\) must be at least the largest batch/);
  });
});

describe('workers take only jobs they can grade', () => {
  // no bubblewrap on PATH: the sandbox does not work for this worker
  const noSandbox = { PATH: '/nonexistent' };

  it('a worker whose only grader needs the sandbox it lacks exits 2 saying why', async () => {
    const r = await runCli(['worker', '--queue', redis.url, '--grader', files.code!], noSandbox);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not serving grader "code": it runs code and the sandbox does not work here/);
  });

  it('a worker does not serve a judge whose endpoint refuses connections, and says so', async () => {
    const port = await freePort();
    const judge = graderFiles({
      j: {
        type: 'score_model',
        name: 'j',
        model: 'm',
        base_url: `http://127.0.0.1:${port}/v1`,
        api_key: 'EMPTY',
        range: [0, 1],
        input: [{ role: 'user', content: '{{sample.output_text}}' }],
      },
    }).j!;
    const r = await runCli(['worker', '--queue', redis.url, '--grader', judge]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`not serving grader "j": its model endpoint http://127.0.0.1:${port}/v1 is unreachable from here \\(127.0.0.1:${port}: connect ECONNREFUSED`),
    );
  });

  it('it serves what it can, advertises what it refused, and the code samples wait for a capable worker', async () => {
    const w = await startWorker(redis.url, ['--grader', files.code!, '--grader', files.cheap!, '--heartbeat-ms', '200'], noSandbox);
    expect(w.events.find((e) => e.event === 'refused')).toMatchObject({ grader: 'code' });
    const rc = new Redis(redis.url);
    const rec = JSON.parse((await rc.get(`arbiter:workers:${w.id}`))!);
    rc.disconnect();
    expect(rec.graders.map((g: { name: string }) => g.name)).toEqual(['cheap']);
    expect(rec.refused[0]).toMatchObject({ name: 'code' });
    expect(rec.refused[0].reason).toMatch(/sandbox/);
    const s = await serve(['--queue', redis.url, '--grader', files.code!, '--grader', files.cheap!, '--deadline-ms', '2500']);
    try {
      // before any result, jobs are sized from the graders' capabilities: a pure grader's hold the
      // most samples, a code grader's one (about 50 ms of grading each)
      const h = (await (await fetch(s.url + '/healthz')).json()) as any;
      expect(h.executor.graders.cheap.batch).toBe(512);
      expect(h.executor.graders.code.batch).toBe(1);
      const cheap = await postJSON(s.url + '/v1/score', { grader: 'cheap', samples: [{ item: {}, sample: { output_text: 'x' } }] });
      expect(cheap.json.results[0]).toMatchObject({ valid: true, score: 1 });
      const codeBody = { grader: 'code', samples: [{ item: { tests: ['assert True'] }, sample: { output_text: '```python\nx = 1\n```' } }] };
      // within the unserved grace (two heartbeats + a reconnect) the sample waits: at the deadline, timeout naming the grader
      // (or, on a slow machine, already the config_error below)
      const early = await postJSON(s.url + '/v1/score', codeBody);
      expect(early.json.results[0].valid).toBe(false);
      expect(early.json.results[0].error.message).toMatch(/no live worker serves grader "code"/);
      // past the grace it fails at once, naming the worker that loaded it and why it does not serve it
      for (let i = 0; i < 100_000; i++) {
        const hh = (await (await fetch(s.url + '/healthz')).json()) as any;
        if (hh.executor.graders.code.unserved) break;
      }
      const code = await postJSON(s.url + '/v1/score', codeBody);
      expect(code.json.results[0]).toMatchObject({ valid: false, error: { kind: 'config_error' } });
      expect(code.json.results[0].error.message).toMatch(/no live worker serves grader "code"/);
      expect(code.json.results[0].error.message).toContain(`worker ${w.id} loaded it but does not serve it: it runs code and the sandbox does not work here`);
      expect(w.events.some((e) => e.event === 'active' && e.grader === 'code')).toBe(false);
    } finally {
      await s.stop();
      await w.kill();
    }
  });
});
