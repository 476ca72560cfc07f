// Equivalence of two parsed answers: exact rational equality where possible, numeric equality
// within a tolerance, symbolic equality by evaluation at fixed pseudo-random real and complex
// points, and structural rules for tuples (ordered), sets and solution lists (unordered),
// intervals, unions, matrices, equations (proportional) and inequalities (direction kept).
import { show, type Node, type RelOp } from './ast.js';
import { cabs, cclose, cdiv, isFiniteC, type C } from './complex.js';
import { contains, exact, freeVars, magnitude, numeric, powerForm, RANGE, withError, type Env, type EvalMode, type Magnitude } from './evaluate.js';
import type { Budget } from './limits.js';
import type { ParsedAnswer } from './parser.js';
import { sciFromLog10 } from './rational.js';

export interface CompareOptions {
  /** Relative tolerance for values that are not both exact rationals. */
  rel_tol: number;
  /** Extra absolute tolerance (0: only the rounding error estimated for each value is tolerated). */
  abs_tol: number;
  /** `either`: 50% equals 50 and 0.5; `strict`: only 0.5; `ignore`: only 50. */
  percent: 'either' | 'strict' | 'ignore';
  /** When false, a one-variable answer may use another letter (2n+2 for 2k+2). */
  strict_variables: boolean;
  /** `strip`: unit words are ignored; `strict`: the unit words must match too. */
  units: 'strip' | 'strict';
}

export const DEFAULT_COMPARE: CompareOptions = { rel_tol: 1e-9, abs_tol: 0, percent: 'either', strict_variables: true, units: 'strip' };

export interface Verdict {
  equal: boolean;
  why: string;
  /** Set when the comparison could not be decided (values beyond exact and floating-point range). */
  unknown?: boolean;
}

interface Ctx {
  opts: CompareOptions;
  mode: EvalMode;
  budget: Budget;
}

const MAX_ITEMS = 200;
const SYMBOLIC_REL_TOL = 1e-8;

export function compareAnswers(gold: ParsedAnswer, ans: ParsedAnswer, opts: CompareOptions, budget: Budget): Verdict {
  if (opts.units === 'strict') {
    const gu = normUnits(gold.units);
    const au = normUnits(ans.units);
    if (gu !== au) return { equal: false, why: `units differ (${gu || 'none'} vs ${au || 'none'})` };
  }
  const pctModes: EvalMode['pct'][] = opts.percent === 'strict' ? ['div'] : opts.percent === 'ignore' ? ['strip'] : ['div', 'strip'];
  const hasPct = contains(gold.node, 'pct') || contains(ans.node, 'pct');
  const hasDeg = contains(gold.node, 'deg') || contains(ans.node, 'deg');
  let first: Verdict | undefined;
  for (const pct of hasPct ? pctModes : ['div' as const]) {
    for (const deg of hasDeg ? (['strip', 'rad'] as const) : (['strip'] as const)) {
      const v = eqNode(gold.node, ans.node, { opts, mode: { pct, deg }, budget });
      if (v.equal) {
        const notes = [hasPct && pct === 'strip' ? 'percent sign ignored' : '', deg === 'rad' ? 'degrees as radians' : ''].filter(Boolean);
        return notes.length ? { equal: true, why: `${v.why} (${notes.join(', ')})` } : v;
      }
      if (v.unknown && !first?.unknown) first = v;
      first ??= v;
    }
  }
  return first!;
}

function normUnits(u: string[]): string {
  return u
    .map((w) => w.toLowerCase().replace(/^\\/, '').replace(/s$/, ''))
    .sort()
    .join(' ');
}

const yes = (why: string): Verdict => ({ equal: true, why });
const no = (why: string): Verdict => ({ equal: false, why });
const unknown = (why: string): Verdict => ({ equal: false, unknown: true, why });

/** Items of a collection answer (list, set, or a ± expression), or undefined for a single answer. */
function collection(n: Node): Node[] | undefined {
  if (n.k === 'list' || n.k === 'set') return n.items.flatMap(expandPm);
  if (contains(n, 'pm') && !isStructureKind(n)) return expandPm(n);
  return undefined;
}

function isStructureKind(n: Node): boolean {
  return n.k === 'tuple' || n.k === 'interval' || n.k === 'union' || n.k === 'matrix' || n.k === 'rel';
}

