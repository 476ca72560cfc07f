// Evaluation of scalar expressions: exactly as a BigInt rational when the value is rational
// (with caps on result size), else as a complex double at a given assignment of the variables.
// Double evaluation records when a value left floating-point range (RANGE), can estimate its own
// rounding error (withError), and constants beyond double range are measured on a log scale
// (magnitude), which can tell two huge values apart but never prove them equal.
import type { Node } from './ast.js';
import * as X from './complex.js';
import type { C } from './complex.js';
import { MAX_EXACT_BITS, MAX_EXACT_FACTORIAL, MAX_PRECISE_BITS, type Budget } from './limits.js';
import { bitLength, exactSqrt, Rational } from './rational.js';

export interface EvalMode {
  /** `div`: 50% is 0.5; `strip`: 50% is 50. */
  pct: 'div' | 'strip';
  /** `strip`: 30° is 30; `rad`: 30° is π/6. */
  deg: 'strip' | 'rad';
}

/** Free variables of a node, in first-seen order. */
export function freeVars(n: Node, out: Set<string> = new Set()): Set<string> {
  switch (n.k) {
    case 'var':
      out.add(n.name);
      break;
    case 'num':
    case 'const':
    case 'text':
    case 'choice':
      break;
    case 'add':
      for (const t of n.terms) freeVars(t, out);
      break;
    case 'neg':
    case 'pm':
    case 'pct':
    case 'deg':
      freeVars(n.a, out);
      break;
    case 'mul':
    case 'div':
    case 'pow':
      freeVars(n.a, out);
      freeVars(n.b, out);
      break;
    case 'fn':
      for (const a of n.args) freeVars(a, out);
      break;
    case 'tuple':
    case 'set':
    case 'list':
    case 'union':
      for (const a of n.items) freeVars(a, out);
      break;
    case 'interval':
      freeVars(n.lo, out);
      freeVars(n.hi, out);
      break;
    case 'matrix':
      for (const r of n.rows) for (const a of r) freeVars(a, out);
      break;
    case 'rel':
      for (const a of n.sides) freeVars(a, out);
      break;
    case 'setop':
      freeVars(n.a, out);
      freeVars(n.b, out);
      break;
    case 'big':
    case 'int':
    case 'lim': {
      // the bound variable is not free (an indefinite integral is a function of it, though)
      const inner = freeVars(n.f, new Set());
      if (n.k !== 'int' || n.lo) inner.delete(n.v);
      for (const v of inner) out.add(v);
      if (n.k === 'lim') freeVars(n.to, out);
      else if (n.lo && n.hi) {
        freeVars(n.lo, out);
        freeVars(n.hi, out);
      }
      break;
    }
  }
  return out;
}

/** Variables used as bounds of sums/products: they take integer values. */
export function integerVars(n: Node, out: Set<string> = new Set()): Set<string> {
  const visit = (x: Node): void => {
    switch (x.k) {
      case 'big':
        for (const v of freeVars(x.lo)) out.add(v);
        for (const v of freeVars(x.hi)) out.add(v);
        visit(x.f);
        break;
      case 'add':
        x.terms.forEach(visit);
        break;
      case 'neg':
      case 'pm':
      case 'pct':
      case 'deg':
        visit(x.a);
        break;
      case 'mul':
      case 'div':
      case 'pow':
        visit(x.a);
        visit(x.b);
        break;
      case 'fn':
        x.args.forEach(visit);
        break;
      case 'rel':
        x.sides.forEach(visit);
        break;
      case 'tuple':
      case 'set':
      case 'list':
        x.items.forEach(visit);
        break;
      default:
        break;
    }
  };
  visit(n);
  return out;
}

