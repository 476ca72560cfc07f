// Python values for the BFCL simulated APIs, with Python's semantics where the checker can see them:
// int (bigint) apart from float (number), bool as an int, str, list (JS array, mutable and aliased
// like a Python list), tuple, dict and set keyed by Python hash equality (1 == 1.0 == True), and
// opaque objects (files, directories, Decimal, mpf) that define their own == and repr.
import { PyException } from './errors.js';

export type PyValue = null | boolean | bigint | number | string | PyValue[] | PyTuple | PyDict | PySet | PyObject;

/** An immutable Python tuple. */
export class PyTuple {
  constructor(readonly items: readonly PyValue[]) {}
}

/** A Python object that is not a builtin container: it names its type and may define ==, hash, repr, str. */
export abstract class PyObject {
  abstract readonly pyType: string;
  /** Python `self == other`; undefined = NotImplemented (then identity decides). */
  pyEq(_other: PyValue, _depth: number): boolean | undefined {
    return undefined;
  }
  /** Hash key for dict/set membership; undefined = unhashable (a class defining __eq__ without __hash__). */
  hashKey(): string | undefined {
    return undefined;
  }
  /** Python `self < other` and friends; undefined = NotImplemented. */
  pyCompare(_other: PyValue, _op: CompareOp): boolean | undefined {
    return undefined;
  }
  abstract pyRepr(depth: number): string;
  pyStr(depth: number): string {
    return this.pyRepr(depth);
  }
  /** Python truthiness (objects are true unless they define __bool__/__len__). */
  pyBool(): boolean {
    return true;
  }
}

/** Python's nesting limit stands in for the interpreter's recursion limit on recursive operations. */
export const MAX_NESTING = 900;

function recursionError(): PyException {
  return new PyException('RecursionError', 'maximum recursion depth exceeded');
}

let nanKeys = 0;
const numberKey = (n: number): string => {
  if (Number.isNaN(n)) return `nan:${nanKeys++}`; // each NaN is its own key (Python hashes NaN by identity)
  if (Number.isInteger(n)) return `i${BigInt(n)}`;
  if (n === Infinity) return 'finf';
  if (n === -Infinity) return 'f-inf';
  return `f${n}`;
};

/** The key under which Python would find `v` in a dict or set; throws TypeError for unhashable values. */
export function hashKey(v: PyValue, depth = 0): string {
  if (depth > MAX_NESTING) throw recursionError();
  if (v === null) return 'N';
  switch (typeof v) {
    case 'boolean':
      return v ? 'i1' : 'i0';
    case 'bigint':
      return `i${v}`;
    case 'number':
      return numberKey(v);
    case 'string':
      return `s${v}`;
  }
  if (v instanceof PyTuple) return `t(${v.items.map((x) => hashKey(x, depth + 1)).join(',')})`;
  if (v instanceof PyObject) {
    const k = v.hashKey();
    if (k !== undefined) return k;
  }
  throw new PyException('TypeError', `unhashable type: '${typeName(v)}'`);
}

/** A key with no Python equality shortcut (a tuple, an object, a NaN) stands in the dict's map as a token. */
type Token = { readonly hash: string };

/**
 * A Python dict: insertion-ordered, keyed by Python equality (1 == 1.0 == True), re-setting a key
 * keeps its first key object. Keys live in one JS Map under a canonical JS value: a str as itself
 * (so a JSON-keyed dict costs what a Map<string, …> does), an int-valued number (bool, int or
 * integral float) as a bigint, another float as a number, None as null; anything else (tuples,
 * objects, NaN, which Python hashes by identity) under a token per Python hash. The key as first
 * inserted is kept aside only when it differs from its canonical value.
 */
export class PyDict {
  private m: Map<unknown, PyValue>;
  /** Keys as first inserted, where they differ from their canonical map key. */
  private orig: Map<unknown, PyValue> | undefined;
  /** Tokens of the keys that stand in the map as a token, by Python hash. */
  private tokens: Map<string, Token> | undefined;

  /** An empty dict (`inner` only from ofStrMap: a Map with str keys, which are their own canonical keys). */
  constructor(inner?: Map<string, PyValue>) {
    this.m = inner ?? new Map();
  }

