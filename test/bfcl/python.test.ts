// The Python emulation under the simulated APIs, against values CPython 3.11 prints: the Mersenne
// Twister seeded as random.Random(int) does, float repr and formatting, round(), json.dumps, str
// repr, == and dict/set keys across int, float and bool; and the Python-call parser (a syntax error
// told apart from valid Python arbiter does not evaluate, escapes, bytes, positional arguments).
import { describe, expect, it } from 'vitest';
import { parsePythonCalls } from '../../dist/graders/tool_call/index.js';
import { parsePythonExpr, unparse } from '../../dist/extract/python-call.js';
import { floatRepr, jsonDumps, PyDict, pyEq, pyRepr, PyRandom, PyTuple } from '../../dist/envs/bfcl_multi_turn/apis/index.js';
import { formatFixed } from '../../dist/py/format.js';
import { pow, pyRound, truediv } from '../../dist/py/num.js';

describe('random.Random(seed), bit for bit', () => {
  it('randint, random and uniform after seeding with the APIs default seeds', () => {
    const r = new PyRandom(1053520n);
    expect([r.randint(0n, 86400n), r.randint(0n, 86400n), r.randint(0n, 86400n)]).toEqual([69015n, 6994n, 64788n]);
    expect(r.random()).toBe(0.7355919304392982);
    expect(r.uniform(-10.0, 40.0)).toBe(0.18263874520267187);
    const t = new PyRandom(141053n);
    expect(t.randint(100000n, 999999n)).toBe(251675n);
    expect(t.randint(100000000000n, 999999999999n)).toBe(391310425148n);
    expect(t.getrandbits(70)).toBe(390891181457498494769n);
  });
  it('zero, negative and multi-word seeds', () => {
    expect(new PyRandom(0n).random()).toBe(0.8444218515250481);
    expect(new PyRandom(-5n).random()).toBe(0.6229016948897019);
    expect(new PyRandom(2n ** 70n + 3n).random()).toBe(0.16339507200642456);
  });
});

describe('numbers as Python prints and rounds them', () => {
  it('float repr', () => {
    expect([1e16, 1e-5, 123456789012345680.0, 0.1 + 0.2, -0.0, 1e22, 5e-324, 2.0, 1.5e-7].map(floatRepr)).toEqual([
      '1e+16',
      '1e-05',
      '1.2345678901234568e+17',
      '0.30000000000000004',
      '-0.0',
      '1e+22',
      '5e-324',
      '2.0',
      '1.5e-07',
    ]);
  });
  it('f"{x:.2f}" and round() work on the exact binary value, ties to even', () => {
    expect([0.125, 2.675, 1e22, 5, -0.0].map((x) => formatFixed(x, 2))).toEqual(['0.12', '2.67', '10000000000000000000000.00', '5.00', '-0.00']);
    expect(pyRound(2.675, 2n)).toBe(2.67);
    expect(pyRound(0.5, null)).toBe(0n);
    expect(pyRound(1.5, null)).toBe(2n);
    expect(pyRound(25n, -1n)).toBe(20n);
    expect(pyRound(35n, -1n)).toBe(40n);
  });
  it('int and float stay apart: int / int is a float, int ** int an exact int', () => {
    expect(truediv(10n, 4n)).toBe(2.5);
    expect(pow(2n, 100n)).toBe(1267650600228229401496703205376n);
    expect(
      jsonDumps(
        PyDict.of([
          ['a', 3n],
          ['b', 3.0],
        ]),
      ),
    ).toBe('{"a": 3, "b": 3.0}');
  });
});

describe('json.dumps and repr', () => {
  it('json.dumps: ensure_ascii, separators, non-string keys, NaN and Infinity', () => {
    const d = PyDict.of([
      ['a', [1n, 2.0, 'é\u2028\x7f', null, true, Infinity]],
      [1n, 'x'],
      [2.5, 'y'],
      [true, 'z'],
      [null, 1n],
    ]);
    expect(jsonDumps(d)).toBe('{"a": [1, 2.0, "\\u00e9\\u2028\\u007f", null, true, Infinity], "1": "z", "2.5": "y", "null": 1}');
  });
  it('repr of str picks quotes and escapes non-printables; containers', () => {
    expect(pyRepr('a\'b"c')).toBe(`'a\\'b"c'`);
    expect(pyRepr("it's")).toBe(`"it's"`);
    expect(pyRepr('\x00\x1f\x7f\x80\xa0\u2028\u{1F600}\ud800')).toBe("'\\x00\\x1f\\x7f\\x80\\xa0\\u2028\u{1F600}\\ud800'");
    expect(
      pyRepr(
        PyDict.of([
          ['a', new PyTuple([1n])],
          ['d', new PyTuple([])],
        ]),
      ),
    ).toBe("{'a': (1,), 'd': ()}");
  });
});

