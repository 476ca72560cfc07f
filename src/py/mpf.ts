// The part of mpmath MathAPI.logarithm uses: `mp.dps = n` (dps_to_prec), mpf values from ints,
// floats and decimal strings, log() rounded to the working precision (mpmath's near-1 shortcut
// included), correctly rounded division, complex results for negative arguments, and the repr
// mpmath prints (to_str with repr_dps digits). The logarithm is computed with 80 guard bits and
// rounded once; mpmath rounds its own 20-guard-bit approximation, so the two can differ only when
// the true value lies within about 2^-20 of an ulp from a rounding boundary.
import { EnvLimit, PyException } from './errors.js';
import { bitLength, doubleParts, ldexp } from './double.js';
import { PyObject, type PyValue, typeName } from './values.js';

/** Largest mp.dps arbiter evaluates. */
export const MAX_MP_DPS = 2000;
const LOG2_10 = 3.3219280948873626; // Python's math.log(10, 2)

export type Mpf = { k: 'zero' } | { k: 'inf'; neg: boolean } | { k: 'nan' } | { k: 'num'; neg: boolean; man: bigint; exp: number };

const ZERO: Mpf = { k: 'zero' };
const NAN: Mpf = { k: 'nan' };

function pyRoundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5 || (d === 0.5 && f % 2 !== 0)) return f + 1;
  return f;
}

export function dpsToPrec(n: number): number {
  return Math.max(1, Math.trunc(pyRoundHalfEven((Math.trunc(n) + 1) * LOG2_10)));
}

export function precToDps(n: number): number {
  return Math.max(1, Math.trunc(pyRoundHalfEven(Math.trunc(n) / LOG2_10) - 1));
}

export function reprDps(prec: number): number {
  const dps = precToDps(prec);
  return dps === 15 ? 17 : dps + 3;
}

/** Rounds ±man·2^exp to `prec` bits, half to even, and strips trailing zero bits. */
export function normalize(neg: boolean, man: bigint, exp: number, prec: number): Mpf {
  if (man === 0n) return ZERO;
  const bc = bitLength(man);
  if (bc > prec) {
    const shift = bc - prec;
    const s = BigInt(shift);
    let q = man >> s;
    const rem = man & ((1n << s) - 1n);
    const half = 1n << (s - 1n);
    if (rem > half || (rem === half && (q & 1n) === 1n)) q += 1n;
    man = q;
    exp += shift;
  }
  while ((man & 1n) === 0n) {
    man >>= 1n;
    exp++;
  }
  return { k: 'num', neg, man, exp };
}

export function fromInt(n: bigint): Mpf {
  return n === 0n ? ZERO : normalize(n < 0n, n < 0n ? -n : n, 0, Number.MAX_SAFE_INTEGER);
}

export function fromFloat(x: number): Mpf {
  if (Number.isNaN(x)) return NAN;
  if (!Number.isFinite(x)) return { k: 'inf', neg: x < 0 };
  if (x === 0) return ZERO;
  const { m, exp } = doubleParts(x);
  return normalize(x < 0, m, exp, 64);
}

/** mpf(str) at working precision: decimal literals only. */
function fromDecimalString(s: string, prec: number): Mpf | undefined {
  const t = s.trim().toLowerCase();
  if (t === 'inf' || t === '+inf' || t === 'infinity') return { k: 'inf', neg: false };
  if (t === '-inf' || t === '-infinity') return { k: 'inf', neg: true };
  if (t === 'nan') return NAN;
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/.exec(t);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) return undefined;
  const frac = m[3] ?? '';
  const digits = BigInt((m[2] || '0') + frac);
  const e10 = Number(m[4] ?? 0) - frac.length;
  if (Math.abs(e10) > 10_000) throw new EnvLimit("an mpf string exponent is over arbiter's limit");
  if (digits === 0n) return ZERO;
  const neg = m[1] === '-';
  if (e10 >= 0) return normalize(neg, digits * 10n ** BigInt(e10), 0, prec);
  return divRational(neg, digits, 10n ** BigInt(-e10), prec);
}

