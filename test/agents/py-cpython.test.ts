// The runtime's one Python value model against CPython itself: random nested values (ints, floats
// with NaN, infinities and -0.0, bools, None, strings with quotes, escapes and non-ASCII, lists,
// tuples, dicts built by a sequence of insertions where 1, 1.0 and True are one key) are built the
// same way here and in python3, then repr(), str(), json.dumps(), len(), ==, `in` and lookups are
// compared byte for byte (errors by type and message).
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { jsonDumps, pyRepr, pyStr } from '../../dist/py/format.js';
import { getitem, pyContains, PyDict, pyEq, pyLen, PyTuple, type PyValue } from '../../dist/py/values.js';

/** A value as both sides build it. */
type Spec =
  | { int: string }
  | { float: string }
  | { bool: boolean }
  | { none: null }
  | { str: string }
  | { list: Spec[] }
  | { tuple: Spec[] }
  | { dict: [Spec, Spec][] };

function build(s: Spec): PyValue {
  if ('int' in s) return BigInt(s.int);
  if ('float' in s) return Number(s.float === 'inf' ? 'Infinity' : s.float === '-inf' ? '-Infinity' : s.float === 'nan' ? 'NaN' : s.float);
  if ('bool' in s) return s.bool;
  if ('none' in s) return null;
  if ('str' in s) return s.str;
  if ('list' in s) return s.list.map(build);
  if ('tuple' in s) return new PyTuple(s.tuple.map(build));
  const d = new PyDict();
  for (const [k, v] of s.dict) d.set(build(k), build(v));
  return d;
}

const PY = `
import json, sys
def build(s):
    if 'int' in s: return int(s['int'])
    if 'float' in s: return float(s['float'])
    if 'bool' in s: return s['bool']
    if 'none' in s: return None
    if 'str' in s: return s['str']
    if 'list' in s: return [build(x) for x in s['list']]
    if 'tuple' in s: return tuple(build(x) for x in s['tuple'])
    d = {}
    for k, v in s['dict']: d[build(k)] = build(v)
    return d
def run(f):
    try: return ['ok', f()]
    except Exception as e: return [type(e).__name__, str(e)]
out = []
for case in json.load(sys.stdin):
    v = build(case['value'])
    probes = [build(p) for p in case['probes']]
    r = {'repr': run(lambda: repr(v)), 'str': run(lambda: str(v)), 'json': run(lambda: json.dumps(v)), 'len': run(lambda: len(v))}
    r['eq'] = [run(lambda p=p: v == p) for p in probes]
    r['in'] = [run(lambda p=p: p in v) for p in probes]
    r['item'] = [run(lambda p=p: repr(v[p])) for p in probes]
    out.append(r)
json.dump(out, sys.stdout)
`;

function run<T>(f: () => T): [string, T | string] {
  try {
    return ['ok', f()];
  } catch (e) {
    const x = e as { type?: string; text?: () => string; message: string };
    return x.type && x.text ? [x.type, x.text()] : ['JS', x.message];
  }
}

/** A small seeded generator (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRS = [
  '',
  'a',
  "it's",
  'say "hi"',
  `both ' and "`,
  'back\\slash',
  'tab\there\nnl',
  'é',
  '😀',
  '\u0000\u007f\u00a0',
  '\u200b',
  'ключ',
  '1',
  'True',
  'None',
];
const FLOATS = ['1.0', '0.0', '-0.0', '1.5', '0.1', '1e16', '1e-05', '123456789012345680.0', 'nan', 'inf', '-inf', '2.5', '1e+300'];
const INTS = ['0', '1', '-1', '2', '12345678901234567890', '-5'];

function scalar(r: () => number): Spec {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  switch (Math.floor(r() * 5)) {
    case 0:
      return { int: pick(INTS) };
    case 1:
      return { float: pick(FLOATS) };
    case 2:
      return { bool: r() < 0.5 };
    case 3:
      return r() < 0.3 ? { none: null } : { str: pick(STRS) };
    default:
      return { str: pick(STRS) };
  }
}

/** A hashable key: mostly numbers equal across types, strings, None, sometimes a tuple (of hashables). */
function key(r: () => number, depth: number): Spec {
  if (depth < 2 && r() < 0.15) return { tuple: Array.from({ length: Math.floor(r() * 3) }, () => key(r, depth + 1)) };
  const x = r();
  if (x < 0.2) return { int: ['0', '1', '2'][Math.floor(r() * 3)]! };
  if (x < 0.35) return { float: ['0.0', '1.0', '-0.0', '2.0', '1.5', 'inf'][Math.floor(r() * 6)]! };
  if (x < 0.45) return { bool: r() < 0.5 };
  if (x < 0.5) return { none: null };
  return scalar(r);
}

