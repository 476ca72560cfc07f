// A request never widens trust: inline graders in /v1/graders/run, over real HTTP against a live
// server, may use only what the operator allows. Unsafe switches and server secrets are refused with
// a 403 naming the field path (anywhere in multi / gate / threads trees) and nothing runs; network
// graders reach only allow-listed URLs, checked after normalisation; sandboxed code runs.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGrader, listGraderTypes, Services } from '../../dist/index.js';
import { startTestServer, type TestServer } from '../helpers/openai-test-server.js';
import { ANSWER_CHECK, post, registerTestTypes, start, type Running } from './helpers.js';
import { serve } from './serve-process.js';

const SECRET = 'server-secret-value-7f3a';
let judge: TestServer;
let open: Running; // inline on, no network allow-list
let net: Running; // inline on, judge server allow-listed
let dir: string;

beforeAll(async () => {
  registerTestTypes();
  process.env.ARBITER_TEST_INLINE_SECRET = SECRET;
  dir = mkdtempSync(join(tmpdir(), 'arbiter-inline-'));
  judge = await startTestServer({ chat: () => ({ content: '{"steps": [], "result": 1}' }) });
  judge.onReward(() => ({ body: { object: 'list', data: [{ index: 0, object: 'pooling', data: [0.75] }] } }));
  open = await start({ answer_check: ANSWER_CHECK }, { allowInlineGraders: true });
  net = await start({ answer_check: ANSWER_CHECK }, { allowInlineGraders: true, inlineAllowNetwork: [judge.url, `${judge.root}/pooling`] });
});
afterAll(async () => {
  delete process.env.ARBITER_TEST_INLINE_SECRET;
  await open.close();
  await net.close();
  await judge.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A python grader that leaves a file on the host if it ever runs outside the sandbox. */
function marking(marker: string, extra: Record<string, unknown> = {}) {
  return { type: 'python', source: `def grade(sample, item):\n    open(${JSON.stringify(marker)}, "w").write("ran")\n    return 1`, ...extra };
}
const judgeCfg = (extra: Record<string, unknown>) => ({
  type: 'score_model',
  model: 'judge',
  input: [{ role: 'user', content: 'Rate {{sample.output_text}}' }],
  cache: false,
  max_retries: 0,
  ...extra,
});
const run = (srv: Running, grader: unknown) => post(`${srv.url}/v1/graders/run`, { grader, model_sample: 'x', item: {} });

describe('unsafe switches are never taken from a request', () => {
  it('refuses unsafe_no_sandbox deep in a multi, naming grader.graders.b.unsafe_no_sandbox, and runs nothing', async () => {
    const marker = join(dir, 'multi');
    const cfg = { type: 'multi', graders: { a: ANSWER_CHECK, b: marking(marker, { unsafe_no_sandbox: true }) } };
    const r = await run(open, cfg);
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('inline_grader_refused');
    expect(r.body.error.details).toEqual([
      { path: 'grader.graders.b.unsafe_no_sandbox', capability: 'unsafe', message: expect.stringMatching(/without the sandbox.*never taken from a request/) },
    ]);
    expect(r.body.error.message).toMatch(/grader\.graders\.b\.unsafe_no_sandbox/);
    expect(existsSync(marker)).toBe(false);
  });

  it('walks gate, threads and list-form multi trees too', async () => {
    const marker = join(dir, 'nested');
    const code = { type: 'code', language: 'python', format: 'asserts', tests: 'assert True', unsafe_no_sandbox: true };
    const cfg = {
      type: 'gate',
      gate: ANSWER_CHECK,
      then: {
        type: 'threads',
        threads: 1,
        grader: { type: 'multi', graders: [{ ...ANSWER_CHECK, name: 'ok' }, marking(marker, { name: 'p', unsafe_no_sandbox: true }), { ...code, name: 'c' }] },
      },
    };
    const r = await run(open, cfg);
    expect(r.status).toBe(403);
    expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      'grader.then.grader.graders[1].unsafe_no_sandbox',
      'grader.then.grader.graders[2].unsafe_no_sandbox',
    ]);
    expect(existsSync(marker)).toBe(false);
  });

  it('refuses sandbox limits raised above their defaults; lower ones are fine', async () => {
    const marker = join(dir, 'limits');
    const r = await run(open, marking(marker, { limits: { memory_mb: 100_000, time_ms: 5000 } }));
    expect(r.status).toBe(403);
    expect(r.body.error.details).toEqual([
      expect.objectContaining({ path: 'grader.limits.memory_mb', capability: 'unsafe', message: expect.stringMatching(/above its default \(1024 MiB\)/) }),
    ]);
    expect(existsSync(marker)).toBe(false);
    const code = { type: 'code', language: 'cpp', format: 'stdio', tests: [{ input: '', output: '' }], compile_limits: { time_ms: 120_000 } };
    const c = await run(open, code);
    expect(c.status).toBe(403);
    expect(c.body.error.details.map((d: { path: string }) => d.path)).toEqual(['grader.compile_limits.time_ms']);
    const ok = await run(open, { type: 'python', source: 'def grade(sample, item):\n    return 0.5', limits: { memory_mb: 256, time_ms: 5000 } });
    expect(ok.status).toBe(200);
    expect(ok.body.reward).toBe(0.5);
  });

  it('refuses input caps and budgets raised above their defaults (python.max_bytes, code.max_tests, math.max_steps); lower ones run', async () => {
    const marker = join(dir, 'caps');
    const py = await run(open, marking(marker, { max_bytes: 1_000_000_000 }));
    expect(py.status).toBe(403);
    expect(py.body.error.details).toEqual([
      {
        path: 'grader.max_bytes',
        capability: 'unsafe',
        message: expect.stringMatching(/"max_bytes": 1000000000 raises a limit above its default \(8388608\); a request may lower limits, never raise them/),
      },
    ]);
    expect(existsSync(marker)).toBe(false);
    const code = { type: 'code', language: 'python', format: 'stdio', tests: [{ input: '', output: '' }], max_tests: 1_000_000, max_bytes: 100_000_000 };
    const c = await run(open, code);
    expect(c.status).toBe(403);
    expect(c.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['grader.max_bytes', 'grader.max_tests']);
    // deep in a tree, and the old name of a field is the field
    const tree = { type: 'multi', graders: { m: { type: 'math', reference: '4', max_steps: 10_000_000, max_input_chars: 50_000_000 } } };
    const t = await run(open, tree);
    expect(t.status).toBe(403);
    expect(t.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['grader.graders.m.max_chars', 'grader.graders.m.max_steps']);
    // lowering is fine, and the default itself
    const low = await run(open, { type: 'python', source: 'def grade(sample, item):\n    return 0.25', max_bytes: 100_000 });
    expect(low.status).toBe(200);
    expect(low.body.reward).toBe(0.25);
    const same = await run(open, { type: 'math', reference: '4', max_steps: 200_000, max_chars: 1000 });
    expect(same.status).toBe(200);
    // the character caps of the other pure types, and BFCL's work budget
    for (const [cfg, path] of [
      [{ type: 'ifeval', instruction_ids: '{{item.ids}}', max_chars: 10_000_000 }, 'grader.max_chars'],
      [{ type: 'length', budget: 10, max_chars: 10_000_000 }, 'grader.max_chars'],
      [{ type: 'format', check: 'json', max_depth: 100_000 }, 'grader.max_depth'],
      [{ type: 'text_similarity', evaluation_metric: 'fuzzy_match', input: '{{sample.output_text}}', reference: 'x', max_chars: 50_000 }, 'grader.max_chars'],
      [{ type: 'prm', protocol: 'labels', labels: '{{item.l}}', max_steps: 99_999 }, 'grader.max_steps'],
      [
        { type: 'bfcl_multi_turn', reference: '{{item.ground_truth}}', initial_config: '{}', involved_classes: '[]', max_steps: 50_000_000 },
        'grader.max_steps',
      ],
    ] as const) {
      const r = await run(open, cfg);
      expect(r.status, JSON.stringify(r.body)).toBe(403);
      expect(r.body.error.details.map((d: { path: string }) => d.path)).toEqual([path]);
    }
  });

  it('refuses run_memory_mb above the default total bound (memory_mb + tmp_mb), which no per-process limit makes up for', async () => {
    // regression: run_memory_mb has no default of its own, so raising it was never noticed
    const marker = join(dir, 'run-memory');
    const r = await run(open, marking(marker, { limits: { run_memory_mb: 100_000 } }));
    expect(r.status).toBe(403);
    expect(r.body.error.details).toEqual([
      expect.objectContaining({ path: 'grader.limits.run_memory_mb', capability: 'unsafe', message: expect.stringMatching(/above its default \(1088 MiB\)/) }),
    ]);
    expect(existsSync(marker)).toBe(false);
    const code = { type: 'code', language: 'cpp', format: 'stdio', tests: [{ input: '', output: '' }], compile_limits: { run_memory_mb: 100_000 } };
    const c = await run(open, code);
    expect(c.status).toBe(403);
    expect(c.body.error.details.map((d: { path: string }) => d.path)).toEqual(['grader.compile_limits.run_memory_mb']);
  });

  it('refuses allow_unsafe_regex (no longer a setting: every pattern runs on the linear-time engine)', async () => {
    const r = await run(open, { type: 'format', check: 'regex', pattern: '^(a+)+$', allow_unsafe_regex: true });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body.error)).toMatch(/allow_unsafe_regex/);
  });

  it('refuses a grader type that declares no capabilities (unknown reach counts as unsafe)', async () => {
    const r = await run(open, { type: 'multi', graders: { s: { type: 'test_sleep', ms: 1 } } });
    expect(r.status).toBe(403);
    expect(r.body.error.details[0]).toMatchObject({
      path: 'grader.graders.s',
      capability: 'unsafe',
      message: expect.stringMatching(/declares no capabilities/),
    });
  });
});

