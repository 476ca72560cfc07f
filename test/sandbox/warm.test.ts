// Warm interpreters (zygotes): programs forked from a slot's warm Python must leave nothing for the
// next program on the same slot, get every kernel limit the cold path gives, behave as a cold
// `python3 -I -S -B main.py` does, and survive their zygote being killed. Real bubblewrap, one slot
// (so that A and B always share a zygote), checked against a cold pool where the meaning matters.
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProgram, runProgram, SandboxPool, type RunResult } from '../../dist/sandbox/index.js';
import { DEFAULT_LIMITS, type SandboxLimits } from '../../dist/sandbox/limits.js';
import { pythonWarmForm } from '../../dist/sandbox/zygote.js';
import { sandboxUidProcesses } from '../code/helpers.js';
import { expectHeldWithinBound, MEMORY_CHILDREN, MEMORY_CHILDREN_LIMITS } from './memory-programs.js';

const pool = new SandboxPool({ concurrency: 1 });
const cold = new SandboxPool({ concurrency: 1, warm: false });
afterAll(() => {
  pool.close();
  cold.close();
});

async function py(src: string, opts: { stdin?: string; limits?: Partial<SandboxLimits>; files?: { name: string; data: string }[]; on?: SandboxPool } = {}) {
  const p = opts.on ?? pool;
  // (processes allowed: these programs fork to leave things behind; spawn.test.ts checks the default)
  const c = await compileProgram(p, 'python', src, {
    allowSpawn: true,
    ...(opts.files ? { files: opts.files } : {}),
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  if (!c.ok) throw new Error(c.message);
  return runProgram(p, c.program, opts.stdin !== undefined ? { stdin: opts.stdin } : {});
}

/** Runs on the warm pool and checks that the zygote (not the cold path) served it. */
async function warm(src: string, opts: Parameters<typeof py>[1] = {}): Promise<RunResult> {
  const before = pool.stats.warm;
  const r = await py(src, opts);
  expect(pool.stats.warm, `served cold: ${pool.warmMode}`).toBe(before + 1);
  return r;
}

const zygotes = () => [
  ...(pool as unknown as { python: { zygotes: Map<string, { dead: boolean; exited: Promise<void>; statusText: string }>[] } }).python.zygotes[0]!.values(),
];

beforeAll(async () => {
  await py('pass');
  expect(pool.warmMode).toMatch(/^on:/);
});

// B's view of the state A may have tried to leave behind: prints one line per probe.
const probeB = String.raw`
import builtins, os, sys, json, random
print('len', len([1, 2, 3]))
print('builtin', hasattr(builtins, 'ARB_LEFT'))
print('module', 'arb_evil' in sys.modules, sys.modules.get('json') is json, json.dumps([1]))
print('os', os.getcwd(), os.path.join('a', 'b'))
print('tmp', sorted(os.listdir('/tmp')))
print('env', sorted(k for k in os.environ if k.startswith('ARB')), os.environ.get('HOME'))
print('procs', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))
print('fds', sorted(int(f) for f in os.listdir('/proc/self/fd')))
print('random', random.random())
print('main', sorted(k for k in ('types', 'linger', 'res', 'wrote', 'x', 'n') if k in vars(sys.modules['__main__'])))
`;

function linesOf(r: RunResult): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of r.stdout.trim().split('\n')) {
    const i = l.indexOf(' ');
    out[l.slice(0, i)] = l.slice(i + 1);
  }
  return out;
}

function expectClean(r: RunResult): void {
  expect(r.status, r.stderr).toBe('ok');
  const b = linesOf(r);
  expect(b.len).toBe('3');
  expect(b.builtin).toBe('False');
  expect(b.module).toBe('False True [1]');
  expect(b.os).toBe('/tmp a/b');
  expect(b.tmp).toBe("['main.py']");
  expect(b.env).toBe('[] /tmp');
  // pid 1 (the namespace's init) and the program: nothing of A, and no zygote to be seen
  expect(b.procs).toBe('[1, 2]');
  // 0-2 and the listing's own fd
  expect(b.fds).toBe('[0, 1, 2, 3]');
  expect(b.main).toBe('[]');
}

