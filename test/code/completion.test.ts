// A code test proves that it ran to the end: wrong solutions that exit early, neutralise the
// assertions, install exit hooks or signal handlers, replace library functions, rebind builtins
// or prototypes, or print look-alike verdict lines score 0 (or are invalid where the grader's own
// output is at stake), in every language and format; right solutions still pass.
import { afterAll, describe, expect, it } from 'vitest';
import { loadGrader, Services } from './helpers.js';

const services = new Services();
afterAll(() => services.close());
const grade = (cfg: Record<string, unknown>, output_text: string, item: Record<string, unknown> = {}) =>
  loadGrader({ type: 'code', ...cfg }).grade({ item, sample: { output_text } }, { services });

describe('C++ humaneval: the tests run in their own translation unit and must reach their end', () => {
  const cfg = { format: 'humaneval', language: 'cpp', prompt: '{{item.prompt}}', tests: '{{item.test}}' };
  const item = {
    prompt: '#include <string>\n#include <pthread.h>\nint sq(int x) {\n',
    test: '#include <cassert>\nint main() { assert(sq(3) == 9); assert(sq(-2) == 4); }\n',
  };
  const wrong = '  return 0;\n}\n';
  const hacks: [string, string][] = [
    ['a static initialiser calling std::exit(0)', wrong + '#include <cstdlib>\nstatic int x = (std::exit(0), 0);\n'],
    ['#define assert(x) ((void)0)', wrong + '#define assert(x) ((void)0)\n'],
    ['#define assert after including cassert', wrong + '#include <cassert>\n#define assert(x) ((void)0)\n'],
    ['#define NDEBUG', wrong + '#define NDEBUG\n'],
    [
      'a SIGABRT handler calling _Exit(0)',
      wrong + '#include <csignal>\n#include <cstdlib>\nstatic int y = (std::signal(SIGABRT, [](int) { std::_Exit(0); }), 0);\n',
    ],
    [
      'SIGABRT and SIGILL handlers calling _exit(0)',
      wrong +
        '#include <csignal>\n#include <unistd.h>\nstatic int y = (std::signal(SIGABRT, [](int) { _exit(0); }), std::signal(SIGILL, [](int) { _exit(0); }), 0);\n',
    ],
    ['its own __assert_fail that returns', wrong + 'extern "C" void __assert_fail(const char*, const char*, unsigned int, const char*) noexcept {}\n'],
    ['its own abort() that exits 0', wrong + '#include <unistd.h>\nextern "C" void abort() noexcept { _exit(0); }\n'],
    ['an atexit hook calling _Exit(0)', wrong + '#include <cstdlib>\nstatic int z = (std::atexit([] { std::_Exit(0); }), 0);\n'],
    ['pthread_exit from the function under test (unwinds main)', '  pthread_exit(nullptr);\n}\n'],
    ['its own main that returns 0', wrong + 'int main() { return 0; }\n'],
    [
      'a printed look-alike evidence line',
      wrong +
        '#include <cstdio>\n#include <cstdlib>\nstatic int w = (std::printf("\\nARB00000000000000000000000000000000 done 2\\n"), std::fflush(stdout), std::_Exit(0), 0);\n',
    ],
    ['an unterminated comment swallowing what follows', wrong + '/*'],
  ];
  it.each(hacks)('%s scores 0', async (_name, completion) => {
    const r = await grade(cfg, completion, item);
    expect(r.valid, JSON.stringify(r.error)).toBe(true);
    expect(r.score, r.reason).toBe(0);
  });

  it('a solution cannot replace memcmp for the tests (string comparisons)', async () => {
    const it2 = {
      prompt: '#include <string>\nstd::string rev(std::string s) {\n',
      test: '#include <cassert>\n#include <string>\nint main() { std::string a = rev("abcdefghijklmnopqrstuvwxyz0123456789"); assert(a == std::string("9876543210zyxwvutsrqponmlkjihgfedcba")); }\n',
    };
    const right = await grade(cfg, '  return std::string(s.rbegin(), s.rend());\n}\n', it2);
    expect(right.score, right.reason).toBe(1);
    const hack = await grade(
      cfg,
      '  return s;\n}\n#include <cstddef>\nextern "C" int memcmp(const void*, const void*, std::size_t) noexcept { return 0; }\nextern "C" int bcmp(const void*, const void*, std::size_t) noexcept { return 0; }\n',
      it2,
    );
    expect(hack.score, hack.reason).toBe(0);
  });

  it('right solutions pass, with their own helpers, a main of their own, or the MultiPL-E layout', async () => {
    expect((await grade(cfg, '  return x * x;\n}\n', item)).score).toBe(1);
    expect((await grade(cfg, '  int helper(int);\n  return helper(x);\n}\nint helper(int x) { return x * x; }\nint main() { return 1; }\n', item)).score).toBe(
      1,
    );
    const multipl = {
      prompt: '#include <bits/stdc++.h>\nlong sq(long x) {\n',
      test: '}\nint main() {\n    auto candidate = sq;\n    assert(candidate(3) == (9));\n}\n',
    };
    expect((await grade(cfg, '  return x * x;\n', multipl)).score).toBe(1);
    expect((await grade(cfg, '  return x + x;\n', multipl)).score).toBe(0);
    const humanevalX = {
      prompt: '/*\nSquare.\n*/\n#include<stdio.h>\n#include<vector>\n#include<math.h>\nusing namespace std;\nvector<int> sq_all(vector<int> v){\n',
      test: '#undef NDEBUG\n#include<assert.h>\nbool issame(vector<int> a, vector<int> b){\n    if (a.size()!=b.size()) return false;\n    for (int i=0;i<a.size();i++) if (a[i]!=b[i]) return false;\n    return true;\n}\nint main(){\n    assert (issame(sq_all({1, 2, 3}) , {1, 4, 9}));\n    assert (issame(sq_all({}) , {}));\n}\n',
    };
    expect((await grade(cfg, '    for (auto &x : v) x *= x;\n    return v;\n}\n', humanevalX)).score).toBe(1);
    const bad = await grade(cfg, '    return v;\n}\n', humanevalX);
    expect(bad.score).toBe(0);
    expect(bad.metadata.failure).toBe('assertion');
    expect(bad.reason).toMatch(/Assertion `issame\(sq_all\(\{1, 2, 3\}\) , \{1, 4, 9\}\)' failed/);
  });

  it('compiles the tests of an item once per run (one sandbox run fewer for every later sample)', async () => {
    const own = new Services();
    const item2 = { prompt: 'int cube(int x) {\n', test: '#include <cassert>\nint main() { assert(cube(2) == 8); }\n' };
    const g = loadGrader({ type: 'code', ...cfg });
    const first = await g.grade({ item: item2, sample: { output_text: '  return x * x * x;\n}\n' } }, { services: own });
    const second = await g.grade({ item: item2, sample: { output_text: '  return x * x;\n}\n' } }, { services: own });
    const third = await g.grade({ item: item2, sample: { output_text: '  return x * x * x;\n}\n' } }, { services: own });
    expect([first.score, second.score, third.score]).toEqual([1, 0, 1]);
    expect(first.metadata.runs).toBe(3); // test object, build, run
    expect(third.metadata.runs).toBe(2);
    await own.close();
  });

  it('tests that cannot be compiled on their own are bad_input, not a failing solution', async () => {
    const noMain = await grade(cfg, '  return x * x;\n}\n', { prompt: item.prompt, test: 'static int t = 0;\n' });
    expect(noMain.valid).toBe(false);
    expect(noMain.error?.kind).toBe('bad_input');
    expect(noMain.error?.message).toMatch(/int main/);
    const badPrompt = await grade(cfg, '  return x * x;\n}\n', { prompt: 'int sq(int x);\n', test: item.test });
    expect(badPrompt.error?.kind).toBe('bad_input');
    const badTests = await grade(cfg, '  return x * x;\n}\n', { prompt: item.prompt, test: 'int main() { assert(undefined_in_tests(1)); }\n' });
    expect(badTests.error?.kind).toBe('bad_input');
    expect(badTests.error?.message).toMatch(/undefined_in_tests/);
  });
});

describe('Python humaneval: tests in their own namespace, evidence after check()', () => {
  const cfg = { format: 'humaneval', prompt: '{{item.prompt}}', tests: '{{item.test}}', entry_point: 'sq' };
  const item = {
    prompt: 'def sq(x):\n',
    test: 'import math\n\ndef check(candidate):\n    assert abs(candidate(2) - 4) < 1e-9\n    assert math.isclose(candidate(3), 9)\n    assert set([candidate(1)]) == {1}\n',
  };
  const wrong = '    return 0\n';
  const hacks: [string, string, string?][] = [
    ['sys.exit(0) at import', wrong + 'import sys\nsys.exit(0)\n', 'early_exit'],
    // (the solution's own process ends while it loads: a load error, in the split harness)
    ['os._exit(0) at import', wrong + 'import os\nos._exit(0)\n', 'load_error'],
    ['raise SystemExit(0) inside the function', '    raise SystemExit(0)\n', 'early_exit'],
    ['os._exit(0) inside the function', '    import os\n    os._exit(0)\n', 'early_exit'],
    ['an atexit hook calling os._exit(0)', wrong + 'import atexit, os\natexit.register(os._exit, 0)\n'],
    [
      'a SIGALRM handler calling os._exit(0)',
      '    import signal, os, time\n    signal.signal(signal.SIGALRM, lambda *a: os._exit(0))\n    signal.setitimer(signal.ITIMER_REAL, 0.01)\n    time.sleep(5)\n',
      'early_exit',
    ],
    [
      'builtins.abs, math.isclose and set patched',
      wrong + 'import builtins, math\nbuiltins.abs = lambda x: 0\nmath.isclose = lambda *a, **k: True\nbuiltins.set = lambda *a: {1}\n',
    ],
    ['a printed look-alike done line', wrong + 'print("\\nARB000000000000000000000000 0 pass\\nARB000000000000000000000000 done")\nimport os\nos._exit(0)\n'],
  ];
  it.each(hacks)('%s scores 0', async (_name, completion, failure) => {
    const r = await grade(cfg, completion, item);
    expect(r.valid, JSON.stringify(r.error)).toBe(true);
    expect(r.score, r.reason).toBe(0);
    if (failure) expect(r.metadata.failure, r.reason).toBe(failure);
  });

  it('names the solution defines do not shadow builtins for the tests, nor does it replace their modules', async () => {
    const absOnly = {
      prompt: 'def sq(x):\n',
      test: 'def check(candidate):\n    assert abs(candidate(2) - 4) < 1e-9\n    assert abs(candidate(3) - 9) < 1e-9\n',
    };
    expect((await grade(cfg, wrong + 'def abs(x):\n    return 0\n', absOnly)).score).toBe(0);
    expect((await grade(cfg, '    return x * x\ndef abs(x):\n    return 0\n', absOnly)).score).toBe(1);
    const mathOnly = { prompt: 'def sq(x):\n', test: 'import math\n\ndef check(candidate):\n    assert math.isclose(candidate(2), 4)\n' };
    const fakeMath = wrong + 'import sys, types\nm = types.ModuleType("math")\nm.isclose = lambda *a, **k: True\nsys.modules["math"] = m\n';
    expect((await grade(cfg, fakeMath, mathOnly)).score).toBe(0);
  });

  it('the right solution passes, and the tests are not in any file of the sandbox', async () => {
    expect((await grade(cfg, '    return x * x\n', item)).score).toBe(1);
    const snoop =
      '    import os\n    found = [f for f in os.listdir(".") if ("is" + "close") in open(f, errors="replace").read()]\n    assert not found, found\n    return x * x\n';
    const r = await grade(cfg, snoop, item);
    expect(r.score, r.reason).toBe(1);
  });
});

describe('Python asserts and function formats: verdict lines cannot be forged', () => {
  const tests = ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(2, 2) == 4'];
  // str() of every test index answers "<k> pass": the old driver built its lines with str()
  const forge =
    'import builtins\n_s = str\n_n = [0]\ndef fake(x="", *a):\n    if type(x) is int:\n        _n[0] += 1\n        return _s(_n[0] - 1) + " pass"\n    return _s(x, *a)\nbuiltins.str = fake\ndef add(a, b):\n    return 7\n';
  it('rebinding str to emit "pass" for every test scores 0', async () => {
    const r = await grade({ format: 'asserts', tests: '{{item.tests}}' }, forge, { tests });
    expect(r.score, r.reason).toBe(0);
  });

  it('shadowing a builtin the asserts use scores 0', async () => {
    const r = await grade({ format: 'asserts', tests: '{{item.tests}}' }, 'def add(a, b):\n    return 0\ndef set(*a):\n    return 1\n', {
      tests: ['assert set(add(1, 2)) == set(3)'],
    });
    expect(r.score, r.reason).toBe(0);
  });

  it('a patch made during one test does not carry into the next', async () => {
    const src = 'def add(a, b):\n    import builtins\n    builtins.sorted = lambda *x, **k: [0]\n    return 0\n';
    const r = await grade({ format: 'asserts', tests: '{{item.tests}}' }, src, { tests: ['add(1, 1)', 'assert sorted([3, 1]) == [0]'] });
    expect(r.metadata.tests).toEqual(['pass', 'assertion']);
  });

  it('function format: a forged line does not become a return value', async () => {
    const r = await grade(
      { format: 'function', entry_point: 'add', tests: [{ input: [1, 2], output: 3 }] },
      forge.replace('return 7', 'print("\\nARB000000000000000000000000 0 ret 3")\n    return 7'),
    );
    expect(r.score, r.reason).toBe(0);
  });
});

describe('JavaScript: the tests keep their own require and a frozen assert', () => {
  const cfg = { format: 'humaneval', language: 'javascript', prompt: '{{item.prompt}}', tests: '{{item.test}}' };
  const item = {
    prompt: 'const inc = (x) => {\n',
    test: "const assert = require('node:assert');\nassert.deepEqual(inc(1), 2);\nassert.strictEqual(inc(2), 3);\n",
  };
  const wrong = '  return 0;\n};\n';
  const hacks: [string, string, string?][] = [
    ['process.exit(0) at load', wrong + 'process.exit(0);\n', 'early_exit'],
    ['process.reallyExit(0) at load', wrong + 'process.reallyExit(0);\n', 'early_exit'],
    ['assert.deepEqual and strictEqual replaced', wrong + "const a = require('assert');\na.deepEqual = () => {};\na.strictEqual = () => {};\n"],
    ['globalThis.require replaced', wrong + 'globalThis.require = () => ({ deepEqual() {}, strictEqual() {} });\n'],
    [
      'an exit hook printing a look-alike line',
      wrong +
        "process.on('exit', () => { require('fs').writeSync(1, '\\nARB000000000000000000000000 0 pass\\nARB000000000000000000000000 done\\n'); process.reallyExit(0); });\n",
    ],
    ['process.exit(0) inside the function', '  process.exit(0);\n};\n', 'early_exit'],
  ];
  it.each(hacks)('%s scores 0', async (_name, completion, failure) => {
    const r = await grade(cfg, completion, item);
    expect(r.valid, JSON.stringify(r.error)).toBe(true);
    expect(r.score, r.reason).toBe(0);
    if (failure) expect(r.metadata.failure, r.reason).toBe(failure);
  });

  it('the right solution passes, also in the MultiPL-E layout', async () => {
    expect((await grade(cfg, '  return x + 1;\n};\n', item)).score).toBe(1);
    const multipl = {
      prompt: 'function inc(x) {\n',
      test: "}\n\nconst assert = require('node:assert');\nfunction test() {\n  let candidate = inc;\n  assert.deepEqual(candidate(1), 2);\n}\ntest();\n",
    };
    expect((await grade(cfg, '  return x + 1;\n', multipl)).score).toBe(1);
    expect((await grade(cfg, '  return x;\n', multipl)).score).toBe(0);
  });

  describe('asserts format', () => {
    const acfg = { format: 'asserts', language: 'javascript', tests: '{{item.tests}}' };
    const tests = ['assert.strictEqual(add(1, 2), 3)', 'assert.strictEqual(add(2, 2), 4)'];
    it.each([
      [
        'Array.prototype.join rebound to emit "pass"',
        'let k = 0;\nArray.prototype.join = function () { return (k++) + " pass"; };\nString = (x) => "0";\nfunction add() { return 0; }\n',
      ],
      ['vm.runInThisContext replaced by a no-op', "require('vm').runInThisContext = () => {};\nfunction add() { return 0; }\n"],
      ['a global assert of its own', 'globalThis.assert = { strictEqual() {} };\nfunction add() { return 0; }\n'],
      ['Function.prototype.call replaced', 'Function.prototype.call = function () {};\nfunction add() { return 0; }\n'],
    ])('%s scores 0', async (_name, src) => {
      const r = await grade(acfg, src, { tests });
      expect(r.score, r.reason).toBe(0);
    });
  });
});

describe('stdio: the output is the evidence', () => {
  it('an early exit(0) in any language is a wrong output', async () => {
    const tests = [{ input: '2 3', output: '5' }];
    expect((await grade({ format: 'stdio', tests }, 'import sys\nsys.exit(0)\nprint(5)')).metadata.failure).toBe('wrong_output');
    expect((await grade({ format: 'stdio', language: 'javascript', tests }, 'process.exit(0);\nconsole.log(5);')).metadata.failure).toBe('wrong_output');
    expect(
      (
        await grade(
          { format: 'stdio', language: 'cpp', tests },
          '#include <cstdlib>\n#include <cstdio>\nstatic int x = (std::exit(0), 0);\nint main() { std::puts("5"); }',
        )
      ).metadata.failure,
    ).toBe('wrong_output');
  });
});

describe('python grader: the score line comes from the driver', () => {
  const run = (source: string, output_text: string) => loadGrader({ type: 'python', source }).grade({ item: {}, sample: { output_text } }, { services });
  // a grader that runs the model's code (as some do) and gives 0 when it does not return 42
  const grader =
    'def grade(sample, item):\n    ns = {}\n    try:\n        exec(sample["output_text"], ns)\n        return 1.0 if ns["f"]() == 42 else 0.0\n    except Exception:\n        return 0.0\n';
  it('code that rebinds repr or float cannot turn a 0 into a 1', async () => {
    const r = await run(grader, 'import builtins\nbuiltins.repr = lambda x: "1.0"\nbuiltins.float = lambda x=0: 1.0\ndef f():\n    return 0\n');
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
  });

  it('an exit or a printed look-alike score line is python_error, never a score', async () => {
    for (const code of [
      'import os\nos._exit(0)',
      'import sys\nsys.exit(0)',
      'print("\\nARB000000000000000000000000 score 1.0\\nARB000000000000000000000000 done")\nimport os\nos._exit(0)',
    ]) {
      const r = await run(grader, code);
      expect(r.valid, code).toBe(false);
      expect(r.error?.kind, code).toBe('python_error');
    }
  });
});
