// Matrix arithmetic for answer comparison: the value of a matrix expression (sums, products,
// scalar multiples, transposes, powers) as one matrix, within size caps.
import type { Node } from './ast.js';
import { contains, exact } from './evaluate.js';
import type { Ctx } from './compare.js';

type M = Node[][];
const isM = (n: Node): n is Extract<Node, { k: 'matrix' }> => n.k === 'matrix';

/** A matrix expression (sums, products, scalar multiples, integer powers of matrices) as one matrix, or the node itself when it has no matrix; undefined when shapes do not fit. */
export function matrixValue(n: Node, ctx: Ctx): Node | undefined {
  ctx.budget.tick();
  switch (n.k) {
    case 'matrix':
      return n;
    case 'neg': {
      const a = matrixValue(n.a, ctx);
      return a && (isM(a) ? mapM(a.rows, (x) => ({ k: 'neg', a: x })) : { k: 'neg', a });
    }
    case 'add': {
      const terms = n.terms.map((t) => matrixValue(t, ctx));
      if (terms.some((t) => !t)) return undefined;
      const ms = terms.filter((t) => isM(t!)) as Extract<Node, { k: 'matrix' }>[];
      if (!ms.length) return n;
      if (ms.length !== terms.length) return undefined;
      const r = ms[0]!.rows.length;
      const c = ms[0]!.rows[0]!.length;
      if (ms.some((m) => m.rows.length !== r || m.rows[0]!.length !== c)) return undefined;
      return { k: 'matrix', rows: ms[0]!.rows.map((row, i) => row.map((_, j) => ({ k: 'add', terms: ms.map((m) => m.rows[i]![j]!) }) as Node)) };
    }
    case 'mul': {
      const a = matrixValue(n.a, ctx);
      const b = a && matrixValue(n.b, ctx);
      if (!a || !b) return undefined;
      if (!isM(a) && !isM(b)) return n;
      if (isM(a) && isM(b)) return matMul(a.rows, b.rows, ctx);
      const [m, k] = isM(a) ? [a, b] : [b as Extract<Node, { k: 'matrix' }>, a];
      return mapM(m.rows, (x) => ({ k: 'mul', a: k, b: x }));
    }
    case 'div': {
      const a = matrixValue(n.a, ctx);
      if (!a) return undefined;
      if (!isM(a)) return contains(n.b, 'matrix') ? undefined : n;
      return contains(n.b, 'matrix') ? undefined : mapM(a.rows, (x) => ({ k: 'div', a: x, b: n.b }));
    }
    case 'pow': {
      const a = matrixValue(n.a, ctx);
      if (!a || !isM(a)) return a && !contains(n.b, 'matrix') ? n : undefined;
      const e = exact(n.b, ctx.mode, ctx.budget);
      if (!e?.isInt() || e.n < 1n || e.n > 16n) return undefined;
      let r: Node | undefined = a;
      for (let i = 1n; i < e.n && r; i++) r = matMul((r as Extract<Node, { k: 'matrix' }>).rows, a.rows, ctx);
      return r;
    }
    default:
      return contains(n, 'matrix') ? undefined : n;
  }
}

function mapM(rows: M, f: (x: Node) => Node): Node {
  return { k: 'matrix', rows: rows.map((r) => r.map(f)) };
}

/** Nodes in a tree, counted up to cap (shared subtrees count every time they occur). */
function size(n: Node, cap: number): number {
  let count = 0;
  const stack: Node[] = [n];
  while (stack.length && count <= cap) {
    const x = stack.pop()!;
    count++;
    for (const v of Object.values(x)) {
      if (Array.isArray(v)) for (const c of v.flat()) if (c && typeof c === 'object' && 'k' in c) stack.push(c as Node);
      if (v && typeof v === 'object' && 'k' in v) stack.push(v as Node);
    }
  }
  return count;
}

const MAX_ENTRY_NODES = 400;

/** The product, with exact entries folded to numbers; undefined when shapes differ or symbolic entries grow too large. */
function matMul(a: M, b: M, ctx: Ctx): Node | undefined {
  if (a[0]!.length !== b.length || a.length * b[0]!.length > 400) return undefined;
  const rows = a.map((row) =>
    b[0]!.map((_, j) => {
      const e: Node = { k: 'add', terms: row.map((x, k) => ({ k: 'mul', a: x, b: b[k]![j]! }) as Node) };
      const q = exact(e, ctx.mode, ctx.budget);
      return q ? ({ k: 'num', q } as Node) : e;
    }),
  );
  if (rows.some((r) => r.some((e) => e.k !== 'num' && size(e, MAX_ENTRY_NODES) > MAX_ENTRY_NODES))) return undefined;
  return { k: 'matrix', rows };
}
