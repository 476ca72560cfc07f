// The part of Python's decimal module MathAPI.square_root uses: Decimal(int | float | str) exactly,
// Decimal.sqrt() under a context precision (round-half-even, the ideal exponent for exact roots, as
// the General Decimal Arithmetic spec and CPython do), and str()/repr().
import { EnvLimit, PyException } from './errors.js';
import { doubleParts } from './double.js';
import { PyObject, type PyValue, typeName } from './values.js';

export const MAX_DECIMAL_PREC = 5000;

export class PyDecimal extends PyObject {
  readonly pyType = 'Decimal';
  constructor(
    readonly sign: 0 | 1,
    /** Coefficient digits (no leading zeros, '0' for zero). */
    readonly digits: string,
    readonly exp: number,
  ) {
    super();
  }

  /** Decimal(v) for an int, float or numeric string. */
  static from(v: PyValue): PyDecimal {
    if (typeof v === 'boolean') v = v ? 1n : 0n;
    if (typeof v === 'bigint') return new PyDecimal(v < 0n ? 1 : 0, (v < 0n ? -v : v).toString(), 0);
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new EnvLimit('Decimal of inf or nan is not evaluated');
      const neg = v < 0 || Object.is(v, -0) ? 1 : 0;
      const { num, shift } = binary(Math.abs(v));
      // num / 2^shift = num * 5^shift / 10^shift
      return new PyDecimal(neg, (num * 5n ** BigInt(shift)).toString(), -shift).normalizedDigits();
    }
    if (typeof v === 'string') {
      const m = /^\s*([+-])?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?\s*$/.exec(v.replace(/_/g, ''));
      if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new PyException('InvalidOperation', "[<class 'decimal.ConversionSyntax'>]");
      const frac = m[3] ?? '';
      const digits = (m[2]! + frac).replace(/^0+(?=\d)/, '');
      return new PyDecimal(m[1] === '-' ? 1 : 0, digits, Number(m[4] ?? 0) - frac.length);
    }
    throw new PyException('TypeError', `conversion from ${typeName(v)} to Decimal is not supported`);
  }

  private normalizedDigits(): PyDecimal {
    const d = this.digits.replace(/^0+(?=\d)/, '');
    return new PyDecimal(this.sign, d, this.exp);
  }

  isZero(): boolean {
    return /^0+$/.test(this.digits);
  }

  /** Decimal.sqrt() at context precision `prec`. */
  sqrt(prec: number): PyDecimal {
    if (prec > MAX_DECIMAL_PREC) throw new EnvLimit(`decimal precision ${prec} is over arbiter's limit ${MAX_DECIMAL_PREC}`);
    if (this.isZero()) return new PyDecimal(this.sign, '0', Math.floor(this.exp / 2));
    if (this.sign === 1) throw new PyException('InvalidOperation', "[<class 'decimal.InvalidOperation'>]");
    const p = prec + 1;
    let e = this.exp >> 1;
    let c: bigint;
    let l: number;
    if (this.exp & 1) {
      c = BigInt(this.digits) * 10n;
      l = (this.digits.length >> 1) + 1;
    } else {
      c = BigInt(this.digits);
      l = (this.digits.length + 1) >> 1;
    }
    const shift = p - l;
    let exact: boolean;
    if (shift >= 0) {
      c *= 100n ** BigInt(shift);
      exact = true;
    } else {
      const d = 100n ** BigInt(-shift);
      exact = c % d === 0n;
      c /= d;
    }
    e -= shift;
    let n = 10n ** BigInt(p);
    for (;;) {
      const q = c / n;
      if (n <= q) break;
      n = (n + q) >> 1n;
    }
    exact = exact && n * n === c;
    if (exact) {
      if (shift >= 0) n /= 10n ** BigInt(shift);
      else n *= 10n ** BigInt(-shift);
      e += shift;
    } else if (n % 5n === 0n) n += 1n;
    return roundHalfEven(0, n.toString(), e, prec);
  }

  override pyEq(other: PyValue): boolean | undefined {
    if (other instanceof PyDecimal) return this.compare(other) === 0;
    return undefined;
  }

  private compare(o: PyDecimal): number {
    const a = this.value();
    const b = o.value();
    const e = Math.min(a.exp, b.exp);
    const x = a.n * 10n ** BigInt(a.exp - e);
    const y = b.n * 10n ** BigInt(b.exp - e);
    return x < y ? -1 : x > y ? 1 : 0;
  }

  private value(): { n: bigint; exp: number } {
    const n = BigInt(this.digits);
    return { n: this.sign ? -n : n, exp: this.exp };
  }

  /** str(Decimal), scientific notation as the spec's to-scientific-string. */
  override pyStr(): string {
    const sign = this.sign ? '-' : '';
    const d = this.digits;
    const leftdigits = this.exp + d.length;
    const dotplace = this.exp <= 0 && leftdigits > -6 ? leftdigits : 1;
    let intpart: string;
    let fracpart: string;
    if (dotplace <= 0) {
      intpart = '0';
      fracpart = `.${'0'.repeat(-dotplace)}${d}`;
    } else if (dotplace >= d.length) {
      intpart = d + '0'.repeat(dotplace - d.length);
      fracpart = '';
    } else {
      intpart = d.slice(0, dotplace);
      fracpart = `.${d.slice(dotplace)}`;
    }
    const e = leftdigits - dotplace;
    const exp = leftdigits === dotplace ? '' : `E${e >= 0 ? '+' : '-'}${Math.abs(e)}`;
    return sign + intpart + fracpart + exp;
  }

  override pyRepr(): string {
    return `Decimal('${this.pyStr()}')`;
  }

  override pyBool(): boolean {
    return !this.isZero();
  }
}

function binary(x: number): { num: bigint; shift: number } {
  let { m, exp } = doubleParts(x);
  if (m === 0n) return { num: 0n, shift: 0 };
  while (exp < 0 && (m & 1n) === 0n) {
    m >>= 1n;
    exp++;
  }
  return exp >= 0 ? { num: m << BigInt(exp), shift: 0 } : { num: m, shift: -exp };
}

/** Rounds a coefficient to `prec` digits, half-even (Decimal._fix for in-range exponents). */
function roundHalfEven(sign: 0 | 1, digits: string, exp: number, prec: number): PyDecimal {
  if (digits.length <= prec) return new PyDecimal(sign, digits, exp);
  const drop = digits.length - prec;
  let keep = BigInt(digits.slice(0, prec));
  const rest = digits.slice(prec);
  const first = rest.charCodeAt(0) - 48;
  const tail = /[1-9]/.test(rest.slice(1));
  if (first > 5 || (first === 5 && (tail || keep % 2n === 1n))) keep += 1n;
  let out = keep.toString();
  let e = exp + drop;
  if (out.length > prec) {
    out = out.slice(0, prec);
    e += 1;
  }
  return new PyDecimal(sign, out, e);
}