/** a ± b becomes [a + b, a - b]; several ± multiply out (capped). */
export function expandPm(n: Node): Node[] {
  if (!contains(n, 'pm')) return [n];
  let variants: Node[] = [n];
  for (let round = 0; round < 3; round++) {
    const next: Node[] = [];
    let changed = false;
    for (const v of variants) {
      const r = replaceFirstPm(v);
      if (r) {
        next.push(...r);
        changed = true;
      } else next.push(v);
    }
    variants = next;
    if (!changed) break;
  }
  return variants;
}

function replaceFirstPm(n: Node): [Node, Node] | undefined {
  switch (n.k) {
    case 'pm':
      return [n.a, { k: 'neg', a: n.a }];
    case 'add':
      for (let i = 0; i < n.terms.length; i++) {
        const r = replaceFirstPm(n.terms[i]!);
        if (r) {
          const a = n.terms.slice();
          const b = n.terms.slice();
          a[i] = r[0];
          b[i] = r[1];
          return [{ k: 'add', terms: a }, { k: 'add', terms: b }];
        }
      }
      return undefined;
    case 'neg':
    case 'pct':
    case 'deg': {
      const r = replaceFirstPm(n.a);
      return r && [{ ...n, a: r[0] } as Node, { ...n, a: r[1] } as Node];
    }
    case 'mul':
    case 'div':
    case 'pow': {
      const ra = replaceFirstPm(n.a);
      if (ra) return [{ ...n, a: ra[0] } as Node, { ...n, a: ra[1] } as Node];
      const rb = replaceFirstPm(n.b);
      return rb && [{ ...n, b: rb[0] } as Node, { ...n, b: rb[1] } as Node];
    }
    case 'fn':
      for (let i = 0; i < n.args.length; i++) {
        const r = replaceFirstPm(n.args[i]!);
        if (r) {
          const a = n.args.slice();
          const b = n.args.slice();
          a[i] = r[0];
          b[i] = r[1];
          return [{ ...n, args: a }, { ...n, args: b }];
        }
      }
      return undefined;
    default:
      return undefined;
  }
}

