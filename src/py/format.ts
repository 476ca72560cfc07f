// Python's text forms of values: repr() and str() (float repr, string quoting and escapes, container
// syntax), json.dumps with its defaults (ensure_ascii, ", " / ": " separators, NaN/Infinity,
// non-string keys), and exact decimal formatting of floats (f"{x:.2f}", round(x, n)).
import { EnvLimit, PyException } from './errors.js';
import { doubleParts } from './double.js';
import { floatRepr, strRepr } from './repr.js';
import { MAX_NESTING, PyDict, PyObject, PySet, PyTuple, type PyValue, typeName } from './values.js';

// repr(float) and repr(str) are ./repr.ts's (the extraction layer's ast.unparse prints literals with them too).
export { floatRepr, strRepr };

/** Python refuses to print ints longer than this many digits (sys.int_info.default_max_str_digits). */
export const INT_MAX_STR_DIGITS = 4300;
/** arbiter's own cap on one rendered result (a hard limit on work per call). */
export const MAX_RENDER_CHARS = 8_000_000;

function recursion(): PyException {
  return new PyException('RecursionError', 'maximum recursion depth exceeded while getting the repr of an object');
}

export function intStr(v: bigint): string {
  const s = v.toString();
  const digits = v < 0n ? s.length - 1 : s.length;
  if (digits > INT_MAX_STR_DIGITS) {
    throw new PyException(
      'ValueError',
      `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit`,
    );
  }
  return s;
}

/** The exact value of a finite double as numerator / 2^shift. */
function exactBinary(x: number): { num: bigint; shift: bigint } {
  const { m, exp } = doubleParts(x);
  return exp >= 0 ? { num: m << BigInt(exp), shift: 0n } : { num: m, shift: BigInt(-exp) };
}

/** round-half-even of num / den for non-negative num and positive den. */
function divRoundHalfEven(num: bigint, den: bigint): bigint {
  const q = num / den;
  const r = num - q * den;
  const twice = 2n * r;
  if (twice > den || (twice === den && q % 2n === 1n)) return q + 1n;
  return q;
}

/** |x| rounded half-even to `prec` decimals, as an integer count of 10^-prec (prec may be negative). */
function scaledDecimal(x: number, prec: number): bigint {
  const { num, shift } = exactBinary(x);
  if (prec >= 0) return divRoundHalfEven(num * 10n ** BigInt(prec), 1n << shift);
  return divRoundHalfEven(num, (1n << shift) * 10n ** BigInt(-prec));
}

/** f"{x:.{prec}f}" for a float (exact value, round-half-even, like Python). */
export function formatFixed(x: number, prec: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (prec > 10_000) throw new EnvLimit(`format precision ${prec} is over arbiter's limit`);
  const n = scaledDecimal(x, prec).toString();
  const neg = x < 0 || Object.is(x, -0);
  let body: string;
  if (prec === 0) body = n;
  else {
    const padded = n.padStart(prec + 1, '0');
    body = `${padded.slice(0, padded.length - prec)}.${padded.slice(padded.length - prec)}`;
  }
  return neg ? `-${body}` : body;
}

/** Python's float.__round__(ndigits): the correctly rounded decimal, read back as a float. */
export function roundFloat(x: number, ndigits: bigint): number {
  if (!Number.isFinite(x) || x === 0) return x;
  if (ndigits > 323n) return x;
  if (ndigits < -308n) return 0 * x;
  const prec = Number(ndigits);
  const n = scaledDecimal(x, prec);
  const text = prec >= 0 ? `${n}e-${prec}` : `${n}e${-prec}`;
  const v = Number(text);
  if (!Number.isFinite(v)) throw new PyException('OverflowError', 'rounded value too large to represent');
  return x < 0 ? -v : v;
}

const hex = (n: number, w: number): string => n.toString(16).padStart(w, '0');

class Budget {
  n = 0;
  add(s: string): string {
    this.n += s.length;
    if (this.n > MAX_RENDER_CHARS) throw new EnvLimit(`a result is over ${MAX_RENDER_CHARS} characters`);
    return s;
  }
}

