// The `code` grader's formats, languages, extraction, reasons and error kinds on small programs.
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../dist/core/errors.js';
import { extractCode } from '../../dist/graders/code/extract.js';
import { outputsMatch, valuesEqual } from '../../dist/graders/code/compare.js';
import { loadGrader, Services } from './helpers.js';

const services = new Services();
afterAll(() => services.close());
const run = (cfg: Record<string, unknown>, output_text: string, item: Record<string, unknown> = {}) =>
  loadGrader({ type: 'code', ...cfg }).grade({ item, sample: { output_text } }, { services });

describe('extraction', () => {
  it('takes the last block in the language, else an untagged one, else the whole text', () => {
    const t = 'intro\n```python\nx = 1\n```\nmore\n```js\ny\n```\n```python\nx = 2\n```\nend';
    expect(extractCode(t, 'python')).toEqual({ code: 'x = 2', from: 'fence', tag: 'python' });
    expect(extractCode(t, 'javascript').code).toBe('y');
    expect(extractCode('a\n```\nplain\n```\n', 'cpp').code).toBe('plain');
    expect(extractCode('print(1)', 'python')).toEqual({ code: 'print(1)', from: 'whole' });
    expect(extractCode('x\n```py\nprint(3)\n', 'python').code).toBe('print(3)');
  });
});

describe('comparison', () => {
  it('normalises whitespace, can be exact, and tolerates float error', () => {
    expect(outputsMatch('1  2\n3\n\n', '1 2 3', 'whitespace', 0)).toBe(true);
    expect(outputsMatch('1 2', '1 2\n', 'exact', 0)).toBe(false);
    expect(outputsMatch('0.3333333', '0.33333334', 'float', 1e-6)).toBe(true);
    expect(outputsMatch('0.33', '0.34', 'float', 1e-6)).toBe(false);
    expect(valuesEqual([1, { a: [2.0000001] }], [1, { a: [2] }], 1e-6)).toBe(true);
    expect(valuesEqual([1, 2], [2, 1])).toBe(false);
  });
});

describe('asserts format', () => {
  const cfg = { format: 'asserts', tests: '{{item.tests}}' };
  const tests = ['assert add(1, 2) == 3', 'assert add(-1, 1) == 0', 'assert add(2, 2) == 5'];

  it('gives partial credit per assert and names the first failing one', async () => {
    const r = await run(cfg, '```python\ndef add(a, b):\n    return a + b\n```', { tests });
    expect(r.score).toBeCloseTo(2 / 3);
    expect(r.reason).toMatch(/2\/3 passed; test 3 of 3 failed: assertion failed/);
    expect(r.reason).toContain('add(2, 2) == 5');
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'assertion']);
  });

  it('times out one assert without losing the others', async () => {
    const r = await run({ ...cfg, test_time_ms: 300 }, 'def add(a, b):\n    while a == 7: pass\n    return a + b', {
      tests: ['assert add(1, 2) == 3', 'assert add(7, 0) == 7', 'assert add(0, 0) == 0'],
    });
    expect(r.metadata.tests).toEqual(['pass', 'timeout', 'pass']);
    expect(r.reason).toMatch(/test 2 of 3 failed: timeout/);
  });

  it('reports a solution that fails to load for every assert', async () => {
    const r = await run(cfg, 'def add(a, b)\n    return a + b', { tests });
    expect(r.score).toBe(0);
    expect(r.metadata.failure).toBe('load_error');
    expect(r.reason).toMatch(/SyntaxError/);
  });

  it('does not count a solution that exits early as passing', async () => {
    const r = await run(cfg, 'import sys\ndef add(a, b):\n    return a + b\nsys.exit(0)', { tests });
    expect(r.score).toBe(0);
    const r2 = await run(cfg, 'import os\ndef add(a, b):\n    os._exit(0)', { tests });
    expect(r2.score).toBe(0);
    expect(r2.metadata.failure).toBe('early_exit');
  });

  it('ignores forged verdict lines printed by the solution', async () => {
    const forged = 'import sys\nfor i in range(3):\n    print("ARB0000 %d pass" % i)\ndef add(a, b):\n    return 99';
    const r = await run(cfg, forged, { tests });
    expect(r.score).toBe(0);
  });

  it('runs javascript asserts, each with node:assert as `assert` and its own require', async () => {
    const r = await run({ ...cfg, language: 'javascript' }, '```js\nfunction add(a, b) { return a + b; }\n```', {
      tests: ['assert.strictEqual(add(1, 2), 3)', "const assert2 = require('assert'); assert2.strictEqual(add(2, 2), 5)", 'undefinedName(1)'],
    });
    expect(r.metadata.tests).toEqual(['pass', 'assertion', 'runtime_error']);
  });
});

