// The runtime's JSON-data values: what json.loads gives for JSON text, with the operations the
// tau-bench tools apply to them, CPython 3.11's semantics and error messages. ints are bigint,
// floats are number (1 and 1.0 stay apart, as in Python's json and tau-bench's data hash), dicts are
// insertion-ordered Maps with string keys (the only keys JSON has: a plain Map keeps tau-bench's
// 5 MB databases fast), lists are arrays. Scalars print, compare and round with the same functions
// as the general values (values.ts, format.ts); a Python exception is the runtime's PyException.
import { floatRepr, roundFloat, strRepr } from './format.js';
import { PyException as PyError } from './errors.js';
import { intToFloat } from './num.js';
import { compareCodePoints, truthy as scalarTruthy, typeName as scalarTypeName } from './values.js';

export type PyValue = null | boolean | bigint | number | string | PyList | PyDict;
export type PyList = PyValue[];
export type PyDict = Map<string, PyValue>;

/** tau-bench's name for the runtime's Python exception (`type`, `text()` = str(e)). */
export { PyError };

/** Largest string or list a repetition may build (Python would run out of memory or stall past it). */
export const MAX_REPEAT = 1 << 24;

export const isDict = (v: PyValue | undefined): v is PyDict => v instanceof Map;
export const isList = (v: PyValue | undefined): v is PyList => Array.isArray(v);

/** Python's `type(v).__name__` (scalars as the general values name them). */
export function typeName(v: PyValue): string {
  if (v === null || typeof v !== 'object') return scalarTypeName(v);
  return Array.isArray(v) ? 'list' : 'dict';
}

const typeError = (msg: string) => new PyError('TypeError', msg);

// ---------- numbers ----------

/** True for bool, int and float (bool is an int subclass in Python). */
export function isNumber(v: PyValue): v is boolean | bigint | number {
  return typeof v === 'boolean' || typeof v === 'bigint' || typeof v === 'number';
}

/** bool → int, other numbers unchanged. */
function intish(v: boolean | bigint | number): bigint | number {
  return typeof v === 'boolean' ? (v ? 1n : 0n) : v;
}

function asFloat(v: bigint | number): number {
  return typeof v === 'number' ? v : intToFloat(v);
}

function unsupported(op: string, a: PyValue, b: PyValue): PyError {
  return typeError(`unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function repeat(seq: string | PyList, n: bigint): string | PyList {
  if (n <= 0n) return typeof seq === 'string' ? '' : [];
  const len = typeof seq === 'string' ? seq.length : seq.length;
  if (BigInt(len) * n > BigInt(MAX_REPEAT)) throw new PyError('MemoryError', '');
  const k = Number(n);
  if (typeof seq === 'string') return seq.repeat(k);
  const out: PyList = [];
  for (let i = 0; i < k; i++) out.push(...seq);
  return out;
}

/** `a + b` (or `a += b` with op '+='). */
export function add(a: PyValue, b: PyValue, op = '+'): PyValue {
  if (isNumber(a) && isNumber(b)) {
    const x = intish(a);
    const y = intish(b);
    if (typeof x === 'bigint' && typeof y === 'bigint') return x + y;
    return asFloat(x) + asFloat(y);
  }
  if (typeof a === 'string') {
    if (typeof b === 'string') return a + b;
    throw typeError(`can only concatenate str (not "${typeName(b)}") to str`);
  }
  if (Array.isArray(a)) {
    if (Array.isArray(b)) return [...a, ...b];
    if (op === '+=') return [...a, ...iterate(b)]; // list += iterable extends
    throw typeError(`can only concatenate list (not "${typeName(b)}") to list`);
  }
  throw unsupported(op, a, b);
}

/** `a - b` (or `a -= b`). */
export function sub(a: PyValue, b: PyValue, op = '-'): PyValue {
  if (isNumber(a) && isNumber(b)) {
    const x = intish(a);
    const y = intish(b);
    if (typeof x === 'bigint' && typeof y === 'bigint') return x - y;
    return asFloat(x) - asFloat(y);
  }
  throw unsupported(op, a, b);
}

/** `a * b`: numbers, or sequence repetition by an int. */
export function mul(a: PyValue, b: PyValue, op = '*'): PyValue {
  if (isNumber(a) && isNumber(b)) {
    const x = intish(a);
    const y = intish(b);
    if (typeof x === 'bigint' && typeof y === 'bigint') return x * y;
    return asFloat(x) * asFloat(y);
  }
  const seqTimes = (seq: string | PyList, n: PyValue): PyValue => {
    if (typeof n === 'bigint' || typeof n === 'boolean') return repeat(seq, typeof n === 'boolean' ? (n ? 1n : 0n) : n);
    throw typeError(`can't multiply sequence by non-int of type '${typeName(n)}'`);
  };
  if (typeof a === 'string' || Array.isArray(a)) return seqTimes(a, b);
  if ((typeof b === 'string' || Array.isArray(b)) && isNumber(a)) return seqTimes(b, a);
  throw unsupported(op, a, b);
}

