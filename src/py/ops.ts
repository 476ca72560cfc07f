// The Python operations tau-bench's tools apply to their data, over the runtime's one value model
// (values.ts: dicts as PyDict, lists as arrays, ints as bigint, floats as number), named as the tools
// read them and with CPython 3.11's semantics and error messages. Most are the general operations
// (values.ts, num.ts, format.ts) under the tools' names; the rest (augmented assignment, slicing
// from an index, list and dict methods, comprehension helpers) are written here over them.
import { PyException } from './errors.js';
import { pyRepr, pyStr } from './format.js';
import { add as numAdd, MAX_REPEAT_ITEMS, mul as numMul, neg as numNeg, pyAbs, pyRound, toInt as numToInt } from './num.js';
import {
  type CompareOp,
  getitem,
  hashKey,
  pyCompare,
  pyContains,
  pyDeepCopy,
  PyDict,
  pyEq,
  pyIter,
  pyLen,
  type PyValue,
  setitem,
  truthy as pyTruthy,
  typeName,
} from './values.js';

export { sub } from './num.js';
export { PyException as PyError, type PyValue, PyDict, typeName };

export type PyList = PyValue[];

export const isDict = (v: PyValue | undefined): v is PyDict => v instanceof PyDict;

const typeError = (msg: string) => new PyException('TypeError', msg);

function noAttr(v: PyValue, name: string): PyException {
  return new PyException('AttributeError', `'${typeName(v)}' object has no attribute '${name}'`);
}

/** What `for x in v` visits, as a fresh list: list items, dict keys, string characters. */
export function iterate(v: PyValue): PyValue[] {
  const items = pyIter(v);
  return items === v ? items.slice() : items;
}

/** `a + b`, or `a += b` with op '+=' (where a list extends by any iterable). */
export function add(a: PyValue, b: PyValue, op = '+'): PyValue {
  if (op === '+=' && Array.isArray(a) && !Array.isArray(b)) return [...a, ...iterate(b)];
  return numAdd(a, b, op);
}

/**
 * `a * b`. A repetition past the runtime's size limit raises Python's MemoryError here (the tools
 * report a Python exception as their observation) where the general operation refuses the grade.
 */
export function mul(a: PyValue, b: PyValue, op = '*'): PyValue {
  const seq = typeof a === 'string' || Array.isArray(a) ? a : typeof b === 'string' || Array.isArray(b) ? b : undefined;
  const n = seq === a ? b : a;
  if (seq !== undefined && (typeof n === 'bigint' || typeof n === 'boolean')) {
    const k = typeof n === 'boolean' ? (n ? 1n : 0n) : n;
    if (seq.length === 0) return typeof seq === 'string' ? '' : [];
    if (k * BigInt(seq.length) > BigInt(MAX_REPEAT_ITEMS)) throw new PyException('MemoryError', '');
  }
  return numMul(a, b, op);
}

export const neg = numNeg;
export const abs = pyAbs;

/** Python's round(x, ndigits): an int stays an int; a float is rounded correctly, ties to even. */
export function round(v: PyValue, ndigits = 2): PyValue {
  return pyRound(v, BigInt(ndigits));
}

export const truthy = pyTruthy;
/** Python `a == b`. */
export const eq = (a: PyValue, b: PyValue): boolean => pyEq(a, b);
/** Python `a < b` (and the other orderings). */
export const compare = (a: PyValue, b: PyValue, op: CompareOp): boolean => pyCompare(a, b, op);
/** Python `obj[key]`. */
export const getItem = getitem;
/** Python `obj[key] = value`. */
export const setItem = setitem;
/** Python `item in container`. */
export const contains = pyContains;
/** Python len(). */
export const len = pyLen;
/** Python int(v). */
export const toInt = numToInt;
/** Python repr(). */
export const repr = (v: PyValue): string => pyRepr(v);
/** Python str(). */
export const str = (v: PyValue): string => pyStr(v);

