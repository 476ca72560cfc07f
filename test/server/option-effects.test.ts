// Every `arbiter serve` option that no other test passes on the command line, shown to take effect:
// one real CLI process carries the options under test, a second carries none of them (the baseline),
// and each option's documented effect is asserted against the baseline separately. --queue-prefix
// needs Redis and lives in test/queue/option-effects.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ANSWER_CHECK, get, post, waitForHealth } from './helpers.js';
import { serve, type ServeProcess } from './serve-process.js';

const TOKEN = 'opt-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
let dir: string;
let base: ServeProcess;
let tuned: ServeProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-serve-opts-'));
  const file = join(dir, 'answer.json');
  writeFileSync(file, JSON.stringify(ANSWER_CHECK));
  const common = ['--grader', file, '--concurrency', '1', '--sandbox-api'];
  [base, tuned] = await Promise.all([
    serve(common),
    serve(
      [
        ...common,
        ['--token', TOKEN],
        ['--body-limit', '200'],
        ['--max-queue', '1'],
        ['--reward-format', 'dict'],
        ['--eos-token', '[[END]]'],
        ['--no-default-eos'],
        ['--monitor-window', '0'],
        ['--log-level', 'info'],
        ['--sandbox-api-max-timeout-s', '2'],
        ['--sandbox-api-max-memory-mb', '300'],
        ['--sandbox-api-max-output-bytes', '1000'],
      ].flat(),
    ),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([base?.stop(), tuned?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const reward = (s: ServeProcess, query: string, headers: Record<string, string> = {}) =>
  post(`${s.url}/get_reward`, { query: [query], labels: ['5'] }, headers).then((r) => {
    expect(r.status).toBe(200);
    return r.body.rewards[0] as number;
  });

describe('arbiter serve options take effect', () => {
  it('--token: requests without the bearer token get 401, with it 200; the default server needs none', async () => {
    expect((await post(`${tuned.url}/v1/score`, { samples: [] })).status).toBe(401);
    expect((await post(`${tuned.url}/v1/score`, { samples: [] }, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(`${tuned.url}/v1/score`, { samples: [] }, AUTH)).status).toBe(200);
    expect((await post(`${base.url}/v1/score`, { samples: [] })).status).toBe(200);
  });

  it('--insecure: a non-loopback --host without a token is refused at start, and served with --insecure', async () => {
    const refused = await runCli(['serve', '--grader', join(dir, 'answer.json'), '--host', '0.0.0.0', '--port', '0'], {
      env: { ...process.env, ARBITER_TOKEN: '' },
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--token|--insecure/);
    const open = await serve(['--grader', join(dir, 'answer.json'), '--host', '0.0.0.0', '--insecure'], { ARBITER_TOKEN: '' });
    try {
      const port = new URL(open.url).port;
      expect((await get(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it('--body-limit: a 300-byte body gets 413 under --body-limit 200; the default limit accepts it', async () => {
    const body = JSON.stringify({ samples: [{ item: { label: '5', pad: 'x'.repeat(240) }, sample: { output_text: 'A: 5' } }] });
    expect(Buffer.byteLength(body)).toBeGreaterThan(200);
    expect(Buffer.byteLength(body)).toBeLessThan(400);
    expect((await post(`${tuned.url}/v1/score`, body, AUTH)).status).toBe(413);
    const ok = await post(`${base.url}/v1/score`, body);
    expect(ok.status).toBe(200);
    expect(ok.body.results[0].score).toBe(1);
  });

  it('--max-queue: with one slot busy and --max-queue 1 full, the next request gets 429; the default queue lets it wait', async () => {
    const hold = { code: 'import time\ntime.sleep(60)', language: 'python', run_timeout: 1 };
    const score = { samples: [{ item: { label: '5' }, sample: { output_text: 'A: 5' } }] };
    for (const [s, headers] of [
      [tuned, AUTH],
      [base, {}],
    ] as const) {
      const first = post(`${s.url}/run_code`, hold, headers);
      await waitForHealth(s.url, (h) => h.in_flight === 1);
      const second = post(`${s.url}/run_code`, hold, headers);
      await waitForHealth(s.url, (h) => h.queued === 1);
      const third = await post(`${s.url}/v1/score`, score, headers);
      if (s === tuned) {
        expect(third.status).toBe(429);
        expect(third.text).toMatch(/queue limit 1\b/);
      } else {
        expect(third.status).toBe(200);
        expect(third.body.results[0].score).toBe(1);
      }
      expect((await first).body.run_result.status).toBe('TimeLimitExceeded');
      expect((await second).body.run_result.status).toBe('TimeLimitExceeded');
    }
  });

  it('--reward-format: dict makes POST /reward answer an object; the default answers a bare number', async () => {
    const tunedR = await post(`${tuned.url}/reward`, { response: 'A: 5', label: '5' }, AUTH);
    expect(tunedR.status).toBe(200);
    expect(tunedR.body).toMatchObject({ reward: 1, valid: true });
    const baseR = await post(`${base.url}/reward`, { response: 'A: 5', label: '5' });
    expect(baseR.status).toBe(200);
    expect(baseR.body).toBe(1);
  });

  it('--eos-token: the added token is stripped from OpenRLHF queries; the default keeps it (and fails the suffix check)', async () => {
    expect(await reward(tuned, 'A: 5[[END]]', AUTH)).toBe(1);
    expect(await reward(base, 'A: 5[[END]]')).toBe(0);
  });

  it('--no-default-eos: the default EOS tokens are kept; the default server strips them', async () => {
    expect(await reward(tuned, 'A: 5<|im_end|>', AUTH)).toBe(0);
    expect(await reward(base, 'A: 5<|im_end|>')).toBe(1);
  });

  it('--monitor-window: 0 keeps no monitor window in /metrics; the default window counts the grades', async () => {
    await reward(tuned, 'A: 5[[END]]', AUTH);
    await reward(base, 'A: 5');
    const t = await get(`${tuned.url}/metrics`, AUTH);
    const b = await get(`${base.url}/metrics`);
    expect(t.status).toBe(200);
    expect(t.text).not.toMatch(/arbiter_monitor_window_size\{grader="answer_check"\}/);
    expect(b.text).toMatch(/arbiter_monitor_window_size\{grader="answer_check"\} [1-9]/);
  });

  it('--log-level: info logs each request as JSON lines on stdout; the default prints nothing there', async () => {
    await post(`${tuned.url}/v1/score`, { samples: [] }, AUTH);
    await post(`${base.url}/v1/score`, { samples: [] });
    const lines = tuned
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; req?: { url?: string } });
    expect(lines.some((l) => l.level === 30 && l.req?.url === '/v1/score')).toBe(true);
    expect(base.stdout()).toBe('');
  });

  it('--sandbox-api-max-timeout-s: a longer run_timeout and compile_timeout are clamped to it (and said so); the default maximum (30 s) leaves 15 s alone', async () => {
    const req = { code: 'print(1)', language: 'python', run_timeout: 15 };
    const t = await post(`${tuned.url}/run_code`, req, AUTH);
    expect(t.status).toBe(200);
    expect(t.body.status).toBe('Success');
    // the request's default compile_timeout (10 s) is clamped too
    expect(t.headers.get('x-arbiter-clamped')).toBe('run_timeout=2, compile_timeout=2');
    const b = await post(`${base.url}/run_code`, req);
    expect(b.body.status).toBe('Success');
    expect(b.headers.get('x-arbiter-clamped')).toBeNull();
  });

  it('--sandbox-api-max-memory-mb: a larger memory_limit_MB is clamped to it; the default maximum (1024) leaves 500 alone', async () => {
    const req = { code: 'print(1)', language: 'python', memory_limit_MB: 500, run_timeout: 1, compile_timeout: 1 };
    const t = await post(`${tuned.url}/run_code`, req, AUTH);
    expect(t.body.status).toBe('Success');
    expect(t.headers.get('x-arbiter-clamped')).toBe('memory_limit_MB=300');
    const b = await post(`${base.url}/run_code`, req);
    expect(b.body.status).toBe('Success');
    expect(b.headers.get('x-arbiter-clamped')).toBeNull();
  });

  it("--sandbox-api-max-output-bytes: a run's stdout is cut to it; the default cap returns all 5000 bytes", async () => {
    const req = { code: 'import sys\nsys.stdout.write("x" * 5000)', language: 'python', run_timeout: 1 };
    const t = await post(`${tuned.url}/run_code`, req, AUTH);
    expect(t.status).toBe(200);
    expect(t.body.run_result.stdout.length).toBeLessThanOrEqual(1000);
    expect(t.body.run_result.stdout).toMatch(/^x+/);
    const b = await post(`${base.url}/run_code`, req);
    expect(b.body.run_result.stdout).toBe('x'.repeat(5000));
  });

  it('--sandbox-api-max-timeout-s, --sandbox-api-max-memory-mb, --sandbox-api-max-output-bytes: refused without --sandbox-api', async () => {
    for (const flag of [
      ['--sandbox-api-max-timeout-s', '2'],
      ['--sandbox-api-max-memory-mb', '300'],
      ['--sandbox-api-max-output-bytes', '1000'],
    ]) {
      const r = await runCli(['serve', '--grader', join(dir, 'answer.json'), '--port', '0', ...flag]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`${flag[0]} needs --sandbox-api`);
    }
  });

  it('--queue-prefix: refused without --queue (its effect on the Redis keys is in test/queue/option-effects.test.ts)', async () => {
    const r = await runCli(['serve', '--grader', join(dir, 'answer.json'), '--port', '0', '--queue-prefix', 'p']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--queue-prefix needs --queue');
  });
});

describe('arbiter serve --unsafe-no-sandbox', () => {
  it('the graded program sees the host only without the sandbox', async () => {
    // a folder of the host that the sandbox does not mount
    const marker = mkdtempSync(join(tmpdir(), 'arbiter-host-only-'));
    const file = join(dir, 'host.json');
    writeFileSync(
      file,
      JSON.stringify({ type: 'python', source: `import os\ndef grade(sample, item):\n    return 1.0 if os.path.isdir(${JSON.stringify(marker)}) else 0.0` }),
    );
    const [sandboxed, unsafe] = await Promise.all([serve(['--grader', file]), serve(['--grader', file, '--unsafe-no-sandbox'])]);
    try {
      const score = async (s: ServeProcess) => {
        const r = await post(`${s.url}/v1/score`, { samples: [{ item: {}, output_text: 'x' }] });
        expect(r.status).toBe(200);
        expect(r.body.results[0].valid, JSON.stringify(r.body.results[0])).toBe(true);
        return r.body.results[0].score as number;
      };
      expect(await score(sandboxed)).toBe(0);
      expect(await score(unsafe)).toBe(1);
    } finally {
      await Promise.all([sandboxed.stop(), unsafe.stop()]);
      rmSync(marker, { recursive: true, force: true });
    }
  }, 120_000);
});
