// Fork oracles: a solution that forks one child per candidate answer and lets only the child whose
// tests pass speak. Graded programs cannot create processes (the sandbox refuses fork with EPERM)
// unless the grader sets allow_processes: true; with it, a child's C++ evidence line still does
// not count (it carries the child's pid, not the program's). Real graders, real sandbox.
import { afterAll, describe, expect, it } from 'vitest';
import { sandboxPool } from '../../dist/graders/code/config.js';
import { loadGrader, Services } from './helpers.js';

const services = new Services();
afterAll(() => services.close());

const grade = (cfg: Record<string, unknown>, output: string, item: Record<string, unknown> = {}) =>
  loadGrader({ type: 'code', ...cfg }).grade({ item, sample: { output_text: output } }, { services });

const CPP_PROMPT = '#include <sys/wait.h>\n#include <unistd.h>\nbool is_prime(long long n) {\n';
const CPP_TESTS = `#include <cassert>
int main() {
  assert(is_prime(6) == false);
  assert(is_prime(101) == true);
  assert(is_prime(11) == true);
  assert(is_prime(13441) == true);
  assert(is_prime(61) == true);
  assert(is_prime(4) == false);
}
`;
// the child answers true; when it dies (a failed assert traps) the parent answers false; when it
// exits 0 it has passed every remaining test and printed the evidence line itself
const CPP_ORACLE = `  pid_t p = fork();
  if (p == 0) return true;
  int st = 1;
  if (p > 0) waitpid(p, &st, 0);
  if (p > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0) _exit(0);
  return false;
}`;
const CPP_RIGHT = '  if (n < 2) return false;\n  for (long long d = 2; d * d <= n; d++) if (n % d == 0) return false;\n  return true;\n}';
const cpp = (extra: Record<string, unknown> = {}) => ({ language: 'cpp', format: 'humaneval', prompt: CPP_PROMPT, tests: CPP_TESTS, ...extra });

describe('C++ humaneval', () => {
  it('a fork oracle (is_prime, 6 asserts) fails: the fork is refused', async () => {
    const r = await grade(cpp(), CPP_ORACLE);
    expect(r.valid, JSON.stringify(r)).toBe(true);
    expect(r.score, r.reason).toBe(0);
  });

  it('with allow_processes: true the oracle still fails: the evidence line its child prints has the child pid', async () => {
    const r = await grade(cpp({ allow_processes: true }), CPP_ORACLE);
    expect(r.valid, JSON.stringify(r)).toBe(true);
    expect(r.score, r.reason).toBe(0);
    expect(r.metadata.failure).toBe('early_exit');
  });

  it('a right solution passes either way', async () => {
    expect((await grade(cpp(), CPP_RIGHT)).score).toBe(1);
    expect((await grade(cpp({ allow_processes: true }), CPP_RIGHT)).score).toBe(1);
  });
});

describe('Python', () => {
  it('a humaneval fork oracle fails (the driver and the solution cannot fork)', async () => {
    const oracle =
      'def is_prime(n):\n    import os\n    pid = os.fork()\n    if pid == 0:\n        return True\n    _, st = os.waitpid(pid, 0)\n    if st == 0:\n        os._exit(0)\n    return False\n';
    const tests =
      'def check(candidate):\n' +
      [
        [6, false],
        [101, true],
        [11, true],
        [13441, true],
        [61, true],
        [4, false],
      ]
        .map(([n, v]) => `    assert candidate(${n}) == ${v ? 'True' : 'False'}\n`)
        .join('');
    const r = await grade({ language: 'python', format: 'humaneval', entry_point: 'is_prime', tests }, oracle);
    expect(r.valid, JSON.stringify(r)).toBe(true);
    expect(r.score, r.reason).toBe(0);
  });

  const stdio = { language: 'python', format: 'stdio', tests: [{ input: '2 3', output: '5' }] };
  const forking = 'import os\na, b = map(int, input().split())\nif os.fork() == 0:\n    print(a + b, flush=True)\n    os._exit(0)\nos.wait()\n';
  const subproc =
    "import subprocess\na, b = input().split()\nprint(subprocess.run(['expr', a, '+', b], capture_output=True, text=True, check=True).stdout.strip())\n";

  it('a stdio program that forks fails by default', async () => {
    for (const src of [forking, subproc]) {
      const r = await grade(stdio, src);
      expect(r.valid, JSON.stringify(r)).toBe(true);
      expect(r.score, r.reason).toBe(0);
      expect(r.metadata.failure, r.reason).toBe('runtime_error');
      expect(r.reason).toMatch(/Operation not permitted|PermissionError/);
    }
  });

  it('allow_processes: true lets a task that needs processes run them (fork, subprocess)', async () => {
    for (const src of [forking, subproc]) {
      const r = await grade({ ...stdio, allow_processes: true }, src);
      expect(r.score, r.reason).toBe(1);
    }
  });
});