/** ±p/q rounded to prec bits (correctly, via a sticky bit). */
function divRational(neg: boolean, p: bigint, q: bigint, prec: number): Mpf {
  const shift = prec + 3 - (bitLength(p) - bitLength(q));
  let n: bigint;
  let r: bigint;
  if (shift >= 0) {
    n = (p << BigInt(shift)) / q;
    r = (p << BigInt(shift)) % q;
  } else {
    n = p / (q << BigInt(-shift));
    r = p % (q << BigInt(-shift));
  }
  n = (n << 1n) | (r !== 0n ? 1n : 0n);
  return normalize(neg, n, -shift - 1, prec);
}

/** mpmath's ctx.convert for the argument types MathAPI can receive. */
export function toMpf(v: PyValue, prec: number): Mpf {
  if (typeof v === 'boolean') return fromInt(v ? 1n : 0n);
  if (typeof v === 'bigint') return fromInt(v);
  if (typeof v === 'number') return fromFloat(v);
  if (typeof v === 'string') {
    const r = fromDecimalString(v, prec);
    if (r) return r;
  }
  if (v instanceof PyMpf) return v.v;
  const shown = typeof v === 'string' ? `'${v}'` : v === null ? 'None' : typeName(v);
  throw new PyException('TypeError', `cannot create mpf from ${shown}`);
}

const ln2Cache = new Map<number, bigint>();
/** atanh(1/x) · 2^w for an integer x >= 2. */
function atanhInv(x: bigint, w: number): bigint {
  const one = 1n << BigInt(w);
  const x2 = x * x;
  let term = one / x;
  let sum = term;
  for (let k = 3n; term !== 0n; k += 2n) {
    term /= x2;
    sum += term / k;
  }
  return sum;
}
function ln2Fixed(w: number): bigint {
  let v = ln2Cache.get(w);
  if (v === undefined) {
    v = (2n * atanhInv(3n, w + 10)) >> 10n;
    if (ln2Cache.size > 64) ln2Cache.clear();
    ln2Cache.set(w, v);
  }
  return v;
}
function atanInv(x: bigint, w: number): bigint {
  const one = 1n << BigInt(w);
  const x2 = x * x;
  let term = one / x;
  let sum = term;
  let sign = -1n;
  for (let k = 3n; term !== 0n; k += 2n) {
    term /= x2;
    sum += (sign * term) / k;
    sign = -sign;
  }
  return sum;
}
function piFixed(w: number): bigint {
  const g = w + 10;
  return (16n * atanInv(5n, g) - 4n * atanInv(239n, g)) >> 10n;
}

/** ln(man·2^exp)·2^w (man > 0), accurate to a few units in the last place. */
function lnFixed(man: bigint, exp: number, w: number): bigint {
  const g = w + 16;
  const bc = bitLength(man);
  // x = y·2^k with y in [0.75, 1.5)
  let k = exp + bc; // y0 = man / 2^bc in [0.5, 1)
  let num = man;
  const den = 1n << BigInt(bc);
  if (num * 4n < den * 3n) {
    num *= 2n;
    k -= 1;
  }
  // ln y = 2 atanh(z), z = (y-1)/(y+1) = (num-den)/(num+den)
  const zn = num - den;
  const zd = num + den;
  const one = 1n << BigInt(g);
  let term = (zn * one) / zd; // z·2^g
  const z2n = zn * zn;
  const z2d = zd * zd;
  let sum = term;
  for (let i = 3n; term !== 0n; i += 2n) {
    term = (term * z2n) / z2d;
    sum += term / i;
  }
  const lny = 2n * sum;
  const total = lny + BigInt(k) * ln2Fixed(g);
  return total >> 16n;
}

/** mpmath mpf_log(x, prec, round_nearest); negative x is signalled with `undefined` (complex result). */
export function mpfLog(x: Mpf, prec: number): Mpf | undefined {
  if (x.k === 'zero') return { k: 'inf', neg: true };
  if (x.k === 'inf') return x.neg ? undefined : x;
  if (x.k === 'nan') return NAN;
  if (x.neg) return undefined;
  const { man, exp } = x;
  if (man === 1n && exp === 0) return ZERO;
  const bc = bitLength(man);
  const mag = exp + bc;
  const absMag = Math.abs(mag);
  const wp = prec + 20;
  let extra = 0;
  if (absMag <= 1) {
    const tsign = 1 - absMag;
    const tman = tsign ? (1n << BigInt(bc)) - man : man - (1n << BigInt(bc - 1));
    const tbc = bitLength(tman);
    const cancellation = bc - tbc;
    if (cancellation > wp) return normalize(tsign === 1, tman, absMag - bc, prec);
    extra = bc + 4;
  }
  const w = prec + 80 + extra;
  if (w > 40_000) throw new EnvLimit("logarithm precision is over arbiter's limit");
  const l = lnFixed(man, exp, w);
  return l < 0n ? normalize(true, -l, -w, prec) : normalize(false, l, -w, prec);
}