function eqNode(g: Node, a: Node, ctx: Ctx): Verdict {
  ctx.budget.tick();
  if (g.k === 'choice' || a.k === 'choice') {
    if (g.k === 'choice' && a.k === 'choice') return g.letter === a.letter ? yes(`same choice (${g.letter})`) : no(`choice ${a.letter} is not ${g.letter}`);
    return no('one side is a multiple-choice letter and the other is not');
  }
  if (g.k === 'text' || a.k === 'text') {
    if (g.k === 'text' && a.k === 'text') return normText(g.s) === normText(a.s) ? yes('same text') : no('different text');
    return no(`${g.k === 'text' ? 'reference' : 'answer'} is text, the other side is math`);
  }
  // equations and inequalities
  if (g.k === 'rel' || a.k === 'rel') {
    if (g.k === 'rel' && a.k === 'rel') return eqRel(g, a, ctx);
    const rel = (g.k === 'rel' ? g : a) as Extract<Node, { k: 'rel' }>;
    const other = g.k === 'rel' ? a : g;
    const val = relValue(rel);
    if (val && !isCollection(other)) {
      const v = g.k === 'rel' ? eqNode(val, other, ctx) : eqNode(other, val, ctx);
      return v.equal ? yes(`${v.why}, taking the value of ${show(rel.sides[0]!).length <= show(rel.sides[1]!).length ? show(rel.sides[0]!) : show(rel.sides[1]!)}`) : v;
    }
    const iv = relInterval(rel);
    if (iv && (other.k === 'interval' || other.k === 'tuple' || other.k === 'union')) return g.k === 'rel' ? eqNode(iv, other, ctx) : eqNode(other, iv, ctx);
    if (!isCollection(other)) return no('an equation or inequality against a value');
  }
  // collections: solution lists and sets (unordered), tuples (ordered)
  const gc = collection(g);
  const ac = collection(a);
  if (gc || ac) {
    const gl = gc ?? (g.k === 'tuple' ? g.items : [g]);
    const al = ac ?? (a.k === 'tuple' ? a.items : [a]);
    const ordered = (g.k === 'tuple' && !ac) || (a.k === 'tuple' && !gc && g.k !== 'set' && g.k !== 'list');
    if (gl.length !== al.length) return no(`${al.length} item(s) where ${gl.length} expected`);
    if (gl.length > MAX_ITEMS) return no('too many items to compare');
    return ordered ? eqOrdered(gl, al, ctx) : eqUnordered(gl, al, ctx);
  }
  if (g.k === 'tuple' || a.k === 'tuple') {
    const tup = (g.k === 'tuple' ? g : a) as Extract<Node, { k: 'tuple' }>;
    if ((g.k === 'interval' || a.k === 'interval') && tup.items.length === 2) {
      return eqInterval(asOpenInterval(g), asOpenInterval(a), ctx);
    }
    const gv = g.k === 'tuple' ? g.items : vectorOf(g);
    const av = a.k === 'tuple' ? a.items : vectorOf(a);
    if (!gv || !av) return no(`a tuple against ${g.k === 'tuple' ? describeKind(a) : describeKind(g)}`);
    if (gv.length !== av.length) return no(`${av.length} coordinate(s) where ${gv.length} expected`);
    return eqOrdered(gv, av, ctx);
  }
  if (g.k === 'interval' || a.k === 'interval') {
    if (g.k === 'interval' && a.k === 'interval') return eqInterval(g, a, ctx);
    if (g.k === 'union' || a.k === 'union') {
      const u = (g.k === 'union' ? g : a) as Extract<Node, { k: 'union' }>;
      if (u.items.length === 1) return eqNode(g.k === 'union' ? u.items[0]! : g, a.k === 'union' ? u.items[0]! : a, ctx);
    }
    return no(`an interval against ${g.k === 'interval' ? describeKind(a) : describeKind(g)}`);
  }
  if (g.k === 'union' || a.k === 'union') {
    if (g.k !== 'union' || a.k !== 'union') return no('a union of intervals against something else');
    if (g.items.length !== a.items.length) return no(`${a.items.length} interval(s) where ${g.items.length} expected`);
    return eqUnordered(g.items, a.items, ctx);
  }
  if (g.k === 'matrix' || a.k === 'matrix') {
    if (g.k !== 'matrix' || a.k !== 'matrix') return no('a matrix against a scalar');
    if (g.rows.length !== a.rows.length || g.rows[0]!.length !== a.rows[0]!.length) {
      return no(`matrix shape ${a.rows.length}x${a.rows[0]!.length} where ${g.rows.length}x${g.rows[0]!.length} expected`);
    }
    return eqOrdered(g.rows.flat(), a.rows.flat(), ctx);
  }
  return eqScalar(g, a, ctx);
}

function isCollection(n: Node): boolean {
  return n.k === 'list' || n.k === 'set';
}

function describeKind(n: Node): string {
  return n.k === 'num' || n.k === 'add' || n.k === 'mul' || n.k === 'div' || n.k === 'pow' || n.k === 'fn' || n.k === 'var' || n.k === 'const' || n.k === 'neg' ? 'a scalar' : `a ${n.k}`;
}

/** A column or row matrix as a vector. */
function vectorOf(n: Node): Node[] | undefined {
  if (n.k !== 'matrix') return undefined;
  if (n.rows.length === 1) return n.rows[0];
  if (n.rows.every((r) => r.length === 1)) return n.rows.map((r) => r[0]!);
  return undefined;
}

function eqOrdered(gl: Node[], al: Node[], ctx: Ctx): Verdict {
  let undecided: Verdict | undefined;
  for (let i = 0; i < gl.length; i++) {
    const v = eqNode(gl[i]!, al[i]!, ctx);
    if (v.unknown) undecided ??= unknown(`item ${i + 1}: ${v.why}`);
    else if (!v.equal) return no(`item ${i + 1}: ${show(al[i]!)} vs ${show(gl[i]!)}: ${v.why}`);
  }
  return undecided ?? yes(`all ${gl.length} item(s) equal in order`);
}