describe('bash', () => {
  const cfg = { language: 'bash', format: 'stdio', tests: [{ input: 'b\na\n', output: 'a\nb' }] };
  it('runs external commands by default; allow_processes: false takes them away', async () => {
    expect((await grade(cfg, 'sort\n')).score).toBe(1);
    const r = await grade({ ...cfg, allow_processes: false }, 'sort\n');
    expect(r.score).toBe(0);
    expect(r.metadata.failure, r.reason).toBe('runtime_error');
  });
});

describe('python grader', () => {
  const source = "import subprocess\ndef grade(sample, item):\n    return 0.5 if subprocess.run(['true']).returncode == 0 else 0.0\n";
  it('grade() cannot create processes unless allow_processes: true', async () => {
    const g = (extra: Record<string, unknown>) =>
      loadGrader({ type: 'python', source, ...extra }).grade({ item: {}, sample: { output_text: '' } }, { services });
    const off = await g({});
    expect(off.valid).toBe(false);
    expect(off.error?.message ?? off.reason).toMatch(/Operation not permitted|PermissionError/);
    expect((await g({ allow_processes: true })).score).toBe(0.5);
  });
});

describe("Python: the solution's process, warm and cold", () => {
  // warm runs stack the zygote's prepared copy of the spawn filter (zygote.py: _ready_modules),
  // cold runs build it from the spec's bytes: either way S holds the sandbox's filter plus the
  // spawn filter, and its fork is refused
  const probe =
    'def probe():\n    import os\n    n = [l.split()[1] for l in open("/proc/self/status") if l.startswith("Seccomp_filters:")]\n' +
    '    try:\n        pid = os.fork()\n    except OSError as e:\n        return (n[0] if n else "?", e.errno)\n' +
    '    if pid == 0:\n        os._exit(0)\n    os.waitpid(pid, 0)\n    return (n[0] if n else "?", 0)\n';
  const cfg = {
    language: 'python',
    format: 'humaneval',
    entry_point: 'probe',
    tests: 'def check(candidate):\n    assert candidate() == ("2", 1), candidate()\n',
  };
  for (const warm of [true, false]) {
    it(`${warm ? 'warm' : 'cold'}: two seccomp filters, fork fails with EPERM`, async () => {
      const s = new Services();
      const before = process.env.ARBITER_SANDBOX_WARM;
      if (!warm) process.env.ARBITER_SANDBOX_WARM = '0';
      try {
        const pool = sandboxPool({ services: s } as never);
        const r = await loadGrader({ type: 'code', ...cfg }).grade({ item: {}, sample: { output_text: probe } }, { services: s });
        expect(r.valid, JSON.stringify(r)).toBe(true);
        expect(r.score, r.reason).toBe(1);
        if (!warm) expect(pool.stats.warm).toBe(0);
        else if (pool.warmMode.startsWith('on')) expect(pool.stats.warm).toBeGreaterThan(0);
      } finally {
        if (before === undefined) delete process.env.ARBITER_SANDBOX_WARM;
        else process.env.ARBITER_SANDBOX_WARM = before;
        await s.close();
      }
    });
  }
});