/** mpf_div(a, b, prec, round_nearest), with mpmath's order of special cases. */
export function mpfDiv(a: Mpf, b: Mpf, prec: number): Mpf {
  if (a.k !== 'num' || b.k !== 'num') {
    if (a.k === 'zero') {
      if (b.k === 'zero') throw new PyException('ZeroDivisionError', '');
      return b.k === 'nan' ? NAN : ZERO;
    }
    if (b.k === 'zero') throw new PyException('ZeroDivisionError', '');
    const sSpecial = a.k !== 'num';
    const tSpecial = b.k !== 'num';
    if (sSpecial && tSpecial) return NAN;
    if (a.k === 'nan' || b.k === 'nan') return NAN;
    if (!tSpecial) return { k: 'inf', neg: (a as { neg: boolean }).neg !== (b as { neg: boolean }).neg };
    return ZERO;
  }
  const r = divRational(a.neg !== b.neg, a.man, b.man, prec);
  return r.k === 'num' ? { ...r, exp: r.exp + a.exp - b.exp } : r;
}

/** mpf_mul(a, b) without rounding (mpc_div multiplies exactly). */
export function mpfMul(a: Mpf, b: Mpf): Mpf {
  if (a.k === 'nan' || b.k === 'nan') return NAN;
  if (a.k === 'zero' || b.k === 'zero') return a.k === 'inf' || b.k === 'inf' ? NAN : ZERO;
  if (a.k === 'inf' || b.k === 'inf') return { k: 'inf', neg: (a as { neg: boolean }).neg !== (b as { neg: boolean }).neg };
  return normalize(a.neg !== b.neg, a.man * b.man, a.exp + b.exp, Number.MAX_SAFE_INTEGER);
}

/** mpf_add(a, b, prec). */
export function mpfAdd(a: Mpf, b: Mpf, prec: number): Mpf {
  if (a.k === 'nan' || b.k === 'nan') return NAN;
  if (a.k === 'zero') return b.k === 'num' ? normalize(b.neg, b.man, b.exp, prec) : b;
  if (b.k === 'zero') return a.k === 'num' ? normalize(a.neg, a.man, a.exp, prec) : a;
  if (a.k === 'inf' || b.k === 'inf') {
    if (a.k === 'inf' && b.k === 'inf') return a.neg === b.neg ? a : NAN;
    return a.k === 'inf' ? a : b;
  }
  const e = Math.min(a.exp, b.exp);
  if (Math.max(a.exp, b.exp) - e > 100_000) throw new EnvLimit('an mpf sum spans too many bits');
  const x = (a.neg ? -a.man : a.man) << BigInt(a.exp - e);
  const y = (b.neg ? -b.man : b.man) << BigInt(b.exp - e);
  const s = x + y;
  return s < 0n ? normalize(true, -s, e, prec) : normalize(false, s, e, prec);
}

const neg = (x: Mpf): Mpf => (x.k === 'num' || x.k === 'inf' ? { ...x, neg: !x.neg } : x);

/** pi rounded to prec bits. */
function mpfPi(prec: number): Mpf {
  const w = prec + 30;
  return normalize(false, piFixed(w), -w, prec);
}

/** to_digits_exp: decimal digits of |s| rounded toward zero, and the decimal exponent. */
function toDigitsExp(s: Extract<Mpf, { k: 'num' }>, dps: number): [string, number] {
  const bc = bitLength(s.man);
  const bitprec = Math.trunc(dps * LOG2_10) + 10;
  if (Math.abs(s.exp + bc) > 3500) throw new EnvLimit('an mpf with a magnitude over 2^3500 is not printed by arbiter');
  const fixprec = Math.max(bitprec - s.exp - bc, 0);
  const fixdps = Math.trunc(fixprec / LOG2_10 + 0.5);
  const offset = s.exp + fixprec;
  const sf = offset >= 0 ? s.man << BigInt(offset) : s.man >> BigInt(-offset);
  const sd = (sf * 10n ** BigInt(fixdps)) >> BigInt(fixprec);
  const digits = sd.toString();
  return [digits, digits.length - fixdps - 1];
}

