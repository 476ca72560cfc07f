// Tree walks over expressions: free and integer variables, substitution, the kinds of node a
// tree holds. No evaluation.
import type { Node } from './ast.js';

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
