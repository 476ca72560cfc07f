// High-precision re-evaluation for comparisons whose double arithmetic lost the precision to
// decide (sin of a huge argument, cancellation of huge terms, exponentials of large values).
// Ball arithmetic in BigInt fixed point: a value is an integer m with a radius r >= 0 at scale
// 2^P, standing for every real in [(m - r)/2^P, (m + r)/2^P]. Every operation rounds outward, so
// the true value is always inside its ball; a comparison is decided only when the balls say so
// (equal: the whole of both balls is within the tolerance; unequal: no point of them is), with P
// raised step by step (128 .. 8192 bits) while undecided. Real constants only; functions:
// sqrt, roots, abs, exp, ln/log/log_b, sin/cos/tan/sec/csc/cot, sinh/cosh/tanh, integer and
// rational powers, and everything the exact path evaluates (factorials, binomials, floor, ...).
// Values larger than 2^MAX_PRECISE_BITS are not evaluated ('magnitude').
import type { Node } from './ast.js';
import { type EvalMode, exact, exactWide, freeVars } from './evaluate.js';
import { type Budget, MAX_PRECISE_BITS } from './limits.js';
import { bitLength, Rational } from './rational.js';

/** Working precisions tried in turn (fraction bits). */
export const PRECISIONS = [128, 512, 2048, 8192] as const;

/** Why a precise evaluation stopped: an unsupported node, a value over the magnitude cap, or a domain problem (ln of a ball holding 0). */
export class PreciseStop extends Error {
  constructor(
    readonly why: 'unsupported' | 'magnitude' | 'domain',
    message: string,
  ) {
    super(message);
  }
}

interface Ball {
  m: bigint;
  r: bigint;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

/** Exact bit length of |x| (rational.ts's bitLength rounds up to whole hex digits). */
function bitLen(x: bigint): number {
  if (x < 0n) x = -x;
  if (x === 0n) return 0;
  const h = x.toString(16);
  return (h.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(h[0]!, 16)));
}

class Fixed {
  readonly p: bigint;
  readonly one: bigint;
  constructor(
    readonly bits: number,
    readonly mode: EvalMode,
    readonly budget: Budget,
    readonly env: Map<string, Rational>,
  ) {
    this.p = BigInt(bits);
    this.one = 1n << this.p;
  }

  /** Counts work in proportion to the size of the numbers involved. */
  private tick(x: bigint): void {
    this.budget.tick(1 + (bitLength(x) >> 10));
  }

  private check(b: Ball, what: string): Ball {
    if (bitLength(abs(b.m) + b.r) - this.bits > MAX_PRECISE_BITS) throw new PreciseStop('magnitude', `${what} is larger than 2^${MAX_PRECISE_BITS}`);
    return b;
  }

  rational(q: Rational): Ball {
    if (bitLength(q.n) - bitLength(q.d) > MAX_PRECISE_BITS + 1)
      throw new PreciseStop('magnitude', `the number ${q.toShort()} is larger than 2^${MAX_PRECISE_BITS}`);
    const num = q.n << this.p;
    const m = num / q.d;
    return { m, r: m * q.d === num ? 0n : 1n };
  }