describe('sandboxed code', () => {
  it('runs inline code in the sandbox by default (and the sandbox keeps the host file system out)', async () => {
    const ok = await run(open, { type: 'python', source: 'def grade(sample, item):\n    return 0.25' });
    expect(ok.status).toBe(200);
    expect(ok.body.reward).toBe(0.25);
    const marker = join(dir, 'sandboxed');
    const r = await run(open, marking(marker));
    expect(r.status).toBe(200);
    expect(existsSync(marker)).toBe(false);
  });

  it('takes allow_processes from a request (the processes stay in the sandbox, under its limits)', async () => {
    const source = "import subprocess\ndef grade(sample, item):\n    return 0.5 if subprocess.run(['true']).returncode == 0 else 0.0";
    const r = await run(open, { type: 'python', source, allow_processes: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.reward).toBe(0.5);
  });

  it('runs no inline code at all on a server whose code runs without the sandbox', async () => {
    const services = new Services({ unsafeNoSandbox: true });
    const srv = await start({ answer_check: ANSWER_CHECK }, { allowInlineGraders: true, services });
    try {
      const marker = join(dir, 'unsafe-server');
      const r = await run(srv, { type: 'multi', graders: { a: marking(marker) } });
      expect(r.status).toBe(403);
      expect(r.body.error.details[0]).toMatchObject({
        path: 'grader.graders.a',
        capability: 'sandboxed_code',
        message: expect.stringMatching(/without the sandbox/),
      });
      expect(existsSync(marker)).toBe(false);
    } finally {
      await srv.close();
      await services.close();
    }
  });
});

describe('server secrets are never read for a request', () => {
  it('refuses api_key_env and sends nothing to the URL the client chose', async () => {
    const before = judge.requests.length;
    for (const srv of [open, net]) {
      const r = await run(srv, judgeCfg({ base_url: judge.url, api_key_env: 'ARBITER_TEST_INLINE_SECRET' }));
      expect(r.status).toBe(403);
      expect(r.body.error.details).toContainEqual(expect.objectContaining({ path: 'grader.api_key_env', capability: 'server_env' }));
      expect(r.text).not.toContain(SECRET);
    }
    expect(judge.requests.length).toBe(before);
  });

  it('refuses a judge that would fall back on OPENAI_API_KEY or OPENAI_BASE_URL', async () => {
    const noKey = await run(net, judgeCfg({ base_url: judge.url }));
    expect(noKey.status).toBe(403);
    expect(noKey.body.error.details).toEqual([
      expect.objectContaining({ path: 'grader.api_key', capability: 'server_env', message: expect.stringMatching(/OPENAI_API_KEY/) }),
    ]);
    const noUrl = await run(net, judgeCfg({ api_key: 'k' }));
    expect(noUrl.status).toBe(403);
    expect(noUrl.body.error.details).toEqual([
      expect.objectContaining({ path: 'grader.base_url', capability: 'server_env', message: expect.stringMatching(/OPENAI_BASE_URL/) }),
    ]);
    const cosine = await run(net, { type: 'text_similarity', evaluation_metric: 'cosine', input: 'a', reference: 'b', base_url: judge.url });
    expect(cosine.status).toBe(403);
    expect(cosine.body.error.details[0]).toMatchObject({ path: 'grader.api_key', capability: 'server_env' });
  });
});

describe('network only to allow-listed URLs', () => {
  it('refuses every network grader when the operator allowed none', async () => {
    const r = await run(open, { type: 'multi', graders: { j: judgeCfg({ base_url: judge.url, api_key: 'client-key' }) } });
    expect(r.status).toBe(403);
    expect(r.body.error.details).toEqual([
      expect.objectContaining({ path: 'grader.graders.j.base_url', capability: 'network', message: expect.stringMatching(/--inline-allow-network/) }),
    ]);
  });

  it('runs a judge on an allow-listed base URL with the key the request gave', async () => {
    const before = judge.chatRequests.length;
    const r = await run(net, judgeCfg({ base_url: `${judge.url}/`, api_key: 'client-key' }));
    expect(r.status).toBe(200);
    expect(r.body.metadata.valid).toBe(true);
    expect(r.body.reward).toBe(1);
    const sent = judge.chatRequests.slice(before);
    expect(sent.length).toBe(1);
    expect(sent[0]!.headers.authorization).toBe('Bearer client-key');
  });

  it('checks the URL after normalisation: other ports, paths, dot segments, credentials and look-alike hosts are refused', async () => {
    const port = new URL(judge.root).port;
    const bad = [
      `http://127.0.0.1:${Number(port) + 1}/v1`,
      `${judge.root}/v2`,
      `${judge.root}/v1x`,
      `${judge.url}/../admin`,
      `${judge.url}/%2e%2e/admin`,
      `http://127.0.0.1:${port}@example.com/v1`,
      `http://user:pw@127.0.0.1:${port}/v1`,
      `http://127.0.0.1.example.com:${port}/v1`,
      `https://127.0.0.1:${port}/v1`,
      `${judge.url}?x=1`,
    ];
    const before = judge.requests.length;
    for (const base_url of bad) {
      const r = await run(net, judgeCfg({ base_url, api_key: 'k' }));
      expect(r.status, base_url).toBe(403);
      expect(r.body.error.details[0], base_url).toMatchObject({ path: 'grader.base_url', capability: 'network' });
    }
    expect(judge.requests.length).toBe(before);
    // the same host written differently is still the allowed one
    const same = await run(net, judgeCfg({ base_url: `http://127.0.0.1:${port}/v1/../v1`, api_key: 'k' }));
    expect(same.status).toBe(200);
  });

  it('checks the URL a reward model really posts to (base URL without /v1, plus its path)', async () => {
    const rm = (extra: Record<string, unknown>) => ({
      type: 'reward_model',
      model: 'rm',
      protocol: 'vllm_pooling',
      text: '{{sample.output_text}}',
      api_key: 'k',
      max_retries: 0,
      ...extra,
    });
    const ok = await run(net, rm({ base_url: judge.url }));
    expect(ok.status).toBe(200);
    expect(ok.body.reward).toBe(0.75);
    const other = await run(net, rm({ base_url: judge.url, path: '/../classify' }));
    expect(other.status).toBe(403);
    expect(other.body.error.details[0]).toMatchObject({
      path: 'grader.base_url',
      capability: 'network',
      message: expect.stringContaining(`${judge.root}/../classify`),
    });
  });

  it('counts refusals in /metrics', async () => {
    const m = await fetch(`${open.url}/metrics`).then((r) => r.text());
    expect(m).toMatch(/arbiter_inline_graders_refused_total\{capability="unsafe"\} [1-9]/);
  });
});

describe('capability declarations', () => {
  it('every registered built-in type declares them; composites report their whole tree', () => {
    for (const t of listGraderTypes().filter((x) => !x.type.startsWith('test_'))) expect(t.capabilities, t.type).toBeDefined();
    const g = loadGrader({
      type: 'multi',
      graders: {
        a: ANSWER_CHECK,
        j: judgeCfg({ base_url: 'http://h:1/v1', api_key_env: 'K' }),
        t: { type: 'threads', grader: { type: 'python', source: 'def grade(s, i):\n    return 1' } },
      },
    });
    expect(g.capabilities.map((u) => [u.capability, u.field])).toEqual([
      ['pure', ''],
      ['pure', 'graders.a'],
      ['network', 'graders.j.base_url'],
      ['server_env', 'graders.j.api_key_env'],
      ['pure', 'graders.t'],
      ['sandboxed_code', 'graders.t.grader'],
    ]);
  });
});

describe('serve CLI', () => {
  it('takes --inline-allow-network (repeatable) and refuses it without --allow-inline-graders or with a bad URL', async () => {
    const p = await serve([
      '--grader',
      'examples/arithmetic/grader.json',
      '--allow-inline-graders',
      '--inline-allow-network',
      'http://10.0.0.1/v1',
      '--inline-allow-network',
      judge.url,
    ]);
    try {
      const r = await post(`${p.url}/v1/graders/run`, { grader: judgeCfg({ base_url: judge.url, api_key: 'k' }), model_sample: 'x' });
      expect(r.status).toBe(200);
      expect(r.body.reward).toBe(1);
      const bad = await post(`${p.url}/v1/graders/run`, { grader: judgeCfg({ base_url: 'http://10.0.0.2/v1', api_key: 'k' }), model_sample: 'x' });
      expect(bad.status).toBe(403);
    } finally {
      expect(await p.stop()).toBe(0);
    }
    await expect(serve(['--grader', 'examples/arithmetic/grader.json', '--inline-allow-network', judge.url])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/--allow-inline-graders/),
    });
    await expect(serve(['--grader', 'examples/arithmetic/grader.json', '--allow-inline-graders', '--inline-allow-network', 'ftp://x/'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/http:\/\/ or https:\/\//),
    });
  });
});
