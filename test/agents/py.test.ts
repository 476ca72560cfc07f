// The Python semantics tau-bench's tools and reward rest on: json.loads keeping int vs float,
// json.dumps and repr output, round() ties to even, to_hashable/str hashing, and the calculate
// tool's eval (expected values are what CPython 3.11 prints for the same input).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { calculate } from '../../dist/envs/tau_bench/calc.js';
import { hashableRepr, hashableSha256, sameHashable, firstDifference } from '../../dist/envs/tau_bench/hash.js';
import { jsonDumps as dumps } from '../../dist/py/format.js';
import { loads } from '../../dist/py/json.js';
import { add, compare, eq, max2, mul, PyError, repr, round, sorted, sub } from '../../dist/py/ops.js';
import type { PyDict } from '../../dist/py/values.js';

describe('json.loads / json.dumps', () => {
  it('keeps integer and float literals apart, as Python does', () => {
    const v = loads('{"a": 150, "b": 150.0, "c": 1e2, "d": -0, "e": 12345678901234567891}') as PyDict;
    expect(v.get('a')).toBe(150n);
    expect(v.get('b')).toBe(150);
    expect(v.get('c')).toBe(100);
    expect(v.get('d')).toBe(0n);
    expect(v.get('e')).toBe(12345678901234567891n);
    expect(dumps(v)).toBe('{"a": 150, "b": 150.0, "c": 100.0, "d": 0, "e": 12345678901234567891}');
  });

  it('writes what json.dumps writes: separators, ASCII escapes, NaN/Infinity, float repr', () => {
    const v = loads('{"s": "é\\u007f😀\\"\\\\\\n", "x": [1e16, -0.0, 0.0001, 1e-05, NaN, Infinity], "t": true, "n": null}');
    expect(dumps(v)).toBe('{"s": "\\u00e9\\u007f\\ud83d\\ude00\\"\\\\\\n", "x": [1e+16, -0.0, 0.0001, 1e-05, NaN, Infinity], "t": true, "n": null}');
  });

  it('duplicate keys keep the first position and the last value; bad JSON is a JSONDecodeError with the position', () => {
    expect(dumps(loads('{"a": 1, "b": 2, "a": 3}'))).toBe('{"a": 3, "b": 2}');
    expect(() => loads('{"a": 1,}')).toThrow(/Expecting property name enclosed in double quotes: line 1 column 9 \(char 8\)/);
    expect(() => loads('[1] x')).toThrow(/Extra data: line 1 column 5/);
    expect(() => loads('"a\u0001"')).toThrow(/Invalid control character/);
  });
});

