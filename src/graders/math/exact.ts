// Exact evaluation: the value of an expression as a BigInt rational when it is rational, with caps
// on result size (a value past the caps is abandoned to the log scale, magnitude.ts); and integer
// power forms that compare huge powers without computing them.
import type { Node } from './ast.js';
import { MAX_EXACT_BITS, MAX_EXACT_FACTORIAL, MAX_PRECISE_BITS, type Budget } from './limits.js';
import { bitLength, exactSqrt, Rational } from './rational.js';
import { subst } from './walk.js';
import type { EvalMode } from './evaluate.js';

const HUNDRED = Rational.of(100n);
export const SAFE = 9007199254740992n;
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
export const MAX_TERMS = 100_000;

export function exactBig(n: Extract<Node, { k: 'big' }>, mode: EvalMode, budget: Budget): Rational | undefined {
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

export function exactFn(name: string, args: Node[], mode: EvalMode, budget: Budget): Rational | undefined {
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
export function spreadArgs(name: string, args: Node[]): Node[] {
  if (args.length === 1 && (name === 'max' || name === 'min' || name === 'gcd' || name === 'lcm')) {
    const a = args[0]!;
    if (a.k === 'set' || a.k === 'tuple' || a.k === 'list') return a.items;
  }
  return args;
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
