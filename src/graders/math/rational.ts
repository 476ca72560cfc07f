// Exact rational numbers on BigInt, denominator positive. Used for every literal (integers,
// decimals, scientific notation) and for arithmetic that stays rational. Values are reduced by
// their gcd while that is cheap (the smaller part at most REDUCE_BITS bits); larger ones stay
// unreduced and compare by cross-multiplication, so no untrusted input can force a slow gcd.

/** Above this size (bits of the smaller of numerator and denominator) fractions are not reduced. */
const REDUCE_BITS = 2048;

export class Rational {
  constructor(
    readonly n: bigint,
    readonly d: bigint,
  ) {}

  static readonly ZERO = new Rational(0n, 1n);
  static readonly ONE = new Rational(1n, 1n);

  static of(n: bigint, d: bigint = 1n): Rational {
    if (d === 0n) throw new RangeError('division by zero');
    if (d < 0n) {
      n = -n;
      d = -d;
    }
    if (d === 1n) return new Rational(n, 1n);
    const an = n < 0n ? -n : n;
    if (Math.min(bitLength(an), bitLength(d)) > REDUCE_BITS) return n % d === 0n ? new Rational(n / d, 1n) : new Rational(n, d);
    const g = gcd(an, d);
    return g === 1n ? new Rational(n, d) : new Rational(n / g, d / g);
  }

  /** Parses `123`, `-1.5`, `.25`, `1.5e-3` exactly; returns undefined for anything else. */
  static parse(s: string): Rational | undefined {
    const rep = /^(\d*)\.(\d*)\((\d+)\)$/.exec(s);
    if (rep) {
      // 0.5(3) = 0.5333...: (digits with one period - digits without) / (10^k (10^r - 1))
      const [, int, fixed, period] = rep as unknown as [string, string, string, string];
      const full = BigInt((int || '0') + fixed + period);
      const head = BigInt((int || '0') + fixed);
      return Rational.of(full - head, 10n ** BigInt(fixed.length) * (10n ** BigInt(period.length) - 1n));
    }
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(s);
    if (!m || (m[2] === '' && (m[3] === undefined || m[3] === ''))) return undefined;
    const frac = m[3] ?? '';
    let n = BigInt((m[2] || '0') + frac);
    let d = 10n ** BigInt(frac.length);
    if (m[4]) {
      const e = Number(m[4]);
      if (Math.abs(e) > 5000) return undefined;
      if (e >= 0) n *= 10n ** BigInt(e);
      else d *= 10n ** BigInt(-e);
    }
    if (m[1] === '-') n = -n;
    return Rational.of(n, d);
  }

  isInt(): boolean {
    return this.d === 1n;
  }
  isZero(): boolean {
    return this.n === 0n;
  }
  sign(): number {
    return this.n > 0n ? 1 : this.n < 0n ? -1 : 0;
  }
  neg(): Rational {
    return new Rational(-this.n, this.d);
  }
  add(o: Rational): Rational {
    if (this.d === 1n && o.d === 1n) return new Rational(this.n + o.n, 1n);
    return Rational.of(this.n * o.d + o.n * this.d, this.d * o.d);
  }
  sub(o: Rational): Rational {
    return this.add(o.neg());
  }
  mul(o: Rational): Rational {
    if (this.d === 1n && o.d === 1n) return new Rational(this.n * o.n, 1n);
    return Rational.of(this.n * o.n, this.d * o.d);
  }
  /** Undefined when dividing by zero. */
  div(o: Rational): Rational | undefined {
    if (o.n === 0n) return undefined;
    return Rational.of(this.n * o.d, this.d * o.n);
  }
  /** Integer power; the caller bounds the size of the result. */
  pow(e: bigint): Rational | undefined {
    if (e === 0n) return Rational.ONE;
    if (e < 0n) {
      if (this.n === 0n) return undefined;
      return Rational.of(this.d ** -e, this.n ** -e);
    }
    return new Rational(this.n ** e, this.d ** e);
  }
  eq(o: Rational): boolean {
    if (this.d === o.d) return this.n === o.n;
    return this.n * o.d === o.n * this.d;
  }
  /** Bits of the larger of numerator and denominator (a size measure for caps). */
  bits(): number {
    return Math.max(bitLength(this.n), bitLength(this.d));
  }
  /** Natural log of |value| (-Infinity for 0), accurate for values far outside double range. */
  lnAbs(): number {
    return lnBig(this.n) - lnBig(this.d);
  }
  cmp(o: Rational): number {
    const a = this.n * o.d;
    const b = o.n * this.d;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  /** Nearest double, correct for values far beyond 2^53. */
  toNumber(): number {
    const { n, d } = this;
    if (d === 1n) return Number(n);
    const an = n < 0n ? -n : n;
    if (an < 9007199254740992n && d < 9007199254740992n) return Number(n) / Number(d);
    const shift = 64 - (bitLength(an) - bitLength(d));
    const q = shift >= 0 ? (an << BigInt(shift)) / d : an / (d << BigInt(-shift));
    const v = Number(q) * Math.pow(2, -shift);
    return n < 0n ? -v : v;
  }
  toString(): string {
    return this.d === 1n ? this.n.toString() : `${this.n}/${this.d}`;
  }
  /** Printable form: exact when short, else an order of magnitude (a 10,000-digit value is not printed). */
  toShort(): string {
    if (this.bits() <= 200) return this.toString();
    return `${this.n < 0n ? '-' : ''}${sciFromLog10(this.lnAbs() / Math.LN10)} (about ${this.bits()} bits)`;
  }
}

/** 10^l10 written as m.mmmmmme±N, for values far outside double range. */
export function sciFromLog10(l10: number): string {
  let e = Math.floor(l10);
  let m = Math.pow(10, l10 - e).toFixed(6);
  if (m.startsWith('10')) {
    e += 1;
    m = '1.000000';
  }
  return `${m}e${e}`;
}

/** Natural log of |a| for a BigInt of any size (-Infinity for 0). */
export function lnBig(a: bigint): number {
  if (a < 0n) a = -a;
  if (a === 0n) return -Infinity;
  if (a < 9007199254740992n) return Math.log(Number(a));
  const bits = bitLength(a);
  const shift = bits - 64;
  return Math.log(Number(a >> BigInt(shift))) + shift * Math.LN2;
}

export function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a;
}

export function bitLength(a: bigint): number {
  if (a < 0n) a = -a;
  if (a === 0n) return 0;
  if (a < 9007199254740992n) return Math.floor(Math.log2(Number(a))) + 1;
  return a.toString(16).length * 4;
}

/** Exact integer square root when `a` is a perfect square, else undefined. */
export function exactSqrt(a: bigint): bigint | undefined {
  if (a < 0n) return undefined;
  if (a < 2n) return a;
  let x: bigint;
  if (a < 9007199254740992n) {
    x = BigInt(Math.round(Math.sqrt(Number(a))));
  } else {
    x = 1n << BigInt(Math.ceil(bitLength(a) / 2));
    for (;;) {
      const y = (x + a / x) >> 1n;
      if (y >= x) break;
      x = y;
    }
  }
  for (const c of [x - 1n, x, x + 1n]) if (c >= 0n && c * c === a) return c;
  return undefined;
}
