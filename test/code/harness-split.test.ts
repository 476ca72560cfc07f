// The split-process Python harness (drivers/driver.py) through the real `code` grader and sandbox:
// reward hacks that passed the in-process driver fail (an always-equal return value, a verdict
// forger walking frames and the parent's /proc, a builtins patcher inside one check(), a fork
// oracle, a scan of the solution's memory for the tests), and what an honest solution relies on
// still holds across the process boundary (exceptions, exact types, in-place changes, handles).
import { afterAll, describe, expect, it } from 'vitest';
import { pythonCalls } from '../../dist/graders/code/harness.js';
import {
  ABS_PATCHER_BODY,
  ALWAYS_EQUAL_BODY,
  alwaysEqualFunctions,
  FORGER,
  FORGER_BODY,
  FORK_ORACLE_BODY,
  JSON_PATCHER,
  MEMORY_SCANNER,
  MEMORY_SCANNER_TESTS,
} from './hostile-python.js';
import { humanEval, loadGrader, mbpp, Services } from './helpers.js';

const services = new Services();
afterAll(() => services.close());

const he = humanEval();
const heGrader = loadGrader({
  type: 'code',
  format: 'humaneval',
  prompt: '{{item.prompt}}',
  tests: '{{item.test}}',
  entry_point: '{{item.entry_point}}',
  limits: { time_ms: 20_000 },
});
const heItem = (id: number) => he.find((x) => x.task_id === `HumanEval/${id}`)!;
const gradeHe = (id: number, completion: string) =>
  heGrader.grade({ item: heItem(id) as unknown as Record<string, unknown>, sample: { output_text: completion } }, { services });

const run = (cfg: Record<string, unknown>, output_text: string, item: Record<string, unknown> = {}) =>
  loadGrader({ type: 'code', extract: 'none', ...cfg }).grade({ item, sample: { output_text } }, { services });
const asserts = (code: string, tests: string[], extra: Record<string, unknown> = {}) =>
  run({ format: 'asserts', tests: '{{item.tests}}', ...extra }, code, { tests });

/** HumanEval tasks whose tests compare every answer with == or abs(...) (a spread of return types). */
const HE_TASKS = [0, 2, 4, 12, 13, 23, 29, 34, 45, 55, 60, 107];

describe('an always-equal return value', () => {
  it('fails real HumanEval tasks', async () => {
    const rs = await Promise.all(HE_TASKS.map((id) => gradeHe(id, ALWAYS_EQUAL_BODY)));
    expect(rs.map((r) => [r.valid, r.score])).toEqual(HE_TASKS.map(() => [true, 0]));
  }, 120_000);

  it('fails MBPP asserts', async () => {
    const items = mbpp()
      .filter((it) => it.test_list.every((t) => t.includes('==')))
      .slice(0, 25);
    const rs = await Promise.all(items.map((it) => asserts(alwaysEqualFunctions(pythonCalls(...it.test_list)), it.test_list, { setup: it.test_setup_code })));
    expect(rs.map((r) => r.metadata.tests_passed)).toEqual(items.map(() => 0));
    expect(rs.every((r) => r.valid)).toBe(true);
  }, 120_000);

  it('fails the function format (an opaque value has no JSON form), as does a patched JSON encoder', async () => {
    const cfg = { format: 'function', entry_point: 'add', tests: [{ args: [1, 2], expected: 3 }] };
    const r = await run(cfg, alwaysEqualFunctions(['add']));
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/no JSON form.*_AlwaysEqual/);
    expect((await run(cfg, JSON_PATCHER)).score).toBe(0);
  });

  it('is a value of the solution, equal only to itself (identity survives a round trip)', async () => {
    const code = `${alwaysEqualFunctions(['make'])}\ndef same(a, b):\n    return a is b\n`;
    const r = await asserts(code, [
      'x = make()\nassert x == x and x != make() and not (x == 0) and repr(x).startswith("<_AlwaysEqual")',
      'x = make()\nassert same(x, x) and not same(x, make())',
      'assert make() == 0',
    ]);
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'assertion']);
  });
});

describe('a verdict forger (frames, gc, /proc of itself and its parent, then os._exit(0))', () => {
  it('fails humaneval', async () => {
    const r = await gradeHe(0, FORGER_BODY);
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
  });

  it('fails every assert', async () => {
    const code = `${FORGER}\ndef add(a, b):\n    _forge()\n`;
    const r = await asserts(code, ['assert add(1, 2) == 3', 'assert add(2, 2) == 4', 'assert add(0, 0) == 0']);
    expect(r.metadata.tests_passed).toBe(0);
    expect(r.reason).toMatch(/solution's process ended/);
  });

  it('fails when it forges while loading', async () => {
    const r = await asserts(`${FORGER}\n_forge()\ndef add(a, b):\n    return a + b\n`, ['assert add(1, 2) == 3']);
    expect(r.score).toBe(0);
    expect(r.metadata.failure).toBe('load_error');
  });
});

describe('the solution process cannot reach the harness', () => {
  it("cannot open the harness's /proc files, write to its stdout or create processes", async () => {
    const code = `import os, threading
def probe():
    got = []
    for p in ('mem', 'fd/1', 'environ', 'maps'):
        try:
            open('/proc/%d/%s' % (os.getppid(), p), 'rb').close()
            got.append(p)
        except OSError:
            pass
    return got
def fork_error():
    try:
        pid = os.fork()
    except OSError as e:
        return type(e).__name__
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    return 'forked'
def threads():
    out = []
    ts = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]
    for t in ts: t.start()
    for t in ts: t.join()
    return sorted(out)
`;
    const r = await asserts(code, ['assert probe() == []', 'assert fork_error() == "PermissionError"', 'assert threads() == [0, 1, 2, 3]']);
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'pass']);
  });

  it('a fork oracle fails HumanEval/0', async () => {
    const r = await gradeHe(0, FORK_ORACLE_BODY);
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/PermissionError/);
  });

  it('finds nothing of the tests in its own memory', async () => {
    const r = await run({ format: 'humaneval', tests: MEMORY_SCANNER_TESTS, entry_point: 'leak' }, MEMORY_SCANNER);
    expect(r.reason).toBe('all tests passed');
  }, 60_000);
});

