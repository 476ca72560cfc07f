// Python arithmetic on PyValues: int (bigint, exact) and float (double) kept apart as Python keeps
// them (int op int stays int, true division and mixed operands give floats, correctly rounded), with
// Python's errors (ZeroDivisionError, OverflowError, TypeError with its operand type names), plus
// float(), int(), abs(), round(), sum(), min() and max().
import { EnvLimit, PyException, Unsupported } from './errors.js';
import { bitLength, doubleParts, ldexp } from './double.js';
import { roundFloat, strRepr } from './format.js';
import { crPow } from './mpf.js';
import { pyIntDigits, TRIM_RE } from './text.js';
import { isNumber, pyCompare, PyTuple, type PyValue, typeName } from './values.js';

/** Largest int result arbiter computes (bits); Python would go on, so beyond it the grade is refused. */
export const MAX_INT_BITS = 1 << 20;

const big = (v: bigint | boolean): bigint => (typeof v === 'boolean' ? (v ? 1n : 0n) : v);

function checkBits(n: bigint): bigint {
  if (bitLength(n) > MAX_INT_BITS) throw new EnvLimit(`an integer result is over ${MAX_INT_BITS} bits`);
  return n;
}

/** float(int), correctly rounded; OverflowError when out of range. */
export function intToFloat(n: bigint): number {
  const f = Number(n);
  if (!Number.isFinite(f)) throw new PyException('OverflowError', 'int too large to convert to float');
  return f;
}

/** a / b for ints, correctly rounded like CPython's long true division. */
export function intTrueDiv(a: bigint, b: bigint): number {
  if (b === 0n) throw new PyException('ZeroDivisionError', 'division by zero');
  const LIM = 1n << 53n;
  const neg = a < 0n !== b < 0n;
  let x = a < 0n ? -a : a;
  const y = b < 0n ? -b : b;
  if (x === 0n) return neg ? -0 : 0;
  if (x <= LIM && y <= LIM) return Number(a) / Number(b);
  const s = 55 - (bitLength(x) - bitLength(y));
  let q: bigint;
  let r: bigint;
  if (s >= 0) {
    x <<= BigInt(s);
    q = x / y;
    r = x % y;
  } else {
    const d = y << BigInt(-s);
    q = x / d;
    r = x % d;
  }
  if (r !== 0n) q |= 1n; // sticky bit: q has >= 55 bits, so rounding to 53 stays correct
  const v = ldexp(Number(q), -s);
  if (!Number.isFinite(v)) throw new PyException('OverflowError', 'integer division result too large for a float');
  return neg ? -v : v;
}

function unsupported(op: string, a: PyValue, b: PyValue): PyException {
  return new PyException('TypeError', `unsupported operand type(s) for ${op}: '${typeName(a)}' and '${typeName(b)}'`);
}

function toF(v: bigint | boolean | number): number {
  return typeof v === 'number' ? v : intToFloat(big(v));
}

/** Largest sequence repetition arbiter builds (items or characters); past it the grade is refused. */
export const MAX_REPEAT_ITEMS = 10_000_000;

function repeatCount(n: bigint, unit: number): number {
  if (n <= 0n) return 0;
  if (n * BigInt(Math.max(unit, 1)) > BigInt(MAX_REPEAT_ITEMS)) throw new EnvLimit('a repeated sequence is over 10,000,000 items');
  return Number(n);
}

/** Python a + b (`op` names the operator in a TypeError: '+=' for `a += b`). */
export function add(a: PyValue, b: PyValue, op = '+'): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') return checkBits(big(a) + big(b));
    return toF(a) + toF(b);
  }
  if (typeof a === 'string' && typeof b === 'string') {
    if (a.length + b.length > 50_000_000) throw new EnvLimit('a string is over 50,000,000 characters');
    return a + b;
  }
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b];
  if (a instanceof PyTuple && b instanceof PyTuple) return new PyTuple([...a.items, ...b.items]);
  if (typeof a === 'string' && !(typeof b === 'string')) throw new PyException('TypeError', `can only concatenate str (not "${typeName(b)}") to str`);
  if (Array.isArray(a)) throw new PyException('TypeError', `can only concatenate list (not "${typeName(b)}") to list`);
  throw unsupported(op, a, b);
}

