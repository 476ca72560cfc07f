// Equivalence of two parsed answers: exact rational equality where possible, numeric equality
// within a tolerance, symbolic equality by evaluation at fixed pseudo-random real and complex
// points, and structural rules for tuples (ordered), sets and solution lists (unordered),
// intervals, unions, matrices, equations (proportional) and inequalities (direction kept).
import { show, type Node, type RelOp } from './ast.js';
import { cabs, cclose, cdiv, isFiniteC, type C } from './complex.js';
import {
  APPROX_TOL,
  contains,
  exact,
  freeVars,
  integerVars,
  kindsIn,
  magnitude,
  numeric,
  powerForm,
  RANGE,
  withError,
  type Env,
  type EvalMode,
  type Magnitude,
} from './evaluate.js';
import type { Budget } from './limits.js';
import type { ParsedAnswer } from './parser.js';
import { preciseCompare, rationalOfDouble, type PreciseVerdict } from './precise.js';
import { Rational, sciFromLog10 } from './rational.js';
import { matrixValue } from './compare-matrix.js';
import { eqRealSets, isSetLike, relLike } from './compare-sets.js';

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
  /** A decimal equals an exact value it is a rounding or truncation of (with enough digits). */
  rounding: boolean;
  /** Fewest significant digits such a rounded decimal must carry. */
  rounding_min_digits: number;
  /** `1,22` may be read as 1.22 when the other side is one number. */
  decimal_comma: boolean;
  /** Labelled answers (`AB = 4`, `(p,q) = (3,2)`, `f(x) = 1`) and chains (`x = 5+6 = 11`, `x = 1/3 ≈ 0.33`) give their value. */
  equation_values: boolean;
  /** Inequalities, intervals, unions and set operations compare as sets of reals. */
  set_relations: boolean;
}

export const DEFAULT_COMPARE: CompareOptions = {
  rel_tol: 1e-9,
  abs_tol: 0,
  percent: 'either',
  strict_variables: true,
  units: 'strip',
  rounding: true,
  rounding_min_digits: 4,
  decimal_comma: true,
  equation_values: true,
  set_relations: true,
};

export interface Verdict {
  equal: boolean;
  why: string;
  /** Set when the comparison could not be decided (values beyond exact and floating-point range). */
  unknown?: boolean;
  /**
   * Why it could not be decided: `precision` (the arithmetic lost the digits to decide and the
   * precise re-evaluation could not either), `range` (the reference's values are beyond the
   * magnitude limit or floating-point range).
   */
  cause?: 'precision' | 'range';
}