/** copy.deepcopy of a value (shared parts stay shared in the copy, as Python's memo keeps them). */
export function deepCopy<T extends PyValue>(v: T): T {
  return pyDeepCopy(v) as T;
}

/** Python `del obj[key]` on a dict. */
export function delItem(obj: PyValue, key: PyValue): void {
  if (obj instanceof PyDict) {
    hashKey(key); // an unhashable key is a TypeError before the lookup
    if (obj.delete(key)) return;
    throw PyException.keyError(key);
  }
  throw typeError(`'${typeName(obj)}' object does not support item deletion`);
}

/** Python `obj[start:]` with a negative or positive start (the one slice the tools take). */
export function sliceFrom(obj: PyValue, start: number): PyValue {
  if (typeof obj === 'string') return [...obj].slice(start).join('');
  if (Array.isArray(obj)) return obj.slice(start);
  if (obj instanceof PyDict) throw typeError("unhashable type: 'slice'"); // CPython 3.11 hashes the slice
  throw typeError(`'${typeName(obj)}' object is not subscriptable`);
}

/** Python `lst.count(x)`. */
export function count(lst: PyList, x: PyValue): number {
  let n = 0;
  for (const y of lst) if (y === x || pyEq(y, x)) n++;
  return n;
}

/** Python sorted() with the default ordering (TypeError on incomparable items). */
export function sorted(v: PyValue): PyList {
  return iterate(v).sort((a, b) => (pyCompare(a, b, '<') ? -1 : pyCompare(b, a, '<') ? 1 : 0));
}

/** Python sum() of an iterable of numbers, starting from int 0. */
export function sum(items: Iterable<PyValue>): PyValue {
  let acc: PyValue = 0n;
  for (const x of items) acc = numAdd(acc, x);
  return acc;
}

/** A string method call `s.lower()` on something that may not be a string. */
export function lower(v: PyValue): string {
  if (typeof v !== 'string') throw noAttr(v, 'lower');
  return v.toLowerCase();
}

/** A Python dict from [key, value] pairs (insertion order kept). */
export function dict(entries: Iterable<readonly [PyValue, PyValue]>): PyDict {
  return PyDict.of(entries);
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

/** `obj.update(other)` for dicts (other a dict, as in the tools). */
export function update(obj: PyValue, other: PyValue): void {
  if (!(obj instanceof PyDict)) throw noAttr(obj, 'update');
  if (!(other instanceof PyDict)) throw typeError(`'${typeName(other)}' object is not iterable`);
  for (const [k, v] of other) obj.set(k, v);
}

/** `obj.count(x)`: lists count equal items, strings count non-overlapping substrings. */
export function countOf(obj: PyValue, x: PyValue): bigint {
  if (Array.isArray(obj)) return BigInt(count(obj, x));
  if (typeof obj === 'string') {
    if (typeof x !== 'string') throw typeError(`must be str, not ${typeName(x)}`);
    if (x === '') return pyLen(obj) + 1n;
    let n = 0;
    for (let i = obj.indexOf(x); i >= 0; i = obj.indexOf(x, i + x.length)) n++;
    return BigInt(n);
  }
  throw noAttr(obj, 'count');
}

/** Python max(a, b): b only when b > a (so max(0, -1.5) is the int 0). */
export function max2(a: PyValue, b: PyValue): PyValue {
  return pyCompare(b, a, '>') ? b : a;
}

/** `[x for x in items if pred(x)]` (every item is tested, as the comprehension does). */
export function filter(items: PyValue, pred: (x: PyValue) => boolean): PyList {
  return iterate(items).filter(pred);
}

/** `[x for x in items if pred(x)][0]`, with the IndexError of an empty list. */
export function firstWhere(items: PyValue, pred: (x: PyValue) => boolean): PyValue {
  const found = filter(items, pred);
  if (!found.length) throw new PyException('IndexError', 'list index out of range');
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