  add(a: Ball, b: Ball): Ball {
    return { m: a.m + b.m, r: a.r + b.r };
  }
  neg(a: Ball): Ball {
    return { m: -a.m, r: a.r };
  }
  mul(a: Ball, b: Ball): Ball {
    const prod = a.m * b.m;
    this.tick(prod);
    const m = prod >> this.p;
    const inexact = m << this.p !== prod ? 1n : 0n;
    const r = a.r === 0n && b.r === 0n ? inexact : ((abs(a.m) * b.r + abs(b.m) * a.r + a.r * b.r) >> this.p) + 1n + inexact;
    return this.check({ m, r }, 'a product');
  }
  div(a: Ball, b: Ball): Ball {
    const bm = abs(b.m);
    if (bm <= b.r) throw new PreciseStop('domain', 'a divisor is zero within its error');
    const num = a.m << this.p;
    this.tick(num);
    const m = num / b.m;
    const inexact = m * b.m !== num ? 1n : 0n;
    const r = a.r === 0n && b.r === 0n ? inexact : ((abs(a.m) * b.r + bm * a.r) << this.p) / (bm * (bm - b.r)) + 1n + inexact;
    return this.check({ m, r }, 'a quotient');
  }
  /** A ball that certainly holds the value of n. */
  eval(n: Node): Ball {
    this.budget.tick();
    if (n.k !== 'num' && n.k !== 'var' && !this.env.size) {
      const q = exactWide(n, this.mode, this.budget);
      if (q) return this.rational(q);
    }
    switch (n.k) {
      case 'num':
        return this.rational(n.q);
      case 'var': {
        const q = this.env.get(n.name);
        if (!q) throw new PreciseStop('unsupported', `the variable ${n.name}`);
        return this.rational(q);
      }
      case 'const':
        if (n.name === 'pi') return { m: pi(this.bits), r: 1n };
        if (n.name === 'e') return this.exp({ m: this.one, r: 0n });
        throw new PreciseStop('unsupported', n.name === 'i' ? 'a complex value' : 'an infinity');
      case 'add': {
        let s: Ball = { m: 0n, r: 0n };
        for (const t of n.terms) s = this.add(s, this.eval(t));
        return this.check(s, 'a sum');
      }
      case 'neg':
        return this.neg(this.eval(n.a));
      case 'pm':
        return this.eval(n.a);
      case 'mul':
        return this.mul(this.eval(n.a), this.eval(n.b));
      case 'div':
        return this.div(this.eval(n.a), this.eval(n.b));
      case 'pow':
        return this.pow(n.a, n.b);
      case 'pct':
        return this.mode.pct === 'div' ? this.div(this.eval(n.a), this.rational(Rational.of(100n))) : this.eval(n.a);
      case 'deg':
        return this.mode.deg === 'rad' ? this.div(this.mul(this.eval(n.a), { m: pi(this.bits), r: 1n }), this.rational(Rational.of(180n))) : this.eval(n.a);
      case 'fn':
        return this.fn(n.name, n.args);
      default:
        throw new PreciseStop('unsupported', `a ${n.k}`);
    }
  }

  private pow(base: Node, expo: Node): Ball {
    const eq = exact(expo, this.mode, this.budget);
    if (eq?.isInt()) {
      let k = eq.n < 0n ? -eq.n : eq.n;
      const b = this.eval(base);
      // a magnitude check before the loop: |b|^k must stay under the cap
      const top = bitLen(abs(b.m) + b.r) - this.bits;
      if (top > 1 && BigInt(top - 1) * k > BigInt(MAX_PRECISE_BITS)) throw new PreciseStop('magnitude', `a power is larger than 2^${MAX_PRECISE_BITS}`);
      let acc: Ball = { m: this.one, r: 0n };
      let sq = b;
      while (k > 0n) {
        if (k & 1n) acc = this.mul(acc, sq);
        k >>= 1n;
        if (k > 0n) sq = this.mul(sq, sq);
      }
      return eq.n < 0n ? this.div({ m: this.one, r: 0n }, acc) : acc;
    }
    if (eq && eq.d === 2n && eq.n === 1n) return this.sqrt(this.eval(base));
    // a^b = exp(b ln a) for a > 0
    const b = this.eval(base);
    return this.exp(this.mul(this.eval(expo), this.ln(b)));
  }

  private fn(name: string, args: Node[]): Ball {
    const a0 = args[0];
    if (!a0) throw new PreciseStop('unsupported', `\\${name} without an argument`);
    switch (name) {
      case 'sqrt':
        return this.sqrt(this.eval(a0));
      case 'root': {
        const k = args[1] && exact(args[1], this.mode, this.budget);
        if (!k?.isInt() || k.n < 2n) throw new PreciseStop('unsupported', 'a root of non-integer order');
        const x = this.eval(a0);
        if (x.m - x.r <= 0n) throw new PreciseStop(x.m + x.r < 0n && k.n % 2n === 1n ? 'unsupported' : 'domain', 'a root of a value not positive');
        return this.exp(this.div(this.ln(x), this.rational(Rational.of(k.n))));
      }
      case 'abs': {
        const x = this.eval(a0);
        if (abs(x.m) <= x.r) return { m: (abs(x.m) + x.r + 1n) >> 1n, r: (abs(x.m) + x.r + 1n) >> 1n };
        return { m: abs(x.m), r: x.r };
      }
      case 'exp':
        return this.exp(this.eval(a0));
      case 'ln':
        return this.ln(this.eval(a0));
      case 'log':
        return this.div(this.ln(this.eval(a0)), this.ln(this.rational(Rational.of(10n))));
      case 'logb': {
        const b = args[1];
        if (!b) throw new PreciseStop('unsupported', 'a logarithm without a base');
        return this.div(this.ln(this.eval(a0)), this.ln(this.eval(b)));
      }
      case 'sin':
      case 'cos':
      case 'tan':
      case 'sec':
      case 'csc':
      case 'cot': {
        const { s, c } = this.sinCos(this.eval(a0));
        const one: Ball = { m: this.one, r: 0n };
        if (name === 'sin') return s;
        if (name === 'cos') return c;
        if (name === 'tan') return this.div(s, c);
        if (name === 'sec') return this.div(one, c);
        if (name === 'csc') return this.div(one, s);
        return this.div(c, s);
      }
      case 'sinh':
      case 'cosh':
      case 'tanh': {
        const x = this.eval(a0);
        const ep = this.exp(x);
        const em = this.exp(this.neg(x));
        if (name === 'sinh') return half(this.add(ep, this.neg(em)));
        if (name === 'cosh') return half(this.add(ep, em));
        return this.div(this.add(ep, this.neg(em)), this.add(ep, em));
      }
      default:
        throw new PreciseStop('unsupported', `\\${name}`);
    }
  }

