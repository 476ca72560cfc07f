// Double evaluation: the complex double value of an expression at an assignment of its variables,
// with the RANGE flags (a value left floating-point range; an approximation from a limit, integral or
// series), its own rounding-error estimate (withError), and the special functions it needs.
import type { Node } from './ast.js';
import * as X from './complex.js';
import type { C } from './complex.js';
import type { Budget } from './limits.js';
import { exact, exactBig, exactFn, MAX_TERMS, SAFE, spreadArgs } from './exact.js';
import type { EvalMode } from './evaluate.js';

export type Env = Map<string, C>;

const PI: C = { re: Math.PI, im: 0 };
const E: C = { re: Math.E, im: 0 };
const I: C = { re: 0, im: 1 };
const INF: C = { re: Infinity, im: 0 };

/**
 * Set (to 1) by `numeric` when a finite, non-zero computation left double range: a result
 * overflowed to ±Infinity, or a non-zero value fell below TINY (underflow). Callers reset it
 * before an evaluation and read it after; a flagged value is not evidence of anything.
 * `approx` is set when a value came from a numeric limit, integral or infinite series (compared
 * with APPROX_TOL).
 */
export const RANGE = { hit: 0, approx: 0 };
const TINY = 1e-300;

function mag(v: C): number {
  return Math.max(Math.abs(v.re), Math.abs(v.im));
}
/** Flags a result that overflowed from finite inputs, or underflowed from non-zero ones. */
function ranged(v: C, finiteIn: boolean, nonzeroIn: boolean): C {
  const m = mag(v);
  if (m === Infinity) {
    if (finiteIn) RANGE.hit = 1;
  } else if (m < TINY && nonzeroIn && (m !== 0 || finiteIn)) RANGE.hit = 1;
  return v;
}
const fin = (v: C) => Number.isFinite(v.re) && Number.isFinite(v.im);
const nz = (v: C) => v.re !== 0 || v.im !== 0;

/** Complex double value at an assignment of the variables (NaN where undefined). */
export function numeric(n: Node, env: Env, mode: EvalMode, budget: Budget): C {
  budget.tick();
  switch (n.k) {
    case 'num': {
      const v = n.q.toNumber();
      const m = Math.abs(v);
      if (m === Infinity || (m < TINY && !n.q.isZero())) RANGE.hit = 1;
      return { re: v, im: 0 };
    }
    case 'const':
      return n.name === 'pi' ? PI : n.name === 'e' ? E : n.name === 'i' ? I : INF;
    case 'var':
      return env.get(n.name) ?? X.NAN;
    case 'add': {
      let re = 0;
      let im = 0;
      let finiteIn = true;
      for (const t of n.terms) {
        const v = numeric(t, env, mode, budget);
        if (finiteIn && !fin(v)) finiteIn = false;
        re += v.re;
        im += v.im;
      }
      return ranged({ re, im }, finiteIn, false);
    }
    case 'neg':
      return X.cneg(numeric(n.a, env, mode, budget));
    case 'pm':
      return numeric(n.a, env, mode, budget);
    case 'mul': {
      const a = numeric(n.a, env, mode, budget);
      const b = numeric(n.b, env, mode, budget);
      return ranged(X.cmul(a, b), fin(a) && fin(b), nz(a) && nz(b));
    }
    case 'div': {
      const a = numeric(n.a, env, mode, budget);
      const b = numeric(n.b, env, mode, budget);
      return ranged(X.cdiv(a, b), fin(a) && fin(b), nz(a));
    }
    case 'pow': {
      const a = numeric(n.a, env, mode, budget);
      const b = numeric(n.b, env, mode, budget);
      if (a.im === 0 && b.im === 0 && a.re < 0 && !Number.isInteger(b.re)) {
        // real odd roots of negatives: (-8)^(1/3) = -2
        const q = n.b.k === 'div' ? exact(n.b, mode, budget) : undefined;
        if (q && q.d % 2n === 1n) {
          const v = Math.pow(-a.re, b.re);
          return ranged({ re: q.n % 2n === 0n ? v : -v, im: 0 }, Number.isFinite(b.re), true);
        }
      }
      return ranged(X.cpow(a, b), fin(a) && fin(b), nz(a));
    }
    case 'pct': {
      const v = numeric(n.a, env, mode, budget);
      return mode.pct === 'div' ? { re: v.re / 100, im: v.im / 100 } : v;
    }
    case 'deg': {
      const v = numeric(n.a, env, mode, budget);
      return mode.deg === 'rad' ? { re: (v.re * Math.PI) / 180, im: (v.im * Math.PI) / 180 } : v;
    }
    case 'fn':
      return numericFn(n, env, mode, budget);
    case 'big':
    case 'int':
    case 'lim': {
      // terms, integrand values and limit samples may underflow harmlessly (2^-n, e^-x at large x);
      // only a non-finite result matters
      const saved = RANGE.hit;
      const v = n.k === 'big' ? numericBig(n, env, mode, budget) : n.k === 'int' ? numericIntegral(n, env, mode, budget) : numericLimit(n, env, mode, budget);
      RANGE.hit = saved;
      return v;
    }
    default:
      return X.NAN;
  }
}