/** n with the variable v replaced by value (not inside a binder of the same name). */
export function subst(n: Node, v: string, value: Node): Node {
  switch (n.k) {
    case 'var':
      return n.name === v ? value : n;
    case 'add':
      return { k: 'add', terms: n.terms.map((t) => subst(t, v, value)) };
    case 'neg':
    case 'pm':
    case 'pct':
    case 'deg':
      return { ...n, a: subst(n.a, v, value) } as Node;
    case 'mul':
    case 'div':
    case 'pow':
      return { ...n, a: subst(n.a, v, value), b: subst(n.b, v, value) } as Node;
    case 'fn':
      return { ...n, args: n.args.map((a) => subst(a, v, value)) };
    case 'big':
      return { ...n, lo: subst(n.lo, v, value), hi: subst(n.hi, v, value), f: n.v === v ? n.f : subst(n.f, v, value) };
    case 'int':
      return { ...n, ...(n.lo && n.hi ? { lo: subst(n.lo, v, value), hi: subst(n.hi, v, value) } : {}), f: n.v === v ? n.f : subst(n.f, v, value) };
    case 'lim':
      return { ...n, to: subst(n.to, v, value), f: n.v === v ? n.f : subst(n.f, v, value) };
    default:
      return n;
  }
}

/** The node kinds that occur in n (one traversal, for deciding which checks a comparison needs). */
export function kindsIn(n: Node, out: Set<Node['k']> = new Set()): Set<Node['k']> {
  const stack: Node[] = [n];
  while (stack.length) {
    const x = stack.pop()!;
    out.add(x.k);
    switch (x.k) {
      case 'add':
        stack.push(...x.terms);
        break;
      case 'neg':
      case 'pm':
      case 'pct':
      case 'deg':
        stack.push(x.a);
        break;
      case 'mul':
      case 'div':
      case 'pow':
      case 'setop':
        stack.push(x.a, x.b);
        break;
      case 'fn':
        stack.push(...x.args);
        break;
      case 'tuple':
      case 'set':
      case 'list':
      case 'union':
        stack.push(...x.items);
        break;
      case 'interval':
        stack.push(x.lo, x.hi);
        break;
      case 'matrix':
        for (const r of x.rows) stack.push(...r);
        break;
      case 'rel':
        stack.push(...x.sides);
        break;
      case 'big':
        stack.push(x.f, x.lo, x.hi);
        break;
      case 'int':
      case 'lim':
        stack.push(x.f);
        break;
      default:
        break;
    }
  }
  return out;
}

/** Whether a node contains a node of kind k (pct / deg / pm markers). */
export function contains(n: Node, k: Node['k']): boolean {
  if (n.k === k) return true;
  switch (n.k) {
    case 'add':
      return n.terms.some((t) => contains(t, k));
    case 'neg':
    case 'pm':
    case 'pct':
    case 'deg':
      return contains(n.a, k);
    case 'mul':
    case 'div':
    case 'pow':
      return contains(n.a, k) || contains(n.b, k);
    case 'fn':
      return n.args.some((a) => contains(a, k));
    case 'tuple':
    case 'set':
    case 'list':
    case 'union':
      return n.items.some((a) => contains(a, k));
    case 'interval':
      return contains(n.lo, k) || contains(n.hi, k);
    case 'matrix':
      return n.rows.some((r) => r.some((a) => contains(a, k)));
    case 'rel':
      return n.sides.some((a) => contains(a, k));
    case 'setop':
      return contains(n.a, k) || contains(n.b, k);
    case 'big':
      return contains(n.f, k) || contains(n.lo, k) || contains(n.hi, k);
    case 'int':
    case 'lim':
      return contains(n.f, k);
    default:
      return false;
  }
}

const HUNDRED = Rational.of(100n);
const SAFE = 9007199254740992n;
/**
 * The caps of the exact path, in bits: a power's result (`pow`) and any intermediate value
 * (`total`, beyond which it is abandoned to the log scale). `exactWide` raises both to
 * MAX_PRECISE_BITS for the few comparisons the ordinary caps could not decide.
 */
