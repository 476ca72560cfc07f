// The JavaScript harness runs the tests and writes the verdicts in a process the solution does not
// run in: hostile solutions (as data, through the real `code` grader and sandbox) that fool
// comparisons from inside the tests' process, patch the tests' prototypes, hunt the nonce or
// forge verdict lines score 0; plain values (thrown errors, -0, BigInt, NaN, nested data) still
// cross exactly, and a timed-out or exited solution process fails only its own test.
import { afterAll, describe, expect, it } from 'vitest';
import { loadGrader, Services } from './helpers.js';

const services = new Services();
afterAll(() => services.close());
const grade = (cfg: Record<string, unknown>, output_text: string, item: Record<string, unknown> = {}) =>
  loadGrader({ type: 'code', ...cfg }).grade({ item, sample: { output_text } }, { services });

// MultiPL-E layout: the prompt opens the function, the tests close it
const passed = (r: { metadata: Record<string, unknown> }) => (r.metadata.tests as string[]).map((t) => t === 'pass');

const he = { format: 'humaneval', language: 'javascript', prompt: '{{item.prompt}}', tests: '{{item.test}}' };
const item = (body: string) => ({
  prompt: 'function f(x) {\n',
  test: `}\nconst assert = require('node:assert');\nfunction test() {\n  let candidate = f;\n${body}\n}\ntest();\n`,
});
const asserts = { format: 'asserts', language: 'javascript', tests: '{{item.tests}}', test_time_ms: 2000 };

// a wrong solution (f(x) is not 2 * x) then writes forged verdict lines for every nonce it could
// find, every way there is to the driver's stdout, and exits 0
const FORGE = `
  const fs = require('fs');
  const found = new Set(['ARB000000000000000000000000']);
  try {
    // the heap holds every string of the process: in a process that has the tests, the nonce too
    const file = require('v8').writeHeapSnapshot('/tmp/h.heapsnapshot');
    for (const m of fs.readFileSync(file, 'latin1').matchAll(/ARB[0-9a-f]{24}/g)) found.add(m[0]);
  } catch {}
  const lines = [...found].map((n) => '\\n' + n + ' 0 pass\\n' + n + ' 1 pass\\n' + n + ' 2 pass\\n' + n + ' done\\n').join('');
  try { process.stdout.write(lines); } catch {}
  try { fs.writeSync(1, lines); } catch {}
  for (const p of ['/proc/self/fd/1', '/proc/' + process.ppid + '/fd/1', '/proc/' + process.ppid + '/fd/2']) {
    try { const fd = fs.openSync(p, 'w'); fs.writeSync(fd, lines); fs.closeSync(fd); } catch {}
  }
  process.reallyExit(0);
`;