  static of(entries: Iterable<readonly [PyValue, PyValue]>): PyDict {
    const d = new PyDict();
    for (const [k, v] of entries) d.set(k, v);
    return d;
  }

  /** A dict over a Map with str keys, taken over (not copied): the JSON parser's fast path. */
  static ofStrMap(m: Map<string, PyValue>): PyDict {
    return new PyDict(m);
  }

  /** The canonical map key of `k` (creating a token when `create`); undefined = no such token yet. */
  private mapKey(k: PyValue, create: boolean): unknown {
    switch (typeof k) {
      case 'string':
      case 'bigint':
        return k;
      case 'boolean':
        return k ? 1n : 0n;
      case 'number':
        if (Number.isInteger(k)) return BigInt(k);
        if (!Number.isNaN(k)) return k; // a non-integral float or an infinity: never equal to an int
        break;
      case 'object':
        if (k === null) return null;
    }
    const hash = hashKey(k); // TypeError for unhashable keys
    let t = this.tokens?.get(hash);
    if (!t && create) {
      t = { hash };
      (this.tokens ??= new Map()).set(hash, t);
    }
    return t;
  }

  get size(): number {
    return this.m.size;
  }
  has(k: PyValue): boolean {
    return typeof k === 'string' ? this.m.has(k) : this.m.has(this.mapKey(k, false));
  }
  /** The value, or undefined when absent (Python would raise KeyError: callers decide). */
  get(k: PyValue): PyValue | undefined {
    return this.m.get(typeof k === 'string' ? k : this.mapKey(k, false));
  }
  /** `d[k]`: KeyError(repr(k)) when absent. */
  item(k: PyValue): PyValue {
    const v = this.get(k);
    if (v === undefined) throw PyException.keyError(k);
    return v;
  }
  set(k: PyValue, v: PyValue): void {
    if (typeof k === 'string') {
      this.m.set(k, v);
      return;
    }
    const mk = this.mapKey(k, true);
    if (!this.m.has(mk) && mk !== k) (this.orig ??= new Map()).set(mk, k);
    this.m.set(mk, v);
  }
  delete(k: PyValue): boolean {
    if (typeof k === 'string') return this.m.delete(k);
    const mk = this.mapKey(k, false);
    if (!this.m.delete(mk)) return false;
    this.orig?.delete(mk);
    if (mk !== null && typeof mk === 'object') this.tokens!.delete((mk as Token).hash);
    return true;
  }
  /** `d.pop(k)`: the value, KeyError when absent. */
  pop(k: PyValue): PyValue {
    const v = this.get(k);
    if (v === undefined) throw PyException.keyError(k);
    this.delete(k);
    return v;
  }
  private key(mk: unknown): PyValue {
    return typeof mk === 'string' || this.orig === undefined ? (mk as PyValue) : ((this.orig.get(mk) ?? mk) as PyValue);
  }
  /** The keys, in insertion order (a snapshot). */
  keys(): PyValue[] {
    const out: PyValue[] = [];
    for (const mk of this.m.keys()) out.push(this.key(mk));
    return out;
  }
  /** The values, in insertion order (a snapshot). */
  values(): PyValue[] {
    return [...this.m.values()];
  }
  /** The (key, value) pairs, in insertion order (a snapshot). */
  entries(): [PyValue, PyValue][] {
    const out: [PyValue, PyValue][] = [];
    for (const [mk, v] of this.m) out.push([this.key(mk), v]);
    return out;
  }
  /** Iterates (key, value) pairs live, as Map does (changing the dict meanwhile is the caller's affair). */
  *[Symbol.iterator](): IterableIterator<[PyValue, PyValue]> {
    for (const [mk, v] of this.m) yield [this.key(mk), v];
  }
  /** `dict.copy()`: a shallow copy. */
  copy(): PyDict {
    const d = new PyDict();
    d.m = new Map(this.m);
    if (this.orig) d.orig = new Map(this.orig);
    if (this.tokens) d.tokens = new Map(this.tokens);
    return d;
  }
}

/** A Python set (iteration in insertion order; Python's hash order is not reproduced). */
export class PySet {
  private readonly m = new Map<string, PyValue>();
  static of(items: Iterable<PyValue>): PySet {
    const s = new PySet();
    for (const x of items) s.add(x);
    return s;
  }
  get size(): number {
    return this.m.size;
  }
  has(v: PyValue): boolean {
    return this.m.has(hashKey(v));
  }
  add(v: PyValue): void {
    const k = hashKey(v);
    if (!this.m.has(k)) this.m.set(k, v);
  }
  values(): PyValue[] {
    return [...this.m.values()];
  }
}