/** mpmath to_str(s, dps) with its defaults. */
export function mpfToStr(s: Mpf, dps: number): string {
  if (s.k === 'zero') return '0.0';
  if (s.k === 'inf') return s.neg ? '-inf' : '+inf';
  if (s.k === 'nan') return 'nan';
  const sign = s.neg ? '-' : '';
  const minFixed = Math.min(-Math.floor(dps / 3), -5);
  const maxFixed = dps;
  let [digits, exponent] = toDigitsExp(s, dps + 3);
  if (digits.length > dps && '56789'.includes(digits[dps]!)) {
    digits = digits.slice(0, dps);
    let i = dps - 1;
    while (i >= 0 && digits[i] === '9') i--;
    if (i >= 0) digits = digits.slice(0, i) + String(Number(digits[i]) + 1) + '0'.repeat(dps - i - 1);
    else {
      digits = `1${'0'.repeat(dps - 1)}`;
      exponent += 1;
    }
  } else digits = digits.slice(0, dps);
  let split: number;
  if (minFixed < exponent && exponent < maxFixed) {
    if (exponent < 0) {
      digits = '0'.repeat(-exponent) + digits;
      split = 1;
    } else {
      split = exponent + 1;
      if (split > dps) digits += '0'.repeat(split - dps);
    }
    exponent = 0;
  } else split = 1;
  digits = `${digits.slice(0, split)}.${digits.slice(split)}`;
  digits = digits.replace(/0+$/, '');
  if (digits.endsWith('.')) digits += '0';
  if (exponent === 0) return sign + digits;
  return exponent >= 0 ? `${sign}${digits}e+${exponent}` : `${sign}${digits}e${exponent}`;
}

/** An mpmath mpf value as a Python object (printed with the precision it was computed at). */
export class PyMpf extends PyObject {
  readonly pyType = 'mpf';
  constructor(
    readonly v: Mpf,
    readonly prec: number,
  ) {
    super();
  }
  override pyRepr(): string {
    return `mpf('${mpfToStr(this.v, reprDps(this.prec))}')`;
  }
  override pyStr(): string {
    return mpfToStr(this.v, precToDps(this.prec));
  }
}

/** An mpmath mpc value. */
export class PyMpc extends PyObject {
  readonly pyType = 'mpc';
  constructor(
    readonly re: Mpf,
    readonly im: Mpf,
    readonly prec: number,
  ) {
    super();
  }
  override pyRepr(): string {
    const d = reprDps(this.prec);
    return `mpc(real='${mpfToStr(this.re, d)}', imag='${mpfToStr(this.im, d)}')`;
  }
}

type Num = { re: Mpf; im?: Mpf };

function logNum(x: Mpf, prec: number): Num {
  const r = mpfLog(x, prec);
  if (r) return { re: r };
  // log of a negative real: (log|x|, pi)
  if (x.k === 'inf') return { re: { k: 'inf', neg: false }, im: mpfPi(prec) };
  return { re: mpfLog(neg(x), prec)!, im: mpfPi(prec) };
}