function value(r: () => number, depth: number): Spec {
  if (depth > 3 || r() < 0.35) return scalar(r);
  const n = Math.floor(r() * 5);
  const x = r();
  if (x < 0.3) return { list: Array.from({ length: n }, () => value(r, depth + 1)) };
  if (x < 0.45) return { tuple: Array.from({ length: n }, () => value(r, depth + 1)) };
  return { dict: Array.from({ length: n + 1 }, () => [key(r, 0), value(r, depth + 1)] as [Spec, Spec]) };
}

const python = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!python)('Python values against CPython (needs python3)', () => {
  it('repr, str, json.dumps, len, ==, in and [] of 600 random nested values match python3 byte for byte', () => {
    const r = rng(20240611);
    const cases = Array.from({ length: 600 }, () => {
      const v = value(r, 0);
      // probes: keys of the value when it is a dict (and other-typed equals of them), plus random keys and values
      const probes: Spec[] = [key(r, 0), key(r, 0), value(r, 2)];
      if ('dict' in v) for (const [k] of v.dict.slice(0, 3)) probes.push(k);
      return { value: v, probes };
    });
    const expected = JSON.parse(execFileSync('python3', ['-c', PY], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 << 20 })) as unknown[];
    const got = cases.map((c) => {
      const v = build(c.value);
      const probes = c.probes.map(build);
      return {
        repr: run(() => pyRepr(v)),
        str: run(() => pyStr(v)),
        json: run(() => jsonDumps(v)),
        len: run(() => Number(pyLen(v))),
        eq: probes.map((p) => run(() => pyEq(v, p))),
        in: probes.map((p) => run(() => pyContains(v, p))),
        item: probes.map((p) => run(() => pyRepr(getitem(v, p)))),
      };
    });
    expect(expected).toHaveLength(cases.length);
    for (let i = 0; i < cases.length; i++) expect({ case: cases[i], out: got[i] }).toEqual({ case: cases[i], out: expected[i] });
    // the generator reaches what the test is about: dicts that merged 1, 1.0 and True, and errors
    const reprs = got.map((g) => g.repr[1] as string).join('\n');
    expect(reprs).toMatch(/\{True: |\{1: |\{1\.0: /);
    expect(got.some((g) => g.json[0] === 'TypeError')).toBe(true);
    expect(got.some((g) => g.item.some((x) => x[0] === 'KeyError'))).toBe(true);
  });

  it('a dict keeps the first key and the last value of equal keys, in first-insertion order, after deletes', () => {
    const d = new PyDict();
    d.set(1n, 'a');
    d.set('x', 'b');
    d.set(true, 'c');
    d.set(1.0, 'd');
    d.set(new PyTuple([1n, 'y']), 'e');
    d.set(new PyTuple([1.0, 'y']), 'f');
    d.set(Number.NaN, 'g');
    d.delete('x');
    d.set('x', 'h');
    const py = execFileSync(
      'python3',
      [
        '-c',
        "d = {}\nd[1] = 'a'\nd['x'] = 'b'\nd[True] = 'c'\nd[1.0] = 'd'\nd[(1, 'y')] = 'e'\nd[(1.0, 'y')] = 'f'\nd[float('nan')] = 'g'\ndel d['x']\nd['x'] = 'h'\nprint(repr(d), len(d), d.get(True), (1.0, 'y') in d, 0 in d)",
      ],
      { encoding: 'utf8' },
    ).trim();
    const bool = (b: boolean) => (b ? 'True' : 'False');
    expect(`${pyRepr(d)} ${d.size} ${pyStr(d.get(true)!)} ${bool(d.has(new PyTuple([1.0, 'y'])))} ${bool(d.has(0n))}`).toBe(py);
    expect(py).toBe("{1: 'd', (1, 'y'): 'f', nan: 'g', 'x': 'h'} 4 d True False");
  });
});