function eqUnordered(gl: Node[], al: Node[], ctx: Ctx): Verdict {
  const used = new Array<boolean>(al.length).fill(false);
  let undecided: Verdict | undefined;
  for (const gi of gl) {
    let found = false;
    for (let j = 0; j < al.length; j++) {
      if (used[j]) continue;
      const v = eqNode(gi, al[j]!, ctx);
      if (v.equal) {
        used[j] = true;
        found = true;
        break;
      }
      if (v.unknown) undecided ??= v;
    }
    if (!found) return undecided ? unknown(`could not decide which item equals ${show(gi)}: ${undecided.why}`) : no(`no item of the answer equals ${show(gi)}`);
  }
  return yes(`same ${gl.length} item(s) in any order`);
}

function asOpenInterval(n: Node): Extract<Node, { k: 'interval' }> {
  if (n.k === 'interval') return n;
  if (n.k === 'tuple' && n.items.length === 2) return { k: 'interval', lo: n.items[0]!, hi: n.items[1]!, loClosed: false, hiClosed: false };
  throw new Error('not an interval');
}

function isInfinite(n: Node): boolean {
  return (n.k === 'const' && n.name === 'inf') || (n.k === 'neg' && isInfinite(n.a));
}

function eqInterval(g: Extract<Node, { k: 'interval' }>, a: Extract<Node, { k: 'interval' }>, ctx: Ctx): Verdict {
  const lo = eqScalar(g.lo, a.lo, ctx);
  if (!lo.equal) return lo.unknown ? unknown(`lower ends: ${lo.why}`) : no(`lower ends differ: ${lo.why}`);
  const hi = eqScalar(g.hi, a.hi, ctx);
  if (!hi.equal) return hi.unknown ? unknown(`upper ends: ${hi.why}`) : no(`upper ends differ: ${hi.why}`);
  if (g.loClosed !== a.loClosed && !isInfinite(g.lo)) return no(`lower end is ${a.loClosed ? 'closed' : 'open'}, expected ${g.loClosed ? 'closed' : 'open'}`);
  if (g.hiClosed !== a.hiClosed && !isInfinite(g.hi)) return no(`upper end is ${a.hiClosed ? 'closed' : 'open'}, expected ${g.hiClosed ? 'closed' : 'open'}`);
  return yes('same interval');
}

/** The value an equation names: `x = 5` gives 5 (one side a lone variable). */
function relValue(r: Extract<Node, { k: 'rel' }>): Node | undefined {
  if (r.ops.length !== 1 || r.ops[0] !== '=') return undefined;
  const [l, rr] = r.sides as [Node, Node];
  if (l.k === 'var' && (rr.k !== 'var' || true) && !freeVars(rr).has(l.name)) return rr;
  if (rr.k === 'var' && !freeVars(l).has(rr.name)) return l;
  return undefined;
}

/** `x > 2` as (2, ∞), `1 <= x < 3` as [1, 3). */
function relInterval(r: Extract<Node, { k: 'rel' }>): Node | undefined {
  const INF: Node = { k: 'const', name: 'inf' };
  const NINF: Node = { k: 'neg', a: INF };
  if (r.ops.length === 1) {
    let [l, rr] = r.sides as [Node, Node];
    let op = r.ops[0]!;
    if (rr.k === 'var' && l.k !== 'var') {
      [l, rr] = [rr, l];
      op = flip(op);
    }
    if (l.k !== 'var' || freeVars(rr).size) return undefined;
    if (op === '>' || op === '>=') return { k: 'interval', lo: rr, hi: INF, loClosed: op === '>=', hiClosed: false };
    if (op === '<' || op === '<=') return { k: 'interval', lo: NINF, hi: rr, loClosed: false, hiClosed: op === '<=' };
    return undefined;
  }
  if (r.ops.length === 2 && r.sides[1]!.k === 'var') {
    const [o1, o2] = r.ops as [RelOp, RelOp];
    if ((o1 === '<' || o1 === '<=') && (o2 === '<' || o2 === '<=')) return { k: 'interval', lo: r.sides[0]!, hi: r.sides[2]!, loClosed: o1 === '<=', hiClosed: o2 === '<=' };
    if ((o1 === '>' || o1 === '>=') && (o2 === '>' || o2 === '>=')) return { k: 'interval', lo: r.sides[2]!, hi: r.sides[0]!, loClosed: o2 === '>=', hiClosed: o1 === '>=' };
  }
  return undefined;
}

