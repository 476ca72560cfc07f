// The code graders' driver programs as files: shipped in dist/ byte for byte, loaded from there,
// and run directly (python3 / node, no sandbox) through their real protocol: the nonce line and
// the spec on stdin, `<nonce> <verdict...>` lines and a final `<nonce> done` on stdout.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CPP_ASSERT_H } from '../../dist/graders/code/cpp-tests.js';
import { driverInput, JS_DRIVER, makeNonce, parseVerdicts, PYTHON_DRIVER } from '../../dist/graders/code/harness.js';
import { PROJECT } from './helpers.js';

const SRC = join(PROJECT, 'src/graders/code/drivers');
const DIST = join(PROJECT, 'dist/graders/code/drivers');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('shipped drivers', () => {
  it('every driver file in src is in dist, byte-identical, and dist has no other', () => {
    const names = readdirSync(SRC).sort();
    expect(names).toEqual(['cpp_assert.h', 'driver.cjs', 'driver.py', 'host.cjs']);
    expect(readdirSync(DIST).sort()).toEqual(names);
    for (const n of names) expect(readFileSync(join(DIST, n)).equals(readFileSync(join(SRC, n))), n).toBe(true);
  });

  it('the built modules deliver the files as they are', () => {
    expect(PYTHON_DRIVER).toBe(readFileSync(join(DIST, 'driver.py'), 'utf8'));
    expect(JS_DRIVER).toBe(readFileSync(join(DIST, 'driver.cjs'), 'utf8'));
    expect(CPP_ASSERT_H).toBe(readFileSync(join(DIST, 'cpp_assert.h'), 'utf8'));
  });

  it('package.json ships dist (and so the drivers)', () => {
    const pkg = JSON.parse(readFileSync(join(PROJECT, 'package.json'), 'utf8')) as { files: string[]; scripts: Record<string, string> };
    expect(pkg.files).toContain('dist');
    expect(pkg.files.some((f) => f.startsWith('!') && 'dist/graders/code/drivers'.startsWith(f.slice(1)))).toBe(false);
    expect(pkg.scripts.build).toContain('copy-assets');
  });
});

interface DriverRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** The verdict lines (nonce stripped), in order. */
  lines: string[];
  nonce: string;
  /** The folder the driver ran in (its cwd). */
  dir: string;
}

/** Runs a driver as the sandbox does (main.py / main.js beside solution.*), with the spec on stdin. */
function drive(language: 'python' | 'javascript', solution: string, spec: Record<string, unknown>): DriverRun {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-driver-'));
  dirs.push(dir);
  const ext = language === 'python' ? 'py' : 'js';
  writeFileSync(join(dir, `main.${ext}`), language === 'python' ? PYTHON_DRIVER : JS_DRIVER);
  writeFileSync(join(dir, `solution.${ext}`), solution);
  // main.js is a CommonJS script, as in the sandbox (no package.json there)
  if (language === 'javascript') writeFileSync(join(dir, 'package.json'), '{"type": "commonjs"}');
  // the JavaScript driver runs the solution in a process of its own, host.js (shipped beside it)
  if (language === 'javascript') writeFileSync(join(dir, 'host.js'), readFileSync(join(DIST, 'host.cjs')));
  const nonce = makeNonce();
  const argv = language === 'python' ? ['python3', ['-I', '-S', '-B', 'main.py']] : [process.execPath, ['main.js']];
  const r = spawnSync(argv[0] as string, argv[1] as string[], {
    cwd: dir,
    input: driverInput(nonce, { ...spec, solution: `solution.${ext}` }),
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
  });
  const prefix = nonce + ' ';
  const lines = r.stdout
    .split('\n')
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length));
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, lines, nonce, dir };
}

/** Checks the output framing: each verdict line stands alone (a newline before and after it). */
function expectFramed(r: DriverRun) {
  for (const l of r.lines) expect(r.stdout).toContain('\n' + r.nonce + ' ' + l + '\n');
}

