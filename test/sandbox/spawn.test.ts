// Process creation inside a sandboxed program: refused (EPERM) unless the run allows it
// (RunRequest.allowSpawn), in every language and on every path (cold, warm Python, JavaScript
// spares), while threads keep working; and the native helper's --seccomp-fd, which a harness inside
// the sandbox uses to stack the same refusal on a process it starts, fails closed. Real programs,
// real sandbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileProgram, runProgram, SandboxPool, type CompiledProgram, type LanguageName, type RunResult } from '../../dist/sandbox/index.js';
import { SPAWN_EXEC_PATH } from '../../dist/sandbox/bwrap-args.js';
import { hostSpawnFilter } from '../../dist/sandbox/seccomp.js';

// warm: Python from the zygote, JavaScript from a pre-started spare; cold: every run a fresh bwrap
const warm = new SandboxPool({ concurrency: 1 });
const cold = new SandboxPool({ concurrency: 1, warm: false });
afterAll(() => {
  warm.close();
  cold.close();
});

async function build(language: LanguageName, src: string, pool = cold): Promise<CompiledProgram> {
  const c = await compileProgram(pool, language, src);
  if (!c.ok) throw new Error(`${language}: ${c.message}`);
  return c.program;
}

/** Runs on `pool` and checks the path that served it. */
async function runOn(pool: SandboxPool, p: CompiledProgram, allowSpawn?: boolean): Promise<RunResult> {
  const before = { warm: pool.stats.warm, spare: pool.stats.spareRuns };
  const r = await runProgram(pool, allowSpawn === undefined ? p : { ...p, allowSpawn });
  if (pool === warm && p.language === 'python') expect(pool.stats.warm, pool.warmMode).toBe(before.warm + 1);
  if (pool === warm && p.language === 'javascript') expect(pool.stats.spareRuns, pool.jsWarmMode).toBe(before.spare + 1);
  if (pool === cold) expect(pool.stats.warm + pool.stats.spareRuns).toBe(0);
  return r;
}

const PY = `import os, subprocess, threading
def attempt(name, f):
    try:
        f()
        print(name, 'ok')
    except PermissionError:
        print(name, 'EPERM')
def fork():
    p = os.fork()
    if p == 0:
        os._exit(0)
    os.waitpid(p, 0)
def spawn():
    os.waitpid(os.posix_spawn('/bin/true', ['true'], {}), 0)
attempt('fork', fork)
attempt('subprocess', lambda: subprocess.run(['true'], check=True))
attempt('posix_spawn', spawn)
t = threading.Thread(target=lambda: print('thread ok'))
t.start()
t.join()
`;

const C = `#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
extern char **environ;
static void *f(void *a) { return a; }
int main(void) {
  pthread_t t;
  int e = pthread_create(&t, 0, f, 0);
  if (!e) pthread_join(t, 0);
  printf("thread %s\\n", e ? strerror(e) : "ok");
  pid_t p = fork();
  if (p == 0) _exit(0);
  if (p > 0) waitpid(p, 0, 0);
  printf("fork %s\\n", p < 0 ? strerror(errno) : "ok");
  p = vfork();
  if (p == 0) _exit(0);
  if (p > 0) waitpid(p, 0, 0);
  printf("vfork %s\\n", p < 0 ? strerror(errno) : "ok");
  char *argv[] = {"true", 0};
  e = posix_spawn(&p, "/bin/true", 0, 0, argv, environ);
  if (!e) waitpid(p, 0, 0);
  printf("posix_spawn %s\\n", e ? strerror(e) : "ok");
  return 0;
}
`;
const C_REFUSED = 'thread ok\nfork Operation not permitted\nvfork Operation not permitted\nposix_spawn Operation not permitted\n';
const C_ALLOWED = 'thread ok\nfork ok\nvfork ok\nposix_spawn ok\n';

const JS = `const { execSync } = require('child_process');
const { Worker } = require('worker_threads');
try { execSync('true'); console.log('exec ok'); } catch (e) { console.log('exec ' + e.code); }
new Worker("require('worker_threads').parentPort.postMessage(6 * 7)", { eval: true }).on('message', (m) => console.log('worker ' + m));
`;

const GO = `package main

import (
	"fmt"
	"os/exec"
	"sync"
)

func main() {
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); mu.Lock(); n++; mu.Unlock() }()
	}
	wg.Wait()
	fmt.Println("goroutines", n)
	if err := exec.Command("/bin/true").Run(); err != nil {
		fmt.Println("exec refused")
	} else {
		fmt.Println("exec ok")
	}
}
`;

const JAVA = `public class Main {
  public static void main(String[] a) throws Exception {
    Thread t = new Thread(() -> System.out.println("thread ok"));
    t.start();
    t.join();
    try {
      new ProcessBuilder("/bin/true").start().waitFor();
      System.out.println("exec ok");
    } catch (java.io.IOException e) {
      System.out.println("exec refused");
    }
  }
}
`;