describe('JavaScript harness: the solution runs in a process of its own', () => {
  it.each([
    [
      'a toJSON that replaces JSON.stringify while the tests compare',
      '  return { toJSON() { JSON.stringify = () => \'"same"\'; return "same"; } };\n',
      '  console.assert(JSON.stringify(candidate(2)) === JSON.stringify([4]));\n  console.assert(JSON.stringify(candidate(3)) === JSON.stringify([6]));',
    ],
    [
      'a Proxy whose get trap does the same',
      '  return new Proxy({}, { get(t, k) { if (k === "toJSON") { JSON.stringify = () => \'"same"\'; return () => "same"; } } });\n',
      '  console.assert(JSON.stringify(candidate(2)) === JSON.stringify([4]));',
    ],
    [
      'a valueOf that replaces Number.isNaN for the next check',
      '  return { valueOf() { Number.isNaN = () => false; return NaN; } };\n',
      '  assert.ok(candidate(2) == 4 || !Number.isNaN(+candidate(2)));',
    ],
    [
      'a Symbol.toPrimitive that replaces Math.abs (a tolerance check)',
      '  return { [Symbol.toPrimitive]() { Math.abs = () => 0; return 0; } };\n',
      '  const d = candidate(2) - 4;\n  assert.ok(Math.abs(d) < 1e-9);',
    ],
  ])('%s scores 0', async (_name, completion, body) => {
    const r = await grade(he, completion, item(body));
    expect(r.valid, JSON.stringify(r.error)).toBe(true);
    expect(r.score, r.reason).toBe(0);
  });

  it("patching prototypes and builtins during one test does not pass the tests' later checks", async () => {
    const src =
      'function f(a) { Array.prototype.sort = function () { return [1, 2, 3]; }; Object.is = () => true; JSON.stringify = () => "[1,2,3]"; return [0]; }\n';
    const tests = [
      'assert.ok(Array.isArray(f([3, 1, 2])))',
      'assert.deepStrictEqual(f([3, 1, 2]).sort(), [1, 2, 3])',
      'assert.ok(Object.is(f([2]).length, 3))',
      'assert.strictEqual(JSON.stringify(f([3, 1, 2])), "[1,2,3]")',
    ];
    const r = await grade(asserts, src, { tests });
    expect(passed(r), r.reason).toEqual([true, false, false, false]);
  });

  it('nonce hunting and forged verdict lines (stdout, fd 1, /proc/self/fd/1, /proc/<ppid>/fd/1, then exit 0) score 0', async () => {
    const load = await grade(he, '  return 0;\n}\n' + FORGE + '\n{\n', item('  assert.strictEqual(candidate(2), 4);'));
    expect(load.valid, JSON.stringify(load.error)).toBe(true);
    expect(load.score, load.reason).toBe(0);
    const call = await grade(he, FORGE, item('  assert.strictEqual(candidate(2), 4);'));
    expect(call.valid, JSON.stringify(call.error)).toBe(true);
    expect(call.score, call.reason).toBe(0);
    const a = await grade(asserts, `function f(x) {${FORGE}}\n`, { tests: ['assert.strictEqual(f(2), 4)', 'assert.strictEqual(f(3), 6)', 'assert.ok(true)'] });
    expect(a.metadata.tests, a.reason).toEqual(['runtime_error', 'runtime_error', 'pass']);
  });

  it('the solution cannot create processes (a fork oracle): execSync, spawnSync and fork fail', async () => {
    const src = `const cp = require('child_process');
function viaExec(x) { return Number(String(cp.execSync('echo ' + 2 * x))); }
function viaSpawn(x) { const r = cp.spawnSync('/bin/sh', ['-c', 'echo ' + 2 * x]); if (r.error) throw r.error; return Number(String(r.stdout)); }
function viaFork(x) { cp.fork('-e', []); return 2 * x; }
function plain(x) { return 2 * x; }\n`;
    const tests = [
      'assert.strictEqual(viaExec(2), 4)',
      'assert.strictEqual(viaSpawn(2), 4)',
      'assert.strictEqual(viaFork(2), 4)',
      'assert.strictEqual(plain(2), 4)',
    ];
    const r = await grade(asserts, src, { tests });
    expect(r.valid, JSON.stringify(r.error)).toBe(true);
    expect(passed(r), r.reason).toEqual([false, false, false, true]);
    expect(r.reason).toMatch(/EPERM|EAGAIN|spawn/);
  });

  // The solution's process runs under the harness's uid, so without its Landlock domain
  // (sandbox-exec --apart) it could read and write the harness's memory through /proc/<ppid>/mem
  // (no yama here) and find the nonce; the domain makes the open fail.
  it("reading the harness's memory through /proc/<ppid>/mem finds no nonce", async () => {
    const src = `function f() {
      const fs = require('fs');
      const pp = process.ppid;
      let fd;
      try { fd = fs.openSync('/proc/' + pp + '/mem', 'r'); } catch (e) { return e.code === 'EACCES' ? 'none' : 'open failed: ' + e.code; }
      for (const line of fs.readFileSync('/proc/' + pp + '/maps', 'utf8').split('\\n')) {
        const m = /^([0-9a-f]+)-([0-9a-f]+) r/.exec(line);
        if (!m) continue;
        const a = parseInt(m[1], 16), n = parseInt(m[2], 16) - a;
        if (n > 64 * 1024 * 1024) continue;
        const b = Buffer.alloc(n);
        try { fs.readSync(fd, b, 0, n, a); } catch { continue; }
        if (/ARB[0-9a-f]{24}/.test(b.toString('latin1'))) return 'found';
      }
      return 'none';
    }\n`;
    const r = await grade(asserts, src, { tests: ['assert.strictEqual(f(), "none")'] });
    expect(r.score, r.reason).toBe(1);
  });

  it('the solution sees no nonce, tests or driver input: not in its argv, env, stdin, heap or files', async () => {
    const src = `function f() {
      const fs = require('fs');
      const seen = [process.argv.join(' '), JSON.stringify(process.env), String(fs.readFileSync(0))];
      for (const d of ['.', '/tmp']) for (const n of fs.readdirSync(d)) { try { seen.push(fs.readFileSync(d + '/' + n, 'latin1')); } catch {} }
      seen.push(fs.readFileSync(require('v8').writeHeapSnapshot('/tmp/s.heapsnapshot'), 'latin1'));
      const secret = new RegExp('SECRET_' + 'EXPECTED_42');
      return seen.some((s) => /ARB[0-9a-f]{24}/.test(s) || secret.test(s)) ? 'leak' : 'none';
    }\n`;
    const r = await grade(asserts, src, { tests: ['assert.strictEqual(f(), "none"); const SECRET_EXPECTED_42 = 1;'] });
    expect(r.score, r.reason).toBe(1);
  });

  it('an error, a timeout or an exit in the solution cannot be caught by the tests into a pass', async () => {
    const src =
      'function spin() { for (;;) {} }\nfunction bye() { process.exit(0); }\nfunction deep() { let a = []; for (let i = 0; i < 1000; i++) a = [a]; return a; }\nfunction ok() { return 1; }\n';
    const tests = ['assert.throws(() => spin())', 'try { bye(); } catch {}', 'assert.throws(() => deep())', 'assert.strictEqual(ok(), 1)'];
    const r = await grade({ ...asserts, test_time_ms: 1000 }, src, { tests });
    // the later tests run in a restarted process
    expect(r.metadata.tests, r.reason).toEqual(['timeout', 'runtime_error', 'runtime_error', 'pass']);
  });
});

