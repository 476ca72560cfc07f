// Sets of reals for answer comparison: inequalities, intervals, unions and set operations as
// unions of intervals, so that x > 2 equals (2, ∞) and x^2 < 4 equals (-2, 2).
import type { Node } from './ast.js';
import { exact, freeVars, numeric, type Env } from './evaluate.js';
import { fmt, no, yes, type Ctx, type Verdict } from './compare.js';

export function isSetLike(n: Node): boolean {
  return n.k === 'interval' || n.k === 'union' || n.k === 'setop' || n.k === 'set';
}

/** A relation, or relations joined by "or"/"," (`x < -1 or x > 2`). */
export function relLike(n: Node): boolean {
  return n.k === 'rel' || (n.k === 'list' && n.items.length > 0 && n.items.every((x) => x.k === 'rel' && x.ops.some((o) => o !== '=')));
}

interface RealSet {
  has: (x: number) => boolean | undefined;
  points: number[];
}

const SET_EPS = 1e-12;

/**
 * A set of reals from an interval, union, set operation, finite set of constants, or a relation
 * in one variable (`1 \\le |z| \\le 3/2`, `x \\ne 5`); undefined when it is none of these.
 */
function realSet(n: Node, ctx: Ctx, v?: string): RealSet | undefined {
  const num = (x: Node): number | undefined => {
    if (freeVars(x).size) return undefined;
    const q = exact(x, ctx.mode, ctx.budget);
    if (q) return q.toNumber();
    const c = numeric(x, new Map(), ctx.mode, ctx.budget);
    return c.im === 0 && !Number.isNaN(c.re) ? c.re : undefined;
  };
  switch (n.k) {
    case 'interval': {
      const lo = num(n.lo);
      const hi = num(n.hi);
      if (lo === undefined || hi === undefined) return undefined;
      const tl = Number.isFinite(lo) ? SET_EPS * Math.max(1, Math.abs(lo)) : 0;
      const th = Number.isFinite(hi) ? SET_EPS * Math.max(1, Math.abs(hi)) : 0;
      return {
        has: (x) => (n.loClosed ? x >= lo - tl : x > lo + tl) && (n.hiClosed ? x <= hi + th : x < hi - th),
        points: [lo, hi].filter(Number.isFinite),
      };
    }
    case 'tuple':
      return n.items.length === 2 ? realSet({ k: 'interval', lo: n.items[0]!, hi: n.items[1]!, loClosed: false, hiClosed: false }, ctx, v) : undefined;
    case 'set': {
      const xs = n.items.map(num);
      if (xs.some((x) => x === undefined || !Number.isFinite(x))) return undefined;
      const ys = xs as number[];
      return { has: (x) => ys.some((y) => Math.abs(x - y) <= SET_EPS * Math.max(1, Math.abs(y))), points: ys };
    }
    case 'union':
    case 'setop': {
      const parts = (n.k === 'union' ? n.items : [n.a, n.b]).map((x) => realSet(x, ctx, v));
      if (parts.some((p) => !p)) return undefined;
      const ps = parts as RealSet[];
      const op = n.k === 'union' ? '∪' : n.op;
      return {
        has: (x) => {
          const vals = ps.map((p) => p.has(x));
          if (vals.some((b) => b === undefined)) return undefined;
          return op === '∪' ? vals.some(Boolean) : op === '∩' ? vals.every(Boolean) : vals[0]! && !vals[1]!;
        },
        points: ps.flatMap((p) => p.points),
      };
    }
    case 'list':
      // "x < -1 or x > 2": the union of the relations
      return n.items.length && n.items.every((x) => x.k === 'rel') ? realSet({ k: 'union', items: n.items }, ctx, v) : undefined;
    case 'rel': {
      const fv = new Set<string>();
      for (const x of n.sides) freeVars(x, fv);
      if (fv.size !== 1) return undefined;
      const name = [...fv][0]!;
      if (v !== undefined && name !== v) return undefined;
      const points: number[] = [];
      const collect = (x: Node): void => {
        if (x.k === 'num') points.push(x.q.toNumber(), -x.q.toNumber());
        else if (!freeVars(x).size) {
          const c = num(x);
          if (c !== undefined && Number.isFinite(c)) points.push(c, -c);
        } else if ('a' in x && x.a) {
          collect(x.a as Node);
          if ('b' in x && x.b) collect(x.b as Node);
        } else if (x.k === 'add') x.terms.forEach(collect);
        else if (x.k === 'fn') x.args.forEach(collect);
      };
      n.sides.forEach(collect);
      return {
        has: (x) => {
          const env: Env = new Map([[name, { re: x, im: 0 }]]);
          const vals = n.sides.map((sd) => numeric(sd, env, ctx.mode, ctx.budget));
          if (vals.some((c) => Number.isNaN(c.re) || Math.abs(c.im) > 1e-12)) return false; // outside the domain
          for (let i = 0; i < n.ops.length; i++) {
            const l = vals[i]!.re;
            const r = vals[i + 1]!.re;
            const t = SET_EPS * Math.max(1, Math.abs(l), Math.abs(r));
            const op = n.ops[i]!;
            const ok =
              op === '<'
                ? l < r - t
                : op === '<='
                  ? l <= r + t
                  : op === '>'
                    ? l > r + t
                    : op === '>='
                      ? l >= r - t
                      : op === '!='
                        ? Math.abs(l - r) > t
                        : Math.abs(l - r) <= t;
            if (!ok) return false;
          }
          return true;
        },
        points,
      };
    }
    default:
      return undefined;
  }
}

/** Compares two sets of reals by membership at every boundary point, just beside it, between boundaries and far out. */
export function eqRealSets(g: Node, a: Node, ctx: Ctx): Verdict | undefined {
  const gs = realSet(g, ctx);
  const as = gs && realSet(a, ctx);
  if (!gs || !as) return undefined;
  const pts = [...new Set([...gs.points, ...as.points].filter(Number.isFinite))].sort((x, y) => x - y).slice(0, 200);
  const probes: number[] = [-1e9, 1e9, 0];
  for (let i = 0; i < pts.length; i++) {
    const p = pts[i]!;
    const d = 1e-7 * Math.max(1, Math.abs(p));
    probes.push(p, p - d, p + d);
    if (i + 1 < pts.length) probes.push((p + pts[i + 1]!) / 2);
  }
  if (pts.length) probes.push(pts[0]! - 1 - Math.abs(pts[0]!), pts[pts.length - 1]! + 1 + Math.abs(pts[pts.length - 1]!));
  for (const x of probes) {
    ctx.budget.tick();
    const hg = gs.has(x);
    const ha = as.has(x);
    if (hg === undefined || ha === undefined) return undefined;
    if (hg !== ha) return no(`as sets of reals they differ at ${fmt(x)} (${ha ? 'in' : 'not in'} the answer, ${hg ? 'in' : 'not in'} the reference)`);
  }
  return yes(`same set of reals (checked at ${probes.length} points around ${pts.length} boundary point(s))`);
}
