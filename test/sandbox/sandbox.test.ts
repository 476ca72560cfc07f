// The sandbox itself: isolation (user, network, filesystem view, private /tmp per run), rlimits,
// output caps, wall-clock kills, the bounded pool, the unsafe mode, and a clear refusal when
// bubblewrap is missing or broken.
import { afterAll, describe, expect, it } from 'vitest';
import { availableParallelism } from 'node:os';
import { compileProgram, runInSandbox, runProgram, SandboxPool } from '../../dist/sandbox/index.js';
import { PROJECT, Services, loadGrader } from '../code/helpers.js';

const pool = new SandboxPool();
afterAll(() => pool.close());
const sh = (script: string, extra: Record<string, unknown> = {}) => pool.run({ argv: ['/bin/sh', '-c', script], ...extra });

describe('isolation', () => {
  it('runs as an unprivileged user with a cleared environment', async () => {
    const r = await sh('id -u; echo "$HOME"; env | sort | tr "\\n" " "');
    expect(r.status).toBe('ok');
    const [uid, home, env] = r.stdout.split('\n');
    expect(Number(uid)).not.toBe(0);
    expect(home).toBe('/tmp');
    expect(env).not.toMatch(/npm_|VITEST|NODE_/);
  });

  it('sees no project, no home and only a minimal /etc', async () => {
    const r = await sh(`ls ${PROJECT} 2>&1; ls /root/.bashrc 2>&1; ls /etc`);
    expect(r.stdout).not.toMatch(/package\.json/);
    expect(r.stdout).toMatch(/No such file|Permission denied/);
    expect(r.stdout).not.toMatch(/passwd|shadow|hostname/);
  });

  it('has no network', async () => {
    const r = await sh('cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "');
    expect(r.stdout.trim().split('\n')).toEqual(['lo']);
  });

  it('gives each run a fresh private /tmp, and system paths are read-only', async () => {
    const a = await sh('echo secret > /tmp/mine; ls /tmp; touch /usr/x 2>&1; true');
    expect(a.stdout).toMatch(/mine/);
    expect(a.stdout).toMatch(/Read-only|Permission denied/);
    const b = await sh('ls -a /tmp');
    expect(b.stdout).not.toMatch(/mine/);
  });

  it('applies the rlimits', async () => {
    const r = await sh('cat /proc/self/limits', { limits: { cpuSeconds: 3, processes: 17, openFiles: 33, memoryBytes: 256 * 1024 * 1024 } });
    expect(r.stdout).toMatch(/Max cpu time\s+3\s+4/);
    expect(r.stdout).toMatch(/Max processes\s+17\s+17/);
    expect(r.stdout).toMatch(/Max open files\s+33\s+33/);
    expect(r.stdout).toMatch(/Max address space\s+268435456\s+268435456/);
  });

  it('bounds the file size a program may write', async () => {
    const r = await sh('head -c 2000000 /dev/zero > /tmp/big; echo $?; wc -c < /tmp/big', { limits: { fileSizeBytes: 1000000 } });
    expect(r.stdout.trim().split('\n').pop()).toBe('1000000');
  });
});