/** Relative tolerance for values from numeric limits, integrals and infinite series. */
export const APPROX_TOL = 1e-5;

/** An integer-valued bound (within 1e-9), or undefined. */
function intBound(n: Node, env: Env, mode: EvalMode, budget: Budget): number | undefined {
  const q = exact(n, mode, budget);
  if (q) return q.isInt() && q.n < SAFE && q.n > -SAFE ? Number(q.n) : undefined;
  const v = numeric(n, env, mode, budget);
  if (v.im !== 0 || !Number.isFinite(v.re)) return undefined;
  const r = Math.round(v.re);
  return Math.abs(r - v.re) < 1e-9 ? r : undefined;
}

function numericBig(n: Extract<Node, { k: 'big' }>, env: Env, mode: EvalMode, budget: Budget): C {
  const q = exactBig(n, mode, budget);
  if (q) return { re: q.toNumber(), im: 0 };
  const lo = intBound(n.lo, env, mode, budget);
  if (lo === undefined) return X.NAN;
  const own = new Map(env);
  const term = (k: number) => numeric(n.f, own.set(n.v, { re: k, im: 0 }), mode, budget);
  const sum = n.op === 'sum';
  if (n.hi.k === 'const' && n.hi.name === 'inf') return sum ? infiniteSum(term, lo, budget) : X.NAN;
  const hi = intBound(n.hi, env, mode, budget);
  if (hi === undefined || hi - lo >= MAX_TERMS) return X.NAN;
  let acc: C = sum ? { re: 0, im: 0 } : { re: 1, im: 0 };
  for (let k = lo; k <= hi; k++) acc = sum ? X.cadd(acc, term(k)) : X.cmul(acc, term(k));
  return acc;
}

/** Partial sums at N = 2^3 .. 2^9, Richardson-extrapolated in 1/N (alternating series averaged first). */
function infiniteSum(term: (k: number) => C, lo: number, budget: Budget): C {
  const levels: C[] = [];
  let acc: C = { re: 0, im: 0 };
  let k = lo;
  let prev: C = acc;
  let alternating = true;
  let lastTerm: C | undefined;
  for (let j = 3; j <= 9; j++) {
    const upto = lo + (1 << j);
    for (; k < upto; k++) {
      const t = term(k);
      if (!X.isFiniteC(t)) return X.NAN;
      if (lastTerm && !(t.re * lastTerm.re < 0)) alternating = false;
      lastTerm = t;
      prev = acc;
      acc = X.cadd(acc, t);
    }
    levels.push(alternating ? { re: (acc.re + prev.re) / 2, im: (acc.im + prev.im) / 2 } : acc);
  }
  budget.tick(levels.length);
  return richardson(levels);
}

/**
 * Richardson extrapolation of values at steps h, h/2, h/4 ...: error terms in powers of h (`base`
 * 2, up to 4 rounds) or of h^2 (`base` 4, 3 rounds, for symmetric rules).
 */
function richardson(vals: C[], base: 2 | 4 = 2): C {
  let row = vals.slice();
  let best = row[row.length - 1]!;
  let prevBest = row[row.length - 2] ?? best;
  const rounds = base === 2 ? 5 : 4;
  for (let m = 1; m < rounds && row.length > 1; m++) {
    const f = base ** m - 1;
    const next: C[] = [];
    for (let j = 1; j < row.length; j++) next.push({ re: row[j]!.re + (row[j]!.re - row[j - 1]!.re) / f, im: row[j]!.im + (row[j]!.im - row[j - 1]!.im) / f });
    prevBest = best;
    best = next[next.length - 1]!;
    row = next;
  }
  const err = Math.hypot(best.re - prevBest.re, best.im - prevBest.im);
  if (!(err <= 1e-7 * Math.max(1, X.cabs(best)))) return X.NAN;
  RANGE.approx = 1;
  return best;
}