export const isInt = (v: PyValue): v is bigint | boolean => typeof v === 'bigint' || typeof v === 'boolean';
export const isNumber = (v: PyValue): v is bigint | boolean | number => typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'number';
export const isList = (v: PyValue): v is PyValue[] => Array.isArray(v);

/** Python's `type(v).__name__`. */
export function typeName(v: PyValue): string {
  if (v === null) return 'NoneType';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float';
    case 'string':
      return 'str';
  }
  if (Array.isArray(v)) return 'list';
  if (v instanceof PyTuple) return 'tuple';
  if (v instanceof PyDict) return 'dict';
  if (v instanceof PySet) return 'set';
  return v.pyType;
}

/** Python truthiness. */
export function truthy(v: PyValue): boolean {
  if (v === null) return false;
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'bigint':
      return v !== 0n;
    case 'number':
      return v !== 0; // NaN is true
    case 'string':
      return v.length > 0;
  }
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (v instanceof PyDict || v instanceof PySet) return v.size > 0;
  return v.pyBool();
}

const asBig = (v: bigint | boolean): bigint => (typeof v === 'boolean' ? (v ? 1n : 0n) : v);

/** int == float without rounding (Python compares the exact values). */
function intEqFloat(i: bigint, f: number): boolean {
  if (!Number.isFinite(f) || !Number.isInteger(f)) return false;
  return BigInt(f) === i;
}

/** Python `a == b`. */
export function pyEq(a: PyValue, b: PyValue, depth = 0): boolean {
  if (depth > MAX_NESTING) throw recursionError();
  if (a === b) return typeof a !== 'number' || !Number.isNaN(a);
  if (a === null || b === null) return false;
  if (isNumber(a) && isNumber(b)) {
    if (typeof a === 'number' && typeof b === 'number') return a === b;
    if (typeof a === 'number') return intEqFloat(asBig(b as bigint | boolean), a);
    if (typeof b === 'number') return intEqFloat(asBig(a as bigint | boolean), b);
    return asBig(a) === asBig(b);
  }
  if (typeof a === 'string' || typeof b === 'string') {
    if (typeof a === 'string' && typeof b === 'string') return a === b;
    if (a instanceof PyObject) return a.pyEq(b, depth) ?? false;
    if (b instanceof PyObject) return b.pyEq(a, depth) ?? false;
    return false;
  }
  if (Array.isArray(a) && Array.isArray(b)) return seqEq(a, b, depth);
  if (a instanceof PyTuple && b instanceof PyTuple) return seqEq(a.items, b.items, depth);
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !pyEq(v, w, depth + 1)) return false;
    }
    return true;
  }
  if (a instanceof PySet && b instanceof PySet) {
    if (a.size !== b.size) return false;
    return a.values().every((x) => b.has(x));
  }
  if (a instanceof PyObject) {
    const r = a.pyEq(b, depth);
    if (r !== undefined) return r;
  }
  if (b instanceof PyObject) {
    const r = b.pyEq(a, depth);
    if (r !== undefined) return r;
  }
  return false;
}

function seqEq(a: readonly PyValue[], b: readonly PyValue[], depth: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !pyEq(a[i]!, b[i]!, depth + 1)) return false;
  return true;
}

