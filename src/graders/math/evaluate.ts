// Evaluation of scalar expressions: exactly as a BigInt rational when the value is rational
// (with caps on result size), else as a complex double at a given assignment of the variables.
import type { Node } from './ast.js';
import * as X from './complex.js';
import type { C } from './complex.js';
import { MAX_EXACT_BITS, MAX_EXACT_FACTORIAL, type Budget } from './limits.js';
import { bitLength, exactSqrt, Rational } from './rational.js';

export interface EvalMode {
  /** `div`: 50% is 0.5; `strip`: 50% is 50. */
  pct: 'div' | 'strip';
  /** `strip`: 30° is 30; `rad`: 30° is π/6. */
  deg: 'strip' | 'rad';
}

export const DEFAULT_MODE: EvalMode = { pct: 'div', deg: 'strip' };

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
    default:
      return false;
  }
}

const HUNDRED = Rational.of(100n);

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
        s = s.add(v);
      }
      return s;
    }
    case 'neg':
      return exact(n.a, mode, budget)?.neg();
    case 'mul': {
      const a = exact(n.a, mode, budget);
      if (!a) return undefined;
      const b = exact(n.b, mode, budget);
      return b && a.mul(b);
    }
    case 'div': {
      const a = exact(n.a, mode, budget);
      if (!a) return undefined;
      const b = exact(n.b, mode, budget);
      return b && a.div(b);
    }
    case 'pow': {
      const a = exact(n.a, mode, budget);
      if (!a) return undefined;
      const b = exact(n.b, mode, budget);
      if (!b) return undefined;
      if (b.isInt()) {
        const bits = Math.max(bitLength(a.n), bitLength(a.d));
        const e = b.n < 0n ? -b.n : b.n;
        if (bits > 1 && BigInt(bits) * e > BigInt(MAX_EXACT_BITS)) return undefined;
        if (bits <= 1 && e > 1_000_000n) return a.isZero() ? (b.n > 0n ? Rational.ZERO : undefined) : a.n < 0n && e % 2n === 1n ? a : Rational.ONE;
        budget.tick(Math.ceil((bits * Number(e)) / 1024));
        return a.pow(b.n);
      }
      if (b.d === 2n) {
        const r = exactRoot(a);
        return r && Rational.of(r.n, r.d).pow(b.n);
      }
      return undefined;
    }
    case 'pct':
      return mode.pct === 'div' ? exact(n.a, mode, budget)?.div(HUNDRED) : exact(n.a, mode, budget);
    case 'deg':
      return mode.deg === 'strip' ? exact(n.a, mode, budget) : undefined;
    case 'fn':
      return exactFn(n.name, n.args, mode, budget);
    default:
      return undefined;
  }
}

function exactRoot(a: Rational): Rational | undefined {
  if (a.n < 0n) return undefined;
  const rn = exactSqrt(a.n);
  const rd = rn === undefined ? undefined : exactSqrt(a.d);
  return rn !== undefined && rd !== undefined ? Rational.of(rn, rd) : undefined;
}

function exactFn(name: string, args: Node[], mode: EvalMode, budget: Budget): Rational | undefined {
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
      let r = 1n;
      for (let k = 2n; k <= a.n; k++) r *= k;
      budget.tick(Number(a.n));
      return Rational.of(r);
    }
    case 'binom': {
      const b = vals[1];
      if (!b || !a.isInt() || !b.isInt() || a.n < 0n || a.n > BigInt(MAX_EXACT_FACTORIAL)) return undefined;
      if (b.n < 0n || b.n > a.n) return Rational.ZERO;
      let r = 1n;
      const k = b.n < a.n - b.n ? b.n : a.n - b.n;
      for (let j = 1n; j <= k; j++) r = (r * (a.n - k + j)) / j;
      budget.tick(Number(k));
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
    default:
      return undefined;
  }
}

export type Env = Map<string, C>;

const PI: C = { re: Math.PI, im: 0 };
const E: C = { re: Math.E, im: 0 };
const I: C = { re: 0, im: 1 };
const INF: C = { re: Infinity, im: 0 };

/** Complex double value at an assignment of the variables (NaN where undefined). */
export function numeric(n: Node, env: Env, mode: EvalMode, budget: Budget): C {
  budget.tick();
  switch (n.k) {
    case 'num':
      return { re: n.q.toNumber(), im: 0 };
    case 'const':
      return n.name === 'pi' ? PI : n.name === 'e' ? E : n.name === 'i' ? I : INF;
    case 'var':
      return env.get(n.name) ?? X.NAN;
    case 'add': {
      let re = 0;
      let im = 0;
      for (const t of n.terms) {
        const v = numeric(t, env, mode, budget);
        re += v.re;
        im += v.im;
      }
      return { re, im };
    }
    case 'neg':
      return X.cneg(numeric(n.a, env, mode, budget));
    case 'pm':
      return numeric(n.a, env, mode, budget);
    case 'mul':
      return X.cmul(numeric(n.a, env, mode, budget), numeric(n.b, env, mode, budget));
    case 'div':
      return X.cdiv(numeric(n.a, env, mode, budget), numeric(n.b, env, mode, budget));
    case 'pow': {
      const a = numeric(n.a, env, mode, budget);
      const b = numeric(n.b, env, mode, budget);
      if (a.im === 0 && b.im === 0 && a.re < 0 && !Number.isInteger(b.re)) {
        // real odd roots of negatives: (-8)^(1/3) = -2
        const q = n.b.k === 'div' ? exact(n.b, mode, budget) : undefined;
        if (q && q.d % 2n === 1n) {
          const v = Math.pow(-a.re, b.re);
          return { re: q.n % 2n === 0n ? v : -v, im: 0 };
        }
      }
      return X.cpow(a, b);
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
    default:
      return X.NAN;
  }
}

function numericFn(n: Extract<Node, { k: 'fn' }>, env: Env, mode: EvalMode, budget: Budget): C {
  if (n.name === 'fact' || n.name === 'binom' || n.name === 'gcd' || n.name === 'lcm' || n.name === 'floor' || n.name === 'ceil' || n.name === 'max' || n.name === 'min') {
    const q = exactFn(n.name, n.args, mode, budget);
    if (q) return { re: q.toNumber(), im: 0 };
  }
  const args = n.args.map((a) => numeric(a, env, mode, budget));
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
    default:
      return X.NAN;
  }
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

const LANCZOS = [676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
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