/** Python a - b (`op` '-=' for `a -= b`). */
export function sub(a: PyValue, b: PyValue, op = '-'): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') return checkBits(big(a) - big(b));
    return toF(a) - toF(b);
  }
  throw unsupported(op, a, b);
}

/** Python a * b (`op` '*=' for `a *= b`). */
export function mul(a: PyValue, b: PyValue, op = '*'): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') {
      const x = big(a);
      const y = big(b);
      if (bitLength(x) + bitLength(y) > MAX_INT_BITS + 1) throw new EnvLimit(`an integer result is over ${MAX_INT_BITS} bits`);
      return x * y;
    }
    return toF(a) * toF(b);
  }
  const seq = (s: PyValue, n: PyValue): PyValue | undefined => {
    if (typeof n !== 'bigint' && typeof n !== 'boolean') return undefined;
    if (typeof s === 'string') return s.repeat(repeatCount(big(n), s.length));
    if (Array.isArray(s)) {
      const k = repeatCount(big(n), s.length);
      const out: PyValue[] = [];
      for (let i = 0; i < k; i++) out.push(...s);
      return out;
    }
    return undefined;
  };
  const r = seq(a, b) ?? seq(b, a);
  if (r !== undefined) return r;
  if (typeof a === 'string' || typeof b === 'string' || Array.isArray(a) || Array.isArray(b)) {
    const n = typeof a === 'string' || Array.isArray(a) ? b : a;
    throw new PyException('TypeError', `can't multiply sequence by non-int of type '${typeName(n)}'`);
  }
  throw unsupported(op, a, b);
}

/** Python a / b. */
export function truediv(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') return intTrueDiv(big(a), big(b));
    const y = toF(b);
    if (y === 0) throw new PyException('ZeroDivisionError', 'float division by zero');
    return toF(a) / y;
  }
  throw unsupported('/', a, b);
}

function floatDivmod(x: number, y: number): [number, number] {
  let mod = x % y;
  let div = (x - mod) / y;
  // C's `if (mod)` is true for NaN
  if (mod !== 0) {
    if (y < 0 !== mod < 0) {
      mod += y;
      div -= 1;
    }
  } else mod = y < 0 ? -0 : 0;
  let floordiv: number;
  if (div !== 0) {
    floordiv = Math.floor(div);
    if (div - floordiv > 0.5) floordiv += 1;
  } else floordiv = x / y < 0 || Object.is(x / y, -0) ? -0 : 0;
  return [floordiv, mod];
}

function intFloorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** Python a // b. */
export function floordiv(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') {
      if (big(b) === 0n) throw new PyException('ZeroDivisionError', 'integer division or modulo by zero');
      return intFloorDiv(big(a), big(b));
    }
    const y = toF(b);
    if (y === 0) throw new PyException('ZeroDivisionError', 'float floor division by zero');
    return floatDivmod(toF(a), y)[0];
  }
  throw unsupported('//', a, b);
}

/** Python a % b (numbers only; str % is formatting, not used by the APIs). */
export function mod(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') {
      const x = big(a);
      const y = big(b);
      if (y === 0n) throw new PyException('ZeroDivisionError', 'integer modulo by zero');
      let r = x % y;
      if (r !== 0n && r < 0n !== y < 0n) r += y;
      return r;
    }
    const y = toF(b);
    if (y === 0) throw new PyException('ZeroDivisionError', 'float modulo');
    return floatDivmod(toF(a), y)[1];
  }
  if (typeof a === 'string') throw new Unsupported('str % formatting is not evaluated');
  throw unsupported('%', a, b);
}

/** The exact double nearest to num / 2^shift * 2^exp2 (num > 0), ties to even. */
function ratioToFloat(num: bigint, den: bigint): number {
  return intTrueDiv(num, den);
}