/** Compares two strings by code point, as Python does (JS compares UTF-16 code units). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (!xs && !ys) return x - y;
    return (a.codePointAt(i) ?? x) - (b.codePointAt(i) ?? y);
  }
  return a.length - b.length;
}

export type CompareOp = '<' | '<=' | '>' | '>=';
const REFLECTED: Record<CompareOp, CompareOp> = { '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function cmpNumbers(a: bigint | boolean | number, b: bigint | boolean | number, op: CompareOp): boolean {
  const x = typeof a === 'boolean' ? (a ? 1n : 0n) : a;
  const y = typeof b === 'boolean' ? (b ? 1n : 0n) : b;
  // JS relational operators compare bigint with number by exact value.
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

/** Python rich comparison `a op b` for numbers, strings and sequences; TypeError otherwise. */
export function pyCompare(a: PyValue, b: PyValue, op: CompareOp, depth = 0): boolean {
  if (depth > MAX_NESTING) throw recursionError();
  if (isNumber(a) && isNumber(b)) return cmpNumbers(a, b, op);
  if (typeof a === 'string' && typeof b === 'string') {
    const c = compareCodePoints(a, b);
    return op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
  }
  const seqA = Array.isArray(a) ? a : a instanceof PyTuple ? a.items : undefined;
  const seqB = Array.isArray(b) ? b : b instanceof PyTuple ? b.items : undefined;
  if (seqA && seqB && Array.isArray(a) === Array.isArray(b)) {
    const n = Math.min(seqA.length, seqB.length);
    for (let i = 0; i < n; i++) {
      if (!pyEq(seqA[i]!, seqB[i]!, depth + 1)) return pyCompare(seqA[i]!, seqB[i]!, op, depth + 1);
    }
    return cmpNumbers(BigInt(seqA.length), BigInt(seqB.length), op);
  }
  if (a instanceof PyObject) {
    const r = a.pyCompare(b, op);
    if (r !== undefined) return r;
  }
  if (b instanceof PyObject) {
    const r = b.pyCompare(a, REFLECTED[op]);
    if (r !== undefined) return r;
  }
  throw new PyException('TypeError', `'${op}' not supported between instances of '${typeName(a)}' and '${typeName(b)}'`);
}

/** `x in container` for the containers the APIs test membership in. */
export function pyContains(container: PyValue, x: PyValue): boolean {
  if (typeof container === 'string') {
    if (typeof x !== 'string') throw new PyException('TypeError', `'in <string>' requires string as left operand, not ${typeName(x)}`);
    return container.includes(x);
  }
  if (Array.isArray(container)) return container.some((y) => y === x || pyEq(y, x));
  if (container instanceof PyTuple) return container.items.some((y) => y === x || pyEq(y, x));
  if (container instanceof PyDict) return container.has(x);
  if (container instanceof PySet) return container.has(x);
  throw new PyException('TypeError', `argument of type '${typeName(container)}' is not iterable`);
}

/** The items `for x in v` yields (dicts yield keys, strings their characters). */
export function pyIter(v: PyValue): PyValue[] {
  if (Array.isArray(v)) return v;
  if (v instanceof PyTuple) return [...v.items];
  if (v instanceof PyDict) return v.keys();
  if (v instanceof PySet) return v.values();
  if (typeof v === 'string') return [...v];
  throw new PyException('TypeError', `'${typeName(v)}' object is not iterable`);
}

/** `len(v)`. Strings count code points. */
export function pyLen(v: PyValue): bigint {
  if (typeof v === 'string') {
    let n = 0;
    for (const _ of v) n++;
    return BigInt(n);
  }
  if (Array.isArray(v)) return BigInt(v.length);
  if (v instanceof PyTuple) return BigInt(v.items.length);
  if (v instanceof PyDict || v instanceof PySet) return BigInt(v.size);
  throw new PyException('TypeError', `object of type '${typeName(v)}' has no len()`);
}

/** sys.maxsize: an index past it does not fit a C Py_ssize_t. */
const SSIZE_MAX = (1n << 63n) - 1n;

function indexOf(seq: readonly PyValue[], key: PyValue, what: string): number {
  if (typeof key !== 'bigint' && typeof key !== 'boolean')
    throw new PyException('TypeError', `${what} indices must be integers or slices, not ${typeName(key)}`);
  let i = typeof key === 'boolean' ? (key ? 1n : 0n) : key;
  if (i > SSIZE_MAX || i < -SSIZE_MAX - 1n) throw new PyException('IndexError', "cannot fit 'int' into an index-sized integer");
  if (i < 0n) i += BigInt(seq.length);
  if (i < 0n || i >= BigInt(seq.length)) throw new PyException('IndexError', `${what} index out of range`);
  return Number(i);
}