const CAPS = { pow: MAX_EXACT_BITS, total: 4 * MAX_EXACT_BITS };

/** The exact value with every size cap at MAX_PRECISE_BITS (for comparisons the ordinary caps left undecided). */
export function exactWide(n: Node, mode: EvalMode, budget: Budget): Rational | undefined {
  const saved = { ...CAPS };
  CAPS.pow = MAX_PRECISE_BITS;
  CAPS.total = MAX_PRECISE_BITS;
  try {
    return exact(n, mode, budget);
  } finally {
    CAPS.pow = saved.pow;
    CAPS.total = saved.total;
  }
}

/** The value unless it is larger than CAPS.total bits (cheap test for small values first). */
function capped(q: Rational | undefined, budget: Budget): Rational | undefined {
  if (!q) return undefined;
  if (q.d < SAFE && q.n < SAFE && q.n > -SAFE) return q;
  const bits = q.bits();
  budget.tick(bits >> 12);
  return bits > CAPS.total ? undefined : q;
}

/** The exact rational value, or undefined when the value is not (provably cheaply) rational. */
export function exact(n: Node, mode: EvalMode, budget: Budget): Rational | undefined {
  budget.tick();
  switch (n.k) {
    case 'num':
      return n.q;
    case 'add': {
      let s = Rational.ZERO;
      for (const t of n.terms) {
        const v = exact(t, mode, budget);
        if (!v) return undefined;
        const next = capped(s.add(v), budget);
        if (!next) return undefined;
        s = next;
      }
      return s;
    }
    case 'neg':
      return exact(n.a, mode, budget)?.neg();
    case 'mul': {
      const a = exact(n.a, mode, budget);
      if (!a) return undefined;
      const b = exact(n.b, mode, budget);
      return b && capped(a.mul(b), budget);
    }
    case 'div': {
      const a = exact(n.a, mode, budget);
      if (!a) return undefined;
      const b = exact(n.b, mode, budget);
      return b && capped(a.div(b), budget);
    }
    case 'pow': {
      const a = exact(n.a, mode, budget);
      if (!a) return undefined;
      const b = exact(n.b, mode, budget);
      if (!b) return undefined;
      if (b.isInt()) {
        const bits = Math.max(bitLength(a.n), bitLength(a.d));
        const e = b.n < 0n ? -b.n : b.n;
        if (bits > 1 && BigInt(bits) * e > BigInt(CAPS.pow)) return undefined;
        if (bits <= 1 && e > 1_000_000n) return a.isZero() ? (b.n > 0n ? Rational.ZERO : undefined) : a.n < 0n && e % 2n === 1n ? a : Rational.ONE;
        budget.tick(Math.ceil((bits * Number(e)) / 1024));
        return a.pow(b.n);
      }
      if (b.d === 2n) {
        const r = exactRoot(a);
        if (!r) return undefined;
        const e = b.n < 0n ? -b.n : b.n;
        if (BigInt(r.bits()) * e > BigInt(CAPS.pow)) return undefined;
        return Rational.of(r.n, r.d).pow(b.n);
      }
      return undefined;
    }
    case 'pct':
      return mode.pct === 'div' ? exact(n.a, mode, budget)?.div(HUNDRED) : exact(n.a, mode, budget);
    case 'deg':
      return mode.deg === 'strip' ? exact(n.a, mode, budget) : undefined;
    case 'fn':
      return exactFn(n.name, n.args, mode, budget);
    case 'big':
      return exactBig(n, mode, budget);
    default:
      return undefined;
  }
}

/** Most terms of a sum/product summed exactly, or numerically. */
const MAX_EXACT_TERMS = 10_000;
const MAX_TERMS = 100_000;