/** x ** n for a finite double and a small integer n, from the exact rational value, correctly rounded. */
function exactFloatPowInt(x: number, n: number): number {
  const neg = x < 0 && n % 2 !== 0;
  const { num, den } = floatRatio(Math.abs(x));
  const k = BigInt(Math.abs(n));
  let p: bigint;
  let q: bigint;
  if (n >= 0) {
    p = num ** k;
    q = den ** k;
  } else {
    p = den ** k;
    q = num ** k;
  }
  const v = ratioToFloat(p, q);
  return neg ? -v : v;
}

function floatRatio(x: number): { num: bigint; den: bigint } {
  const { m, exp } = doubleParts(x);
  return exp >= 0 ? { num: m << BigInt(exp), den: 1n } : { num: m, den: 1n << BigInt(-exp) };
}

function floatPow(x: number, y: number): number {
  if (y === 0) return 1;
  if (Number.isNaN(x)) return x;
  if (Number.isNaN(y)) return x === 1 ? 1 : y;
  if (x === 0 && y < 0) throw new PyException('ZeroDivisionError', '0.0 cannot be raised to a negative power');
  if (x === 1 || (x === -1 && !Number.isFinite(y))) return 1;
  if (x < 0 && Number.isFinite(x) && Number.isFinite(y) && !Number.isInteger(y)) {
    throw new Unsupported('a negative number raised to a fractional power is complex in Python; complex results are not evaluated');
  }
  let r: number;
  if (Number.isFinite(x) && x !== 0 && Number.isInteger(y) && Math.abs(y) <= 64) r = exactFloatPowInt(x, y);
  else if (Number.isFinite(x) && x !== 0 && Number.isFinite(y)) {
    const mag = crPow(x, y) ?? Math.abs(x ** y);
    r = x < 0 && Math.abs(y % 2) === 1 ? -mag : mag;
  } else r = x ** y;
  if (!Number.isFinite(r) && Number.isFinite(x) && Number.isFinite(y)) throw new PyException('OverflowError', "(34, 'Numerical result out of range')");
  return r;
}

/** Python a ** b. */
export function pow(a: PyValue, b: PyValue): PyValue {
  if (isNumber(a) && isNumber(b)) {
    if (typeof a !== 'number' && typeof b !== 'number') {
      const x = big(a);
      const y = big(b);
      if (y >= 0n) {
        if (x === 0n || x === 1n) return y === 0n ? 1n : x;
        if (x === -1n) return y % 2n === 0n ? 1n : -1n;
        if (BigInt(bitLength(x)) * y > BigInt(MAX_INT_BITS)) throw new EnvLimit(`an integer result is over ${MAX_INT_BITS} bits`);
        return x ** y;
      }
      if (x === 0n) throw new PyException('ZeroDivisionError', '0.0 cannot be raised to a negative power');
      return floatPow(intToFloat(x), intToFloat(y));
    }
    return floatPow(toF(a), toF(b));
  }
  throw unsupported('** or pow()', a, b);
}

/** Python -a (numbers). */
export function neg(a: PyValue): PyValue {
  if (typeof a === 'number') return -a;
  if (typeof a === 'bigint' || typeof a === 'boolean') return -big(a);
  throw new PyException('TypeError', `bad operand type for unary -: '${typeName(a)}'`);
}

/** Python +a (numbers). */
export function pos(a: PyValue): PyValue {
  if (typeof a === 'number') return a;
  if (typeof a === 'bigint' || typeof a === 'boolean') return big(a);
  throw new PyException('TypeError', `bad operand type for unary +: '${typeName(a)}'`);
}

/** Python ~a (ints). */
export function invert(a: PyValue): PyValue {
  if (typeof a === 'bigint' || typeof a === 'boolean') return -big(a) - 1n;
  throw new PyException('TypeError', `bad operand type for unary ~: '${typeName(a)}'`);
}

/** Python abs(a). */
export function pyAbs(a: PyValue): PyValue {
  if (typeof a === 'number') return Math.abs(a);
  if (typeof a === 'bigint' || typeof a === 'boolean') {
    const x = big(a);
    return x < 0n ? -x : x;
  }
  throw new PyException('TypeError', `bad operand type for abs(): '${typeName(a)}'`);
}

const FLOAT_TEXT = /^[+-]?(?:(?:\d(?:_?\d)*)?\.\d(?:_?\d)*|\d(?:_?\d)*\.?)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i;