describe('stdio format', () => {
  const tests = [
    { input: '1 2\n', output: '3\n' },
    { input: '10 -4\n', output: '6' },
    { input: '5 5\n', output: '10' },
  ];
  it('runs python per case with whitespace-normalised comparison', async () => {
    const r = await run({ format: 'stdio', tests: '{{item.tests}}' }, 'a, b = map(int, input().split())\nprint(a + b, "  ")', { tests });
    expect(r.score).toBe(1);
    expect(r.metadata.runs).toBe(3);
  });

  it('reports the first wrong output with both texts', async () => {
    const r = await run({ format: 'stdio', tests: '{{item.tests}}' }, 'a, b = map(int, input().split())\nprint(a * b if a == 5 else a + b)', { tests });
    expect(r.score).toBeCloseTo(2 / 3);
    expect(r.reason).toMatch(/test 3 of 3 failed: wrong output: expected "10", got "25\\n"/);
  });

  it('compiles C++ once and runs each case', async () => {
    const src = '```cpp\n#include <iostream>\nint main() { long a, b; std::cin >> a >> b; std::cout << a + b << "\\n"; }\n```';
    const r = await run({ format: 'stdio', language: 'cpp', tests: '{{item.tests}}' }, src, { tests });
    expect(r.score).toBe(1);
    expect(r.metadata.runs).toBe(4);
  });

  it('reports C++ compile errors', async () => {
    const r = await run({ format: 'stdio', language: 'cpp', tests: '{{item.tests}}' }, 'int main() { return undefined_name; }', { tests });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.metadata.failure).toBe('compile_error');
    expect(r.reason).toMatch(/compile error: .*undefined_name/s);
  });

  it('runs javascript and shows the last lines of stderr on a runtime error', async () => {
    const r = await run(
      { format: 'stdio', language: 'javascript', tests: '{{item.tests}}' },
      "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\nif (a === 5) throw new Error('boom five');\nconsole.log(a + b);",
      { tests },
    );
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'runtime_error']);
    expect(r.reason).toMatch(/runtime error: exit status 1: .*Error: boom five/s);
    expect(r.reason).not.toMatch(/Node\.js v|\n\s+at /);
  });

  it('compares floats with a tolerance when asked', async () => {
    const t = [{ input: '1 3', output: '0.333333' }];
    const prog = 'a, b = map(int, input().split())\nprint(a / b)';
    expect((await run({ format: 'stdio', tests: t }, prog)).score).toBe(0);
    expect((await run({ format: 'stdio', tests: t, compare: 'float', float_tolerance: 1e-5 }, prog)).score).toBe(1);
    expect((await run({ format: 'stdio', tests: [{ input: '', output: 'x' }], compare: 'exact' }, 'print("x")')).score).toBe(0);
  });

  it('fails a program that runs out of time, or makes it invalid with on_timeout: invalid', async () => {
    const t = [{ input: '', output: '1' }];
    const r = await run({ format: 'stdio', tests: t, limits: { time_ms: 500 } }, 'while True: pass');
    expect(r.valid).toBe(true);
    expect(r.reason).toMatch(/timeout/);
    const r2 = await run({ format: 'stdio', tests: t, limits: { time_ms: 500 }, on_timeout: 'invalid' }, 'while True: pass');
    expect(r2.valid).toBe(false);
    expect(r2.error?.kind).toBe('timeout');
  });
});