function reprInner(v: PyValue, depth: number, seen: Set<object>, b: Budget): string {
  if (depth > MAX_NESTING) throw recursion();
  if (v === null) return 'None';
  switch (typeof v) {
    case 'boolean':
      return v ? 'True' : 'False';
    case 'bigint':
      return b.add(intStr(v));
    case 'number':
      return floatRepr(v);
    case 'string':
      return b.add(strRepr(v));
  }
  if (v instanceof PyObject) return b.add(v.pyRepr(depth));
  if (seen.has(v)) return Array.isArray(v) ? '[...]' : v instanceof PyTuple ? '(...)' : '{...}';
  seen.add(v);
  try {
    if (Array.isArray(v)) return `[${v.map((x) => reprInner(x, depth + 1, seen, b)).join(', ')}]`;
    if (v instanceof PyTuple) {
      const parts = v.items.map((x) => reprInner(x, depth + 1, seen, b));
      return parts.length === 1 ? `(${parts[0]},)` : `(${parts.join(', ')})`;
    }
    if (v instanceof PyDict)
      return `{${v
        .entries()
        .map(([k, x]) => `${reprInner(k, depth + 1, seen, b)}: ${reprInner(x, depth + 1, seen, b)}`)
        .join(', ')}}`;
    if (v instanceof PySet)
      return v.size === 0
        ? 'set()'
        : `{${v
            .values()
            .map((x) => reprInner(x, depth + 1, seen, b))
            .join(', ')}}`;
  } finally {
    seen.delete(v);
  }
  return '?';
}

/** Python repr(v). */
export function pyRepr(v: PyValue, depth = 0): string {
  return reprInner(v, depth, new Set(), new Budget());
}

/** Python str(v). */
export function pyStr(v: PyValue, depth = 0): string {
  if (typeof v === 'string') return v;
  if (v instanceof PyObject) return v.pyStr(depth);
  return pyRepr(v, depth);
}

PyException.reprHook = (v) => pyRepr(v as PyValue);

/** A JSON string literal as json.dumps writes it (ensure_ascii: everything outside ' '..'~' escaped). */
export function jsonString(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c) {
      plain = false;
      break;
    }
  }
  if (plain) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20 || c > 0x7e) out += `\\u${hex(c, 4)}`;
    else out += s[i];
  }
  return `${out}"`;
}

/** A float as json.dumps writes it: repr, with NaN, Infinity and -Infinity (allow_nan). */
export function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return floatRepr(x);
}

function jsonKey(k: PyValue): string {
  if (typeof k === 'string') return k;
  if (k === null) return 'null';
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (typeof k === 'bigint') return intStr(k);
  if (typeof k === 'number') return jsonFloat(k);
  throw new PyException('TypeError', `keys must be str, int, float, bool or None, not ${typeName(k)}`);
}

function dumpsInner(v: PyValue, depth: number, seen: Set<object>, b: Budget): string {
  if (depth > MAX_NESTING) throw new PyException('RecursionError', 'maximum recursion depth exceeded while encoding a JSON object');
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return b.add(intStr(v));
    case 'number':
      return jsonFloat(v);
    case 'string':
      return b.add(jsonString(v));
  }
  if (Array.isArray(v) || v instanceof PyTuple || v instanceof PyDict) {
    if (seen.has(v)) throw new PyException('ValueError', 'Circular reference detected');
    seen.add(v);
    try {
      if (v instanceof PyDict) {
        if (v.size === 0) return '{}';
        return `{${v
          .entries()
          .map(([k, x]) => `${b.add(jsonString(jsonKey(k)))}: ${dumpsInner(x, depth + 1, seen, b)}`)
          .join(', ')}}`;
      }
      const items = Array.isArray(v) ? v : v.items;
      return `[${items.map((x) => dumpsInner(x, depth + 1, seen, b)).join(', ')}]`;
    } finally {
      seen.delete(v);
    }
  }
  throw new PyException('TypeError', `Object of type ${typeName(v)} is not JSON serializable`);
}

/** Python json.dumps(v) with default arguments. */
export function jsonDumps(v: PyValue): string {
  return dumpsInner(v, 0, new Set(), new Budget());
}