function flip(op: RelOp): RelOp {
  return op === '<' ? '>' : op === '>' ? '<' : op === '<=' ? '>=' : op === '>=' ? '<=' : op;
}

/** Rewrites a relation so that every operator is =, !=, < or <=. */
function normRel(r: Extract<Node, { k: 'rel' }>): { ops: RelOp[]; sides: Node[] } {
  if (r.ops.every((o) => o === '>' || o === '>=' || o === '=')) {
    if (r.ops.some((o) => o !== '=')) return { ops: r.ops.slice().reverse().map(flip), sides: r.sides.slice().reverse() };
  }
  return { ops: r.ops, sides: r.sides };
}

function eqRel(g: Extract<Node, { k: 'rel' }>, a: Extract<Node, { k: 'rel' }>, ctx: Ctx): Verdict {
  const gn = normRel(g);
  const an = normRel(a);
  if (gn.ops.length !== an.ops.length) return no('relations of different length');
  if (gn.ops.some((o, i) => o !== an.ops[i])) return no(`relation ${an.ops.join(' ')} where ${gn.ops.join(' ')} expected`);
  // same sides, in order
  let sameSides = true;
  for (let i = 0; i < gn.sides.length && sameSides; i++) sameSides = eqNode(gn.sides[i]!, an.sides[i]!, ctx).equal;
  if (sameSides) return yes('same relation');
  if (gn.ops.length !== 1) return no('chained relations differ');
  const op = gn.ops[0]!;
  if (op === '=' || op === '!=') {
    let swapped = eqNode(gn.sides[0]!, an.sides[1]!, ctx).equal && eqNode(gn.sides[1]!, an.sides[0]!, ctx).equal;
    if (swapped) return yes('same equation, sides swapped');
  }
  const fg: Node = { k: 'add', terms: [gn.sides[0]!, { k: 'neg', a: gn.sides[1]! }] };
  const fa: Node = { k: 'add', terms: [an.sides[0]!, { k: 'neg', a: an.sides[1]! }] };
  const vars = [...new Set([...freeVars(fg), ...freeVars(fa)])];
  if (!vars.length) return no('relations between different constants');
  const ratio = proportional(fg, fa, vars, ctx);
  if (ratio === undefined) return no('the relations are not multiples of each other');
  if (op !== '=' && op !== '!=' && !(ratio.re > 0 && Math.abs(ratio.im) < 1e-9)) return no('the inequality points the other way');
  return yes(`equivalent relations (one is ${fmt(ratio.re)} times the other)`);
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toPrecision(6);
}

/** The constant c with fg = c·fa at every sample point, or undefined. */
function proportional(fg: Node, fa: Node, vars: string[], ctx: Ctx): C | undefined {
  let ratio: C | undefined;
  let valid = 0;
  for (let p = 0; p < POINTS; p++) {
    const env = pointEnv(vars, p);
    RANGE.hit = 0;
    const x = numeric(fg, env, ctx.mode, ctx.budget);
    const y = numeric(fa, env, ctx.mode, ctx.budget);
    if (RANGE.hit || !isFiniteC(x) || !isFiniteC(y)) continue;
    const yz = cabs(y) < 1e-10;
    const xz = cabs(x) < 1e-10;
    if (yz || xz) {
      if (yz !== xz) return undefined;
      continue;
    }
    const r = cdiv(x, y);
    if (!ratio) ratio = r;
    else if (!cclose(r, ratio, SYMBOLIC_REL_TOL, 1e-12)) return undefined;
    valid++;
  }
  return valid >= 3 ? ratio : undefined;
}

const POINTS = 8;
const COMPLEX_FROM = 6;

function pseudo(p: number, v: number, salt: number): number {
  const s = Math.sin(p * 12.9898 + v * 78.233 + salt * 37.719) * 43758.5453;
  return s - Math.floor(s);
}

/**
 * Sample point p: six real points in [0.3, 2.8], then two complex points with positive real
 * part. `spread` < 1 pulls the points towards 1 (used when values overflow at the usual ones).
 */
function pointEnv(vars: string[], p: number, spread = 1): Env {
  const env: Env = new Map();
  for (let v = 0; v < vars.length; v++) {
    const re = 1 + (0.3 + 2.5 * pseudo(p, v, 1) - 1) * spread;
    const im = (p >= COMPLEX_FROM ? 1.2 * pseudo(p, v, 2) - 0.6 : 0) * spread;
    env.set(vars[v]!, { re, im });
  }
  return env;
}

