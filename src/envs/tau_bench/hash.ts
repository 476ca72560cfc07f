// tau-bench's state comparison: its data hash is sha256 of str(to_hashable(data)), where dicts become
// tuples of (key, value) pairs sorted by key and lists become tuples. Two states hash alike exactly
// when their hashable forms print alike, so the comparison here works on that form directly (ints
// and floats differ, True and 1 differ, a dict equals the list of its sorted pairs), and can name the
// first place where two states differ; `hashableSha256` computes the hash itself, byte for byte.
import { createHash, type Hash } from 'node:crypto';
import { floatRepr, intStr, pyRepr, strRepr } from '../../py/format.js';
import { PyDict, type PyValue, typeName } from '../../py/ops.js';
import { compareCodePoints, pyCompare } from '../../py/values.js';

/** sorted(d.items()) (what to_hashable makes of a dict): str keys by code point, other keys as Python orders them. */
function sortedEntries(d: PyDict): [PyValue, PyValue][] {
  const entries = d.entries();
  if (entries.every((e) => typeof e[0] === 'string')) return entries.sort((a, b) => compareCodePoints(a[0] as string, b[0] as string));
  // keys are distinct, so the pairs order by their keys (a TypeError for keys Python cannot order)
  return entries.sort((a, b) => (pyCompare(a[0], b[0], '<') ? -1 : pyCompare(b[0], a[0], '<') ? 1 : 0));
}

/** repr() of a value, with the scalars (nearly everything a database holds) printed directly. */
function repr(v: PyValue): string {
  switch (typeof v) {
    case 'string':
      return strRepr(v);
    case 'bigint':
      return intStr(v);
    case 'number':
      return floatRepr(v);
    case 'boolean':
      return v ? 'True' : 'False';
  }
  return v === null ? 'None' : pyRepr(v);
}

const ATOM_SEP = ', ';

/** Streams repr(to_hashable(v)) into `h`, through a small buffer. */
class Sink {
  private buf: string[] = [];
  private size = 0;
  constructor(private readonly h: Hash) {}
  push(s: string): void {
    this.buf.push(s);
    this.size += s.length;
    if (this.size > 1 << 16) this.flush();
  }
  flush(): void {
    if (this.buf.length) this.h.update(this.buf.join(''), 'utf8');
    this.buf = [];
    this.size = 0;
  }
}

/** Supplies the printed hashable form of a value at a given depth when it is known already (a cache). */
export type KnownRepr = (v: PyValue, depth: number) => string | undefined;

function writeHashable(v: PyValue, sink: Sink, known?: KnownRepr, depth = 0): void {
  if (known && typeof v === 'object' && v !== null) {
    const r = known(v, depth);
    if (r !== undefined) {
      sink.push(r);
      return;
    }
  }
  if (Array.isArray(v)) {
    sink.push('(');
    for (let i = 0; i < v.length; i++) {
      if (i) sink.push(ATOM_SEP);
      writeHashable(v[i]!, sink, known, depth + 1);
    }
    sink.push(v.length === 1 ? ',)' : ')');
  } else if (v instanceof PyDict) {
    const entries = sortedEntries(v);
    sink.push('(');
    for (let i = 0; i < entries.length; i++) {
      if (i) sink.push(ATOM_SEP);
      sink.push('(');
      sink.push(repr(entries[i]![0]));
      sink.push(ATOM_SEP);
      writeHashable(entries[i]![1], sink, known, depth + 1);
      sink.push(')');
    }
    sink.push(entries.length === 1 ? ',)' : ')');
  } else sink.push(repr(v));
}

/** sha256 hex of str(to_hashable(v)), as tau-bench's consistent_hash computes it. */
export function hashableSha256(v: PyValue, known?: KnownRepr): string {
  const h = createHash('sha256');
  const sink = new Sink(h);
  writeHashable(v, sink, known);
  sink.flush();
  return h.digest('hex');
}

/** str(to_hashable(v)). */
export function hashableRepr(v: PyValue): string {
  const parts: string[] = [];
  const sink = { push: (s: string) => parts.push(s), flush: () => undefined } as unknown as Sink;
  writeHashable(v, sink);
  return parts.join('');
}

/** A value as the sequence to_hashable turns it into (undefined for atoms). */
function asSeq(v: PyValue): PyValue[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof PyDict) return sortedEntries(v).map(([k, x]) => [k, x]);
  return undefined;
}

function sameAtom(a: PyValue, b: PyValue): boolean {
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b as number));
  if (typeof a === 'object' && a !== null) return a === b || repr(a) === repr(b); // a tuple or object prints as itself
  return a === b;
}

/** True when str(to_hashable(a)) == str(to_hashable(b)). */
export function sameHashable(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  if (a instanceof PyDict && b instanceof PyDict) {
    if (a.size !== b.size) return false;
    let strKeys = true;
    for (const [k, x] of a) {
      // keys equal in Python (1, 1.0, True) may print apart: those dicts compare as their sorted pairs
      if (typeof k !== 'string') {
        strKeys = false;
        break;
      }
      const y = b.get(k);
      if (y === undefined || !sameHashable(x, y)) return false;
    }
    if (strKeys) return true;
  }
  const sa = asSeq(a);
  const sb = asSeq(b);
  if (sa === undefined || sb === undefined) return sa === sb && sameAtom(a, b);
  if (sa.length !== sb.length) return false;
  for (let i = 0; i < sa.length; i++) if (!sameHashable(sa[i]!, sb[i]!)) return false;
  return true;
}

const SHOW = 80;

/** A short display of a value in a reason. */
export function show(v: PyValue | undefined): string {
  if (v === undefined) return '(absent)';
  const r = repr(v);
  return r.length > SHOW ? `${r.slice(0, SHOW)}… (${typeName(v)})` : r;
}

function keyPath(base: string, k: PyValue): string {
  if (typeof k !== 'string') return `${base}[${repr(k)}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${base}.${k}` : `${base}[${JSON.stringify(k)}]`;
}

/**
 * Where `a` and `b` first differ in their hashable forms (keys in sorted order), as
 * `path: <a> vs <b>`; undefined when they are the same.
 */
export function firstDifference(a: PyValue | undefined, b: PyValue | undefined, path: string): string | undefined {
  if (a === undefined || b === undefined) return a === b ? undefined : `${path}: ${show(a)} vs ${show(b)}`;
  if (sameHashable(a, b)) return undefined;
  if (a instanceof PyDict && b instanceof PyDict) {
    const keys = sortedEntries(PyDict.of([...a.keys(), ...b.keys()].map((k) => [k, null]))).map((e) => e[0]);
    for (const k of keys) {
      const d = firstDifference(a.get(k), b.get(k), keyPath(path, k));
      if (d) return d;
    }
  } else if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.min(a.length, b.length);
    for (let i = 0; i < n; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return `${path}[${n}]: ${show(a[n])} vs ${show(b[n])}`;
  }
  return `${path}: ${show(a)} vs ${show(b)}`;
}