describe('function format', () => {
  it('calls the entry point with JSON arguments (python)', async () => {
    const tests = [
      { input: [[3, 1, 2]], output: [1, 2, 3] },
      { args: [[1, 1]], kwargs: { reverse: true }, expected: [1, 1] },
      { input: [[2, 1]], output: [2, 1] },
    ];
    const r = await run({ format: 'function', entry_point: 'srt', tests }, 'def srt(xs, reverse=False):\n    return tuple(sorted(xs, reverse=reverse))');
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'wrong_output']);
    expect(r.reason).toMatch(/expected "\[2,1\]", got "\[1,2\]"/);
  });

  it('calls the entry point (javascript) and reports a missing function', async () => {
    const tests = [
      { input: [2, 3], output: 6 },
      { input: [0, 1], output: 0 },
    ];
    expect((await run({ format: 'function', language: 'javascript', entry_point: 'mul', tests }, 'const mul = (a, b) => a * b;')).score).toBe(1);
    const r = await run({ format: 'function', entry_point: 'mul', tests }, 'def times(a, b):\n    return a * b');
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/no function named 'mul'/);
  });
});

describe('humaneval format in other languages', () => {
  it('runs a javascript program with its own tests', async () => {
    const item = { prompt: 'const inc = (x) => {\n', test: "const assert = require('node:assert');\nassert.deepEqual(inc(1), 2);\n" };
    const cfg = { format: 'humaneval', language: 'javascript', prompt: '{{item.prompt}}', tests: '{{item.test}}' };
    expect((await run(cfg, '  return x + 1;\n};', item)).score).toBe(1);
    const bad = await run(cfg, '  return x;\n};', item);
    expect(bad.score).toBe(0);
    expect(bad.metadata.failure).toBe('assertion');
  });

  it('fails a HumanEval-X javascript item whose console.assert checks fail', async () => {
    const item = {
      prompt: 'const inc = (x) => {\n',
      test: 'const testInc = () => {\n  console.assert(inc(1) === 2)\n  console.assert(inc(5) === 6)\n}\n\ntestInc()\n',
    };
    const cfg = { format: 'humaneval', language: 'javascript', prompt: '{{item.prompt}}', tests: '{{item.test}}' };
    expect((await run(cfg, '  return x + 1;\n};', item)).score).toBe(1);
    const bad = await run(cfg, '  return x === 1 ? 2 : 0;\n};', item);
    expect(bad.valid).toBe(true);
    expect(bad.score).toBe(0);
    expect(bad.metadata.failure).toBe('assertion');
  });

  it('runs a C++ program whose tests are a main()', async () => {
    const item = { prompt: 'int sq(int x) {\n', test: '#include <cassert>\nint main() { assert(sq(3) == 9); }\n' };
    const cfg = { format: 'humaneval', language: 'cpp', prompt: '{{item.prompt}}', tests: '{{item.test}}' };
    expect((await run(cfg, '  return x * x;\n}', item)).score).toBe(1);
    const bad = await run(cfg, '  return x + x;\n}', item);
    expect(bad.score).toBe(0);
    expect(bad.reason).toMatch(/sq\(3\) == 9/);
  });
});

describe('errors and limits', () => {
  it('rejects unsupported combinations and missing fields at load time', () => {
    expect(() => loadGrader({ type: 'code', language: 'cpp', format: 'asserts', tests: [] })).toThrow(ConfigError);
    expect(() => loadGrader({ type: 'code', format: 'function', tests: [] })).toThrow(/entry_point/);
    expect(() => loadGrader({ type: 'code', format: 'stdio' })).toThrow(/tests/);
  });

  it('reports malformed tests as bad_input; an oversized program is a valid 0 naming the limit (the response is at fault)', async () => {
    const r = await run({ format: 'stdio', tests: '{{item.t}}' }, 'print(1)', { t: 5 });
    expect(r.error?.kind).toBe('bad_input');
    const r2 = await run({ format: 'stdio', tests: [{ input: '', output: '' }], max_code_bytes: 100 }, 'x = 1\n'.repeat(100));
    expect(r2).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    expect(r2.reason).toMatch(/over max_bytes 100/);
    const r3 = await run({ format: 'stdio', tests: '{{item.missing}}' }, 'print(1)');
    expect(r3.error?.kind).toBe('template_error');
  });

  it('scores an empty answer 0 with a reason', async () => {
    const r = await run({ format: 'stdio', tests: [{ input: '', output: '1' }] }, '```python\n```');
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.metadata.failure).toBe('no_code');
  });

  it('reports a grader deadline (timeout_ms) as a timeout error, not a failing test', async () => {
    const r = await run({ format: 'stdio', tests: [{ input: '', output: '1' }], timeout_ms: 300 }, 'import time\ntime.sleep(5)\nprint(1)');
    expect(r.valid).toBe(false);
    expect(r.error?.kind).toBe('timeout');
  });
});