/** mpmath.log(value) / mpmath.log(base) at dps `dps`, as the Python object mpmath returns. */
export function logRatio(value: PyValue, base: PyValue, dps: PyValue): PyObject {
  let n: number;
  if (typeof dps === 'bigint' || typeof dps === 'boolean') n = Number(dps);
  else if (typeof dps === 'number') {
    if (!Number.isFinite(dps))
      throw new PyException(
        Number.isNaN(dps) ? 'ValueError' : 'OverflowError',
        Number.isNaN(dps) ? 'cannot convert float NaN to integer' : 'cannot convert float infinity to integer',
      );
    n = Math.trunc(dps);
  } else if (typeof dps === 'string' && /^\s*[+-]?\d+\s*$/.test(dps)) n = Number(dps.trim());
  else if (typeof dps === 'string') throw new PyException('ValueError', `invalid literal for int() with base 10: '${dps}'`);
  else throw new PyException('TypeError', `int() argument must be a string, a bytes-like object or a real number, not '${typeName(dps)}'`);
  if (n > MAX_MP_DPS) throw new EnvLimit(`mp.dps ${n} is over arbiter's limit ${MAX_MP_DPS}`);
  const prec = dpsToPrec(n);
  const a = logNum(toMpf(value, prec), prec);
  const b = logNum(toMpf(base, prec), prec);
  if (!a.im && !b.im) return new PyMpf(mpfDiv(a.re, b.re, prec), prec);
  if (!b.im) return new PyMpc(mpfDiv(a.re, b.re, prec), mpfDiv(a.im!, b.re, prec), prec);
  // complex divisor: mpc_div with wp = prec + 10
  const wp = prec + 10;
  const ar = a.re;
  const ai = a.im ?? ZERO;
  const c = b.re;
  const d = b.im;
  const mag = mpfAdd(mpfMul(c, c), mpfMul(d, d), wp);
  const t = mpfAdd(mpfMul(ar, c), mpfMul(ai, d), wp);
  const u = mpfAdd(mpfMul(ai, c), neg(mpfMul(ar, d)), wp);
  return new PyMpc(mpfDiv(t, mag, prec), mpfDiv(u, mag, prec), prec);
}

// ---- correctly rounded double log and pow (what glibc's libm returns, as Python's math uses) ----

function splitDouble(x: number): { man: bigint; exp: number } {
  const r = fromFloat(x);
  if (r.k !== 'num') throw new Error('splitDouble of a special value');
  return { man: r.man, exp: r.exp };
}

/** An mpf of at most 53 bits as a double (normal range), or undefined when it would be subnormal. */
function toDouble(m: Mpf): number | undefined {
  if (m.k === 'zero') return 0;
  if (m.k !== 'num') return undefined;
  const e = m.exp + bitLength(m.man);
  if (e > 1024) return m.neg ? -Infinity : Infinity;
  if (e < -1021) return undefined;
  const v = ldexp(Number(m.man), m.exp);
  return m.neg ? -v : v;
}

/** ln(x) for a finite double x > 0, correctly rounded. */
export function crLog(x: number): number {
  if (x === 1) return 0;
  const { man, exp } = splitDouble(x);
  const bc = bitLength(man);
  const w = 140 + (Math.abs(exp + bc) <= 1 ? bc + 8 : 0);
  const l = lnFixed(man, exp, w);
  return toDouble(l < 0n ? normalize(true, -l, -w, 53) : normalize(false, l, -w, 53)) ?? Math.log(x);
}

/** exp(t·2^-w)·2^scale... as an mpf rounded to `prec` bits, for a fixed-point t. */
function expFixed(t: bigint, w: number, prec: number): Mpf {
  const g = w + 20;
  const tt = t << 20n;
  const ln2 = ln2Fixed(g);
  // k = round(t / ln2)
  let k = tt / ln2;
  let r = tt - k * ln2;
  if (r * 2n > ln2) {
    k += 1n;
    r -= ln2;
  } else if (r * 2n < -ln2) {
    k -= 1n;
    r += ln2;
  }
  const one = 1n << BigInt(g);
  let term = one;
  let sum = one;
  for (let i = 1n; term !== 0n; i++) {
    term = (term * r) / (one * i);
    sum += term;
  }
  return normalize(false, sum, Number(k) - g, prec);
}

/** |x|^y for finite non-zero x and finite y (x > 0, or y an integer), correctly rounded; undefined for subnormal results. */
export function crPow(x: number, y: number): number | undefined {
  const ax = Math.abs(x);
  const approx = y * Math.log(ax);
  if (approx > 720) return Infinity;
  if (approx < -760) return 0;
  const { man, exp } = splitDouble(ax);
  const bc = bitLength(man);
  const ym = splitDouble(Math.abs(y));
  const yBits = ym.exp + bitLength(ym.man);
  const w = 160 + Math.max(0, yBits) + (Math.abs(exp + bc) <= 1 ? bc + 8 : 0);
  const l = lnFixed(man, exp, w); // ln|x| · 2^w
  // t = y · ln|x| at scale 2^w
  let t = l * ym.man;
  t = ym.exp >= 0 ? t << BigInt(ym.exp) : t >> BigInt(-ym.exp);
  if (y < 0) t = -t;
  const r = toDouble(expFixed(t, w, 53));
  if (r === undefined) return undefined;
  return r;
}