function exactBig(n: Extract<Node, { k: 'big' }>, mode: EvalMode, budget: Budget): Rational | undefined {
  const lo = exact(n.lo, mode, budget);
  const hi = lo && exact(n.hi, mode, budget);
  if (!lo || !hi || !lo.isInt() || !hi.isInt() || hi.n - lo.n >= BigInt(MAX_EXACT_TERMS)) return undefined;
  let acc = n.op === 'sum' ? Rational.ZERO : Rational.ONE;
  for (let k = lo.n; k <= hi.n; k++) {
    const t = exact(subst(n.f, n.v, { k: 'num', q: Rational.of(k) }), mode, budget);
    const next = t && capped(n.op === 'sum' ? acc.add(t) : acc.mul(t), budget);
    if (!next) return undefined;
    acc = next;
  }
  return acc;
}

/** lo * (lo+1) * ... * hi by binary splitting (balanced products are much faster than a running one). */
function rangeProduct(lo: bigint, hi: bigint): bigint {
  if (hi < lo) return 1n;
  if (hi - lo < 16n) {
    let r = lo;
    for (let k = lo + 1n; k <= hi; k++) r *= k;
    return r;
  }
  const mid = (lo + hi) >> 1n;
  return rangeProduct(lo, mid) * rangeProduct(mid + 1n, hi);
}

function exactRoot(a: Rational): Rational | undefined {
  if (a.n < 0n || a.bits() > CAPS.pow) return undefined;
  const rn = exactSqrt(a.n);
  const rd = rn === undefined ? undefined : exactSqrt(a.d);
  return rn !== undefined && rd !== undefined ? Rational.of(rn, rd) : undefined;
}

function exactFn(name: string, args: Node[], mode: EvalMode, budget: Budget): Rational | undefined {
  args = spreadArgs(name, args);
  const vals: Rational[] = [];
  for (const a of args) {
    const v = exact(a, mode, budget);
    if (!v) return undefined;
    vals.push(v);
  }
  const a = vals[0];
  if (!a) return undefined;
  switch (name) {
    case 'sqrt':
      return exactRoot(a);
    case 'abs':
      return a.n < 0n ? a.neg() : a;
    case 'floor':
    case 'ceil': {
      let q = a.n / a.d;
      if (name === 'floor' && a.n < 0n && q * a.d !== a.n) q -= 1n;
      if (name === 'ceil' && a.n > 0n && q * a.d !== a.n) q += 1n;
      return Rational.of(q);
    }
    case 'fact': {
      if (!a.isInt() || a.n < 0n || a.n > BigInt(MAX_EXACT_FACTORIAL)) return undefined;
      budget.tick(Number(a.n) * 4);
      return Rational.of(rangeProduct(2n, a.n));
    }
    case 'binom': {
      const b = vals[1];
      if (!b || !a.isInt() || !b.isInt() || a.n < 0n) return undefined;
      if (b.n < 0n || b.n > a.n) return Rational.ZERO;
      const k = b.n < a.n - b.n ? b.n : a.n - b.n;
      // the result has about k * log2(n) bits; n itself may be large when k is small
      if (k > BigInt(MAX_EXACT_FACTORIAL) || Number(k) * bitLength(a.n) > CAPS.pow) return undefined;
      budget.tick(Number(k) * 4);
      let r = 1n;
      for (let j = 1n; j <= k; j++) r = (r * (a.n - k + j)) / j;
      return Rational.of(r);
    }
    case 'gcd':
    case 'lcm': {
      if (!vals.every((v) => v.isInt())) return undefined;
      let g = vals[0]!.n < 0n ? -vals[0]!.n : vals[0]!.n;
      for (const v of vals.slice(1)) {
        const x = v.n < 0n ? -v.n : v.n;
        if (name === 'gcd') {
          let p = g;
          let q = x;
          while (q) [p, q] = [q, p % q];
          g = p;
        } else {
          let p = g;
          let q = x;
          while (q) [p, q] = [q, p % q];
          g = p === 0n ? 0n : (g / p) * x;
        }
      }
      return Rational.of(g);
    }
    case 'max':
    case 'min':
      return vals.reduce((m, v) => ((name === 'max' ? v.cmp(m) > 0 : v.cmp(m) < 0) ? v : m));
    case 'ratio':
      return vals.length === 2 ? vals[0]!.div(vals[1]!) : undefined;
    case 'mod': {
      const b = vals[1];
      if (!b || b.isZero()) return undefined;
      const q = a.div(b)!;
      let f = q.n / q.d;
      if (q.n < 0n && f * q.d !== q.n) f -= 1n;
      return a.sub(b.mul(Rational.of(f)));
    }
    default:
      return undefined;
  }
}