let c: CompiledProgram;
beforeAll(async () => {
  c = await build('c', C);
}, 120_000);

describe.each([
  ['cold', cold],
  ['warm', warm],
] as const)('%s', (_name, pool) => {
  it('Python: os.fork, subprocess and os.posix_spawn fail with EPERM; a thread works; allowSpawn lets them work', async () => {
    const p = await build('python', PY, pool);
    const r = await runOn(pool, p);
    expect(r.stdout, r.stderr).toBe('fork EPERM\nsubprocess EPERM\nposix_spawn EPERM\nthread ok\n');
    const ok = await runOn(pool, p, true);
    expect(ok.stdout, ok.stderr).toBe('fork ok\nsubprocess ok\nposix_spawn ok\nthread ok\n');
  });

  it('JavaScript: child_process fails with EPERM; worker_threads work; allowSpawn lets it work', async () => {
    const p = await build('javascript', JS, pool);
    const r = await runOn(pool, p);
    expect(r.stdout, r.stderr).toBe('exec EPERM\nworker 42\n');
    const ok = await runOn(pool, p, true);
    expect(ok.stdout, ok.stderr).toBe('exec ok\nworker 42\n');
  });

  it('the native helper is at SPAWN_EXEC_PATH', async () => {
    const p = await build('python', `import os\nprint(os.access(${JSON.stringify(SPAWN_EXEC_PATH)}, os.X_OK))\n`, pool);
    expect((await runOn(pool, p)).stdout).toBe('True\n');
  });
});

describe('compiled languages (cold)', () => {
  it('C: fork, vfork and posix_spawn fail with EPERM, pthreads work; allowSpawn lets them work', async () => {
    expect((await runOn(cold, c)).stdout).toBe(C_REFUSED);
    expect((await runOn(cold, c, true)).stdout).toBe(C_ALLOWED);
  });

  it('Go: goroutines work, os/exec is refused; allowSpawn lets it run', async () => {
    const p = await build('go', GO);
    const r = await runOn(cold, p);
    expect(r.stdout, r.stderr).toBe('goroutines 8\nexec refused\n');
    expect((await runOn(cold, p, true)).stdout).toBe('goroutines 8\nexec ok\n');
  });

  it('Java: threads work, ProcessBuilder is refused; allowSpawn lets it run', async () => {
    const p = await build('java', JAVA);
    const r = await runOn(cold, p);
    expect(r.stdout, r.stderr).toBe('thread ok\nexec refused\n');
    expect((await runOn(cold, p, true)).stdout).toBe('thread ok\nexec ok\n');
  });
});

describe('--seccomp-fd (the helper as a launcher inside the sandbox)', () => {
  // a Python harness (which may fork) starts the C probe through the helper with a filter on fd 3
  const harness = `import os, subprocess
def launch(name, arg='--seccomp-fd=3'):
    fd = os.open(name, os.O_RDONLY)
    if fd != 3:
        os.dup2(fd, 3)
        os.close(fd)
    p = subprocess.run([${JSON.stringify(SPAWN_EXEC_PATH)}, arg, '--', './prog'], pass_fds=(3,), capture_output=True, text=True)
    os.close(3)
    print(name, arg, p.returncode, (p.stdout + p.stderr).strip().replace('\\n', '; '))
launch('filter.bin')
launch('empty.bin')
launch('short.bin')
launch('filter.bin', '--seccomp-fd=9')
`;
  it.each([
    ['cold', cold],
    ['warm', warm],
  ] as const)('%s: the launched program cannot fork but threads work; a bad fd or an empty or truncated filter exits 127', async (_n, pool) => {
    const f = hostSpawnFilter()!;
    const p = await compileProgram(pool, 'python', harness, {
      allowSpawn: true,
      files: [c.files[0]!, { name: 'filter.bin', data: f }, { name: 'empty.bin', data: '' }, { name: 'short.bin', data: f.subarray(0, 12) }],
    });
    if (!p.ok) throw new Error(p.message);
    const r = await runOn(pool, p.program);
    expect(r.stdout.split('\n'), r.stderr).toEqual([
      `filter.bin --seccomp-fd=3 0 ${C_REFUSED.trim().replace(/\n/g, '; ')}`,
      'empty.bin --seccomp-fd=3 127 sandbox-exec: --seccomp-fd: empty or truncated filter: Invalid argument',
      'short.bin --seccomp-fd=3 127 sandbox-exec: --seccomp-fd: empty or truncated filter: Invalid argument',
      'filter.bin --seccomp-fd=9 127 sandbox-exec: --seccomp-fd: reading the filter: Bad file descriptor',
      '',
    ]);
  });
});