let GL: { x: number[]; w: number[] } | undefined;
/** 10-point Gauss-Legendre nodes and weights on [-1, 1] (Newton on P_10, computed once). */
function gaussLegendre(): { x: number[]; w: number[] } {
  if (GL) return GL;
  const n = 10;
  const x: number[] = [];
  const w: number[] = [];
  for (let i = 1; i <= n; i++) {
    let z = Math.cos((Math.PI * (i - 0.25)) / (n + 0.5));
    let dp = 0;
    for (let it = 0; it < 100; it++) {
      let p0 = 1;
      let p1 = z;
      for (let k = 2; k <= n; k++) {
        const p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      dp = (n * (z * p1 - p0)) / (z * z - 1);
      const dz = p1 / dp;
      z -= dz;
      if (Math.abs(dz) < 1e-16) break;
    }
    x.push(z);
    w.push(2 / ((1 - z * z) * dp * dp));
  }
  GL = { x, w };
  return GL;
}

function numericIntegral(n: Extract<Node, { k: 'int' }>, env: Env, mode: EvalMode, budget: Budget): C {
  if (!n.lo || !n.hi) return X.NAN; // an indefinite integral has no value
  const a = numeric(n.lo, env, mode, budget);
  const b = numeric(n.hi, env, mode, budget);
  if (a.im !== 0 || b.im !== 0 || Number.isNaN(a.re) || Number.isNaN(b.re)) return X.NAN;
  const own = new Map(env);
  const f = (x: number) => numeric(n.f, own.set(n.v, { re: x, im: 0 }), mode, budget);
  // map infinite ranges onto (0, 1): x = a + t/(1-t), x = b - t/(1-t), x = t/(1-t^2)
  let g: (t: number) => C;
  let lo = 0;
  let hi = 1;
  if (Number.isFinite(a.re) && Number.isFinite(b.re)) {
    g = f;
    lo = a.re;
    hi = b.re;
  } else if (Number.isFinite(a.re) && b.re === Infinity) g = (t) => scale(f(a.re + t / (1 - t)), 1 / ((1 - t) * (1 - t)));
  else if (a.re === -Infinity && Number.isFinite(b.re)) g = (t) => scale(f(b.re - t / (1 - t)), 1 / ((1 - t) * (1 - t)));
  else if (a.re === -Infinity && b.re === Infinity) {
    g = (t) => scale(f(t / (1 - t * t)), (1 + t * t) / ((1 - t * t) * (1 - t * t)));
    lo = -1;
  } else return X.NAN;
  const rule = (m: number): C => {
    const { x, w } = gaussLegendre();
    const h = (hi - lo) / m;
    let re = 0;
    let im = 0;
    for (let j = 0; j < m; j++) {
      const mid = lo + (j + 0.5) * h;
      for (let k = 0; k < x.length; k++) {
        const v = g(mid + (x[k]! * h) / 2);
        re += w[k]! * v.re;
        im += w[k]! * v.im;
      }
    }
    return { re: (re * h) / 2, im: (im * h) / 2 };
  };
  let prev = rule(8);
  for (const m of [16, 64]) {
    const cur = rule(m);
    if (!X.isFiniteC(cur)) return X.NAN;
    if (Math.hypot(cur.re - prev.re, cur.im - prev.im) <= 1e-9 * Math.max(1, X.cabs(cur))) {
      RANGE.approx = 1;
      return cur;
    }
    prev = cur;
  }
  return X.NAN;
}

const scale = (v: C, k: number): C => ({ re: v.re * k, im: v.im * k });

function numericLimit(n: Extract<Node, { k: 'lim' }>, env: Env, mode: EvalMode, budget: Budget): C {
  const a = numeric(n.to, env, mode, budget);
  if (a.im !== 0 || Number.isNaN(a.re)) return X.NAN;
  const own = new Map(env);
  const at = (x: number) => numeric(n.f, own.set(n.v, { re: x, im: 0 }), mode, budget);
  const side = (s: number): C => {
    const vals: C[] = [];
    for (let k = 8; k <= 20; k += 2) {
      const h = 2 ** -k;
      const x = Number.isFinite(a.re) ? a.re + s * h * Math.max(1, Math.abs(a.re)) : a.re > 0 ? 1 / h : -1 / h;
      vals.push(at(x));
    }
    if (!vals.every(X.isFiniteC)) return X.NAN;
    // steps shrink by 4: extrapolate in h with ratio 4 (two halvings per level)
    return richardson(vals, 4);
  };
  if (!Number.isFinite(a.re) || n.dir) return side(n.dir ?? (a.re > 0 ? 1 : -1));
  const l = side(1);
  const r = side(-1);
  if (!X.isFiniteC(l) || !X.isFiniteC(r) || Math.hypot(l.re - r.re, l.im - r.im) > APPROX_TOL * Math.max(1, X.cabs(l))) return X.NAN;
  return { re: (l.re + r.re) / 2, im: (l.im + r.im) / 2 };
}

const EXACT_FNS = new Set(['fact', 'binom', 'gcd', 'lcm', 'floor', 'ceil', 'max', 'min']);

function numericFn(n: Extract<Node, { k: 'fn' }>, env: Env, mode: EvalMode, budget: Budget): C {
  if (EXACT_FNS.has(n.name)) {
    const q = exactFn(n.name, n.args, mode, budget);
    if (q) {
      const v = q.toNumber();
      if (!Number.isFinite(v) || (Math.abs(v) < TINY && !q.isZero())) RANGE.hit = 1;
      return { re: v, im: 0 };
    }
  }
  const args = spreadArgs(n.name, n.args).map((a) => numeric(a, env, mode, budget));
  const v = fnValue(n, args, env, mode, budget);
  return ranged(v, args.every(fin), n.name === 'exp');
}

/** A function applied to already evaluated arguments (`det` reads its matrix node). */
function fnValue(n: Extract<Node, { k: 'fn' }>, args: C[], env: Env, mode: EvalMode, budget: Budget): C {
  const a = args[0] ?? X.NAN;
  switch (n.name) {
    case 'sqrt':
      return X.csqrt(a);
    case 'root':
      return X.croot(a, args[1] ?? X.NAN);
    case 'abs':
      return { re: X.cabs(a), im: 0 };
    case 'sin':
      return X.csin(a);
    case 'cos':
      return X.ccos(a);
    case 'tan':
      return X.ctan(a);
    case 'sec':
      return X.cdiv({ re: 1, im: 0 }, X.ccos(a));
    case 'csc':
      return X.cdiv({ re: 1, im: 0 }, X.csin(a));
    case 'cot':
      return X.cdiv(X.ccos(a), X.csin(a));
    case 'asin':
      return X.casin(a);
    case 'acos':
      return X.cacos(a);
    case 'atan':
      return X.catan(a);
    case 'arcsec':
      return X.cacos(X.cdiv({ re: 1, im: 0 }, a));
    case 'arccsc':
      return X.casin(X.cdiv({ re: 1, im: 0 }, a));
    case 'arccot':
      return X.catan(X.cdiv({ re: 1, im: 0 }, a));
    case 'sinh':
      return X.cmul({ re: 0.5, im: 0 }, X.csub(X.cexp(a), X.cexp(X.cneg(a))));
    case 'cosh':
      return X.cmul({ re: 0.5, im: 0 }, X.cadd(X.cexp(a), X.cexp(X.cneg(a))));
    case 'asinh':
      return X.casinh(a);
    case 'acosh':
      return X.cacosh(a);
    case 'atanh':
      return X.catanh(a);
    case 'coth':
      return X.cdiv({ re: 1, im: 0 }, fnValue({ ...n, name: 'tanh' }, args, env, mode, budget));
    case 'sech':
      return X.cdiv({ re: 1, im: 0 }, fnValue({ ...n, name: 'cosh' }, args, env, mode, budget));
    case 'csch':
      return X.cdiv({ re: 1, im: 0 }, fnValue({ ...n, name: 'sinh' }, args, env, mode, budget));
    case 'acoth':
      return X.catanh(X.cdiv({ re: 1, im: 0 }, a));
    case 'asech':
      return X.cacosh(X.cdiv({ re: 1, im: 0 }, a));
    case 'acsch':
      return X.casinh(X.cdiv({ re: 1, im: 0 }, a));
    case 'tanh': {
      const e2 = X.cexp(X.cmul({ re: 2, im: 0 }, a));
      return X.cdiv(X.csub(e2, { re: 1, im: 0 }), X.cadd(e2, { re: 1, im: 0 }));
    }
    case 'ln':
      return X.clog(a);
    case 'log':
      return X.cdiv(X.clog(a), { re: Math.LN10, im: 0 });
    case 'logb':
      return X.cdiv(X.clog(a), X.clog(args[1] ?? X.NAN));
    case 'exp':
      return X.cexp(a);
    case 'fact':
      return a.im === 0 ? { re: gamma(a.re + 1), im: 0 } : X.NAN;
    case 'floor':
      return a.im === 0 ? { re: Math.floor(a.re), im: 0 } : X.NAN;
    case 'ceil':
      return a.im === 0 ? { re: Math.ceil(a.re), im: 0 } : X.NAN;
    case 'binom': {
      const b = args[1] ?? X.NAN;
      if (a.im !== 0 || b.im !== 0) return X.NAN;
      return { re: gamma(a.re + 1) / (gamma(b.re + 1) * gamma(a.re - b.re + 1)), im: 0 };
    }
    case 'det':
      return det(n.args[0]!, env, mode, budget);
    case 'ratio':
      return args.length === 2 ? X.cdiv(a, args[1]!) : X.NAN;
    case 'mod': {
      const b = args[1] ?? X.NAN;
      if (a.im !== 0 || b.im !== 0 || b.re === 0) return X.NAN;
      return { re: a.re - b.re * Math.floor(a.re / b.re), im: 0 };
    }
    case 'max':
    case 'min': {
      if (!args.length || args.some((x) => x.im !== 0)) return X.NAN;
      const xs = args.map((x) => x.re);
      return { re: n.name === 'max' ? Math.max(...xs) : Math.min(...xs), im: 0 };
    }
    default:
      return X.NAN;
  }
}

/** Unit roundoff of doubles. */
export const U = 2 ** -53;

/**
 * The double value together with a first-order bound on its accumulated rounding error, so a
 * computed 1e-17 can be told from a true 1e-17: sin(π) is zero within its error, x^1000 at
 * x = 0.6 is not. Used only where a plain comparison failed (it costs a second evaluation).
 */
export function withError(n: Node, env: Env, mode: EvalMode, budget: Budget): { v: C; e: number } {
  budget.tick();
  switch (n.k) {
    case 'num': {
      const v = n.q.toNumber();
      return { v: { re: v, im: 0 }, e: n.q.isInt() && Math.abs(v) < 2 ** 53 ? 0 : U * Math.abs(v) };
    }
    case 'const': {
      const v = numeric(n, env, mode, budget);
      return { v, e: n.name === 'inf' || n.name === 'i' ? 0 : U * X.cabs(v) };
    }
    case 'var':
      return { v: env.get(n.name) ?? X.NAN, e: 0 };
    case 'add': {
      let re = 0;
      let im = 0;
      let e = 0;
      let scale = 0;
      for (const t of n.terms) {
        const r = withError(t, env, mode, budget);
        re += r.v.re;
        im += r.v.im;
        e += r.e;
        scale += X.cabs(r.v);
      }
      return { v: { re, im }, e: e + U * scale };
    }
    case 'neg': {
      const r = withError(n.a, env, mode, budget);
      return { v: X.cneg(r.v), e: r.e };
    }
    case 'pm':
      return withError(n.a, env, mode, budget);
    case 'mul': {
      const a = withError(n.a, env, mode, budget);
      const b = withError(n.b, env, mode, budget);
      const v = X.cmul(a.v, b.v);
      return { v, e: X.cabs(a.v) * b.e + X.cabs(b.v) * a.e + a.e * b.e + U * X.cabs(v) };
    }
    case 'div': {
      const a = withError(n.a, env, mode, budget);
      const b = withError(n.b, env, mode, budget);
      const v = X.cdiv(a.v, b.v);
      const bb = X.cabs(b.v);
      return { v, e: bb > b.e ? (a.e + X.cabs(v) * b.e) / (bb - b.e) + U * X.cabs(v) : Infinity };
    }
    case 'pow': {
      const a = withError(n.a, env, mode, budget);
      const b = withError(n.b, env, mode, budget);
      const v = numeric(n, env, mode, budget);
      const av = X.cabs(a.v);
      const lv = X.cabs(v);
      if (av === 0) return { v, e: a.e === 0 && b.e === 0 ? 0 : Infinity };
      const e = lv * ((X.cabs(b.v) * a.e) / av + X.cabs(X.clog(a.v)) * b.e) + 2 * U * lv;
      return { v, e };
    }
    case 'pct':
    case 'deg': {
      const r = withError(n.a, env, mode, budget);
      const f = n.k === 'pct' ? (mode.pct === 'div' ? 0.01 : 1) : mode.deg === 'rad' ? Math.PI / 180 : 1;
      return { v: { re: r.v.re * f, im: r.v.im * f }, e: r.e * f };
    }
    case 'fn': {
      const v = numeric(n, env, mode, budget);
      if (EXACT_FNS.has(n.name) && exactFn(n.name, n.args, mode, budget)) return { v, e: U * X.cabs(v) };
      if (n.name === 'det') return { v, e: 1e3 * U * Math.max(1, X.cabs(v)) };
      const args = n.args.map((x) => withError(x, env, mode, budget));
      const vals = args.map((r) => r.v);
      let e = 8 * U * X.cabs(v);
      for (let i = 0; i < args.length; i++) {
        if (args[i]!.e === 0) continue;
        const moved = vals.slice();
        moved[i] = { re: vals[i]!.re + args[i]!.e, im: vals[i]!.im };
        e += X.cabs(X.csub(fnValue(n, moved, env, mode, budget), v));
      }
      return { v, e };
    }
    case 'big':
    case 'int':
    case 'lim': {
      const v = numeric(n, env, mode, budget);
      if (n.k === 'big' && exactBig(n, mode, budget)) return { v, e: U * X.cabs(v) };
      if (n.k === 'big' && !(n.hi.k === 'const' && n.hi.name === 'inf')) return { v, e: finiteBigError(n, v, env, mode, budget) };
      return { v, e: APPROX_TOL * X.cabs(v) };
    }
    default:
      return { v: X.NAN, e: Infinity };
  }
}

/** Rounding error of a finite numeric sum or product: the terms' own errors plus one rounding per step. */
function finiteBigError(n: Extract<Node, { k: 'big' }>, v: C, env: Env, mode: EvalMode, budget: Budget): number {
  const lo = intBound(n.lo, env, mode, budget);
  const hi = intBound(n.hi, env, mode, budget);
  if (lo === undefined || hi === undefined || hi - lo >= MAX_TERMS) return Infinity;
  const own = new Map(env);
  let e = 0;
  let scale = 0;
  for (let k = lo; k <= hi; k++) {
    const t = withError(n.f, own.set(n.v, { re: k, im: 0 }), mode, budget);
    const tv = X.cabs(t.v);
    if (n.op === 'sum') {
      e += t.e;
      scale += tv;
    } else {
      // relative errors add up in a product
      e += tv > 0 ? t.e / tv : t.e === 0 ? 0 : Infinity;
    }
  }
  return n.op === 'sum' ? e + 2 * U * scale : (e + 2 * U * (hi - lo + 1)) * X.cabs(v);
}

/** ln Γ(x) for x > 0 (Stirling series; exact sums of logs for small x). */
export function lnGamma(x: number): number {
  if (!(x > 0)) return NaN;
  if (x === Infinity) return Infinity;
  let shift = 0;
  while (x < 16) {
    shift += Math.log(x);
    x += 1;
  }
  const z = 1 / (x * x);
  const series = (1 / 12 - z * (1 / 360 - z * (1 / 1260 - z * (1 / 1680 - z / 1188)))) / x;
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series - shift;
}

function det(m: Node, env: Env, mode: EvalMode, budget: Budget): C {
  if (m.k !== 'matrix' || m.rows.length !== m.rows[0]!.length || m.rows.length > 6) return X.NAN;
  const a = m.rows.map((r) => r.map((x) => numeric(x, env, mode, budget)));
  const rec = (rows: C[][]): C => {
    if (rows.length === 1) return rows[0]![0]!;
    let s: C = { re: 0, im: 0 };
    for (let j = 0; j < rows.length; j++) {
      const minor = rows.slice(1).map((r) => r.filter((_, k) => k !== j));
      const t = X.cmul(rows[0]![j]!, rec(minor));
      s = j % 2 ? X.csub(s, t) : X.cadd(s, t);
    }
    return s;
  };
  return rec(a);
}

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
  1.5056327351493116e-7,
];
/** Gamma function for real arguments (Lanczos approximation). */
export function gamma(x: number): number {
  if (Number.isInteger(x) && x <= 0) return NaN;
  if (x < 0.5) return Math.PI / (Math.sin(Math.PI * x) * gamma(1 - x));
  if (x > 171) return Infinity;
  x -= 1;
  let a = 0.99999999999980993;
  const t = x + 7.5;
  for (let k = 0; k < 8; k++) a += LANCZOS[k]! / (x + k + 1);
  return Math.sqrt(2 * Math.PI) * Math.pow(t, x + 0.5) * Math.exp(-t) * a;
}