describe('isolation: program A cannot leave state for program B on the same slot', () => {
  it('globals, builtins, sys.modules, patched stdlib modules, /tmp and cwd files, environment', async () => {
    const a = await warm(String.raw`
import builtins, os, sys, json, types
builtins.len = lambda x: 42
builtins.ARB_LEFT = 1
sys.modules['arb_evil'] = types.ModuleType('arb_evil')
json.dumps = lambda *a, **k: 'HACKED'
os.getcwd = lambda: '/evil'
os.path.join = lambda *a: 'evil'
open('/tmp/left.txt', 'w').write('from A')
open('cwd_left.txt', 'w').write('from A')
os.environ['ARB_LEAK'] = '1'
os.putenv('ARB_PUTENV', '1')
print('A done', len([1]))
`);
    expect(a.stdout).toBe('A done 42\n');
    const b = await warm(probeB);
    expectClean(b);
  });

  it("nothing of A's source, files, stdin or output is anywhere in B's memory", async () => {
    const secrets = ['SOURCE', 'FILE', 'STDIN', 'OUTPUT'].map((k) => `arb-secret-${k}-${randomBytes(12).toString('hex')}`);
    const [inSource, inFile, inStdin, inOutput] = secrets as [string, string, string, string];
    const a = await warm(`import sys\nx = ${JSON.stringify(inSource)}\nsys.stdin.read()\nopen('data.txt').read()\nprint(${JSON.stringify(inOutput)})\n`, {
      stdin: inStdin,
      files: [{ name: 'data.txt', data: inFile }],
    });
    expect(a.stdout).toBe(inOutput + '\n');
    // B rebuilds each secret from a masked form (its own source holds none of them) and counts
    // the places in its whole address space that hold one, other than the rebuilt needle itself
    const masked = secrets.map((t) => Buffer.from(Buffer.from(t).map((c) => c ^ 0x5a)).toString('hex'));
    const b = await warm(String.raw`
import ctypes, os
ctypes.CDLL(None).prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE (cleared by the change of uid): /proc/self/mem becomes readable
found = []
for m in ${JSON.stringify(masked)}:
    needle = bytes(c ^ 0x5A for c in bytes.fromhex(m))
    own = id(needle) + 32  # the bytes object's data
    hits = 0
    fd = os.open('/proc/self/mem', os.O_RDONLY)
    for line in open('/proc/self/maps'):
        f = line.split()
        if f[1][0] != 'r' or (len(f) > 5 and f[5] in ('[vvar]', '[vsyscall]', '[vvar_vclock]')):
            continue
        lo, hi = (int(x, 16) for x in f[0].split('-'))
        try:
            chunk = os.pread(fd, hi - lo, lo)
        except OSError:
            continue
        i = chunk.find(needle)
        while i >= 0:
            if lo + i != own:
                hits += 1
            i = chunk.find(needle, i + 1)
    os.close(fd)
    found.append(hits)
print(found)
`);
    expect(b.stdout + b.stderr).toBe('[0, 0, 0, 0]\n');
  });

  it('background processes (fork + setsid, double fork) that would write into B later are gone when A returns', async () => {
    const a = await warm(String.raw`
import os, sys
def linger():
    # writes to A's stdout and /tmp for as long as it lives
    while True:
        try:
            os.write(1, b'LATE\n')
            open('/tmp/late', 'a').write('x')
        except OSError:
            pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        linger()
    os._exit(0)
if os.fork() == 0:
    linger()
print('A forked', flush=True)
`);
    expect(a.status).toBe('ok');
    expect(a.stdout).toMatch(/^A forked\n/m);
    // the run's pid namespace died with its init: no process of the slot's uid is left on the host
    expect(sandboxUidProcesses(pool.uids)).toEqual([]);
    const b = await warm(probeB);
    expectClean(b);
    expect(b.stdout).not.toMatch(/LATE/);
  });

  it('signals to everything it can reach, attempts on the zygote, and writes to every fd number', async () => {
    const a = await warm(String.raw`
import os, signal
res = []
for pid in (1, 0):
    try:
        os.kill(pid, signal.SIGKILL if pid == 1 else 0)
        res.append('%d ok' % pid)
    except OSError as e:
        res.append('%d %s' % (pid, e.errno))
wrote = []
for fd in range(3, 4096):
    try:
        os.write(fd, b'x')
        wrote.append(fd)
    except OSError:
        pass
print(res, wrote, sorted(p for p in os.listdir('/proc') if p.isdigit()))
try:
    os.kill(-1, signal.SIGKILL)
except OSError:
    pass
`);
    // P (pid 1) belongs to root: EPERM; the program sees pids 1 and 2 only and no fd above 2
    expect(a.stdout).toBe("['1 1', '0 ok'] [] ['1', '2']\n");
    // (kill(-1) spares the caller and the namespace's init)
    expect([a.status, a.stderr]).toEqual(['ok', '']);
    expectClean(await warm(probeB));
  });

  it('exhausting memory and processes costs A its run, never B its result', async () => {
    const mem = await warm('x = []\nwhile True:\n    x.append(bytearray(64 << 20))\n', { limits: { memoryBytes: 256 * 1024 * 1024 } });
    expect(mem.status).toBe('runtime_error');
    expect(mem.stderr).toMatch(/MemoryError/);
    const bomb = await warm(
      'import os\nn = 0\nwhile True:\n    try:\n        if os.fork() == 0:\n            os.read(os.open("/proc/self/status", 0), 1)\n            while True: pass\n        n += 1\n    except OSError:\n        break\nprint("forked", n)\n',
      { limits: { processes: 8 } },
    );
    expect(bomb.status).toBe('ok');
    expect(Number(/forked (\d+)/.exec(bomb.stdout)?.[1])).toBeLessThanOrEqual(8);
    expectClean(await warm(probeB));
  });

  it('a SysV semaphore set or POSIX message queue made by A does not exist for B', async () => {
    const make = String.raw`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print(libc.semget(4242, 1, 0o1666) >= 0, libc.mq_open(b'/arbq', os.O_CREAT | os.O_RDWR, 0o666, None) >= 0)
`;
    const look = String.raw`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
print(libc.semget(4242, 0, 0) >= 0, libc.mq_open(b'/arbq', os.O_RDWR) >= 0)
`;
    expect((await warm(make)).stdout).toBe('True True\n');
    expect((await warm(look)).stdout).toBe('False False\n');
  });

  it('two programs get independent random seeds and fresh module state', async () => {
    const src = 'import random, sys\nprint(random.random(), len(sys.modules))\n';
    const a = (await warm(src)).stdout.split(' ');
    const b = (await warm(src)).stdout.split(' ');
    expect(a[0]).not.toBe(b[0]);
    expect(a[1]).toBe(b[1]);
  });
});