describe('repr, arithmetic and round', () => {
  it('prints floats, strings and containers as repr() does', () => {
    expect(repr(1e16)).toBe('1e+16');
    expect(repr(1e15)).toBe('1000000000000000.0');
    expect(repr(Number('123456789012345678'))).toBe('1.2345678901234568e+17');
    expect(repr(-0)).toBe('-0.0');
    expect(repr("a'b")).toBe('"a\'b"');
    expect(repr('a"b\'')).toBe("'a\"b\\''");
    expect(repr('\u0000\t\u00a0\u200b😀é')).toBe("'\\x00\\t\\xa0\\u200b😀é'");
    expect(repr(loads('{"k": [1, 2.5, true, null]}'))).toBe("{'k': [1, 2.5, True, None]}");
  });

  it('int and float arithmetic keep their types; errors carry CPython messages', () => {
    expect(add(1n, 2n)).toBe(3n);
    expect(add(1n, 0.5)).toBe(1.5);
    expect(add(true, 1n)).toBe(2n);
    expect(mul(50n, '2')).toBe('2'.repeat(50));
    expect(() => add(0n, 'a', '+=')).toThrow(new PyError('TypeError', "unsupported operand type(s) for +=: 'int' and 'str'"));
    expect(() => add('a', 1n)).toThrow(/can only concatenate str \(not "int"\) to str/);
    expect(() => sub(1n, [])).toThrow(/unsupported operand type\(s\) for -: 'int' and 'list'/);
    expect(() => compare(1n, 'a', '<')).toThrow(/'<' not supported between instances of 'int' and 'str'/);
    expect(eq(1n, 1.0)).toBe(true);
    expect(eq(true, 1n)).toBe(true);
    expect(eq('1', 1n)).toBe(false);
    expect(max2(0n, -1.5)).toBe(0n);
    expect(max2(0n, 2.5)).toBe(2.5);
    expect(sorted(['b', 'a', 'B'])).toEqual(['B', 'a', 'b']);
  });

  it('round(x, 2) rounds the exact binary value, ties to even, and keeps ints', () => {
    expect(round(2.675, 2)).toBe(2.67); // 2.67499999... in binary
    expect(round(0.125, 2)).toBe(0.12); // an exact tie: to even
    expect(round(0.375, 2)).toBe(0.38);
    expect(round(-0.001, 2)).toBe(-0);
    expect(Object.is(round(-0.001, 2), -0)).toBe(true);
    expect(round(1093.3449999999998, 2)).toBe(1093.34);
    expect(round(7n, 2)).toBe(7n);
    expect(() => round('x', 2)).toThrow(/type str doesn't define __round__ method/);
  });
});

describe('to_hashable and the data hash', () => {
  it('prints str(to_hashable(x)): dicts as sorted pairs, lists as tuples, 1-tuples with a comma', () => {
    expect(hashableRepr(loads('{"b": [1], "a": {"x": 1.0}}'))).toBe("(('a', (('x', 1.0),)), ('b', (1,)))");
    expect(hashableSha256(loads('{"a": [1]}'))).toBe(createHash('sha256').update("(('a', (1,)),)").digest('hex'));
  });

  it('distinguishes what the hash distinguishes and nothing else', () => {
    expect(sameHashable(loads('{"a": 1}'), loads('{"a": 1.0}'))).toBe(false);
    expect(sameHashable(loads('{"a": true}'), loads('{"a": 1}'))).toBe(false);
    expect(sameHashable(loads('{"a": 1, "b": 2}'), loads('{"b": 2, "a": 1}'))).toBe(true);
    // a dict and the list of its sorted pairs print the same, so tau-bench cannot tell them apart
    expect(sameHashable(loads('{"a": 1}'), loads('[["a", 1]]'))).toBe(true);
    expect(hashableSha256(loads('{"a": 1}'))).toBe(hashableSha256(loads('[["a", 1]]')));
    expect(firstDifference(loads('{"a": {"b": [1, 2]}}'), loads('{"a": {"b": [1, 3]}}'), 'x')).toBe('x.a.b[1]: 2 vs 3');
    expect(firstDifference(loads('{"k": 5}'), loads('{"k": 5.0}'), 'r')).toBe('r.k: 5 vs 5.0');
  });
});

describe('calculate (eval of + - * / and parentheses, then str(round(float(x), 2)))', () => {
  const cases: [string, string][] = [
    ['1234.5 * 0.1', '123.45'],
    ['100 - 33.33', '66.67'],
    ['1/3', '0.33'],
    ['2.675', '2.67'],
    ['0.125', '0.12'],
    ['7//-2', '-4.0'],
    ['-2**2', '-4.0'],
    ['2**-1', '0.5'],
    ['10**400/10**399', '10.0'],
    ['6.**52', '2.9098125988731505e+40'],
    ['1' + '0'.repeat(400) + '.0', 'inf'],
    ['', 'Error: invalid syntax (<string>, line 0)'],
    ['1 +', 'Error: invalid syntax (<string>, line 1)'],
    ['(1', "Error: '(' was never closed (<string>, line 1)"],
    ['* (1', 'Error: invalid syntax (<string>, line 1)'],
    ['1 2 (', "Error: '(' was never closed (<string>, line 1)"],
    ['(1 2)', 'Error: invalid syntax. Perhaps you forgot a comma? (<string>, line 1)'],
    ['1)', "Error: unmatched ')' (<string>, line 1)"],
    ['01', 'Error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers (<string>, line 1)'],
    ['(*1)', 'Error: cannot use starred expression here (<string>, line 1)'],
    ['1/0', 'Error: division by zero'],
    ['1.0/0', 'Error: float division by zero'],
    ['1//0', 'Error: integer division or modulo by zero'],
    ['0.0**-1', 'Error: 0.0 cannot be raised to a negative power'],
    ['2**1024', 'Error: int too large to convert to float'],
    ['2.0**1024', "Error: (34, 'Numerical result out of range')"],
    ['()', "Error: float() argument must be a string or a real number, not 'tuple'"],
    ['(-8)**0.5', "Error: float() argument must be a string or a real number, not 'complex'"],
    ['1(2)', "Error: 'int' object is not callable"],
    ['2(*-3)', 'Error: 2 argument after * must be an iterable, not int'],
    ['-'.repeat(3000) + '1', 'Error: maximum recursion depth exceeded during compilation'],
    ['2 + x', 'Error: invalid characters in expression'],
  ];
  for (const [e, want] of cases) {
    it(`${JSON.stringify(e.length > 30 ? e.slice(0, 30) + '…' : e)} → ${want}`, () => expect(calculate(e)).toBe(want));
  }

  it('refuses integer powers too large to compute, instead of running for minutes', () => {
    expect(calculate('9**9**9')).toBe('Error: int too large to convert to float');
    expect(calculate('(9**999999)*(9**999999)*(9**999999)')).toBe('Error: int too large to convert to float');
  });
});

describe('the shared runtime (src/py/): behaviours tau-bench gained from the merge, as CPython 3.11 has them', () => {
  it('strings sort by code point, a lone surrogate below an astral character', () => {
    // CPython: sorted(['\udc00', '\U0001F600', 'z']) == ['z', '\udc00', '😀']
    expect(sorted(['\udc00', '\u{1F600}', 'z'])).toEqual(['z', '\udc00', '\u{1F600}']);
  });
  it("json.loads refuses an int of more than 4300 digits, with CPython's ValueError", () => {
    expect(() => loads('1'.repeat(4301))).toThrow(
      new PyError(
        'ValueError',
        'Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit',
      ),
    );
    expect(loads('7'.repeat(4300))).toBe(BigInt('7'.repeat(4300)));
  });
});
