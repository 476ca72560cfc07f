// Constants beyond double range on a log scale (sign, ln|value|, error bound): tells two huge values
// apart, never proves them equal.
import type { Node } from './ast.js';
import type { Budget } from './limits.js';
import { exact } from './exact.js';
import { lnGamma, numeric, RANGE, U, withError } from './numeric.js';
import type { EvalMode } from './evaluate.js';

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
