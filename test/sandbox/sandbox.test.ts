// The sandbox itself: isolation (user, network, filesystem view, private /tmp per run), rlimits,
// output caps, wall-clock kills, the bounded pool, the unsafe mode, and a clear refusal when
// bubblewrap is missing or broken.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { compileProgram, runInSandbox, runProgram, SandboxPool } from '../../dist/sandbox/index.js';
import { runtimeFor } from '../../dist/sandbox/host.js';
import { sandboxPoolKey } from '../../dist/graders/code/config.js';
import { PROJECT, Services, loadGrader, sandboxUidProcesses } from '../code/helpers.js';
import { expectHeldWithinBound, MEMORY_CHILDREN, MEMORY_CHILDREN_LIMITS } from './memory-programs.js';

const pool = new SandboxPool();
afterAll(() => pool.close());
const sh = (script: string, extra: Record<string, unknown> = {}) => pool.run({ argv: ['/bin/sh', '-c', script], allowSpawn: true, ...extra });

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
    // the background sleep must die too: otherwise the run waits for it (100 s) and the test times out
    const r = await sh('(sleep 100 &); sleep 100', { limits: { wallMs: 400 } });
    expect(r.status).toBe('timeout');
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
    // abort once the program is running (a process of the pool's uids exists), not after a delay
    const ac = new AbortController();
    const run = sh('sleep 30', { signal: ac.signal });
    while (pool.uids.length > 0 && sandboxUidProcesses(pool.uids).length === 0) await new Promise((r) => setTimeout(r, 5));
    ac.abort();
    const r = await run;
    expect(r.status).toBe('aborted');
  });
});