  sqrt(x: Ball): Ball {
    if (x.m + x.r < 0n) throw new PreciseStop('unsupported', 'the square root of a negative value');
    const lo = x.m - x.r;
    if (lo <= 0n) {
      const hi = isqrt((x.m + x.r) << this.p) + 1n;
      return { m: (hi + 1n) >> 1n, r: (hi + 1n) >> 1n };
    }
    this.tick(x.m);
    const m = isqrt(x.m << this.p);
    const r = x.r === 0n ? 1n : (x.r << this.p) / (isqrt(lo << this.p) + m) + 2n;
    return { m, r };
  }

  /** e^x: x = k ln 2 + y with |y| <= ln 2 / 2 + error, the Taylor series of e^y, shifted by k. */
  exp(x: Ball): Ball {
    if (x.r >= this.one) throw new PreciseStop('domain', 'no digits are left of an exponent');
    const l2 = ln2(this.bits + 8) >> 8n;
    const k = roundDiv(x.m, l2);
    if (abs(k) > BigInt(MAX_PRECISE_BITS)) {
      if (k < 0n) return { m: 0n, r: 1n }; // e^x < 2^-MAX: zero within one unit
      throw new PreciseStop('magnitude', `an exponential is larger than 2^${MAX_PRECISE_BITS}`);
    }
    // y at extra guard bits, so that k times the error of ln 2 stays below one unit
    const g = BigInt(bitLength(k) + 16);
    const wp = this.p + g;
    const y = (x.m << g) - k * ln2(this.bits + Number(g));
    let term = 1n << wp;
    let sum = term;
    let j = 1n;
    for (; ; j++) {
      term = (term * y) / (j << wp);
      this.tick(term);
      if (term === 0n) break;
      sum += term;
    }
    // at wp: each term carries under 2 units of rounding (|y| < 1 shrinks the inherited error),
    // the tail after the last term is under 1 unit, and y's error (|k| + 1 units) grows by e^y < 2
    const errW = 2n * j + 4n + 2n * (abs(k) + 1n);
    let m: bigint;
    let r: bigint;
    if (k >= 0n) {
      m = (sum << k) >> g;
      r = (errW << k) >> g;
    } else {
      m = sum >> (g - k);
      r = errW >> (g - k);
    }
    r += 2n;
    // the input radius: e^(x+d) - e^x <= e^x (e^|d| - 1) <= 2 |d| e^x for |d| <= 1
    if (x.r > 0n) r += ((abs(m) + r) * 2n * x.r) >> this.p;
    return this.check({ m, r }, 'an exponential');
  }

  /** ln x for x > 0: x = 2^k z with z in [1, 2), ln z = 2 atanh((z-1)/(z+1)). */
  ln(x: Ball): Ball {
    const lo = x.m - x.r;
    if (lo <= 0n) throw new PreciseStop(x.m + x.r < 0n ? 'unsupported' : 'domain', 'the logarithm of a value not positive');
    const g = 16n;
    const wp = this.p + g;
    const xm = x.m << g; // at scale wp
    const k = BigInt(bitLength(xm) - 1) - wp;
    const z = k >= 0n ? xm >> k : xm << -k; // in [2^wp, 2^(wp+1))
    const one = 1n << wp;
    const u = ((z - one) << wp) / (z + one);
    const u2 = (u * u) >> wp;
    let pw = u;
    let sum = 0n;
    let terms = 0n;
    for (let j = 1n; ; j += 2n) {
      const t = pw / j;
      this.tick(pw);
      if (t === 0n) break;
      sum += t;
      terms++;
      pw = (pw * u2) >> wp;
    }
    const lnz = 2n * sum;
    const l2 = ln2(this.bits + 16 + bitLength(k));
    const shift = BigInt(bitLength(k));
    const total = lnz + ((k * l2) >> shift);
    const m = total >> g;
    // at wp: u within 2 units (its error grows by at most 2 through the series), under 3 units of
    // rounding per term, a tail under 1 unit (u <= 1/3), all doubled; k ln 2 within 2 units
    let r = ((2n * (3n * terms + 8n) + 2n) >> g) + 2n;
    if (x.r > 0n) r += (x.r << this.p) / lo + 1n;
    return { m, r };
  }

