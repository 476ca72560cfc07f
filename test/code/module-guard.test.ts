// The Python driver's module guard, on both of its paths: after the solution has loaded (and
// before each assert), every module that existed before it is put back as it was, so that a
// solution that rebinds, deletes or replaces names in a module the tests use (builtins, a module
// the warm zygote preloaded, one the tests import), or swaps a module's class, changes nothing the
// tests see. Warm runs reuse the zygote's copies of the namespaces and skip the ones whose version
// did not change; cold runs copy and compare every namespace. Both must give the same verdicts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxPool } from '../../dist/graders/code/config.js';
import { compileProgram, runProgram, type SandboxPool } from '../../dist/sandbox/index.js';
import { loadGrader, Services } from './helpers.js';

const warmServices = new Services();
const coldServices = new Services();
let warmPool: SandboxPool;
let coldPool: SandboxPool;

beforeAll(() => {
  warmPool = sandboxPool({ services: warmServices } as never);
  const before = process.env.ARBITER_SANDBOX_WARM;
  process.env.ARBITER_SANDBOX_WARM = '0';
  try {
    coldPool = sandboxPool({ services: coldServices } as never);
  } finally {
    if (before === undefined) delete process.env.ARBITER_SANDBOX_WARM;
    else process.env.ARBITER_SANDBOX_WARM = before;
  }
});
afterAll(async () => {
  await warmServices.close();
  await coldServices.close();
});

const paths = [
  ['warm', () => ({ services: warmServices, pool: warmPool })],
  ['cold', () => ({ services: coldServices, pool: coldPool })],
] as const;

async function grade(path: (typeof paths)[number][1], cfg: Record<string, unknown>, output_text: string, item: Record<string, unknown>) {
  const { services, pool } = path();
  const before = pool.stats.warm;
  const r = await loadGrader({ type: 'code', ...cfg }).grade({ item, sample: { output_text } }, { services });
  // the warm pool served it from a zygote (where this machine has one), the cold one never
  if (pool === coldPool) expect(pool.stats.warm).toBe(0);
  else if (pool.warmMode.startsWith('on')) expect(pool.stats.warm).toBeGreaterThan(before);
  return r;
}

const humaneval = { format: 'humaneval', prompt: '{{item.prompt}}', tests: '{{item.test}}', entry_point: 'f' };
const tests = (imports: string, ...asserts: string[]) => ({
  prompt: 'def f(x):\n',
  test: `import ${imports}\n\ndef check(candidate):\n${asserts.map((a) => `    assert ${a}\n`).join('')}`,
});
const right = '    return x * x\n';
const wrong = '    return 0\n';
const mathTests = tests('math', 'math.isclose(candidate(3), 9)', 'math.floor(candidate(1.5)) == 2');

// [what the solution does, its code, tests that a wrong solution passes unless the module is put back]
const hacks: [string, string, Record<string, string>][] = [
  ['rebinds functions of a preloaded module (math)', 'import math\nmath.isclose = lambda *a, **k: True\nmath.floor = lambda x: 2\n', mathTests],
  ['rebinds re.fullmatch', 'import re\nre.fullmatch = lambda *a, **k: True\n', tests('re', 're.fullmatch(r"\\d\\d", str(candidate(5)))')],
  [
    'rebinds hashlib.md5 (a module the tests import, not preloaded)',
    'import hashlib\nclass H:\n    def __init__(self, *a):\n        pass\n    def hexdigest(self):\n        return "same"\nhashlib.md5 = H\n',
    tests('hashlib', 'hashlib.md5(str(candidate(5)).encode()).hexdigest() == hashlib.md5(b"25").hexdigest()'),
  ],
  [
    'rebinds builtins.sorted and collections.Counter',
    'import builtins, collections\nbuiltins.sorted = lambda *a, **k: [1, 4]\ncollections.Counter = lambda *a: 1\n',
    tests('collections', 'sorted([candidate(2), candidate(1)]) == [1, 4]', 'collections.Counter([candidate(2)]) == collections.Counter([4])'),
  ],
  [
    'swaps the class of the math module for one that answers isclose and floor',
    [
      'import math, types',
      'class M(types.ModuleType):',
      '    def __getattribute__(self, n):',
      '        if n == "isclose":',
      '            return lambda *a, **k: True',
      '        if n == "floor":',
      '            return lambda x: 2',
      '        return types.ModuleType.__getattribute__(self, n)',
      'math.__class__ = M',
      '',
    ].join('\n'),
    mathTests,
  ],
];

describe.each(paths)('%s runs', (_label, path) => {
  it.each(hacks)('a wrong solution that %s scores 0', async (_name, hack, item) => {
    expect((await grade(path, humaneval, wrong, item)).score).toBe(0);
    // the hack works on the program run plainly (solution, tests and check in one script)
    const plain = await compileProgram(path().pool, 'python', `${item.prompt}${wrong}${hack}\n${item.test}\ncheck(f)\n`);
    if (!plain.ok) throw new Error(plain.message);
    const ran = await runProgram(path().pool, plain.program);
    expect([ran.status, ran.exitCode, ran.stderr]).toEqual(['ok', 0, '']);
    const r = await grade(path, humaneval, wrong + hack, item);
    expect(r.valid, JSON.stringify(r.error)).toBe(true);
    expect(r.score, r.reason).toBe(0);
  });

  it.each(hacks.slice(0, 4))('a right solution that %s still passes (nothing of the patch reaches the tests)', async (_name, hack, item) => {
    const r = await grade(path, humaneval, right + hack, item);
    expect(r.score, r.reason).toBe(1);
  });

  it('names a right solution deletes from modules are back for the tests', async () => {
    const item = tests(
      'math, re',
      'math.isclose(candidate(3), 9)',
      're.fullmatch(r"\\d\\d", str(candidate(5)))',
      'sorted([candidate(2), candidate(1)]) == [1, 4]',
    );
    const r = await grade(path, humaneval, right + 'import math, re, builtins\ndel math.isclose, re.fullmatch, builtins.sorted\n', item);
    expect(r.score, r.reason).toBe(1);
  });

  it('asserts: a patch made during one test is undone before the next, every time', async () => {
    const src = 'import math\ndef add(a, b):\n    math.floor = lambda x: 99\n    return a + b\n';
    // (the tests import math themselves: a module only the solution imports is its own on a cold run)
    const tests = [
      'assert add(1, 1) == 2',
      'import math\nassert math.floor(2.5) == 2',
      'assert add(2, 2) == 4',
      'import math\nassert math.floor(3.5) == 3',
      'add(0, 0)',
      'import math\nassert math.floor(4.5) == 4',
    ];
    const r = await grade(path, { format: 'asserts', tests: '{{item.tests}}' }, src, { tests });
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'pass']);
    expect(r.score).toBe(1);
  });

  it('a solution that imports a new module and sets names in it is left alone', async () => {
    const r = await grade(path, humaneval, right + 'import json\njson.mine = 1\nimport math\nmath.extra_name = 2\n', mathTests);
    expect(r.score, r.reason).toBe(1);
  });
});