function eqScalar(g: Node, a: Node, ctx: Ctx): Verdict {
  const { budget, mode, opts } = ctx;
  // numbers written in a base: 52_8 against 52 compares the digits
  if (g.k === 'num' && g.base && a.k === 'num') {
    if (a.base) return g.q.eq(a.q) ? yes(`same number (${g.q} in base 10)`) : no(`${show(a)} is not ${show(g)}`);
    return a.lit && a.q.toString() === g.base.digits ? yes(`same digits in base ${g.base.radix}`) : no(`${show(a)} is not ${show(g)}`);
  }
  let gv = [...freeVars(g)];
  let av = [...freeVars(a)];
  let an = a;
  if (!opts.strict_variables && gv.length === 1 && av.length === 1 && gv[0] !== av[0]) {
    an = rename(a, av[0]!, gv[0]!);
    av = gv;
  }
  const vars = [...new Set([...gv, ...av])];
  if (!vars.length) return eqConstant(g, an, ctx);
  // Different variable sets are still compared over their union: a side that only looks like it
  // depends on a variable (sin^2 x + cos^2 x, x - x + 3) equals a constant at every point.
  const sameVars = gv.length === av.length && gv.every((v) => av.includes(v));
  const differ = sameVars ? '' : `variables differ ({${av.join(', ')}} vs {${gv.join(', ')}}) and `;
  const tol = Math.max(opts.rel_tol, SYMBOLIC_REL_TOL);
  let valid = 0;
  let outOfRange = 0;
  // Points where a value leaves double range say nothing, and the remaining ones are biased
  // (x^1000 + 1 looks like 1 wherever x^1000 stays small): when any point overflowed, the
  // values must also agree at points close to 1.
  for (const spread of [1, 1 / 32]) {
    for (let p = 0; p < POINTS; p++) {
      const env = pointEnv(vars, p, spread);
      RANGE.hit = 0;
      const x = numeric(g, env, mode, budget);
      const y = numeric(an, env, mode, budget);
      if (RANGE.hit) {
        outOfRange++;
        continue;
      }
      if (!isFiniteC(x) || !isFiniteC(y)) continue;
      if (!close(x, y, g, an, env, tol, ctx)) return no(`${differ}differ at ${vars.map((v) => `${v}=${fmtC(env.get(v)!)}`).join(', ')}: ${fmtC(y)} vs ${fmtC(x)}`);
      valid++;
    }
    if (!outOfRange) break;
  }
  if (valid >= 3) return yes(`equal at ${valid} sample points`);
  if (outOfRange) {
    if (show(g) === show(an)) return yes('identical expressions');
    return unknown(`${differ}the values leave floating-point range at the sample points`);
  }
  return no(`${differ}could not evaluate both sides at enough points`);
}

/** Safety factor over the first-order rounding-error estimate of `withError`. */
const NOISE_FACTOR = 64;

/**
 * Whether two double values agree: within the relative tolerance, or (for values that may be
 * rounding noise around zero, like sin(π)) within their estimated rounding errors, or within
 * the configured abs_tol. Two tiny values that are not noise (x^1000 and x^1001 at x = 0.6)
 * compare relatively.
 */
function close(x: C, y: C, g: Node, a: Node, env: Env, tol: number, ctx: Ctx): boolean {
  if (cclose(x, y, tol, ctx.opts.abs_tol)) return true;
  const d = Math.hypot(x.re - y.re, x.im - y.im);
  const ex = withError(g, env, ctx.mode, ctx.budget).e;
  const ey = withError(a, env, ctx.mode, ctx.budget).e;
  return d <= NOISE_FACTOR * (ex + ey);
}

/** ±∞ written as such (`\infty`, `-\infty`): the only values that equal an infinity. */
function trueInfinity(n: Node): number {
  if (n.k === 'const' && n.name === 'inf') return 1;
  if (n.k === 'neg') return -trueInfinity(n.a);
  if (n.k === 'pm' || (n.k === 'add' && n.terms.length === 1)) return trueInfinity(n.k === 'pm' ? n.a : n.terms[0]!);
  return 0;
}