/** Python float(v). */
export function toFloat(v: PyValue): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint' || typeof v === 'boolean') return intToFloat(big(v));
  if (typeof v === 'string') {
    const t = v.replace(TRIM_RE, '');
    const sp = SPECIAL_FLOAT.exec(t);
    if (sp) return sp[2]!.toLowerCase() === 'nan' ? Number.NaN : sp[1] === '-' ? -Infinity : Infinity;
    if (FLOAT_TEXT.test(t)) return Number(t.replace(/_/g, ''));
    throw new PyException('ValueError', `could not convert string to float: ${JSON.stringify(v).replace(/^"|"$/g, "'")}`);
  }
  throw new PyException('TypeError', `float() argument must be a string or a real number, not '${typeName(v)}'`);
}

/** Python int(v) (base 10 for strings). */
export function toInt(v: PyValue): bigint {
  if (typeof v === 'bigint' || typeof v === 'boolean') return big(v);
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new PyException('ValueError', 'cannot convert float NaN to integer');
    if (!Number.isFinite(v)) throw new PyException('OverflowError', 'cannot convert float infinity to integer');
    return BigInt(Math.trunc(v));
  }
  if (typeof v === 'string') {
    const t = v.replace(TRIM_RE, '');
    if (/^[+-]?\d(?:_?\d)*$/.test(t)) return BigInt(t.replace(/_/g, ''));
    // decimal digits of any script count, as in Python
    const m = /^([+-]?)(\p{Nd}(?:_?\p{Nd})*)$/u.exec(t);
    if (m) {
      const n = pyIntDigits(m[2]!.replace(/_/g, ''));
      return m[1] === '-' ? -n : n;
    }
    throw new PyException('ValueError', `invalid literal for int() with base 10: ${strRepr(v)}`);
  }
  throw new PyException('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${typeName(v)}'`);
}

function roundHalfEvenInt(x: number): bigint {
  if (Number.isNaN(x)) throw new PyException('ValueError', 'cannot convert float NaN to integer');
  if (!Number.isFinite(x)) throw new PyException('OverflowError', 'cannot convert float infinity to integer');
  const f = Math.floor(x);
  const d = x - f;
  let r = f;
  if (d > 0.5 || (d === 0.5 && f % 2 !== 0)) r = f + 1;
  return BigInt(r);
}

/** Python round(number, ndigits); ndigits null = round to an int. */
export function pyRound(number: PyValue, ndigits: PyValue): PyValue {
  if (ndigits !== null && typeof ndigits !== 'bigint' && typeof ndigits !== 'boolean') {
    throw new PyException('TypeError', `'${typeName(ndigits)}' object cannot be interpreted as an integer`);
  }
  if (typeof number === 'number') {
    if (ndigits === null) return roundHalfEvenInt(number);
    return roundFloat(number, big(ndigits));
  }
  if (typeof number === 'bigint' || typeof number === 'boolean') {
    const n = big(number);
    if (ndigits === null || big(ndigits) >= 0n) return n;
    const p = 10n ** -big(ndigits);
    const q = intFloorDiv(n, p);
    const r = n - q * p;
    const twice = 2n * r;
    const up = twice > p || (twice === p && q % 2n !== 0n);
    return (up ? q + 1n : q) * p;
  }
  throw new PyException('TypeError', `type ${typeName(number)} doesn't define __round__ method`);
}

/** Python sum(items) (start 0, left to right). */
export function pySum(items: PyValue[]): PyValue {
  let acc: PyValue = 0n;
  for (const x of items) {
    if (typeof x === 'string') throw new PyException('TypeError', "unsupported operand type(s) for +: 'int' and 'str'");
    acc = add(acc, x);
  }
  return acc;
}

/** Python min(items) / max(items) over a non-empty list. */
export function pyMinMax(items: PyValue[], which: 'min' | 'max'): PyValue {
  if (items.length === 0) throw new PyException('ValueError', `${which}() arg is an empty sequence`);
  let best = items[0]!;
  for (let i = 1; i < items.length; i++) {
    const x = items[i]!;
    if (pyCompare(x, best, which === 'min' ? '<' : '>')) best = x;
  }
  return best;
}