describe('supervision', () => {
  it('kills the whole tree at the wall-clock limit', async () => {
    const t0 = performance.now();
    const r = await sh('(sleep 100 &); sleep 100', { limits: { wallMs: 400 } });
    expect(r.status).toBe('timeout');
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it('caps captured output and kills the writer', async () => {
    const r = await sh('yes', { limits: { outputBytes: 4096 } });
    expect(r.status).toBe('output_limit');
    expect(r.stdout.length).toBe(4096);
  });

  it('feeds stdin and reports exit status and signals', async () => {
    expect((await sh('cat', { stdin: 'hello' })).stdout).toBe('hello');
    const e = await sh('exit 7');
    expect([e.status, e.exitCode]).toEqual(['runtime_error', 7]);
    const k = await sh('kill -SEGV $$');
    expect(k.signal).toBe('SIGSEGV');
  });

  it('kills a program at its CPU limit', async () => {
    const r = await sh('while :; do :; done', { limits: { cpuSeconds: 1, wallMs: 20_000 } });
    expect(r.status).toBe('timeout');
    expect(r.signal).toBe('SIGXCPU');
  });

  it('aborts a run when the caller signal fires', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const r = await sh('sleep 30', { signal: ac.signal });
    expect(r.status).toBe('aborted');
  });
});

describe('the pool', () => {
  it('defaults to one slot per core and never exceeds it', async () => {
    const p = new SandboxPool();
    expect(p.concurrency).toBe(availableParallelism());
    const small = new SandboxPool({ concurrency: 2 });
    const rs = await Promise.all(Array.from({ length: 12 }, () => small.run({ argv: ['/bin/sh', '-c', 'sleep 0.05'] })));
    expect(rs.every((r) => r.status === 'ok')).toBe(true);
    expect(small.stats.maxLive).toBeLessThanOrEqual(2);
    expect(small.stats.finished).toBeGreaterThanOrEqual(12);
  });

  it('is shared through the services and closed with them', async () => {
    const services = new Services({ sandboxConcurrency: 3 });
    const g = loadGrader({ type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }] });
    await Promise.all([g.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services }), g.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services })]);
    expect(services.has('sandbox')).toBe(true);
    await services.close();
    expect(services.has('sandbox')).toBe(false);
  });

  it('runInSandbox runs one-off commands through a default pool', async () => {
    const r = await runInSandbox({ argv: ['/bin/echo', 'hi'] });
    expect(r.stdout).toBe('hi\n');
  });
});

describe('refusing to run unsandboxed', () => {
  it('fails with sandbox_error and a hint when bwrap is missing or broken', async () => {
    for (const bwrap of ['/nonexistent/bwrap', '/bin/false']) {
      const p = new SandboxPool({ bwrap });
      const r = await p.run({ argv: ['/bin/true'] });
      expect(r.status).toBe('sandbox_error');
      expect(r.message).toMatch(/--unsafe-no-sandbox/);
    }
  });

  it('runs without bwrap only when explicitly asked (option, services flag, or config)', async () => {
    const p = new SandboxPool({ bwrap: '/nonexistent/bwrap', unsafeNoSandbox: true });
    const c = await compileProgram(p, 'python', 'import os\nprint(os.getcwd().startswith("/tmp"))');
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    const r = await runProgram(p, c.program);
    expect(r.status).toBe('ok');
    const services = new Services({ unsafeNoSandbox: true });
    const g = loadGrader({ type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }] });
    expect((await g.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services })).score).toBe(1);
    expect(services.has('sandbox:unsafe')).toBe(true);
    await services.close();
    const g2 = loadGrader({ type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }], unsafe_no_sandbox: true });
    const s2 = new Services();
    expect((await g2.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services: s2 })).score).toBe(1);
    expect(s2.has('sandbox:unsafe')).toBe(true);
    await s2.close();
  });
});

describe('privilege drop and limits, with and without the native helper', () => {
  const probe = 'id -u; grep -E "Max processes|Max open files" /proc/self/limits | tr -s " "; grep -E "CapEff|CapBnd|NoNewPrivs" /proc/self/status';
  it.each([
    ['native sandbox-exec helper', false],
    ['prlimit + setpriv fallback', true],
  ])('%s: unprivileged uid, no capabilities, rlimits applied', async (_name, noHelper) => {
    const before = process.env.ARBITER_SANDBOX_NO_HELPER;
    if (noHelper) process.env.ARBITER_SANDBOX_NO_HELPER = '1';
    else delete process.env.ARBITER_SANDBOX_NO_HELPER;
    const p = new SandboxPool({ concurrency: 1 });
    if (before === undefined) delete process.env.ARBITER_SANDBOX_NO_HELPER;
    else process.env.ARBITER_SANDBOX_NO_HELPER = before;
    try {
      const r = await p.run({ argv: ['/bin/sh', '-c', probe], limits: { processes: 7, openFiles: 33 } });
      expect(r.status, r.stderr).toBe('ok');
      const lines = r.stdout.trim().split('\n');
      expect(Number(lines[0])).toBeGreaterThan(0);
      expect(r.stdout).toMatch(/Max processes 7 7/);
      expect(r.stdout).toMatch(/Max open files 33 33/);
      expect(r.stdout).toMatch(/CapEff:\s+0+\n/);
      expect(r.stdout).toMatch(/CapBnd:\s+0+\n/);
    } finally {
      await p.close();
    }
  });
});