  /** sin and cos of a ball: x = k π/2 + y, |y| <= π/4 (+ error), Taylor series of y, quadrant of k. */
  sinCos(x: Ball): { s: Ball; c: Ball } {
    if (x.r >= this.one) return { s: { m: 0n, r: this.one }, c: { m: 0n, r: this.one } }; // nothing left of the angle
    const halfPi = pi(this.bits + 4) >> 5n;
    const k = roundDiv(x.m, halfPi);
    const g = BigInt(bitLength(k) + 16);
    const wp = this.p + g;
    const halfPiW = pi(this.bits + Number(g) + 1) >> 2n;
    const y = (x.m << g) - k * halfPiW;
    this.tick(y);
    const y2 = (y * y) >> wp;
    // sin y = y - y^3/3! + ...; cos y = 1 - y^2/2! + ...
    let ts = y;
    let ss = y;
    let tc = 1n << wp;
    let sc = tc;
    let j = 1n;
    for (; ; j++) {
      ts = -(ts * y2) / ((2n * j * (2n * j + 1n)) << wp);
      tc = -(tc * y2) / (((2n * j - 1n) * (2n * j)) << wp);
      this.tick(ts);
      if (ts === 0n && tc === 0n) break;
      ss += ts;
      sc += tc;
    }
    // at wp: under 2 units of rounding per term (the divisors shrink inherited errors), a tail under
    // 1 unit, and the reduced angle's error (|k| + 1 units; sin and cos are 1-Lipschitz)
    const errW = 2n * j + 4n + abs(k) + 2n;
    const r = (errW >> g) + 2n + x.r;
    const sb: Ball = { m: ss >> g, r };
    const cb: Ball = { m: sc >> g, r };
    const q = Number(((k % 4n) + 4n) % 4n);
    const neg = (b: Ball): Ball => ({ m: -b.m, r: b.r });
    if (q === 0) return { s: sb, c: cb };
    if (q === 1) return { s: cb, c: neg(sb) };
    if (q === 2) return { s: neg(sb), c: neg(cb) };
    return { s: neg(cb), c: sb };
  }
}

const half = (b: Ball): Ball => ({ m: b.m >> 1n, r: (b.r >> 1n) + 1n });

/** round(a / b) for b > 0. */
function roundDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  const rem = a - q * b;
  if (2n * abs(rem) >= b) return q + (a < 0n ? -1n : 1n);
  return q;
}