export function neg(a: PyValue): PyValue {
  if (isNumber(a)) {
    const x = intish(a);
    return typeof x === 'bigint' ? -x : -x;
  }
  throw typeError(`bad operand type for unary -: '${typeName(a)}'`);
}

export function abs(a: PyValue): PyValue {
  if (isNumber(a)) {
    const x = intish(a);
    return typeof x === 'bigint' ? (x < 0n ? -x : x) : Math.abs(x);
  }
  throw typeError(`bad operand type for abs(): '${typeName(a)}'`);
}

/**
 * Python's round(x, 2) (any ndigits >= 0): an int stays an int; a float is rounded correctly to
 * the nearest decimal with ties to even on the exact binary value, as CPython does.
 */
export function round(v: PyValue, ndigits = 2): PyValue {
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'bigint') return v;
  if (typeof v !== 'number') throw typeError(`type ${typeName(v)} doesn't define __round__ method`);
  return roundFloat(v, BigInt(ndigits));
}

// ---------- truthiness, equality, ordering ----------

/** Python truthiness (scalars as the general values decide it). */
export function truthy(v: PyValue): boolean {
  if (v === null || typeof v !== 'object') return scalarTruthy(v);
  return Array.isArray(v) ? v.length > 0 : v.size > 0;
}

/** Python `a == b`. */
export function eq(a: PyValue, b: PyValue): boolean {
  if (isNumber(a) && isNumber(b)) {
    const x = intish(a);
    const y = intish(b);
    if (typeof x === typeof y) return x === y;
    // an int equals a float only when the float is integral and the same value (exactly, as in Python)
    const [i, f] = (typeof x === 'bigint' ? [x, y] : [y, x]) as [bigint, number];
    return Number.isInteger(f) && BigInt(f) === i;
  }
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  if (a === null || b === null) return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !eq(a[i]!, b[i]!)) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) {
      if (!b.has(k)) return false;
      const w = b.get(k)!;
      if (v !== w && !eq(v, w)) return false;
    }
    return true;
  }
  return false;
}

export type CmpOp = '<' | '<=' | '>' | '>=';