function eqConstant(g: Node, a: Node, ctx: Ctx): Verdict {
  const { budget, mode, opts } = ctx;
  const eg = exact(g, mode, budget);
  const ea = eg && exact(a, mode, budget);
  if (eg && ea) return eg.eq(ea) ? yes(`exact value ${eg.toShort()}`) : no(`exact values differ: ${ea.toShort()} vs ${eg.toShort()}`);
  const ig = trueInfinity(g);
  const ia = trueInfinity(a);
  if (ig || ia) return ig === ia ? yes(`same infinity (${ig > 0 ? '' : '-'}∞)`) : no(`${ig ? 'the reference is infinite' : 'the answer is infinite'}, the other side is ${ig && ia ? 'the opposite infinity' : 'finite'}`);
  const empty: Env = new Map();
  RANGE.hit = 0;
  const ng = numeric(g, empty, mode, budget);
  const na = numeric(a, empty, mode, budget);
  if (!RANGE.hit) {
    if (!isFiniteC(ng) || !isFiniteC(na)) return no(`values are not finite numbers (${fmtC(na)} vs ${fmtC(ng)})`);
    return close(ng, na, g, a, empty, opts.rel_tol, ctx) ? yes(`numerically equal (${fmtC(ng)})`) : no(`values differ: ${fmtC(na)} vs ${fmtC(ng)}`);
  }
  // a value left double range: decide exactly by powers, or tell them apart on a log scale
  const pg = powerForm(g, mode, budget);
  const pa = pg && powerForm(a, mode, budget);
  if (pg && pa) {
    return pg.s === pa.s && pg.r === pa.r && pg.e === pa.e ? yes(`same power ${pg.s < 0 ? '-' : ''}${pg.r}^${pg.e}`) : no('different powers');
  }
  const mg = magnitude(g, mode, budget);
  const ma = mg && magnitude(a, mode, budget);
  if (mg && ma) {
    if (mg.s !== ma.s) return no(`signs differ (${fmtMag(ma)} vs ${fmtMag(mg)})`);
    if (mg.s === 0) return yes('both zero');
    const finite = Number.isFinite(mg.l);
    const d = Math.abs(mg.l - ma.l);
    const apart = finite !== Number.isFinite(ma.l) ? true : !finite ? mg.l !== ma.l : !(d <= NOISE_FACTOR * (mg.e + ma.e) + 1e-12 * Math.max(1, Math.abs(mg.l)));
    if (apart) return no(`magnitudes differ: ${fmtMag(ma)} vs ${fmtMag(mg)}`);
  }
  if (show(g) === show(a)) return yes('identical expressions');
  return unknown(mg && ma ? `both are about ${fmtMag(mg)}, beyond exact and floating-point range` : 'the values leave floating-point range');
}

function fmtMag(m: Magnitude): string {
  if (m.s === 0) return '0';
  const sign = m.s < 0 ? '-' : '';
  if (!Number.isFinite(m.l)) return m.l > 0 ? `${sign}(astronomically large)` : `${sign}(astronomically small)`;
  return `${sign}${sciFromLog10(m.l / Math.LN10)}`;
}

function fmtC(x: C): string {
  const r = Number(x.re.toPrecision(8));
  if (Math.abs(x.im) < 1e-12) return String(r);
  return `${r}${x.im < 0 ? '-' : '+'}${Math.abs(Number(x.im.toPrecision(8)))}i`;
}

function rename(n: Node, from: string, to: string): Node {
  switch (n.k) {
    case 'var':
      return n.name === from ? { k: 'var', name: to } : n;
    case 'add':
      return { k: 'add', terms: n.terms.map((t) => rename(t, from, to)) };
    case 'neg':
    case 'pm':
    case 'pct':
    case 'deg':
      return { ...n, a: rename(n.a, from, to) } as Node;
    case 'mul':
    case 'div':
    case 'pow':
      return { ...n, a: rename(n.a, from, to), b: rename(n.b, from, to) } as Node;
    case 'fn':
      return { ...n, args: n.args.map((a) => rename(a, from, to)) };
    default:
      return n;
  }
}

export function normText(s: string): string {
  return s
    .toLowerCase()
    .replace(/\\(text|textbf|mathrm|mbox|textit|mathbf)\b/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}