/** floor(sqrt(a)) for a >= 0. */
function isqrt(a: bigint): bigint {
  if (a < 2n) return a;
  let x = 1n << BigInt((bitLength(a) >> 1) + 1);
  for (;;) {
    const y = (x + a / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

/** atan(1/n) at scale 2^bits (truncation and rounding below 2 units per 100 terms). */
function atanInv(n: bigint, bits: bigint): bigint {
  let pw = (1n << bits) / n;
  const n2 = n * n;
  let sum = 0n;
  for (let j = 1n, sign = 1n; pw !== 0n; j += 2n, sign = -sign) {
    sum += (sign * pw) / j;
    pw /= n2;
  }
  return sum;
}

let PI_CACHE: { bits: number; v: bigint } | undefined;
/** π at scale 2^bits, within 1 unit (Machin's formula with guard bits, cached at the largest precision asked). */
export function pi(bits: number): bigint {
  if (!PI_CACHE || PI_CACHE.bits < bits) {
    const b = Math.max(bits, 256);
    const w = BigInt(b + 32);
    const v = (16n * atanInv(5n, w) - 4n * atanInv(239n, w)) >> 32n;
    PI_CACHE = { bits: b, v };
  }
  return PI_CACHE.v >> BigInt(PI_CACHE.bits - bits);
}

let LN2_CACHE: { bits: number; v: bigint } | undefined;
/** ln 2 at scale 2^bits, within 1 unit: 2 atanh(1/3) = 2 Σ 1/((2j+1) 3^(2j+1)). */
function ln2(bits: number): bigint {
  if (!LN2_CACHE || LN2_CACHE.bits < bits) {
    const b = Math.max(bits, 256);
    const w = BigInt(b + 32);
    let pw = (1n << w) / 3n;
    let sum = 0n;
    for (let j = 1n; pw !== 0n; j += 2n) {
      sum += pw / j;
      pw /= 9n;
    }
    LN2_CACHE = { bits: b, v: (2n * sum) >> 32n };
  }
  return LN2_CACHE.v >> BigInt(LN2_CACHE.bits - bits);
}

export type PreciseVerdict =
  | { kind: 'equal' | 'unequal'; bits: number; why: string }
  | { kind: 'undecided'; why: string }
  | { kind: 'over'; side: 'reference' | 'answer'; why: string };

/** tol as a fraction num / 2^60 (tolerances below 2^-60 count as 0). */
const TOL_BITS = 60n;

/**
 * Decides whether two real values agree within rel_tol (or abs_tol) by ball arithmetic, raising
 * the precision while the balls cannot tell. `env` gives exact values to variables (a real sample
 * point). A side over the magnitude cap is reported with which side it is.
 */
export function preciseCompare(
  g: Node,
  a: Node,
  mode: EvalMode,
  budget: Budget,
  tol: number,
  absTol: number,
  env: Map<string, Rational> = new Map(),
): PreciseVerdict {
  for (const v of [...freeVars(g), ...freeVars(a)]) if (!env.has(v)) return { kind: 'undecided', why: `no exact value for the variable ${v}` };
  if (!env.size) {
    // rational values within the magnitude limit compare exactly (no tolerance)
    const qg = exactWide(g, mode, budget);
    const qa = qg && exactWide(a, mode, budget);
    if (qg && qa)
      return {
        kind: qg.eq(qa) ? 'equal' : 'unequal',
        bits: 0,
        why: qg.eq(qa) ? 'exact values equal (exact arithmetic up to the magnitude limit)' : 'exact values differ (exact arithmetic up to the magnitude limit)',
      };
  }
  const tolN = BigInt(Math.floor(tol * 2 ** Number(TOL_BITS)));
  let last = '';
  for (const bits of PRECISIONS) {
    const f = new Fixed(bits, mode, budget, env);
    let G: Ball;
    let A: Ball;
    try {
      G = f.eval(g);
    } catch (e) {
      if (!(e instanceof PreciseStop)) throw e;
      if (e.why === 'magnitude') return { kind: 'over', side: 'reference', why: e.message };
      if (e.why === 'unsupported') return { kind: 'undecided', why: `the reference has ${e.message}, which the precise evaluator does not support` };
      last = `the reference: ${e.message}`;
      continue;
    }
    try {
      A = f.eval(a);
    } catch (e) {
      if (!(e instanceof PreciseStop)) throw e;
      if (e.why === 'magnitude') return { kind: 'over', side: 'answer', why: e.message };
      if (e.why === 'unsupported') return { kind: 'undecided', why: `the answer has ${e.message}, which the precise evaluator does not support` };
      last = `the answer: ${e.message}`;
      continue;
    }
    const d = abs(G.m - A.m);
    const R = G.r + A.r;
    const sLo = (abs(G.m) > abs(A.m) ? abs(G.m) : abs(A.m)) - R;
    const sHi = (abs(G.m) > abs(A.m) ? abs(G.m) : abs(A.m)) + R;
    const absT = absTol > 0 ? (BigInt(Math.floor(absTol * 2 ** 52)) << f.p) >> 52n : 0n;
    const tLo = sLo > 0n ? (sLo * tolN) >> TOL_BITS : 0n;
    const tHi = (sHi * tolN) >> TOL_BITS;
    if (d + R <= (tLo > absT ? tLo : absT)) return { kind: 'equal', bits, why: `equal within ${tol} at ${bits}-bit precision (interval arithmetic)` };
    if (d > R && d - R > (tHi > absT ? tHi : absT)) return { kind: 'unequal', bits, why: `differ at ${bits}-bit precision (interval arithmetic)` };
    // both hold zero, within 2^(-bits/2) at the last precision: zero, as the double path's noise rule
    if (bits === PRECISIONS[PRECISIONS.length - 1] && abs(G.m) <= G.r && abs(A.m) <= A.r && R <= 1n << BigInt(bits >> 1)) {
      return { kind: 'equal', bits, why: `both zero within 2^-${bits >> 1} at ${bits}-bit precision (interval arithmetic)` };
    }
    last = `still within each other's error at ${bits}-bit precision`;
  }
  return { kind: 'undecided', why: last };
}

/** A finite double as an exact rational. */
export function rationalOfDouble(x: number): Rational | undefined {
  if (!Number.isFinite(x)) return undefined;
  if (Number.isInteger(x)) return Rational.of(BigInt(x));
  let k = 0n;
  let v = x;
  while (!Number.isInteger(v)) {
    v *= 2;
    k++;
  }
  return Rational.of(BigInt(v), 1n << k);
}