/** \\max\\{1, 2, 3\\} and \\gcd(\\{...\\}): a single set/tuple/list argument stands for its items. */
function spreadArgs(name: string, args: Node[]): Node[] {
  if (args.length === 1 && (name === 'max' || name === 'min' || name === 'gcd' || name === 'lcm')) {
    const a = args[0]!;
    if (a.k === 'set' || a.k === 'tuple' || a.k === 'list') return a.items;
  }
  return args;
}

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
const U = 2 ** -53;

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

/**
 * A real constant on a log scale: sign s (1, -1, 0) and l = ln|value| with an absolute error
 * bound e on l. l may be ±Infinity for values whose log itself leaves double range (a power
 * tower). Undefined when the expression is not a real constant of a supported form, or when a
 * sum cancels too closely to know its size.
 */
export interface Magnitude {
  s: number;
  l: number;
  e: number;
}

const ZERO_MAG: Magnitude = { s: 0, l: -Infinity, e: 0 };

export function magnitude(n: Node, mode: EvalMode, budget: Budget): Magnitude | undefined {
  budget.tick();
  switch (n.k) {
    case 'num': {
      if (n.q.isZero()) return ZERO_MAG;
      const l = n.q.lnAbs();
      return { s: n.q.sign(), l, e: 4 * U * Math.max(1, Math.abs(l)) };
    }
    case 'const':
      return n.name === 'pi' ? { s: 1, l: Math.log(Math.PI), e: U } : n.name === 'e' ? { s: 1, l: 1, e: 0 } : undefined;
    case 'neg': {
      const m = magnitude(n.a, mode, budget);
      return m && { s: -m.s, l: m.l, e: m.e };
    }
    case 'pm':
      return magnitude(n.a, mode, budget);
    case 'mul':
    case 'div': {
      const a = magnitude(n.a, mode, budget);
      const b = a && magnitude(n.b, mode, budget);
      if (!a || !b) return undefined;
      if (n.k === 'div' && b.s === 0) return undefined;
      if (a.s === 0 || b.s === 0) return ZERO_MAG;
      const l = n.k === 'mul' ? a.l + b.l : a.l - b.l;
      if (Number.isNaN(l)) return undefined; // huge times tiny
      return { s: a.s * b.s, l, e: a.e + b.e + U * Math.abs(l) };
    }
    case 'pow':
      return powMagnitude(n.a, n.b, mode, budget);
    case 'add':
      return sumMagnitude(n.terms, mode, budget);
    case 'pct': {
      const m = magnitude(n.a, mode, budget);
      if (!m || mode.pct !== 'div' || m.s === 0) return m;
      return { s: m.s, l: m.l - Math.log(100), e: m.e + U * 8 };
    }
    case 'deg': {
      const m = magnitude(n.a, mode, budget);
      if (!m || mode.deg !== 'rad' || m.s === 0) return m;
      return { s: m.s, l: m.l + Math.log(Math.PI / 180), e: m.e + U * 8 };
    }
    case 'fn':
      return fnMagnitude(n, mode, budget);
    default:
      return undefined;
  }
}