/** Python `container[key]`. */
export function getitem(container: PyValue, key: PyValue): PyValue {
  if (container instanceof PyDict) return container.item(key);
  if (Array.isArray(container)) return container[indexOf(container, key, 'list')]!;
  if (container instanceof PyTuple) return container.items[indexOf(container.items, key, 'tuple')]!;
  if (typeof container === 'string') {
    if (typeof key !== 'bigint' && typeof key !== 'boolean') throw new PyException('TypeError', `string indices must be integers, not '${typeName(key)}'`);
    const cps = [...container];
    return cps[indexOf(cps, key, 'string')]!;
  }
  throw new PyException('TypeError', `'${typeName(container)}' object is not subscriptable`);
}

/** Python `container[key] = value`. */
export function setitem(container: PyValue, key: PyValue, value: PyValue): void {
  if (container instanceof PyDict) {
    container.set(key, value);
    return;
  }
  if (Array.isArray(container)) {
    container[indexOf(container, key, 'list')] = value;
    return;
  }
  throw new PyException('TypeError', `'${typeName(container)}' object does not support item assignment`);
}

/** Python `d.get(key, default)` on a value that must be a dict. */
export function dictGet(d: PyValue, key: PyValue, dflt: PyValue = null): PyValue {
  if (!(d instanceof PyDict)) throw new PyException('AttributeError', `'${typeName(d)}' object has no attribute 'get'`);
  return d.get(key) ?? dflt;
}

/** A list method call on a value that must be a list. */
export function needList(v: PyValue, method: string): PyValue[] {
  if (!Array.isArray(v)) throw new PyException('AttributeError', `'${typeName(v)}' object has no attribute '${method}'`);
  return v;
}

/** A dict method call on a value that must be a dict. */
export function needDict(v: PyValue, method: string): PyDict {
  if (!(v instanceof PyDict)) throw new PyException('AttributeError', `'${typeName(v)}' object has no attribute '${method}'`);
  return v;
}

/** `list.remove(x)`: removes the first item equal to x. */
export function listRemove(list: PyValue, x: PyValue): void {
  const l = needList(list, 'remove');
  const i = l.findIndex((y) => y === x || pyEq(y, x));
  if (i < 0) throw new PyException('ValueError', 'list.remove(x): x not in list');
  l.splice(i, 1);
}

/** copy.deepcopy for data values (containers are copied, shared references stay shared). */
export function pyDeepCopy(v: PyValue, memo = new Map<object, PyValue>(), depth = 0): PyValue {
  if (v === null || typeof v !== 'object') return v;
  if (depth > MAX_NESTING) throw recursionError();
  const seen = memo.get(v);
  if (seen !== undefined) return seen;
  if (Array.isArray(v)) {
    const out: PyValue[] = [];
    memo.set(v, out);
    for (const x of v) out.push(pyDeepCopy(x, memo, depth + 1));
    return out;
  }
  if (v instanceof PyDict) {
    const out = new PyDict();
    memo.set(v, out);
    for (const [k, x] of v.entries()) out.set(pyDeepCopy(k, memo, depth + 1), pyDeepCopy(x, memo, depth + 1));
    return out;
  }
  if (v instanceof PyTuple) {
    const out = new PyTuple(v.items.map((x) => pyDeepCopy(x, memo, depth + 1)));
    memo.set(v, out);
    return out;
  }
  if (v instanceof PySet) {
    const out = PySet.of(v.values().map((x) => pyDeepCopy(x, memo, depth + 1)));
    memo.set(v, out);
    return out;
  }
  return v;
}

class Ellipsis extends PyObject {
  readonly pyType = 'ellipsis';
  override pyRepr(): string {
    return 'Ellipsis';
  }
  override hashKey(): string {
    return 'Ellipsis';
  }
}
/** Python's `...`. */
export const PY_ELLIPSIS: PyObject = new Ellipsis();

/** A Python bytes value (opaque to the APIs: equality, hashing and repr only). */
export class PyBytes extends PyObject {
  readonly pyType = 'bytes';
  constructor(
    readonly bytes: Uint8Array,
    private readonly repr: string,
  ) {
    super();
  }
  override pyEq(other: PyValue): boolean | undefined {
    if (!(other instanceof PyBytes)) return undefined;
    return other.bytes.length === this.bytes.length && other.bytes.every((b, i) => b === this.bytes[i]);
  }
  override hashKey(): string {
    return `b${Array.from(this.bytes).join(',')}`;
  }
  override pyRepr(): string {
    return this.repr;
  }
  override pyBool(): boolean {
    return this.bytes.length > 0;
  }
}