describe('== and hashing', () => {
  it('1 == 1.0 == True share a dict key; lists never equal tuples; dicts compare without order', () => {
    const d = new PyDict();
    d.set(1n, 'int');
    d.set(1.0, 'float');
    d.set(true, 'bool');
    expect(d.size).toBe(1);
    expect(d.keys()).toEqual([1n]);
    expect(d.get(1n)).toBe('bool');
    expect(pyEq([1n, 2n], new PyTuple([1n, 2n]))).toBe(false);
    expect(
      pyEq(
        PyDict.of([
          ['a', 1n],
          ['b', 2.0],
        ]),
        PyDict.of([
          ['b', 2n],
          ['a', 1.0],
        ]),
      ),
    ).toBe(true);
    expect(pyEq(2n ** 60n, 2 ** 60)).toBe(true);
    expect(pyEq(2n ** 60n + 1n, 2 ** 60)).toBe(false);
    expect(pyEq(Number.NaN, Number.NaN)).toBe(false);
  });
});

describe('the Python-call parser', () => {
  it('positional and keyword arguments, ints apart from floats, tuples apart from lists', () => {
    const ast = parsePythonExpr("sort('f.txt', n=1, x=1.0, t=(1,), l=[-2], d={'k': None})");
    expect(ast).toMatchObject({ k: 'call', func: { k: 'name', id: 'sort' }, args: [{ k: 'str', v: 'f.txt' }] });
    expect(unparse(ast)).toBe("sort('f.txt', n=1, x=1.0, t=(1,), l=[-2], d={'k': None})");
  });
  it("Python's escapes (\\x41 is 'A', not four characters), raw strings, implicit concatenation, bytes", () => {
    expect(parsePythonCalls("f(a='\\x41\\u00e9\\101', b=r'\\d', c='x' 'y')")).toEqual([{ name: 'f', args: { a: 'Aé\x41', b: '\\d', c: 'xy' } }]);
    expect(parsePythonExpr("f(b'\\x00a')")).toMatchObject({ args: [{ k: 'bytes' }] });
  });
  it('syntax errors, valid Python that is not evaluated, and limits are told apart', () => {
    const kind = (s: string) => {
      try {
        parsePythonExpr(s);
        return 'ok';
      } catch (e) {
        return (e as { kind: string }).kind;
      }
    };
    expect(["cd(folder='a'", 'cd(folder=)', 'f(a=1, 2)', "'abc", '01'].map(kind)).toEqual(['syntax', 'syntax', 'syntax', 'syntax', 'syntax']);
    expect(['f(x=lambda: 1)', 'f(x=a if b else c)', 'f(x=[i for i in y])', "f(x=f'{a}')", 'f(x=a < b)', 'f(x=y[0])'].map(kind)).toEqual(
      Array(6).fill('unsupported'),
    );
    expect(kind(`f(a=${'['.repeat(100)}`)).toBe('limit');
    // a repeated keyword parses (Python's ast.parse accepts it; evaluating it is a SyntaxError)
    expect(kind('f(x=1, x=2)')).toBe('ok');
  });
  it('the tool_call reading stays keyword-only', () => {
    expect(() => parsePythonCalls("sort('f.txt')")).toThrow(/positional/);
  });
});

describe('json.loads of the shared runtime (one parser for BFCL and tau-bench)', () => {
  it('reads ints of any length up to 4300 digits (the BFCL parser once cut numbers at 400 characters)', async () => {
    const { loads } = await import('../../dist/py/json.js');
    const v = loads(`{"n": ${'7'.repeat(500)}, "f": 1.0}`) as InstanceType<typeof PyDict>;
    expect(v.get('n')).toBe(BigInt('7'.repeat(500)));
    expect(v.get('f')).toBe(1);
    expect(jsonDumps(v)).toBe(`{"n": ${'7'.repeat(500)}, "f": 1.0}`);
  });
  it("malformed JSON raises CPython's JSONDecodeError text", async () => {
    const { loads } = await import('../../dist/py/json.js');
    expect(() => loads('{"a": }')).toThrow(/^JSONDecodeError: Expecting value: line 1 column 7 \(char 6\)$/);
  });
});