function powMagnitude(base: Node, expo: Node, mode: EvalMode, budget: Budget): Magnitude | undefined {
  const a = magnitude(base, mode, budget);
  if (!a) return undefined;
  const q = exact(expo, mode, budget);
  let b: number;
  let be: number;
  if (q) {
    b = q.toNumber();
    be = q.isInt() && Math.abs(b) < 2 ** 53 ? 0 : U * Math.abs(b);
  } else {
    RANGE.hit = 0;
    const v = numeric(expo, new Map(), mode, budget);
    if (v.im !== 0 || Number.isNaN(v.re)) return undefined;
    if (RANGE.hit || !Number.isFinite(v.re)) {
      // the exponent itself is astronomically large (a power tower)
      const m = magnitude(expo, mode, budget);
      if (!m || m.s === 0) return undefined;
      b = m.s * Infinity;
      be = 0;
    } else {
      b = v.re;
      be = withError(expo, new Map(), mode, budget).e;
    }
  }
  if (a.s === 0) return b > 0 ? ZERO_MAG : undefined;
  if (a.s < 0) {
    if (!q?.isInt()) return undefined;
    const odd = q.n % 2n !== 0n;
    return scaled(odd ? -1 : 1, a, b, be);
  }
  return scaled(1, a, b, be);
}

/** Magnitude of |a|^b with sign s. */
function scaled(s: number, a: Magnitude, b: number, be: number): Magnitude | undefined {
  if (a.l === 0 && a.e === 0) return { s, l: 0, e: 0 }; // 1^b
  const l = b * a.l;
  if (Number.isNaN(l)) return undefined;
  if (!Number.isFinite(l)) return { s, l, e: 0 };
  return { s, l, e: Math.abs(b) * a.e + Math.abs(a.l) * be + U * Math.abs(l) };
}

function sumMagnitude(terms: Node[], mode: EvalMode, budget: Budget): Magnitude | undefined {
  const pos: Magnitude[] = [];
  const neg: Magnitude[] = [];
  for (const t of terms) {
    const m = magnitude(t, mode, budget);
    if (!m) return undefined;
    if (m.s > 0) pos.push(m);
    else if (m.s < 0) neg.push(m);
  }
  const p = logSum(pos);
  const q = logSum(neg);
  if (!p && !q) return ZERO_MAG;
  if (!q) return p;
  if (!p) return { s: -1, l: q.l, e: q.e };
  const big = p.l >= q.l ? p : q;
  const small = big === p ? q : p;
  const gap = big.l - small.l;
  if (!(gap > 1e-6 + 64 * (p.e + q.e))) return undefined; // near cancellation: size unknown
  const shrink = Math.log1p(-Math.exp(-gap));
  // the error of l grows as the two terms approach each other
  const e = big.e + (small.e + big.e) / Math.max(1e-300, Math.expm1(gap)) + U * Math.abs(big.l);
  return { s: big === p ? 1 : -1, l: big.l + shrink, e };
}

function logSum(ms: Magnitude[]): Magnitude | undefined {
  if (!ms.length) return undefined;
  let top = ms[0]!;
  for (const m of ms) if (m.l > top.l) top = m;
  if (!Number.isFinite(top.l)) return { s: 1, l: top.l, e: 0 };
  let acc = 0;
  let e = 0;
  for (const m of ms) {
    acc += Math.exp(m.l - top.l);
    e = Math.max(e, m.e);
  }
  const l = top.l + Math.log(acc);
  return { s: 1, l, e: e + U * Math.abs(l) * 4 };
}