describe('the pool', () => {
  it('defaults to one slot per core and never exceeds it', async () => {
    const p = new SandboxPool();
    expect(p.concurrency).toBe(availableParallelism());
    const small = new SandboxPool({ concurrency: 2 });
    const rs = await Promise.all(Array.from({ length: 12 }, () => small.run({ argv: ['/bin/sh', '-c', 'sleep 0.05'], allowSpawn: true })));
    expect(rs.every((r) => r.status === 'ok')).toBe(true);
    expect(small.stats.maxLive).toBeLessThanOrEqual(2);
    expect(small.stats.finished).toBeGreaterThanOrEqual(12);
  });

  it('is shared through the services and closed with them', async () => {
    const services = new Services({ sandboxConcurrency: 3 });
    const g = loadGrader({ type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }] });
    await Promise.all([
      g.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services }),
      g.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services }),
    ]);
    const key = sandboxPoolKey({ unsafeNoSandbox: false, concurrency: 3 });
    expect(services.has(key)).toBe(true);
    await services.close();
    expect(services.has(key)).toBe(false);
  });

  it('is keyed by all of its options: graders differing in one get different pools', async () => {
    const services = new Services({ sandboxConcurrency: 2 });
    const grade = (extra: Record<string, unknown>) =>
      loadGrader({ type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }], ...extra }).grade(
        { item: {}, sample: { output_text: 'print(1)' } },
        { services },
      );
    expect((await grade({})).score).toBe(1);
    expect((await grade({ limits: { time_ms: 5000 } })).score).toBe(1);
    expect((await grade({ unsafe_no_sandbox: true })).score).toBe(1);
    expect(services.has(sandboxPoolKey({ unsafeNoSandbox: false, concurrency: 2 }))).toBe(true);
    expect(services.has(sandboxPoolKey({ unsafeNoSandbox: true, concurrency: 2 }))).toBe(true);
    expect(sandboxPoolKey({ unsafeNoSandbox: false, concurrency: 2 })).not.toBe(sandboxPoolKey({ unsafeNoSandbox: false, concurrency: 3 }));
    expect(sandboxPoolKey({ concurrency: 2, unsafeNoSandbox: false })).toBe(sandboxPoolKey({ unsafeNoSandbox: false, concurrency: 2 }));
    await services.close();
  });

  it('refuses more files than a run may take (bubblewrap takes at most 9000 arguments; each file is a pipe while the run starts)', async () => {
    const files = Array.from({ length: 1001 }, (_, i) => ({ name: `f${i}`, data: '' }));
    const r = await sh('ls | wc -l', { files });
    expect(r).toMatchObject({ status: 'sandbox_error', message: 'a run takes at most 1000 files, got 1001' });
    expect((await sh('ls | wc -l', { files: files.slice(0, 1000) })).stdout.trim()).toBe('1000');
  });

  it('refuses two files of the same name instead of keeping one of them', async () => {
    // regression: the later file silently replaced the earlier one
    const r = await sh('cat x', {
      files: [
        { name: 'x', data: 'first' },
        { name: 'x', data: 'second' },
      ],
    });
    expect(r.status).toBe('sandbox_error');
    expect(r.message).toMatch(/sandbox file "x" is given twice/);
    expect(r.stdout).toBe('');
  });

  it('a spawn that fails for want of fds is a spawnError, never a crash of the arbiter process', () => {
    // regression: the failed child has no pipes, and reading them threw (in an event: uncaught).
    // Run in a child Node whose open-file limit is 256, soft and hard (Node raises its soft limit to
    // the hard one), whatever this host's limit is: one pipe (two fds) per input fd then exceeds it,
    // and the same process must still run the next program.
    const script = `
      import { runProcess } from ${JSON.stringify(new URL('../../dist/sandbox/process.js', import.meta.url).href)};
      const base = { env: {}, wallMs: 5000, outputBytes: 1000 };
      const r = await runProcess({ ...base, argv: ['/bin/true'], inputFds: Array.from({ length: 144 }, () => Buffer.alloc(0)), inputFdBase: 3 });
      const after = await runProcess({ ...base, argv: ['/bin/echo', 'after'] });
      console.log(JSON.stringify({ spawnError: r.spawnError ?? null, exitCode: r.exitCode, after: String(after.stdout) }));
    `;
    const c = spawnSync('/bin/sh', ['-c', 'ulimit -n 256 && exec "$0" --input-type=module -e "$1"', process.execPath, script], { encoding: 'utf8' });
    expect(c.stderr).toBe('');
    expect(c.status).toBe(0);
    const r = JSON.parse(c.stdout) as { spawnError: string | null; exitCode: number | null; after: string };
    expect(r.spawnError).toMatch(/EMFILE|ENFILE/);
    expect(r.exitCode).toBeNull();
    expect(r.after).toBe('after\n');
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
    expect(services.has(sandboxPoolKey({ unsafeNoSandbox: true }))).toBe(true);
    await services.close();
    const g2 = loadGrader({ type: 'code', format: 'stdio', tests: [{ input: '', output: '1' }], unsafe_no_sandbox: true });
    const s2 = new Services();
    expect((await g2.grade({ item: {}, sample: { output_text: 'print(1)' } }, { services: s2 })).score).toBe(1);
    expect(s2.has(sandboxPoolKey({ unsafeNoSandbox: true }))).toBe(true);
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
      const r = await p.run({ argv: ['/bin/sh', '-c', probe], allowSpawn: true, limits: { processes: 7, openFiles: 33 } });
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

describe('no nested namespaces, mounts, SysV memory or ptrace (seccomp)', () => {
  // each attempt prints "<name> <errno name>" (or "<name> ok")
  const probe = String.raw`#include <sched.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/mount.h>
#include <sys/shm.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <thread>
static void report(const char *what, long r) {
  if (r == -1) printf("%s %s\n", what, errno == EPERM ? "EPERM" : errno == ENOSYS ? "ENOSYS" : strerror(errno));
  else printf("%s ok\n", what);
}
int main() {
  report("unshare-user", unshare(CLONE_NEWUSER));
  report("unshare-mount", unshare(CLONE_NEWNS));
  report("clone-user", syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0));
  report("clone3", syscall(435, 0, 0));
  report("setns", setns(0, 0));
  report("mount", mount("none", "/tmp", "tmpfs", 0, "size=1g"));
  report("umount", umount2("/tmp", MNT_DETACH));
  report("shmget", shmget(IPC_PRIVATE, 1 << 30, IPC_CREAT | 0600));
  report("msgget", msgget(IPC_PRIVATE, IPC_CREAT | 0600));
  report("io_uring", syscall(425, 8, 0));
  pid_t child = fork();
  if (child == 0) { pause(); _exit(0); }
  report("ptrace-attach", ptrace(PTRACE_ATTACH, child, 0, 0));
  report("ptrace-traceme", ptrace(PTRACE_TRACEME, 0, 0, 0));
  char buf[8] = {0}, dst[8];
  struct iovec local = {dst, sizeof dst}, remote = {buf, sizeof buf};
  report("process_vm_readv", process_vm_readv(child, &local, 1, &remote, 1, 0));
  report("process_vm_writev", process_vm_writev(child, &local, 1, &remote, 1, 0));
  kill(child, SIGKILL);
  waitpid(child, 0, 0);
  int ran = 0;
  std::thread t([&] { ran = 1; });
  t.join();
  pid_t p = fork();
  if (p == 0) _exit(7);
  int st = 0;
  waitpid(p, &st, 0);
  printf("thread %d fork %d\n", ran, WEXITSTATUS(st));
}
`;
  it('refuses each with EPERM (clone3 with ENOSYS) while threads and (with allowSpawn) fork work', async () => {
    const c = await compileProgram(pool, 'cpp', probe);
    expect(c.ok, c.ok ? '' : c.message).toBe(true);
    if (!c.ok) return;
    // (the filter that lets a program fork refuses all the rest just the same; spawn.test.ts: without it)
    const r = await runProgram(pool, { ...c.program, allowSpawn: true });
    expect(r.status, r.stderr).toBe('ok');
    expect(r.stdout).toBe(
      [
        'unshare-user EPERM',
        'unshare-mount EPERM',
        'clone-user EPERM',
        'clone3 ENOSYS',
        'setns EPERM',
        'mount EPERM',
        'umount EPERM',
        'shmget EPERM',
        'msgget EPERM',
        'io_uring EPERM',
        'ptrace-attach EPERM',
        'ptrace-traceme EPERM',
        'process_vm_readv EPERM',
        'process_vm_writev EPERM',
        'thread 1 fork 7',
        '',
      ].join('\n'),
    );
  });

  it('refuses `unshare -Urm` (a user namespace with its own mounts)', async () => {
    const r = await sh('unshare -Urm sh -c "mount -t tmpfs none /tmp && echo mounted"; echo "status $?"');
    expect(r.stdout).toBe('status 1\n');
    expect(r.stderr).toMatch(/Operation not permitted/);
  });
});

describe('writable file systems are capped', () => {
  it('/tmp is the only writable place and holds at most tmpBytes', async () => {
    const r = await sh(
      'for d in / /dev /dev/shm /usr /proc; do touch $d/x 2>/dev/null && echo "wrote $d"; done; head -c 50000000 /dev/zero > /tmp/fill 2>/dev/null; echo "status $?"; wc -c < /tmp/fill',
      { limits: { tmpBytes: 4 * 1024 * 1024, fileSizeBytes: 100_000_000 } },
    );
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('wrote'))).toEqual([]);
    expect(lines).toContain('status 1');
    expect(Number(lines.at(-1))).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});

describe("a run's total memory is bounded", () => {
  let py: { exe: string; binds: string[] };
  const mem = new SandboxPool({ concurrency: 1 });
  afterAll(() => mem.close());
  beforeAll(async () => {
    const r = await runtimeFor('python');
    if (typeof r === 'string') throw new Error(r);
    py = r;
    await mem.unavailable();
  });
  it('ten children of 200 MiB hold at most the bound together (cgroup where available, else processes x memory)', async () => {
    const r = await mem.run({ argv: [py.exe, '-I', '-S', '-c', MEMORY_CHILDREN], binds: py.binds, allowSpawn: true, limits: MEMORY_CHILDREN_LIMITS });
    expectHeldWithinBound(r, mem.memoryControl);
  });

  it('reports a run killed for exceeding its total memory (needs a memory cgroup)', async (ctx) => {
    if (!mem.memoryControl.startsWith('cgroup')) ctx.skip(`memory control here: ${mem.memoryControl}`);
    const r = await mem.run({
      argv: [py.exe, '-I', '-S', '-c', 'b = bytearray(400 * 1024 * 1024)\nfor j in range(0, len(b), 4096): b[j] = 1\nprint("held")'],
      binds: py.binds,
      limits: { runMemoryBytes: 128 * 1024 * 1024, wallMs: 30_000 },
    });
    expect(r.status).toBe('runtime_error');
    expect(r.memoryExceeded).toBe(true);
    expect(r.message).toMatch(/total memory limit of 128 MiB/);
  });

  it('refuses run_memory_mb without a cgroup', async () => {
    const off = new SandboxPool({ concurrency: 1, cgroup: 'off' });
    const r2 = await off.run({ argv: ['/bin/true'], limits: { runMemoryBytes: 128 * 1024 * 1024 } });
    expect(r2.status).toBe('sandbox_error');
    expect(r2.message).toMatch(/run_memory_mb\) needs a memory cgroup/);
    expect((await off.run({ argv: ['/bin/true'] })).status).toBe('ok');
    off.close();
  });
});

describe('sandbox failures are not program failures', () => {
  it('a program that cannot be executed is sandbox_error, not exit status 127', async () => {
    const r = await pool.run({ argv: ['/nonexistent/interpreter', 'x'] });
    expect(r.status).toBe('sandbox_error');
    expect(r.message).toMatch(/nonexistent\/interpreter/);
  });
});