describe('python driver, run directly', () => {
  const add = 'def add(a, b):\n    print("ARB000 0 pass")\n    return a + b\n';

  it('asserts: one status per test, a failing one with its message, then done', () => {
    const r = drive('python', add, { mode: 'asserts', tests: ['assert add(1, 2) == 3', 'assert add(2, 2) == 5', 'assert nope(1)'], per_test_s: 5 });
    expect(r.status).toBe(0);
    expect(r.lines).toEqual(['0 pass', '1 fail "AssertionError (test_1 line 1)"', '2 fail "NameError: name \'nope\' is not defined (test_2 line 1)"', 'done']);
    expectFramed(r);
    // the solution's output does not reach the verdict channel (its process writes to /dev/null)
    expect(r.stdout).not.toContain('ARB000');
    const v = parseVerdicts(r.stdout, r.nonce);
    expect(v.done).toBe(true);
    expect([...v.tests.values()].map((t) => t.verdict)).toEqual(['pass', 'fail', 'fail']);
  });

  it('the nonce is in no argument, variable, file or unread stdin the solution can see', () => {
    // (the solution's stdout is /dev/null: what it sees goes to a file beside it)
    const probe =
      'import os, sys\nseen = repr(sys.argv) + repr(dict(os.environ)) + sys.stdin.read() + "".join(open(f).read() for f in os.listdir(".") if os.path.isfile(f))\nopen("seen.txt", "w").write(seen)\n';
    const r = drive('python', probe, { mode: 'asserts', tests: [] });
    expect(r.lines).toEqual(['done']);
    const seen = readFileSync(join(r.dir, 'seen.txt'), 'utf8');
    expect(seen).toContain('def _arbiter_driver'); // it did read the files beside it
    expect(seen).not.toContain(r.nonce);
  });

  it('an exit during the tests leaves no done line (early exit)', () => {
    // the solution's process ends; the harness says so (an early exit) and writes no done line
    const r = drive('python', 'import os\ndef add(a, b):\n    os._exit(0)\n', {
      mode: 'asserts',
      tests: ['assert True', 'assert add(1, 2) == 3', 'assert True'],
    });
    expect(r.status).toBe(1);
    expect(r.lines).toEqual(['0 pass', `exit "the solution's process ended during the tests (an exit or a crash in the solution)"`]);
    expect(parseVerdicts(r.stdout, r.nonce).done).toBe(false);
  });

  it('SystemExit while loading is reported as exit, not as passed tests', () => {
    const r = drive('python', 'import sys\nsys.exit(0)\n', { mode: 'asserts', tests: ['assert True'] });
    expect(r.status).toBe(1);
    expect(r.lines).toEqual(['exit "SystemExit(0) while loading the solution"']);
  });

  it('humaneval, function and grade modes', () => {
    const he = drive('python', 'def f(x):\n    return x * 2\n', { mode: 'humaneval', entry_point: 'f', tests: 'def check(c):\n    assert c(2) == 4\n' });
    expect(he.lines).toEqual(['0 pass', 'done']);
    const heFail = drive('python', 'def f(x):\n    return x\n', { mode: 'humaneval', entry_point: 'f', tests: 'def check(c):\n    assert c(2) == 4\n' });
    expect(heFail.status).toBe(1);
    expect(heFail.lines).toEqual(['0 fail "AssertionError (tests.py line 2)"']);
    const fn = drive('python', 'def f(x, y=0):\n    return {"s": {x, y}}\n', {
      mode: 'function',
      entry_point: 'f',
      cases: [{ args: [3], kwargs: { y: 1 } }, { args: [] }],
    });
    expect(fn.lines).toEqual(['0 ret {"s": [1, 3]}', expect.stringMatching(/^1 fail "TypeError: .*missing 1 required positional argument/), 'done']);
    const grade = drive('python', 'def grade(sample, item):\n    return len(sample["output_text"]) / item["n"]\n', {
      mode: 'grade',
      sample: { output_text: 'abc' },
      item: { n: 4 },
    });
    expect(grade.lines).toEqual(['score 0.75', 'done']);
    const bad = drive('python', 'def grade(sample, item):\n    return "1"\n', { mode: 'grade', sample: {}, item: {} });
    expect(bad.lines).toEqual(['error "grade() returned \'1\' (str), not a number"']);
  });
});

describe('javascript driver, run directly', () => {
  const add = 'function add(a, b) { console.log("ARB000 0 pass"); return a + b; }\n';

  it('asserts: one status per test, a failing one with its message, then done', () => {
    const r = drive('javascript', add, {
      mode: 'asserts',
      tests: ['assert.strictEqual(add(1, 2), 3)', 'assert.strictEqual(add(2, 2), 5)', 'nope(1)'],
      per_test_s: 5,
    });
    expect(r.status).toBe(0);
    expect(r.lines).toHaveLength(4);
    expect(r.lines[0]).toBe('0 pass');
    expect(r.lines[1]).toMatch(/^1 fail ".*AssertionError/);
    // the detail is a JSON string naming the place (node puts the source line first in the stack)
    expect(r.lines[2]).toMatch(/^2 fail ".*test_2\.js.*"$/);
    expect(r.lines[3]).toBe('done');
    expectFramed(r);
    // the solution runs in a process of its own whose output goes nowhere: its print is not on stdout
    expect(r.stdout).not.toContain('ARB000');
    expect([...parseVerdicts(r.stdout, r.nonce).tests.values()].map((t) => t.verdict)).toEqual(['pass', 'fail', 'fail']);
  });

  it("an exit during a call fails that test only: the exit ends the solution's process, not the tests'", () => {
    const r = drive('javascript', 'function add() { process.exit(0); }\n', { mode: 'asserts', tests: ['assert.strictEqual(add(1, 2), 3)', 'assert.ok(true)'] });
    expect(r.status).toBe(0);
    expect(r.lines).toEqual(['0 fail "the solution\'s process ended during the call (an exit or a crash)"', '1 pass', 'done']);
  });

  it('a solution that fails to load is reported as load', () => {
    const r = drive('javascript', 'function (\n', { mode: 'asserts', tests: ['assert.ok(true)'] });
    expect(r.status).toBe(1);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatch(/^load "/);
  });

  it("a failed console.assert in the tests fails the test (HumanEval-X's JavaScript tests use it)", () => {
    const tests = 'const testF = () => {\n  console.assert(f(2) === 4)\n  console.assert(f(3) === 6)\n}\ntestF()\n';
    const ok = drive('javascript', 'function f(x) { return x * 2; }\n', { mode: 'humaneval', tests });
    expect(ok.lines).toEqual(['0 pass', 'done']);
    const bad = drive('javascript', 'function f(x) { return x === 2 ? 4 : 0; }\n', { mode: 'humaneval', tests });
    expect(bad.status).toBe(1);
    expect(bad.lines).toHaveLength(1);
    expect(bad.lines[0]).toMatch(/^0 fail ".*AssertionError.*console\.assert failed/);
    // a message given to console.assert is the failure's message; the solution replacing the global console changes nothing
    const msg = drive('javascript', 'console.assert = () => {};\nglobalThis.console = { assert() {} };\nfunction f(x) { return 0; }\n', {
      mode: 'asserts',
      tests: ['console.assert(f(1) === 2, "f(1) is %d", f(1))', 'console.log("logs still work")'],
    });
    expect(msg.lines[0]).toMatch(/^0 fail ".*f\(1\) is 0/);
    expect(msg.lines[1]).toBe('1 pass');
    expect(msg.stdout).toContain('logs still work');
  });

  it('humaneval and function modes', () => {
    const he = drive('javascript', 'function f(x) { return x * 2; }\n', { mode: 'humaneval', tests: 'assert.strictEqual(f(2), 4);' });
    expect(he.lines).toEqual(['0 pass', 'done']);
    const heFail = drive('javascript', 'function f(x) { return x; }\n', { mode: 'humaneval', tests: 'assert.strictEqual(f(2), 4);' });
    expect(heFail.status).toBe(1);
    expect(heFail.lines).toHaveLength(1);
    expect(heFail.lines[0]).toMatch(/^0 fail ".*AssertionError/);
    const fn = drive('javascript', 'function f(x) { if (x < 0) throw new RangeError("neg"); return [x, { y: x }]; }\n', {
      mode: 'function',
      entry_point: 'f',
      cases: [{ args: [3] }, { args: [-1] }],
    });
    expect(fn.lines).toHaveLength(3);
    expect(fn.lines[0]).toBe('0 ret [3,{"y":3}]');
    expect(fn.lines[1]).toMatch(/^1 fail ".*RangeError: neg.*solution\.js.*"$/);
    expect(fn.lines[2]).toBe('done');
  });
});