/** Python `a < b` (and the other orderings). */
export function compare(a: PyValue, b: PyValue, op: CmpOp): boolean {
  if (isNumber(a) && isNumber(b)) {
    const x = intish(a);
    const y = intish(b);
    switch (op) {
      case '<':
        return x < y;
      case '<=':
        return x <= y;
      case '>':
        return x > y;
      case '>=':
        return x >= y;
    }
  }
  if (typeof a === 'string' && typeof b === 'string') {
    const c = compareCodePoints(a, b);
    return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      if (!eq(a[i]!, b[i]!)) return compare(a[i]!, b[i]!, op);
    }
    const c = a.length - b.length;
    return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  }
  throw typeError(`'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

// ---------- containers ----------

function requireHashable(k: PyValue): void {
  if (Array.isArray(k) || k instanceof Map) throw typeError(`unhashable type: '${typeName(k)}'`);
}

function notSubscriptable(v: PyValue): PyError {
  return typeError(`'${typeName(v)}' object is not subscriptable`);
}

function codePoints(s: string): string[] {
  return /[\ud800-\udfff]/.test(s) ? Array.from(s) : s.split('');
}

function listIndex(len: number, key: PyValue, what: 'list' | 'string'): number {
  if (typeof key === 'bigint' || typeof key === 'boolean') {
    let i = typeof key === 'boolean' ? (key ? 1n : 0n) : key;
    if (i < 0n) i += BigInt(len);
    if (i < 0n || i >= BigInt(len)) throw new PyError('IndexError', `${what} index out of range`);
    return Number(i);
  }
  throw typeError(
    what === 'list' ? `list indices must be integers or slices, not ${typeName(key)}` : `string indices must be integers, not '${typeName(key)}'`,
  );
}

/** Python `obj[key]`. */
export function getItem(obj: PyValue, key: PyValue): PyValue {
  if (obj instanceof Map) {
    requireHashable(key);
    if (typeof key === 'string') {
      const v = obj.get(key);
      if (v !== undefined) return v;
    }
    throw new PyError('KeyError', repr(key));
  }
  if (Array.isArray(obj)) return obj[listIndex(obj.length, key, 'list')]!;
  if (typeof obj === 'string') {
    const cps = codePoints(obj);
    return cps[listIndex(cps.length, key, 'string')]!;
  }
  throw notSubscriptable(obj);
}

/** Python `obj[key] = value` on a dict (the only assignment target the tools use). */
export function setItem(obj: PyValue, key: PyValue, value: PyValue): void {
  if (obj instanceof Map) {
    requireHashable(key);
    if (typeof key !== 'string') throw new PyError('TypeError', `dict keys must be str here, got '${typeName(key)}'`);
    obj.set(key, value);
    return;
  }
  if (Array.isArray(obj)) {
    obj[listIndex(obj.length, key, 'list')] = value;
    return;
  }
  throw typeError(`'${typeName(obj)}' object does not support item assignment`);
}

/** Python `del obj[key]` on a dict. */
export function delItem(obj: PyValue, key: PyValue): void {
  if (obj instanceof Map) {
    requireHashable(key);
    if (typeof key === 'string' && obj.delete(key)) return;
    throw new PyError('KeyError', repr(key));
  }
  throw typeError(`'${typeName(obj)}' object does not support item deletion`);
}

/** Python `obj[start:]` with a negative or positive start (the one slice the tools take). */
export function sliceFrom(obj: PyValue, start: number): PyValue {
  if (typeof obj === 'string') return codePoints(obj).slice(start).join('');
  if (Array.isArray(obj)) return obj.slice(start);
  if (obj instanceof Map) throw typeError("unhashable type: 'slice'");
  throw notSubscriptable(obj);
}

/** Python `item in container`. */
export function contains(container: PyValue, item: PyValue): boolean {
  if (container instanceof Map) {
    requireHashable(item);
    return typeof item === 'string' && container.has(item);
  }
  if (Array.isArray(container)) {
    for (const x of container) if (x === item || eq(x, item)) return true;
    return false;
  }
  if (typeof container === 'string') {
    if (typeof item !== 'string') throw typeError(`'in <string>' requires string as left operand, not ${typeName(item)}`);
    return container.includes(item);
  }
  throw typeError(`argument of type '${typeName(container)}' is not iterable`);
}

/** Python len(). */
export function len(v: PyValue): bigint {
  if (typeof v === 'string') return BigInt(codePoints(v).length);
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof Map) return BigInt(v.size);
  throw typeError(`object of type '${typeName(v)}' has no len()`);
}

/** What `for x in v` visits: list items, dict keys, string characters. */
export function iterate(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v.slice();
  if (v instanceof Map) return [...v.keys()];
  if (typeof v === 'string') return codePoints(v);
  throw typeError(`'${typeName(v)}' object is not iterable`);
}

/** Python `lst.count(x)`. */
export function count(lst: PyList, x: PyValue): number {
  let n = 0;
  for (const y of lst) if (y === x || eq(y, x)) n++;
  return n;
}

/** Python sorted() with the default ordering (TypeError on incomparable items). */
export function sorted(v: PyValue): PyList {
  const items = iterate(v);
  return items.sort((a, b) => (compare(a, b, '<') ? -1 : compare(b, a, '<') ? 1 : 0));
}

/** Python sum() of an iterable of numbers, starting from int 0. */
export function sum(items: Iterable<PyValue>): PyValue {
  let acc: PyValue = 0n;
  for (const x of items) acc = add(acc, x);
  return acc;
}

/** A string method call `s.lower()` on something that may not be a string. */
export function lower(v: PyValue): string {
  if (typeof v !== 'string') throw new PyError('AttributeError', `'${typeName(v)}' object has no attribute 'lower'`);
  return v.toLowerCase();
}

/** Python int() of a value (the tools call it on a two-character slice of a date). */
export function toInt(v: PyValue): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new PyError('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(v)) throw new PyError('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(v));
  }
  if (typeof v === 'string') {
    const m = /^\s*([+-]?)(\d(?:_?\d)*)\s*$/.exec(v);
    if (!m) throw new PyError('ValueError', `invalid literal for int() with base 10: ${repr(v)}`);
    const n = BigInt(m[2]!.replace(/_/g, ''));
    return m[1] === '-' ? -n : n;
  }
  throw typeError(`int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`);
}

/** A deep copy (copy.deepcopy of JSON-like data). */
export function deepCopy<T extends PyValue>(v: T): T {
  return copyValue(v) as T;
}

function copyValue(v: PyValue): PyValue {
  if (Array.isArray(v)) return v.map(copyValue);
  if (v instanceof Map) {
    const m: PyDict = new Map();
    for (const [k, x] of v as PyDict) m.set(k, copyValue(x));
    return m;
  }
  return v;
}

/** A Python dict from [key, value] pairs (insertion order kept). */
export function dict(entries: [string, PyValue][]): PyDict {
  return new Map(entries);
}

// ---------- str() and repr() ----------

/** Python repr(). */
export function repr(v: PyValue): string {
  if (v === null) return 'None';
  switch (typeof v) {
    case 'boolean':
      return v ? 'True' : 'False';
    case 'bigint':
      return v.toString();
    case 'number':
      return floatRepr(v);
    case 'string':
      return strRepr(v);
  }
  if (Array.isArray(v)) return `[${v.map(repr).join(', ')}]`;
  const parts: string[] = [];
  for (const [k, x] of v) parts.push(`${strRepr(k)}: ${repr(x)}`);
  return `{${parts.join(', ')}}`;
}

/** Python str(): a string is itself, everything else its repr. */
export function str(v: PyValue): string {
  return typeof v === 'string' ? v : repr(v);
}

// ---------- conversion from plain JSON values ----------

/**
 * A value parsed by JSON.parse (or built in JS) as a Python value. JSON.parse has already lost
 * whether `1.0` was written with a fraction, so an integral number becomes an int: use the
 * Python-faithful parser (py/json.ts) on JSON text wherever the text is available.
 */
export function fromJs(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
    case 'bigint':
      return v;
    case 'number':
      return Number.isInteger(v) ? BigInt(v) : v;
  }
  if (Array.isArray(v)) return v.map(fromJs);
  if (v instanceof Map) return v as PyDict;
  if (typeof v === 'object') {
    const m: PyDict = new Map();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) m.set(k, fromJs(x));
    return m;
  }
  return str(String(v));
}

/** A Python value as plain JSON-able JS (ints beyond 2^53 become numbers; for display). */
export function toJs(v: PyValue): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toJs);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) Object.defineProperty(o, k, { value: toJs(x), enumerable: true, writable: true, configurable: true });
    return o;
  }
  return v;
}

// ---------- methods ----------

function noAttr(v: PyValue, name: string): PyError {
  return new PyError('AttributeError', `'${typeName(v)}' object has no attribute '${name}'`);
}

/** `obj.append(x)`. */
export function append(obj: PyValue, x: PyValue): void {
  if (!Array.isArray(obj)) throw noAttr(obj, 'append');
  obj.push(x);
}

/** `obj.extend(items)`. */
export function extend(obj: PyValue, items: PyValue): void {
  if (!Array.isArray(obj)) throw noAttr(obj, 'extend');
  obj.push(...iterate(items));
}

/** `obj.update(other)` for dicts. */
export function update(obj: PyValue, other: PyValue): void {
  if (!(obj instanceof Map)) throw noAttr(obj, 'update');
  if (!(other instanceof Map)) throw typeError(`'${typeName(other)}' object is not iterable`);
  for (const [k, v] of other) obj.set(k, v);
}

/** `obj.count(x)`: lists count equal items, strings count non-overlapping substrings. */
export function countOf(obj: PyValue, x: PyValue): bigint {
  if (Array.isArray(obj)) return BigInt(count(obj, x));
  if (typeof obj === 'string') {
    if (typeof x !== 'string') throw typeError(`must be str, not ${typeName(x)}`);
    if (x === '') return BigInt(codePoints(obj).length + 1);
    let n = 0;
    for (let i = obj.indexOf(x); i >= 0; i = obj.indexOf(x, i + x.length)) n++;
    return BigInt(n);
  }
  throw noAttr(obj, 'count');
}

/** Python max(a, b): b only when b > a (so max(0, -1.5) is the int 0). */
export function max2(a: PyValue, b: PyValue): PyValue {
  return compare(b, a, '>') ? b : a;
}

/** `[x for x in items if pred(x)]` (every item is tested, as the comprehension does). */
export function filter(items: PyValue, pred: (x: PyValue) => boolean): PyList {
  return iterate(items).filter(pred);
}

/** `[x for x in items if pred(x)][0]`, with the IndexError of an empty list. */
export function firstWhere(items: PyValue, pred: (x: PyValue) => boolean): PyValue {
  const found = filter(items, pred);
  if (!found.length) throw new PyError('IndexError', 'list index out of range');
  return found[0]!;
}

/** zip(a, b) as a list of pairs. */
export function zip2(a: PyValue, b: PyValue): [PyValue, PyValue][] {
  const x = iterate(a);
  const y = iterate(b);
  const n = Math.min(x.length, y.length);
  const out: [PyValue, PyValue][] = [];
  for (let i = 0; i < n; i++) out.push([x[i]!, y[i]!]);
  return out;
}