describe('JavaScript harness: plain values cross exactly', () => {
  it('errors thrown in the solution are thrown in the tests with their class and message', async () => {
    const src = 'function f(x) { if (x < 0) throw new RangeError("negative: " + x); if (x === 0) throw "zero"; return x; }\n';
    const tests = [
      'assert.throws(() => f(-1), RangeError)',
      'assert.throws(() => f(-1), /negative: -1/)',
      'f(-2)',
      'assert.throws(() => f(-1), TypeError)',
      'assert.throws(() => f(0), (e) => e === "zero")',
    ];
    const r = await grade(asserts, src, { tests });
    expect(passed(r), r.reason).toEqual([true, true, false, false, true]);
    // an uncaught one is the test's failure, described by the solution's own stack
    expect(r.reason).toMatch(/test 3 of 5 failed: runtime error: RangeError: negative: -2 \| +at f \(solution\.js:1:/);
  });

  it('-0, NaN, Infinity, undefined, BigInt, nested data, Map, Set and Date keep their types', async () => {
    const src = `function negZero() { return -0; }
function zero() { return 0; }
function specials() { return [NaN, Infinity, -Infinity, undefined, null, true]; }
function fact(n) { let r = 1n; for (let i = 2n; i <= n; i++) r *= i; return r; }
function nested() { return { a: [1, [2, [3, { b: 'x' }]]], c: { d: null }, e: '\\u{1F600}\\ud800' }; }
function bare() { return Object.create(null); }
function collections() { return [new Map([[1, new Set(['a'])]]), new Date(86400000)]; }
function echo(v) { return v; }
function fn() { return () => 1; }
class P { constructor() { this.x = 1; } }
function inst() { return new P(); }\n`;
    const tests = [
      'assert.ok(Object.is(negZero(), -0))',
      'assert.ok(Object.is(zero(), -0))',
      'assert.deepStrictEqual(specials(), [NaN, Infinity, -Infinity, undefined, null, true])',
      'assert.strictEqual(fact(25n), 15511210043330985984000000n)',
      "assert.deepStrictEqual(nested(), { a: [1, [2, [3, { b: 'x' }]]], c: { d: null }, e: '\\u{1F600}\\ud800' })",
      'assert.deepStrictEqual(bare(), {})',
      "assert.deepStrictEqual(collections(), [new Map([[1, new Set(['a'])]]), new Date(86400000)])",
      "assert.deepStrictEqual(echo({ k: [1n, -0, 'y'] }), { k: [1n, -0, 'y'] })",
      'assert.notDeepStrictEqual(fn(), fn())',
      'assert.deepEqual(inst(), { x: 1 })',
    ];
    const r = await grade(asserts, src, { tests });
    expect(passed(r), r.reason).toEqual([true, false, true, true, true, false, true, true, true, false]);
  });

  it('function format: returned values as before; a value that is not plain data has no JSON form', async () => {
    const cfg = { format: 'function', language: 'javascript', entry_point: 'f', tests: '{{item.tests}}' };
    const src = 'function f(x) { if (x === 1) return [x, { y: -0 }, NaN]; if (x === 2) return { toJSON() { return 5; } }; return () => 5; }\n';
    const tests = [
      { input: [1], output: [1, { y: 0 }, null] },
      { input: [2], output: 5 },
      { input: [3], output: 5 },
    ];
    const r = await grade(cfg, src, { tests });
    expect(r.metadata.tests, r.reason).toEqual(['pass', 'wrong_output', 'runtime_error']);
  });

  it('right solutions pass: humaneval (MultiPL-E and HumanEval-X layouts), asserts with setup, TypeScript', async () => {
    expect((await grade(he, '  return 2 * x;\n', item('  assert.deepEqual(candidate(2), 4);\n  assert.deepEqual(candidate(-1), -2);'))).score).toBe(1);
    const x = { prompt: 'const f = (x) => {\n', test: 'const testF = () => {\n  console.assert(f(2) === 4)\n}\ntestF()\n' };
    expect((await grade(he, '  return 2 * x;\n};\n', x)).score).toBe(1);
    const r = await grade({ ...asserts, setup: 'const two = g(1);' }, 'function g(x) { return 2 * x; }\nconst K = { n: 3 };\n', {
      tests: ['assert.strictEqual(g(two), 4)', 'assert.strictEqual(K.n, 3)'],
    });
    expect(r.score, r.reason).toBe(1);
    const ts = await grade({ ...he, language: 'typescript' }, '  return 2 * x;\n', {
      prompt: 'function f(x: number): number {\n',
      test: "}\ndeclare var require: any;\nconst assert = require('node:assert');\nassert.strictEqual(f(21), 42);\n",
    });
    expect(ts.score, ts.reason).toBe(1);
  });
});