describe('kernel limits on the warm path', () => {
  it('CPU time: SIGXCPU is a timeout', async () => {
    const r = await warm('while True:\n    pass\n', { limits: { cpuSeconds: 1, wallMs: 20_000 } });
    expect(r.status).toBe('timeout');
    expect(r.message).toMatch(/CPU/);
  });

  it('wall clock: the run and its setsid child are killed', async () => {
    const r = await warm('import os, signal\nif os.fork() == 0:\n    os.setsid()\n    signal.pause()\nsignal.pause()\n', { limits: { wallMs: 300 } });
    expect(r.status).toBe('timeout');
    expect(r.message).toMatch(/wall-clock/);
    expect(sandboxUidProcesses(pool.uids)).toEqual([]);
  });

  it('per-process memory, processes, open files, file size and core as rlimits with the cold values', async () => {
    const src =
      'import resource as r\nprint([r.getrlimit(k) for k in (r.RLIMIT_CPU, r.RLIMIT_AS, r.RLIMIT_NPROC, r.RLIMIT_FSIZE, r.RLIMIT_NOFILE, r.RLIMIT_CORE)])\n';
    const limits = { cpuSeconds: 3, memoryBytes: 300 * 1024 * 1024, processes: 9, fileSizeBytes: 12345, openFiles: 40 };
    const w = await warm(src, { limits });
    const c = await py(src, { limits, on: cold });
    expect(w.stdout).toBe('[(3, 4), (314572800, 314572800), (9, 9), (12345, 12345), (40, 40), (0, 0)]\n');
    expect(w.stdout).toBe(c.stdout);
  });

  it('file size: a write past the limit stops at it', async () => {
    const r = await warm(
      "import os\nf = open('/tmp/big', 'wb')\ntry:\n    f.write(b'x' * 2000000)\n    f.flush()\nexcept OSError as e:\n    print(e.errno)\nprint(os.path.getsize('/tmp/big'))\n",
      {
        limits: { fileSizeBytes: 1_000_000 },
      },
    );
    expect(r.stdout.trim().split('\n').pop()).toBe('1000000');
  });

  it('/tmp holds at most tmpBytes', async () => {
    const r = await warm(
      "try:\n    open('/tmp/fill', 'wb').write(b'x' * 50000000)\nexcept OSError as e:\n    print('full', e.errno)\nimport os\nprint(os.path.getsize('/tmp/fill'))\n",
      {
        limits: { tmpBytes: 4 * 1024 * 1024, fileSizeBytes: 100_000_000 },
      },
    );
    expect(r.stdout).toMatch(/^full 28\n/);
    expect(Number(r.stdout.trim().split('\n').pop())).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it('output size: stdout is capped and the writer killed', async () => {
    const r = await warm("import sys\nwhile True:\n    sys.stdout.write('y' * 1000)\n", { limits: { outputBytes: 4096 } });
    expect(r.status).toBe('output_limit');
    expect(r.stdout.length).toBe(4096);
  });

  it('no network: only a loopback, and no connection out', async () => {
    const r = await warm(
      "import socket\nprint([l.split(':')[0].strip() for l in open('/proc/net/dev').read().splitlines()[2:]])\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n    print('CONNECTED')\nexcept OSError as e:\n    print('refused')\n",
    );
    expect(r.stdout).toBe("['lo']\nrefused\n");
  });

  it('seccomp: unshare, mount, ptrace, keyctl, bpf, SysV shm refused; uid, groups and capabilities dropped; no_new_privs', async () => {
    const r = await warm(String.raw`
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def call(name, *a):
    r = libc.syscall(*a)
    print(name, 'ok' if r >= 0 else os.strerror(ctypes.get_errno()))
call('unshare', 272, 0x10000000)
call('mount', 165, b'none', b'/tmp', b'tmpfs', 0, None)
call('ptrace', 101, 16, 1, 0, 0)
call('keyctl', 250, 0, 0)
call('bpf', 321, 0, 0, 0)
call('shmget', 29, 0, 1 << 20, 0o1600)
st = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)
print('ids', os.getuid(), os.geteuid(), os.getgid(), os.getgroups())
for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb', 'NoNewPrivs', 'Seccomp'):
    print(k, st[k].strip())
`);
    expect(r.status, r.stderr).toBe('ok');
    const uid = pool.uids[0]!;
    expect(r.stdout).toBe(
      [
        'unshare Operation not permitted',
        'mount Operation not permitted',
        'ptrace Operation not permitted',
        'keyctl Operation not permitted',
        'bpf Operation not permitted',
        'shmget Operation not permitted',
        `ids ${uid} ${uid} ${uid} []`,
        'CapInh 0000000000000000',
        'CapPrm 0000000000000000',
        'CapEff 0000000000000000',
        'CapBnd 0000000000000000',
        'CapAmb 0000000000000000',
        'NoNewPrivs 1',
        'Seccomp 2',
        '',
      ].join('\n'),
    );
  });

  it('total memory of the run: ten children of 200 MiB hold at most the bound together', async () => {
    expectHeldWithinBound(await warm(MEMORY_CHILDREN, { limits: MEMORY_CHILDREN_LIMITS }), pool.memoryControl);
    expectClean(await warm(probeB));
  });

  it('a warm run over its cgroup is memoryExceeded (needs a memory cgroup)', async (ctx) => {
    if (!pool.memoryControl.startsWith('cgroup')) ctx.skip(`memory control here: ${pool.memoryControl}`);
    const o = await warm('b = bytearray(400 * 1024 * 1024)\nfor j in range(0, len(b), 4096): b[j] = 1\nprint("held")', {
      limits: { runMemoryBytes: 128 * 1024 * 1024, wallMs: 30_000 },
    });
    expect(o.status).toBe('runtime_error');
    expect(o.memoryExceeded).toBe(true);
    expect(o.message).toMatch(/total memory limit of 128 MiB/);
    expect(o.stdout).toBe('');
    expectClean(await warm(probeB));
  });
});

describe('total memory with two interpreters in a slot', () => {
  it("a run's cgroup bound is its own limit plus what every idle interpreter of the slot holds, not only its own (needs a memory cgroup)", async (ctx) => {
    // regression: the bound added only the serving zygote's usage when it started, so a run on
    // the first of two zygotes lost the second one's memory from its own limit
    const two = new SandboxPool({ concurrency: 1 });
    try {
      const limits = { memoryBytes: 256 * 1024 * 1024 };
      const run = async (pythonSite: boolean) => {
        const c = await compileProgram(two, 'python', 'print(1)', { pythonSite, limits });
        if (!c.ok) throw new Error(c.message);
        const r = await runProgram(two, c.program);
        expect(r.status, r.stderr).toBe('ok');
      };
      await run(false);
      const cg = (two as unknown as { slots: { warm: { usage(): number; limit: number }[] } }).slots.warm[0];
      if (!cg) return ctx.skip('no memory cgroup here: the bound is rlimits only');
      await run(true); // a second interpreter (site-packages on) joins the slot's cgroup
      const bothIdle = cg.usage();
      await run(false);
      const all = { ...DEFAULT_LIMITS, ...limits };
      expect(cg.limit - (all.memoryBytes + all.tmpBytes)).toBeGreaterThanOrEqual(bothIdle - 64 * 1024);
      expect(two.stats.warm).toBe(3);
    } finally {
      two.close();
    }
  });
});

describe('the warm path means what the cold path means', () => {
  const cases: [string, string, string?][] = [
    ['output and argv', "import sys\nprint('hi', sys.argv, __file__, __name__)\nprint('err', file=sys.stderr)\n"],
    ['stdin', 'import sys\nprint(sys.stdin.read()[::-1])\n', 'abc'],
    ['exit status', 'import sys\nsys.exit(3)\n'],
    ['exit message', "import sys\nsys.exit('bye')\n"],
    ['exit 256', 'raise SystemExit(256)\n'],
    ['os._exit', 'import os\nos._exit(5)\n'],
    ['uncaught exception', 'def f():\n    raise ValueError("boom")\nf()\n'],
    ['syntax error', 'def f(:\n'],
    ['chained exception', 'try:\n    1/0\nexcept ZeroDivisionError:\n    raise KeyError("k")\n'],
    ['signal', 'import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n'],
    ['atexit and unflushed output', "import atexit, sys\natexit.register(lambda: print('at exit'))\nsys.stdout.write('no newline')\n"],
    ['thread joined at exit', "import threading\nt = threading.Thread(target=lambda: print('thread ran'))\nt.start()\n"],
    ['excepthook', "import sys\nsys.excepthook = lambda *a: print('hooked', a[0].__name__)\nraise OSError\n"],
    [
      'std streams',
      'import sys\nfor f in (sys.stdin, sys.stdout, sys.stderr):\n    print(f.seekable(), f.isatty(), f.line_buffering, f.encoding, f.errors, f.buffer.raw.seekable(), file=sys.stderr)\n',
    ],
    [
      'interpreter state',
      "import sys, os\nprint(sys.path, sys.flags.isolated, sys.flags.no_site, sys.dont_write_bytecode, sorted(vars(sys.modules['__main__'])))\nprint(os.getpid(), os.getppid(), os.getsid(0), os.getpgrp(), sorted(os.environ.items()))\n",
    ],
  ];
  it.each(cases)('%s', async (_name, src, stdin) => {
    const w = await warm(src, stdin !== undefined ? { stdin } : {});
    const c = await py(src, { ...(stdin !== undefined ? { stdin } : {}), on: cold });
    expect({ status: w.status, exitCode: w.exitCode, signal: w.signal, stdout: w.stdout, stderr: w.stderr, message: w.message }).toEqual({
      status: c.status,
      exitCode: c.exitCode,
      signal: c.signal,
      stdout: c.stdout,
      stderr: c.stderr,
      message: c.message,
    });
  });
});

describe('crash recovery', () => {
  it('a zygote killed from outside between runs costs one restart, and the next run is correct', async () => {
    await warm('pass');
    const [e] = zygotes();
    const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(e!.statusText)?.[1]);
    expect(pid).toBeGreaterThan(0);
    const starts = pool.stats.warmStarts;
    process.kill(pid, 'SIGKILL');
    await e!.exited;
    const r = await warm('print(6 * 7)');
    expect(r.stdout).toBe('42\n');
    expect(pool.stats.warmStarts).toBe(starts + 1);
  });

  it('the template process (which forks every run) killed from outside: the next run is still correct, and later ones warm again (needs the native fork helper)', async (ctx) => {
    if (!existsSync(new URL('../../dist/native/zygote-fork.so', import.meta.url))) ctx.skip('dist/native/zygote-fork.so was not built (no C compiler)');
    await warm('pass');
    const [e] = zygotes();
    const zpid = Number(/"child-pid"\s*:\s*(\d+)/.exec(e!.statusText)?.[1]);
    // T: the zygote's child running the zygote's own program (only when the fork helper is built)
    const t = readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .find((d) => {
        try {
          return (
            readFileSync(`/proc/${d}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(zpid) &&
            readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('.arbiter-zygote.py')
          );
        } catch {
          return false;
        }
      });
    expect(t).toBeDefined();
    process.kill(Number(t), 'SIGKILL');
    const r = await py('print(6 * 7)');
    expect(r.status, r.message).toBe('ok');
    expect(r.stdout).toBe('42\n');
    const again = await warm('print(7 * 6)');
    expect(again.stdout).toBe('42\n');
  });

  it('killed just before a run (its death not yet seen): the run is still correct', async () => {
    await warm('pass');
    const [e] = zygotes();
    const pid = Number(/"child-pid"\s*:\s*(\d+)/.exec(e!.statusText)?.[1]);
    process.kill(pid, 'SIGKILL');
    const r = await py('print(6 * 7)');
    expect(r.status, r.message).toBe('ok');
    expect(r.stdout).toBe('42\n');
    const again = await warm('print(7 * 6)');
    expect(again.stdout).toBe('42\n');
  });

  it('an aborted run kills its zygote; the next run gets a fresh one', async () => {
    const ac = new AbortController();
    const c = await compileProgram(pool, 'python', 'import signal\nprint("started", flush=True)\nsignal.pause()\n');
    if (!c.ok) throw new Error(c.message);
    const p = runProgram(pool, c.program, { signal: ac.signal });
    ac.abort();
    expect((await p).status).toBe('aborted');
    expect((await warm('print(1)')).stdout).toBe('1\n');
  });
});

describe("the zygote's ready modules (for arbiter's own driver)", () => {
  // the driver (graders/code/drivers/driver.py) would otherwise import json, ctypes, binascii...
  // in every program's process (hundreds of copy-on-write page faults); a trusted main gets the
  // zygote's, none of them in sys.modules, a copy of the builtins' namespace and a working prctl
  const probe = String.raw`
z = globals().pop('__arbiter_modules__', None)
import sys
if z is None:
    print('none')
    raise SystemExit
import builtins
names = ('json', 'ctypes', 'binascii', 'traceback', 'numbers', 'gc')
mods = all(type(z[n]) is type(sys) and z[n].__name__ == n for n in names)
outside = [n for n in ('json', 'ctypes', 'binascii', 'traceback', 'numbers') if n in sys.modules]
b = z['__builtins__']
copy = b == builtins.__dict__ and b is not builtins.__dict__
import json
fresh = json is not z['json'] and json.loads('[1]') == z['json'].loads('[1]') == [1]
fprog = [f[0] for f in z['__fprog__']._fields_] == ['len', 'filter']
print(mods, outside, copy, fresh, fprog, z['__prctl__'](39, 0, 0, 0, 0), '__arbiter_modules__' in globals())
`;
  it('a trusted main finds them: the modules (outside sys.modules: its own import is fresh), builtins as they were, prctl and sock_fprog', async () => {
    const c = await compileProgram(pool, 'python', probe, { trustedMain: true });
    if (!c.ok) throw new Error(c.message);
    const before = pool.stats.warm;
    const r = await runProgram(pool, c.program);
    expect(pool.stats.warm).toBe(before + 1);
    // (prctl 39: PR_GET_NO_NEW_PRIVS, set in the sandbox)
    expect(r.stdout + r.stderr).toBe('True [] True True True 1 False\n');
  });

  it('any other program does not (its globals are those of a cold run)', async () => {
    expect((await warm(probe)).stdout).toBe('none\n');
    const c = await compileProgram(cold, 'python', probe, { trustedMain: true });
    if (!c.ok) throw new Error(c.message);
    expect((await runProgram(cold, c.program)).stdout).toBe('none\n');
  });
});

/** Five orphans that exit at once; prints how many, those still in /proc, and pid 1's state. */
const ORPHANS = String.raw`
import os
r, w = os.pipe()
for i in range(5):
    p = os.fork()
    if p == 0:
        if os.fork() == 0:  # orphaned when its parent exits at once
            os.close(r)
            os.write(w, str(os.getpid()).encode() + b' ')
            os._exit(0)
        os._exit(0)
    os.waitpid(p, 0)
os.close(w)
data = b''
while True:
    b = os.read(r, 100)
    if not b:
        break
    data += b
orphans = [int(x) for x in data.split()]
left = orphans
for _ in range(200000):
    left = [p for p in left if os.path.exists('/proc/%d' % p)]
    if not left:
        break
    os.sched_yield()
print(len(orphans), left, open('/proc/1/status').read().split('State:')[1].split()[0])
`;

describe("the run's pid 1", () => {
  it('reaps orphans: their zombies are gone, as under a cold run', async () => {
    const src = ORPHANS;
    const w = await warm(src);
    const c = await py(src, { on: cold });
    expect(w.stdout + w.stderr).toBe('5 [] S\n');
    expect(c.stdout + c.stderr).toBe('5 [] S\n');
  });
});

describe('zygote-init that cannot be executed', () => {
  const src = new URL('../../dist/native/zygote-init', import.meta.url);
  it("a run whose pid 1 fails to exec it is a sandbox_error naming why, never the program's exit status (needs the native zygote-init)", async (ctx) => {
    if (!existsSync(src)) ctx.skip('dist/native/zygote-init was not built (no C compiler)');
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-init-'));
    const init = join(dir, 'zygote-init');
    copyFileSync(src, init);
    process.env.ARBITER_SANDBOX_INIT = init;
    const p = new SandboxPool({ concurrency: 1 });
    try {
      const c = await compileProgram(p, 'python', 'print(42)\n');
      if (!c.ok) throw new Error(c.message);
      expect((await runProgram(p, c.program)).stdout).toBe('42\n');
      expect(p.warmMode).toMatch(/^on:/);
      chmodSync(init, 0o644); // the zygote has it bound; the next run's exec is refused
      const r = await runProgram(p, c.program);
      expect({ status: r.status, exitCode: r.exitCode }).toEqual({ status: 'sandbox_error', exitCode: null });
      expect(r.message).toMatch(/exec zygote-init: Permission denied/);
      chmodSync(init, 0o755);
      expect((await runProgram(p, c.program)).stdout).toBe('42\n');
    } finally {
      delete process.env.ARBITER_SANDBOX_INIT;
      p.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('without zygote-init (pid 1 a copy of the template, as on other architectures)', () => {
  it('pid 1 reaps orphans and relays the status; background processes die with the run; the result is right', async () => {
    process.env.ARBITER_SANDBOX_NO_INIT = '1';
    const plain = new SandboxPool({ concurrency: 1 });
    try {
      const c = await compileProgram(
        plain,
        'python',
        "import os, sys\nprint(os.getpid(), os.getppid(), os.getsid(0), open('/proc/1/cmdline', 'rb').read().count(b'zygote-init'))\nsys.exit(3)\n",
      );
      if (!c.ok) throw new Error(c.message);
      const r = await runProgram(plain, c.program);
      expect(plain.warmMode).toMatch(/^on:/);
      expect({ out: r.stdout, code: r.exitCode }).toEqual({ out: '2 1 1 0\n', code: 3 });
      const orphans = await compileProgram(plain, 'python', ORPHANS, { allowSpawn: true });
      if (!orphans.ok) throw new Error(orphans.message);
      expect((await runProgram(plain, orphans.program)).stdout).toBe('5 [] S\n');
      const bg = await compileProgram(
        plain,
        'python',
        'import os\nif os.fork() == 0:\n    os.setsid()\n    import time\n    time.sleep(60)\nprint("parent done")\n',
        { allowSpawn: true },
      );
      if (!bg.ok) throw new Error(bg.message);
      expect((await runProgram(plain, bg.program)).stdout).toBe('parent done\n');
      expect(sandboxUidProcesses(plain.uids)).toEqual([]);
      expect(plain.stats.warm).toBeGreaterThanOrEqual(3);
    } finally {
      delete process.env.ARBITER_SANDBOX_NO_INIT;
      plain.close();
    }
  });
});

describe('start-up', () => {
  it("concurrent requests for a slot's zygote share one start", async () => {
    const fresh = new SandboxPool({ concurrency: 1 });
    try {
      const c = await compileProgram(fresh, 'python', 'pass\n');
      if (!c.ok) throw new Error(c.message);
      expect((await runProgram(fresh, c.program)).status).toBe('ok'); // the self-test, with its own zygote
      const internals = (
        fresh as unknown as {
          python: {
            zygotes: Map<string, { kill(why: string): void }>[];
            zygoteFor(slot: number, form: unknown, binds: string[]): Promise<unknown>;
          };
        }
      ).python;
      const [z0] = [...internals.zygotes[0]!.values()];
      z0!.kill('test: start again');
      const form = pythonWarmForm(c.program.argv, [{ name: 'main.py', data: 'pass\n' }], {}, {});
      const starts = fresh.stats.warmStarts;
      const [a, b] = await Promise.all([internals.zygoteFor(0, form, c.program.binds ?? []), internals.zygoteFor(0, form, c.program.binds ?? [])]);
      expect(typeof a).toBe('object');
      expect(a).toBe(b);
      expect(fresh.stats.warmStarts).toBe(starts + 1);
    } finally {
      fresh.close();
    }
  });

  it('a fresh pool starts one zygote per slot however many runs arrive at once (the other slots start theirs during the self-test)', async () => {
    const three = new SandboxPool({ concurrency: 3 });
    try {
      const c = await compileProgram(three, 'python', 'import os\nprint(os.getpid())\n');
      if (!c.ok) throw new Error(c.message);
      const runs = await Promise.all(Array.from({ length: 9 }, () => runProgram(three, c.program)));
      expect(runs.map((r) => r.stdout)).toEqual(Array(9).fill('2\n'));
      expect(three.warmMode).toMatch(/^on:/);
      // the nine runs all warm, on exactly three zygotes (the self-test ran on the first)
      expect(three.stats.warm).toBe(9);
      expect(three.stats.warmStarts).toBe(3);
    } finally {
      three.close();
    }
  });
});

describe('warm mode setting', () => {
  it('warm: false and ARBITER_SANDBOX_WARM=0 turn it off and say so', async () => {
    expect(cold.warmMode).toMatch(/^off: disabled/);
    const before = process.env.ARBITER_SANDBOX_WARM;
    process.env.ARBITER_SANDBOX_WARM = '0';
    const p = new SandboxPool({ concurrency: 1 });
    if (before === undefined) delete process.env.ARBITER_SANDBOX_WARM;
    else process.env.ARBITER_SANDBOX_WARM = before;
    try {
      const r = await py('print(1)', { on: p });
      expect(r.stdout).toBe('1\n');
      expect(p.stats.warm).toBe(0);
      expect(p.warmMode).toBe('off: disabled (ARBITER_SANDBOX_WARM=0)');
    } finally {
      p.close();
    }
  });
});

describe('JavaScript: a pre-started node per slot runs each program', () => {
  async function js(src: string, opts: { stdin?: string; limits?: Partial<SandboxLimits>; on?: SandboxPool } = {}) {
    const p = opts.on ?? pool;
    const c = await compileProgram(p, 'javascript', src, { allowSpawn: true, ...(opts.limits ? { limits: opts.limits } : {}) });
    if (!c.ok) throw new Error(c.message);
    return runProgram(p, c.program, opts.stdin !== undefined ? { stdin: opts.stdin } : {});
  }
  async function spare(src: string, opts: Parameters<typeof js>[1] = {}): Promise<RunResult> {
    const before = pool.stats.spareRuns;
    const r = await js(src, opts);
    expect(pool.stats.spareRuns, `served cold: ${pool.jsWarmMode}`).toBe(before + 1);
    return r;
  }

  it('is on, and A leaves nothing for B: globals, prototypes, /tmp, environment, background processes', async () => {
    const a = await spare(String.raw`
const fs = require('fs'), cp = require('child_process');
globalThis.ARB_LEFT = 1;
Array.prototype.includes = () => true;
process.env.ARB_LEAK = '1';
fs.writeFileSync('/tmp/left.txt', 'from A');
cp.spawn('/bin/sh', ['-c', 'while :; do echo LATE; done'], { detached: true, stdio: ['ignore', 'inherit', 'ignore'] }).unref();
console.log('A done');
`);
    expect(pool.jsWarmMode).toMatch(/^on:/);
    expect(a.stdout).toMatch(/^A done$/m);
    // the detached shell died with A's sandbox (only the next spare, a node, may be running)
    const shells = sandboxUidProcesses(pool.uids).filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('echo LATE');
      } catch {
        return false;
      }
    });
    expect(shells).toEqual([]);
    const b = await spare(String.raw`
const fs = require('fs');
console.log(typeof globalThis.ARB_LEFT, [1].includes(2), process.env.ARB_LEAK, fs.readdirSync('/tmp').join(','),
  fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).join(','));
`);
    expect(b.status, b.stderr).toBe('ok');
    expect(b.stdout).toBe('undefined false undefined main.js 1,2\n');
  });

  it('has the cold limits, uid, filter and no_new_privs', async () => {
    const src = String.raw`
const st = require('fs').readFileSync('/proc/self/status', 'utf8');
const lim = require('fs').readFileSync('/proc/self/limits', 'utf8');
const pick = (re) => (re.exec(st) || re.exec(lim) || [])[1];
console.log([process.getuid() !== 0, pick(/NoNewPrivs:\s+(\d)/), pick(/Seccomp:\s+(\d)/), pick(/CapEff:\s+(\w+)/), pick(/Max processes\s+(\d+)/), pick(/Max data size\s+(\d+)/), pick(/Max open files\s+(\d+)/)].join(' '));
`;
    const limits = { processes: 50, openFiles: 60 };
    const w = await spare(src, { limits });
    const c = await js(src, { limits, on: cold });
    expect(w.stdout).toMatch(/^true 1 2 0000000000000000 50 \d+ 60\n$/);
    expect(w.stdout).toBe(c.stdout);
  });

  it('runs with changing settings and back-to-back runs each get a spare (none waits on an idle one)', async () => {
    const src = 'console.log(require("fs").readFileSync("/proc/self/limits", "utf8").match(/Max processes\\s+(\\d+)/)[1])';
    const outs: string[] = [];
    for (const n of [50, 51, 51, 50, 50, 50, 52]) outs.push((await spare(src, { limits: { processes: n } })).stdout.trim());
    expect(outs).toEqual(['50', '51', '51', '50', '50', '50', '52']);
    const before = pool.stats.spareRuns;
    const all = await Promise.all([1, 2, 3].map((i) => js(`console.log(${i})`)));
    expect(all.map((r) => r.stdout)).toEqual(['1\n', '2\n', '3\n']);
    expect(pool.stats.spareRuns).toBe(before + 3);
  });

  const cases: [string, string, string?][] = [
    [
      'output, argv and stdin',
      "console.log(process.argv.slice(1), __filename, require.main === module, require('fs').readFileSync(0, 'utf8'))\nconsole.error('err')\n",
      'abc',
    ],
    ['exit status', 'process.exit(4)\n'],
    ['uncaught exception', 'function f() { throw new TypeError("boom"); }\nf();\n'],
    ['syntax error', 'function (\n'],
    ['signal', "process.kill(process.pid, 'SIGSEGV')\n"],
    ['wall clock', 'setInterval(() => {}, 1000)\n'],
  ];
  it.each(cases)('means what a cold run means: %s', async (_name, src, stdin) => {
    const limits = { wallMs: 2000 };
    const w = await spare(src, { limits, ...(stdin !== undefined ? { stdin } : {}) });
    const c = await js(src, { limits, on: cold, ...(stdin !== undefined ? { stdin } : {}) });
    // the deepest frames of a stack trace are node's own main (cold) or the spare's loader (warm)
    const stack = (t: string) => t.replace(/(at Function\.executeUserEntryPoint[^\n]*\n)(\s+at [^\n]*\n)+/, '$1');
    const pickOut = (r: RunResult) => ({
      status: r.status,
      exitCode: r.exitCode,
      signal: r.signal,
      stdout: r.stdout,
      stderr: stack(r.stderr),
      message: r.message,
    });
    expect(pickOut(w)).toEqual(pickOut(c));
  });
});