export interface Ctx {
  opts: CompareOptions;
  mode: EvalMode;
  budget: Budget;
  /** Whether either answer has a matrix / a sum or product (so the costlier checks run only then). */
  matrix?: boolean;
  big?: boolean;
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
  const kinds = kindsIn(gold.node, kindsIn(ans.node));
  const hasPct = kinds.has('pct');
  const hasDeg = kinds.has('deg');
  let first: Verdict | undefined;
  const matrix = kinds.has('matrix');
  const big = kinds.has('big');
  if (opts.decimal_comma && (gold.decimal || ans.decimal)) {
    // "1,22" against one number: the decimal-comma reading (a list of two numbers otherwise)
    const g = gold.decimal && ans.node.k !== 'list' ? gold.decimal : gold.node;
    const a = ans.decimal && gold.node.k !== 'list' ? ans.decimal : ans.node;
    if (g !== gold.node || a !== ans.node) {
      const v = eqNode(g, a, { opts, mode: { pct: 'div', deg: 'strip' }, budget, matrix, big });
      if (v.equal) return { equal: true, why: `${v.why} (decimal comma)` };
    }
  }
  for (const pct of hasPct ? pctModes : ['div' as const]) {
    for (const deg of hasDeg ? (['strip', 'rad'] as const) : (['strip'] as const)) {
      const v = eqNode(gold.node, ans.node, { opts, mode: { pct, deg }, budget, matrix, big });
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

export const yes = (why: string): Verdict => ({ equal: true, why });
export const no = (why: string): Verdict => ({ equal: false, why });
const unknown = (why: string, cause: Verdict['cause'] = 'range'): Verdict => ({ equal: false, unknown: true, why, cause });

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
          return [
            { k: 'add', terms: a },
            { k: 'add', terms: b },
          ];
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
          return [
            { ...n, args: a },
            { ...n, args: b },
          ];
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
  // "\\sqrt2 \\approx 1.41": the exact part is the value, its decimal only a fallback
  const gx = approximation(g);
  const ax = approximation(a);
  if (gx || ax) return eqApprox(g, a, gx, ax, ctx);
  // finite sets combined by ∪ ∩ ∖ are evaluated: \{1,2\} ∪ \{2,3\} is \{1,2,3\}
  if (g.k === 'union' || g.k === 'setop') g = finiteSetValue(g, ctx) ?? g;
  if (a.k === 'union' || a.k === 'setop') a = finiteSetValue(a, ctx) ?? a;
  // x=1, y=2 or x=3, y=4: a flat list of assignments whose names repeat holds one solution per round
  g = solutionRounds(g) ?? g;
  a = solutionRounds(a) ?? a;
  if (g.k === 'rel') g = simplifyRel(g, ctx.opts);
  if (a.k === 'rel') a = simplifyRel(a, ctx.opts);
  // set operations, and inequalities against sets: compare as sets of reals
  if (ctx.opts.set_relations && (g.k === 'setop' || a.k === 'setop' || (relLike(g) && isSetLike(a)) || (relLike(a) && isSetLike(g)))) {
    const v = eqRealSets(g, a, ctx);
    if (v) return v;
  }
  // equations and inequalities
  if (g.k === 'rel' || a.k === 'rel') {
    if (g.k === 'rel' && a.k === 'rel') return eqRel(g, a, ctx);
    const rel = (g.k === 'rel' ? g : a) as Extract<Node, { k: 'rel' }>;
    const other = g.k === 'rel' ? a : g;
    const val = relValue(rel, ctx.opts);
    if (val) {
      // x = ±3 against 3, -3; (x, y) = (2, 3) against x = 2, y = 3: the value may itself be several
      const v = g.k === 'rel' ? eqNode(val.value, other, ctx) : eqNode(other, val.value, ctx);
      if (v.equal) return yes(`${v.why}, taking the value of ${val.label}`);
      if (!isCollection(other)) return v;
    }
    const iv = relInterval(rel, ctx.opts);
    if (iv && (other.k === 'interval' || other.k === 'tuple' || other.k === 'union')) return g.k === 'rel' ? eqNode(iv, other, ctx) : eqNode(other, iv, ctx);
    if (!isCollection(other)) return no('an equation or inequality against a value');
  }
  // ratios written with a zero part (a time like 12:00) compare part by part
  if (
    isRatio(g) &&
    isRatio(a) &&
    g.args.length === a.args.length &&
    (g.args.length !== 2 || [g, a].some((r) => exact(r.args[1]!, ctx.mode, ctx.budget)?.isZero()))
  ) {
    return eqOrdered(g.args, a.args, ctx);
  }
  // matrix arithmetic: A + B, AB, 2A are evaluated entry by entry
  if (ctx.matrix !== false && ((isArith(g) && contains(g, 'matrix')) || (isArith(a) && contains(a, 'matrix')))) {
    const gm = matrixValue(g, ctx);
    const am = matrixValue(a, ctx);
    if (gm && am && (gm !== g || am !== a)) return eqNode(gm, am, ctx);
  }
  // collections: solution lists and sets (unordered), tuples (ordered)
  const gc = collection(g);
  const ac = collection(a);
  if (gc || ac) {
    const gl = gc ?? (g.k === 'tuple' ? g.items : [g]);
    const al = ac ?? (a.k === 'tuple' ? a.items : [a]);
    // a tuple keeps its order against a set (compared as written) and against a list of assignments (x=1, y=2)
    const ordered =
      (g.k === 'tuple' && (!ac || a.k === 'set' || assignments(a))) ||
      (a.k === 'tuple' && (!gc ? g.k !== 'set' && g.k !== 'list' : g.k === 'set' || assignments(g)));
    if (gl.length > MAX_ITEMS || al.length > MAX_ITEMS) return no('too many items to compare');
    if (ordered) return gl.length === al.length ? eqOrdered(gl, al, ctx) : no(`${al.length} item(s) where ${gl.length} expected`);
    if (gl.length === al.length) return eqUnordered(gl, al, ctx);
    // as sets: a repeated solution adds nothing ((3,17,3,7) listed twice)
    return eqAsSets(gl, al, ctx) ?? no(`${al.length} item(s) where ${gl.length} expected`);
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
      const v = ctx.opts.set_relations ? eqRealSets(g, a, ctx) : undefined;
      if (v) return v;
    }
    return no(`an interval against ${g.k === 'interval' ? describeKind(a) : describeKind(g)}`);
  }
  if (g.k === 'union' || a.k === 'union') {
    if (g.k === 'union' && a.k === 'union' && g.items.length === a.items.length) {
      const v = eqUnordered(g.items, a.items, ctx);
      if (v.equal || !ctx.opts.set_relations) return v;
    }
    // [1,2] ∪ [2,3] is [1,3]
    const v = ctx.opts.set_relations ? eqRealSets(g, a, ctx) : undefined;
    if (v) return v;
    if (g.k !== 'union' || a.k !== 'union') return no('a union of intervals against something else');
    return no(`${a.items.length} interval(s) where ${g.items.length} expected`);
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

/** `E ≈ d` (one ≈, E a constant expression, d a decimal literal): E is the value, d its stated approximation. */
function approximation(n: Node): { exact: Node; approx: Node } | undefined {
  if (n.k !== 'rel' || n.ops.length !== 1 || n.ops[0] !== '≈') return undefined;
  const [e, d] = n.sides as [Node, Node];
  return decimalLit(d) && !freeVars(e).size ? { exact: e, approx: d } : undefined;
}

/**
 * An approximation against the other side: the exact parts decide. Only when that fails and the
 * other side is itself a decimal literal (an approximate value), the stated decimal equals it
 * and is its own exact part rounded or truncated to its places,
 * the pair is equal: `\\sqrt2 \\approx 1.41` = `1.41`, but `\\sqrt3 \\approx 1.41` ≠ `1.41`
 * (the answer contradicts itself) and ≠ `\\sqrt2`.
 */
function eqApprox(g: Node, a: Node, gx: { exact: Node; approx: Node } | undefined, ax: { exact: Node; approx: Node } | undefined, ctx: Ctx): Verdict {
  const v = eqNode(gx?.exact ?? g, ax?.exact ?? a, ctx);
  if (v.equal) return yes(`${v.why} (the exact part of ≈)`);
  if (v.unknown) return v;
  const side = ax ?? gx!;
  const other = ax ? g : a;
  if (gx && ax) return v;
  if (!decimalLit(other)) return v;
  const same = ax ? eqNode(other, side.approx, ctx) : eqNode(side.approx, other, ctx);
  if (!same.equal) return v;
  const lit = decimalLit(side.approx)!;
  const e = numeric(side.exact, new Map(), ctx.mode, ctx.budget);
  const d = lit.q.toNumber();
  const u = 10 ** -lit.places;
  // d is E rounded (half a unit of its last place) or truncated (E beyond d by less than a unit, same sign)
  const rounded = Math.abs(e.re - d) <= 0.5 * u * (1 + 1e-9);
  const truncated = Math.sign(e.re) === Math.sign(d) && Math.abs(e.re) >= Math.abs(d) && Math.abs(e.re) - Math.abs(d) < u;
  if (e.im !== 0 || !Number.isFinite(e.re) || !(rounded || truncated)) {
    return no(`the approximation ${show(side.approx)} does not agree with its exact part ${show(side.exact)}`);
  }
  return yes(`the stated approximation ${show(side.approx)} equals the decimal ${show(other)} and agrees with ${show(side.exact)}`);
}

/** A union, intersection or difference of finite sets, as the finite set it is; undefined when a part is not a finite set or a membership cannot be decided. */
function finiteSetValue(n: Node, ctx: Ctx): Extract<Node, { k: 'set' }> | undefined {
  if (n.k === 'set') return n;
  if (n.k !== 'union' && n.k !== 'setop') return undefined;
  const sets: Node[][] = [];
  for (const p of n.k === 'union' ? n.items : [n.a, n.b]) {
    const s = finiteSetValue(p, ctx);
    if (!s || s.items.length > MAX_ITEMS) return undefined;
    sets.push(s.items);
  }
  const member = (x: Node, ys: Node[]): boolean | undefined => {
    for (const y of ys) {
      const v = eqNode(y, x, ctx);
      if (v.unknown) return undefined;
      if (v.equal) return true;
    }
    return false;
  };
  const items: Node[] = [];
  const [first, second] = sets as [Node[], Node[]];
  for (const x of n.k === 'union' ? sets.flat() : first) {
    const m = member(x, n.k === 'union' ? items : second);
    if (m === undefined) return undefined;
    if (n.k === 'union' ? !m : m === (n.op === '∩')) items.push(x);
  }
  return { k: 'set', items };
}

/**
 * `x=1, y=2, x=3, y=4` as the solutions (x=1, y=2) and (x=3, y=4): a flat list of assignments
 * split where its first name comes again; every round must assign the same names, each once.
 */
function solutionRounds(n: Node): Node | undefined {
  if (n.k !== 'list' || n.items.length < 4 || !assignments(n)) return undefined;
  const name = (x: Node) => show((x as Extract<Node, { k: 'rel' }>).sides[0]!);
  const head = name(n.items[0]!);
  const rounds: Node[][] = [];
  for (const x of n.items) {
    if (name(x) === head) rounds.push([]);
    rounds[rounds.length - 1]!.push(x);
  }
  const names = (r: Node[]) => r.map(name).sort().join(',');
  const key = names(rounds[0]!);
  if (rounds.length < 2 || rounds[0]!.length < 2 || rounds.some((r) => names(r) !== key || new Set(r.map(name)).size !== r.length)) return undefined;
  return { k: 'list', items: rounds.map((r) => ({ k: 'list', items: r })) };
}

/** Arithmetic that may combine matrices (A + B, AB, 2A, -A, A^2). */
function isArith(n: Node): boolean {
  return n.k === 'add' || n.k === 'mul' || n.k === 'neg' || n.k === 'div' || n.k === 'pow';
}

function isCollection(n: Node): boolean {
  return n.k === 'list' || n.k === 'set';
}

function describeKind(n: Node): string {
  return n.k === 'num' || n.k === 'add' || n.k === 'mul' || n.k === 'div' || n.k === 'pow' || n.k === 'fn' || n.k === 'var' || n.k === 'const' || n.k === 'neg'
    ? 'a scalar'
    : `a ${n.k}`;
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

/** Every item of each side equals some item of the other (duplicates collapse); undefined when the item sets differ in size even after that. */
function eqAsSets(gl: Node[], al: Node[], ctx: Ctx): Verdict | undefined {
  const covered = (xs: Node[], ys: Node[], gFirst: boolean): Node | undefined => {
    for (const x of xs) if (!ys.some((y) => (gFirst ? eqNode(x, y, ctx) : eqNode(y, x, ctx)).equal)) return x;
    return undefined;
  };
  const missing = covered(gl, al, true);
  if (missing) return gl.length === al.length ? no(`no item of the answer equals ${show(missing)}`) : undefined;
  const extra = covered(al, gl, false);
  if (extra) return gl.length === al.length ? no(`the answer item ${show(extra)} equals no item of the reference`) : undefined;
  return yes(`same set of ${gl.length === al.length ? gl.length : `${gl.length} vs ${al.length} listed`} item(s), duplicates collapsed`);
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

/**
 * A name rather than a quantity: a variable (`x`, `S_{MBCN}`), a product of letters (`AB`), a
 * function application (`f(x)`, parsed as f·x), a ratio or quotient of names (`A:B`, `NO/BO`),
 * `|AB|`, or a tuple of names (`(p, q)`). Returns the variables it names.
 */
function labelVars(n: Node): string[] | undefined {
  switch (n.k) {
    case 'var':
      return [n.name];
    case 'mul': {
      // f(x), f^{-1}(x): the head names the function; its argument may appear on the other side
      const head = n.a.k === 'var' ? n.a : n.a.k === 'pow' && n.a.a.k === 'var' && n.a.b.k === 'neg' ? n.a.a : undefined;
      if (head && head.name.length === 1 && (n.b.k === 'var' || (n.b.k === 'tuple' && n.b.items.every((x) => x.k === 'var')))) return [head.name];
      const a = labelVars(n.a);
      const b = a && labelVars(n.b);
      return a && b ? [...a, ...b] : undefined;
    }
    case 'div': {
      const a = labelVars(n.a);
      const b = a && labelVars(n.b);
      return a && b ? [...a, ...b] : undefined;
    }
    case 'add': {
      // a + b, a - b: an expression of names only (no numbers) names the quantity asked for
      const parts = n.terms.map((t) => labelVars(t.k === 'neg' ? t.a : t));
      return parts.every(Boolean) ? (parts.flat() as string[]) : undefined;
    }
    case 'fn':
      if (n.name === 'abs' || n.name === 'ratio') {
        const parts = n.args.map(labelVars);
        return parts.every(Boolean) ? (parts.flat() as string[]) : undefined;
      }
      return undefined;
    case 'tuple': {
      const parts = n.items.map(labelVars);
      return parts.every(Boolean) ? (parts.flat() as string[]) : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Drops approximations and collapses chains: `x = 1/3 ≈ 0.33` is `x = 1/3`, `x ≈ 0.33` is
 * `x = 0.33`, and (equation_values) `x = 5+5+1 = 11` is `x = 11`, `1/2 = 10/9` keeps its last side.
 */
function simplifyRel(r: Extract<Node, { k: 'rel' }>, opts: CompareOptions): Node {
  let ops = r.ops;
  let sides = r.sides;
  const approx = ops.indexOf('≈');
  if (approx === 0) ops = (['=', ...ops.slice(1)] as RelOp[]).map((o) => (o === '≈' ? '=' : o));
  else if (approx > 0) {
    ops = ops.slice(0, approx);
    sides = sides.slice(0, approx + 1);
  }
  if (opts.equation_values && ops.length > 1 && ops.every((o) => o === '=')) {
    const first = sides[0]!;
    if (labelVars(first) || !freeVars(first).size) {
      // a labelled or purely numeric chain states its last value
      if (sides.slice(1).every((x) => !labelVars(x) || !freeVars(x).size)) {
        ops = ['='];
        sides = [first, sides[sides.length - 1]!];
      }
    }
  }
  return ops === r.ops && sides === r.sides ? r : { k: 'rel', ops, sides };
}

/** The value an equation names, and the name it was taken from. */
function relValue(r: Extract<Node, { k: 'rel' }>, opts: CompareOptions): { value: Node; label: string } | undefined {
  if (r.ops.length !== 1 || r.ops[0] !== '=') return undefined;
  const [l, rr] = r.sides as [Node, Node];
  // x = 5: one side a lone variable that the other side does not use
  if (l.k === 'var' && !freeVars(rr).has(l.name)) return { value: rr, label: show(l) };
  if (rr.k === 'var' && !freeVars(l).has(rr.name)) return { value: l, label: show(rr) };
  if (!opts.equation_values) return undefined;
  const lv = labelVars(l);
  if (lv) {
    const fv = freeVars(rr);
    if (!lv.some((v) => fv.has(v))) return { value: rr, label: show(l) };
  }
  // 1/2 = 10/9 (a computation chain of constants): the last value
  if (!freeVars(l).size && !freeVars(rr).size) return { value: rr, label: 'the last side' };
  return undefined;
}

/** `x > 2` as (2, ∞), `1 <= x < 3` as [1, 3), `0 < f(x) < 1` as (0, 1). */
function relInterval(r: Extract<Node, { k: 'rel' }>, opts: CompareOptions): Node | undefined {
  const INF: Node = { k: 'const', name: 'inf' };
  const NINF: Node = { k: 'neg', a: INF };
  const named = (n: Node) => n.k === 'var' || (opts.equation_values && labelVars(n) !== undefined);
  if (r.ops.length === 1) {
    let [l, rr] = r.sides as [Node, Node];
    let op = r.ops[0]!;
    if (named(rr) && !named(l)) {
      [l, rr] = [rr, l];
      op = flip(op);
    }
    if (!named(l) || freeVars(rr).size) return undefined;
    if (op === '>' || op === '>=') return { k: 'interval', lo: rr, hi: INF, loClosed: op === '>=', hiClosed: false };
    if (op === '<' || op === '<=') return { k: 'interval', lo: NINF, hi: rr, loClosed: false, hiClosed: op === '<=' };
    return undefined;
  }
  if (r.ops.length === 2 && named(r.sides[1]!) && !freeVars(r.sides[0]!).size && !freeVars(r.sides[2]!).size) {
    const [o1, o2] = r.ops as [RelOp, RelOp];
    if ((o1 === '<' || o1 === '<=') && (o2 === '<' || o2 === '<='))
      return { k: 'interval', lo: r.sides[0]!, hi: r.sides[2]!, loClosed: o1 === '<=', hiClosed: o2 === '<=' };
    if ((o1 === '>' || o1 === '>=') && (o2 === '>' || o2 === '>='))
      return { k: 'interval', lo: r.sides[2]!, hi: r.sides[0]!, loClosed: o2 === '>=', hiClosed: o1 === '>=' };
  }
  return undefined;
}

/** A list whose items all assign a value to a name (`x = 1, y = 2`), comparable to a tuple in order. */
function assignments(n: Node): boolean {
  return n.k === 'list' && n.items.every((x) => x.k === 'rel' && x.ops.length === 1 && x.ops[0] === '=' && labelVars(x.sides[0]!) !== undefined);
}

function isRatio(n: Node): n is Extract<Node, { k: 'fn' }> {
  return n.k === 'fn' && n.name === 'ratio';
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

/** `f(x)` (parsed as f·x): the function name and its parameter. */
function application(n: Node): { head: string; param: string } | undefined {
  return n.k === 'mul' && n.a.k === 'var' && n.a.name.length === 1 && n.b.k === 'var' ? { head: n.a.name, param: n.b.name } : undefined;
}

function eqRel(g: Extract<Node, { k: 'rel' }>, a: Extract<Node, { k: 'rel' }>, ctx: Ctx): Verdict {
  // W(x) = 1 and W(n) = 1 define the same function: the parameter's name is a dummy
  const appG = ctx.opts.equation_values && g.ops.length === 1 && g.ops[0] === '=' ? application(g.sides[0]!) : undefined;
  const appA = appG && a.ops.length === 1 && a.ops[0] === '=' ? application(a.sides[0]!) : undefined;
  if (appG && appA && appG.head === appA.head && appG.param !== appA.param && !freeVars(a.sides[1]!).has(appG.param)) {
    const renamed: Extract<Node, { k: 'rel' }> = { k: 'rel', ops: a.ops, sides: a.sides.map((x) => rename(x, appA.param, appG.param)) };
    const v = eqRel(g, renamed, ctx);
    return v.equal ? yes(`${v.why} (parameter ${appA.param} renamed ${appG.param})`) : v;
  }
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
    const swapped = eqNode(gn.sides[0]!, an.sides[1]!, ctx).equal && eqNode(gn.sides[1]!, an.sides[0]!, ctx).equal;
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

export function fmt(x: number): string {
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
function pointEnv(vars: string[], p: number, spread = 1, ints?: Set<string>): Env {
  const env: Env = new Map();
  for (let v = 0; v < vars.length; v++) {
    if (ints?.has(vars[v]!)) {
      // a bound of a sum or product: the integers 2..11
      env.set(vars[v]!, { re: 2 + Math.floor(10 * pseudo(p, v, 3)), im: 0 });
      continue;
    }
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
  const gv = [...freeVars(g)];
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
  const ints = ctx.big === false ? new Set<string>() : integerVars(g);
  if (ctx.big !== false) integerVars(an, ints);
  let valid = 0;
  let outOfRange = 0;
  let goldOut = false;
  let lost: string | undefined;
  // Points where a value leaves double range say nothing, and the remaining ones are biased
  // (x^1000 + 1 looks like 1 wherever x^1000 stays small): when any point overflowed, the
  // values must also agree at points close to 1.
  for (const spread of [1, 1 / 32]) {
    for (let p = 0; p < POINTS; p++) {
      const env = pointEnv(vars, p, spread, ints.size ? ints : undefined);
      RANGE.hit = 0;
      RANGE.approx = 0;
      const x = numeric(g, env, mode, budget);
      const gHit = RANGE.hit;
      const y = numeric(an, env, mode, budget);
      if (RANGE.hit) {
        outOfRange++;
        if (gHit) goldOut = true;
        continue;
      }
      if (!isFiniteC(x) || !isFiniteC(y)) continue;
      const at = vars.map((v) => `${v}=${fmtC(env.get(v)!)}`).join(', ');
      let c = RANGE.approx ? close(x, y, g, an, env, Math.max(tol, APPROX_TOL), ctx, true) : close(x, y, g, an, env, tol, ctx);
      if (c === 'lost') {
        // decide at this point with interval arithmetic (real points only: the point is exact)
        const pv = realPoint(env);
        const pr = pv ? preciseCompare(g, an, mode, budget, tol, ctx.opts.abs_tol, pv) : undefined;
        if (pr?.kind === 'over') return overVerdict(pr, `at ${at}`);
        c = pr?.kind === 'equal' ? 'eq' : pr?.kind === 'unequal' ? 'ne' : 'lost';
        if (c === 'lost') {
          lost ??= `${lossDescription(g, an, env, ctx)} at ${at}${pr ? ` (${pr.why})` : ''}`;
          continue;
        }
      }
      if (c === 'ne') return no(`${differ}differ at ${at}: ${fmtC(y)} vs ${fmtC(x)}`);
      valid++;
    }
    if (!outOfRange) break;
  }
  if (lost) return unknown(`precision lost: ${lost}`, 'precision');
  if (valid >= 3) return yes(`equal at ${valid} sample points`);
  if (outOfRange) {
    if (show(g) === show(an)) return yes('identical expressions');
    if (goldOut) return unknown(`${differ}the values leave floating-point range at the sample points`);
    // the reference stays in range wherever it was evaluated: the answer's own size is the cause
    return no(
      `${differ}the answer's values leave floating-point range at the sample points (the magnitude limit for answers with variables: every intermediate value within double range)`,
    );
  }
  return no(`${differ}could not evaluate both sides at enough points`);
}

/** The sample point as exact rationals, when every coordinate is real. */
function realPoint(env: Env): Map<string, Rational> | undefined {
  const out = new Map<string, Rational>();
  for (const [k, v] of env) {
    if (v.im !== 0) return undefined;
    const q = rationalOfDouble(v.re);
    if (!q) return undefined;
    out.set(k, q);
  }
  return out;
}

/** A side over the precise evaluator's magnitude limit: the answer's doing (a valid 0), or the reference's (undecidable). */
function overVerdict(pr: Extract<PreciseVerdict, { kind: 'over' }>, where = ''): Verdict {
  if (pr.side === 'reference') return unknown(`the reference's value is over the magnitude limit${where ? ` ${where}` : ''}: ${pr.why}`);
  return no(`the answer is over the magnitude limit${where ? ` ${where}` : ''}: ${pr.why}`);
}

/**
 * Where precision was lost: the innermost sub-expression whose error bound is large against its
 * value while its parts are still precise (sin of a huge argument, a sum that cancels).
 */
function lossSite(n: Node, env: Env, ctx: Ctx): Node | undefined {
  const r = withError(n, env, ctx.mode, ctx.budget);
  const m = cabs(r.v);
  if (!(r.e > 1e-6 * m) && Number.isFinite(r.e)) return undefined;
  const kids: Node[] =
    n.k === 'add'
      ? n.terms
      : n.k === 'fn'
        ? n.args
        : n.k === 'mul' || n.k === 'div' || n.k === 'pow'
          ? [n.a, n.b]
          : n.k === 'neg' || n.k === 'pm' || n.k === 'pct' || n.k === 'deg'
            ? [n.a]
            : [];
  for (const k of kids) {
    const s = lossSite(k, env, ctx);
    if (s) return s;
  }
  return n;
}

function lossDescription(g: Node, a: Node, env: Env, ctx: Ctx): string {
  const sa = lossSite(a, env, ctx);
  const sg = sa ? undefined : lossSite(g, env, ctx);
  const site = sa ?? sg;
  if (!site) return 'the two values are within their rounding error of each other';
  const text = show(site);
  return `${sa ? 'in the answer' : 'in the reference'}, ${text.length > 120 ? `${text.slice(0, 117)}...` : text} has lost its significant digits in double precision`;
}

/** Safety factor over the first-order rounding-error estimate of `withError`. */
const NOISE_FACTOR = 64;

/**
 * Whether two double values agree, given the rounding error bound E of each side (first-order
 * propagation through the evaluation, times NOISE_FACTOR): equal within the relative tolerance
 * (or abs_tol) when E is below that tolerance, so the digits that decide are real; equal as
 * rounding noise around zero (sin(π) = 0) when the difference is within E and E is tiny in
 * absolute terms; different when the difference exceeds E plus the tolerance. Anything else
 * (sin(10^30) against sin(10^30 + 1): both are noise) has `lost` the precision to decide.
 */
function close(x: C, y: C, g: Node, a: Node, env: Env, tol: number, ctx: Ctx, approx = false): 'eq' | 'ne' | 'lost' {
  const d = Math.hypot(x.re - y.re, x.im - y.im);
  const s = Math.max(cabs(x), cabs(y));
  const absTol = ctx.opts.abs_tol;
  const within = cclose(x, y, tol, absTol);
  // a numeric limit, integral or infinite series: its approximation error is the documented
  // tolerance (APPROX_TOL), so the doubles' error is not the question
  if (approx) return within ? 'eq' : 'ne';
  // clearly apart, with moderate values: rounding noise of ordinary expressions is far below
  // this, and a value whose error is this large is caught below
  const ex = withError(g, env, ctx.mode, ctx.budget).e;
  const ey = withError(a, env, ctx.mode, ctx.budget).e;
  if (!Number.isFinite(ex) || !Number.isFinite(ey)) {
    // a value within its error of a pole says nothing: apart only when clearly apart
    return within ? 'lost' : d > 1e-6 * Math.max(1, s) ? 'lost' : 'ne';
  }
  const E = NOISE_FACTOR * (ex + ey);
  if (within) return E <= Math.max(tol * s, absTol) ? 'eq' : E <= NOISE_ABS * Math.max(1, s) && d <= E ? 'eq' : 'lost';
  if (d > E + tol * s) return 'ne';
  if (E <= NOISE_ABS * Math.max(1, s)) return 'eq'; // zero within its rounding noise
  return 'lost';
}

/** Largest rounding error (relative to max(1, |value|)) still read as noise around zero. */
const NOISE_ABS = 1e-6;

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
  if (eg && ea && eg.eq(ea)) return yes(`exact value ${eg.toShort()}`);
  if (opts.rounding) {
    const r = roundedDecimal(g, a, ctx) ?? roundedDecimal(a, g, ctx);
    if (r) return r;
  }
  if (eg && ea) return no(`exact values differ: ${ea.toShort()} vs ${eg.toShort()}`);
  const ig = trueInfinity(g);
  const ia = trueInfinity(a);
  if (ig || ia)
    return ig === ia
      ? yes(`same infinity (${ig > 0 ? '' : '-'}∞)`)
      : no(`${ig ? 'the reference is infinite' : 'the answer is infinite'}, the other side is ${ig && ia ? 'the opposite infinity' : 'finite'}`);
  const empty: Env = new Map();
  RANGE.hit = 0;
  RANGE.approx = 0;
  const ng = numeric(g, empty, mode, budget);
  const na = numeric(a, empty, mode, budget);
  if (!RANGE.hit) {
    if (!isFiniteC(ng) || !isFiniteC(na)) return no(`values are not finite numbers (${fmtC(na)} vs ${fmtC(ng)})`);
    const approx = RANGE.approx;
    const tol = approx ? Math.max(opts.rel_tol, APPROX_TOL) : opts.rel_tol;
    const c = close(ng, na, g, a, empty, tol, ctx, approx === 1);
    if (c === 'eq') return yes(`numerically equal (${fmtC(ng)}${approx ? `, within ${tol} as a numeric limit/integral/series` : ''})`);
    if (c === 'ne') return no(`values differ: ${fmtC(na)} vs ${fmtC(ng)}`);
    if (show(g) === show(a)) return yes('identical expressions');
    return precisely(g, a, tol, ctx, lossDescription(g, a, empty, ctx));
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
    const apart =
      finite !== Number.isFinite(ma.l) ? true : !finite ? mg.l !== ma.l : !(d <= NOISE_FACTOR * (mg.e + ma.e) + 1e-12 * Math.max(1, Math.abs(mg.l)));
    if (apart) return no(`magnitudes differ: ${fmtMag(ma)} vs ${fmtMag(mg)}`);
  }
  if (show(g) === show(a)) return yes('identical expressions');
  return precisely(
    g,
    a,
    opts.rel_tol,
    ctx,
    mg && ma ? `both are about ${fmtMag(mg)}, beyond exact and floating-point range` : 'the values leave floating-point range',
  );
}

/** Decides with interval arithmetic what double arithmetic could not; `why` says what the doubles lost. */
function precisely(g: Node, a: Node, tol: number, ctx: Ctx, why: string): Verdict {
  const pr = preciseCompare(g, a, ctx.mode, ctx.budget, tol, ctx.opts.abs_tol);
  if (pr.kind === 'equal') return yes(pr.why);
  if (pr.kind === 'unequal') return no(pr.why);
  if (pr.kind === 'over') return overVerdict(pr);
  return unknown(`precision lost: ${why}; ${pr.why}`, 'precision');
}

/** A decimal literal (`2.6667`, `-0.33`): its value, places after the point and significant digits. */
function decimalLit(n: Node): { q: Rational; places: number; sig: number } | undefined {
  if (n.k === 'num' && n.dec) return { q: n.q, ...n.dec };
  if (n.k === 'neg' && n.a.k === 'num' && n.a.dec) return { q: n.a.q.neg(), ...n.a.dec };
  return undefined;
}

/**
 * The rounding rule: a decimal with at least rounding_min_digits significant digits equals a
 * value that is not itself a decimal literal when it is that value rounded (half away from
 * zero) or truncated to the decimal's own number of places: 2.6667 = 8/3, 0.0833333 = 1/12,
 * 3.1415 = π, but 0.333 ≠ 1/3 (3 digits) and 0.3334 ≠ 1/3.
 */
function roundedDecimal(d: Node, other: Node, ctx: Ctx): Verdict | undefined {
  const lit = decimalLit(d);
  if (!lit || lit.places === 0 || lit.sig < ctx.opts.rounding_min_digits || decimalLit(other) || other.k === 'num') return undefined;
  const scale = Rational.of(10n ** BigInt(lit.places));
  const D = lit.q.mul(scale); // an integer
  const q = exact(other, ctx.mode, ctx.budget);
  let ok: boolean;
  if (q) {
    const x = q.mul(scale);
    const ax = x.n < 0n ? x.neg() : x;
    const tr = ax.n / ax.d;
    const rd = (2n * ax.n + ax.d) / (2n * ax.d);
    const sgn = x.n < 0n ? -1n : 1n;
    ok = D.n === sgn * tr || D.n === sgn * rd;
  } else {
    if (lit.sig > 15) return undefined;
    RANGE.hit = 0;
    const v = numeric(other, new Map(), ctx.mode, ctx.budget);
    if (RANGE.hit || v.im !== 0 || !Number.isFinite(v.re)) return undefined;
    const x = Math.abs(v.re) * 10 ** lit.places;
    const dd = Math.abs(D.toNumber());
    const slack = 1e-9 * Math.max(1, x);
    ok = Math.sign(v.re) === Math.sign(D.toNumber()) && x >= dd - 0.5 - slack && x < dd + 1 + slack;
  }
  return ok ? yes(`rounding rule: ${show(d)} is ${show(other)} rounded or truncated to ${lit.places} place(s)`) : undefined;
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