function fnMagnitude(n: Extract<Node, { k: 'fn' }>, mode: EvalMode, budget: Budget): Magnitude | undefined {
  const arg = n.args[0];
  if (!arg) return undefined;
  switch (n.name) {
    case 'sqrt': {
      const m = magnitude(arg, mode, budget);
      if (!m || m.s < 0) return undefined;
      return m.s === 0 ? m : { s: 1, l: m.l / 2, e: m.e / 2 };
    }
    case 'root': {
      const m = magnitude(arg, mode, budget);
      const k = n.args[1] && exact(n.args[1], mode, budget);
      if (!m || !k?.isInt() || k.isZero()) return undefined;
      if (m.s < 0 && k.n % 2n === 0n) return undefined;
      const kk = k.toNumber();
      return m.s === 0 ? m : { s: m.s, l: m.l / kk, e: m.e / Math.abs(kk) };
    }
    case 'abs': {
      const m = magnitude(arg, mode, budget);
      return m && { s: Math.abs(m.s), l: m.l, e: m.e };
    }
    case 'exp':
      return powMagnitude({ k: 'const', name: 'e' }, arg, mode, budget);
    case 'fact': {
      const q = exact(arg, mode, budget);
      if (!q?.isInt() || q.n < 0n) return undefined;
      const x = q.toNumber();
      const l = lnGamma(x + 1);
      return { s: 1, l, e: 16 * U * Math.abs(l) + 1e-13 };
    }
    case 'binom': {
      const a = exact(arg, mode, budget);
      const b = n.args[1] && exact(n.args[1], mode, budget);
      if (!a || !b || !a.isInt() || !b.isInt() || a.n < 0n) return undefined;
      if (b.n < 0n || b.n > a.n) return ZERO_MAG;
      const x = a.toNumber();
      const k = b.toNumber();
      const g1 = lnGamma(x + 1);
      const g2 = lnGamma(k + 1);
      const g3 = lnGamma(x - k + 1);
      return { s: 1, l: g1 - g2 - g3, e: 16 * U * (Math.abs(g1) + Math.abs(g2) + Math.abs(g3)) + 1e-13 };
    }
    default: {
      // any other real function of a constant whose value is an ordinary double
      RANGE.hit = 0;
      const v = numeric(n, new Map(), mode, budget);
      if (RANGE.hit || v.im !== 0 || !Number.isFinite(v.re)) return undefined;
      if (v.re === 0) return ZERO_MAG;
      const err = withError(n, new Map(), mode, budget).e;
      if (!(err < Math.abs(v.re) / 2)) return undefined;
      return { s: Math.sign(v.re), l: Math.log(Math.abs(v.re)), e: (2 * err) / Math.abs(v.re) };
    }
  }
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

/**
 * An integer power r^e (times a sign) with r not itself a perfect power, so that equal powers
 * written differently (10^{5000} and 100^{2500}) compare exactly without being computed.
 */
export function powerForm(n: Node, mode: EvalMode, budget: Budget): { s: number; r: bigint; e: bigint } | undefined {
  if (n.k === 'neg') {
    const f = powerForm(n.a, mode, budget);
    return f && { s: -f.s, r: f.r, e: f.e };
  }
  let base: Rational | undefined;
  let expo: Rational | undefined;
  if (n.k === 'pow') {
    base = exact(n.a, mode, budget);
    expo = base && exact(n.b, mode, budget);
  } else {
    base = exact(n, mode, budget);
    expo = Rational.ONE;
  }
  if (!base || !expo || !base.isInt() || !expo.isInt() || expo.n <= 0n) return undefined;
  let r = base.n < 0n ? -base.n : base.n;
  const s = base.n < 0n && expo.n % 2n !== 0n ? -1 : 1;
  if (r < 2n) return { s: r === 0n ? 0 : s, r, e: r === 0n ? 1n : 1n };
  let e = expo.n;
  if (r < SAFE) {
    // r = t^m with the largest m: try every m up to log2(r)
    for (let m = Math.floor(Math.log2(Number(r))); m >= 2; m--) {
      budget.tick();
      const t = BigInt(Math.round(Math.pow(Number(r), 1 / m)));
      for (const c of [t - 1n, t, t + 1n]) {
        if (c >= 2n && c ** BigInt(m) === r) {
          r = c;
          e *= BigInt(m);
          m = Math.floor(Math.log2(Number(r))) + 1;
          break;
        }
      }
    }
  }
  return { s, r, e };
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