describe('builtins patched by the solution', () => {
  it('do not change the later asserts of the same check() (HumanEval/2)', async () => {
    const r = await gradeHe(2, ABS_PATCHER_BODY);
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.reason).toMatch(/AssertionError \(tests\.py line \d+\)/);
  });
});

describe('values across the boundary, as in-process Python has them', () => {
  const code = `import collections, enum, math
P = collections.namedtuple('P', 'x y')
class Color(enum.IntEnum):
    RED = 3
class Liar(str):
    def __eq__(self, other): return True
    __hash__ = str.__hash__
class MyError(ValueError):
    pass
def ident(x): return x
def pair(): return P(1, 2)
def listed(): return [1, 2]
def big(n): return n * n + 1
def specials(): return [float('nan'), -0.0, float('inf'), 0.1 + 0.2]
def mixed(): return {(1, 2): b'x\\x00', 'c': 1 + 2j, 'f': frozenset({1, 2}), 's': {3}, 'ba': bytearray(b'ab'), 7: None}
def red(): return Color.RED
def liar(): return Liar('xyz')
def fails(x):
    if x < 0:
        raise MyError('negative: %d' % x)
    raise KeyError(x)
def sort_in_place(xs, d):
    xs.sort()
    d['n'] = len(xs)
def gen(n):
    yield from range(n)
class Node:
    def __init__(self, v):
        self.v = v
        self.next = None
def length(n):
    return 0 if n is None else 1 + length(n.next)
def types(*xs): return [type(x).__name__ for x in xs]
`;
  it('exact types, big ints, nan and -0.0, namedtuples and int subclasses as their base value', async () => {
    const r = await asserts(code, [
      'assert pair() == (1, 2) and pair() != [1, 2] and type(pair()) is tuple',
      'assert listed() == [1, 2] and listed() != (1, 2)',
      'assert big(2**200) == 2**400 + 1 and type(big(3)) is int',
      'v = specials()\nassert math.isnan(v[0]) and math.copysign(1, v[1]) == -1.0 and v[2] == math.inf and v[3] == 0.1 + 0.2 and v[3] != 0.3',
      "assert mixed() == {(1, 2): b'x\\x00', 'c': 1 + 2j, 'f': frozenset({1, 2}), 's': {3}, 'ba': bytearray(b'ab'), 7: None}",
      "assert types(1, 1.0, True, 'a', b'a', (1,), [1], {1}, frozenset(), {}, 1j, None, int) == ['int', 'float', 'bool', 'str', 'bytes', 'tuple', 'list', 'set', 'frozenset', 'dict', 'complex', 'NoneType', 'type']",
      'assert red() == 3 and type(red()) is int',
      "assert liar() != 'abc' and liar() == 'xyz'",
      'assert ident((1, [2, (3,)])) == (1, [2, (3,)]) and ident(2**70) == 2**70',
    ]);
    expect(r.metadata.tests).toEqual(Array(9).fill('pass'));
  });

  it('exceptions, in-place changes, generators and objects of the solution', async () => {
    const r = await asserts(code, [
      'try:\n    fails(-1)\n    assert False\nexcept ValueError as e:\n    assert str(e) == "negative: -1"',
      'try:\n    fails(1)\n    assert False\nexcept KeyError as e:\n    assert e.args == (1,)',
      "xs, d = [3, 1, 2], {}\nsort_in_place(xs, d)\nassert xs == [1, 2, 3] and d == {'n': 3}",
      'assert list(gen(3)) == [0, 1, 2] and 2 in gen(3)',
      'n = Node(1)\nn.next = Node(2)\nn.next.next = Node(3)\nassert length(n) == 3 and n.next.v == 2',
      'fails(-5)',
    ]);
    expect(r.metadata.tests).toEqual(['pass', 'pass', 'pass', 'pass', 'pass', 'runtime_error']);
    expect(r.reason).toMatch(/MyError: negative: -5 \(solution\.py line \d+\)/);
  });

  it('function format: the decoded return value, ints exact', async () => {
    const r = await run({ format: 'function', entry_point: 'big', tests: [{ args: [3], expected: 10 }] }, code);
    expect(r.score).toBe(1);
  });
});

describe('a solution that does not answer in time', () => {
  it('is stopped by the harness: that test times out, the later ones fail with a reason', async () => {
    const code = `def f(x):
    if x == 1:
        while True:
            try:
                while True:
                    pass
            except BaseException:
                pass
    return x
`;
    const r = await asserts(code, ['assert f(0) == 0', 'assert f(1) == 1', 'assert f(2) == 2'], { test_time_ms: 300 });
    expect(r.metadata.tests).toEqual(['pass', 'timeout', 'runtime_error']);
    const d = await asserts(code, ['assert f(2) == 2', 'assert f(1) == 1'], { test_time_ms: 300 });
    expect(d.metadata.tests).toEqual(['pass', 'timeout']);
  });
});
