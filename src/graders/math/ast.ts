// The typed values a math answer parses into: scalar expressions (exact literals, constants,
// variables, operators, functions) and structures (tuples, sets, lists, intervals, matrices,
// relations, multiple-choice letters, plain text).
import type { Rational } from './rational.js';

export type RelOp = '=' | '!=' | '<' | '<=' | '>' | '>=' | '≈';

export type Node =
  /** A literal; `lit` marks an unsigned integer literal (for mixed numbers), `base` a subscripted base. */
  | { k: 'num'; q: Rational; lit?: boolean; base?: { digits: string; radix: number }; dec?: { places: number; sig: number } }
  | { k: 'const'; name: 'pi' | 'e' | 'i' | 'inf' }
  | { k: 'var'; name: string }
  | { k: 'add'; terms: Node[] }
  | { k: 'neg'; a: Node }
  /** `± a` inside a sum: expands into two answers. */
  | { k: 'pm'; a: Node }
  | { k: 'mul'; a: Node; b: Node }
  | { k: 'div'; a: Node; b: Node }
  | { k: 'pow'; a: Node; b: Node }
  | { k: 'fn'; name: string; args: Node[] }
  | { k: 'pct'; a: Node }
  | { k: 'deg'; a: Node }
  | { k: 'tuple'; items: Node[] }
  | { k: 'set'; items: Node[] }
  | { k: 'list'; items: Node[] }
  | { k: 'interval'; lo: Node; hi: Node; loClosed: boolean; hiClosed: boolean }
  | { k: 'union'; items: Node[] }
  /** Intersection / difference of sets or intervals (`\\cap`, `\\setminus`). */
  | { k: 'setop'; op: '∩' | '\\'; a: Node; b: Node }
  /** `\\sum_{v=lo}^{hi} f` / `\\prod_{v=lo}^{hi} f` (v bound in f). */
  | { k: 'big'; op: 'sum' | 'prod'; v: string; lo: Node; hi: Node; f: Node }
  /** `\\int_{lo}^{hi} f \\,dv` (definite) or `\\int f \\,dv` (indefinite: lo/hi absent). */
  | { k: 'int'; v: string; lo?: Node; hi?: Node; f: Node }
  /** `\\lim_{v \\to to} f`, one-sided when dir is set. */
  | { k: 'lim'; v: string; to: Node; dir?: 1 | -1; f: Node }
  | { k: 'matrix'; rows: Node[][] }
  | { k: 'rel'; ops: RelOp[]; sides: Node[] }
  | { k: 'choice'; letter: string }
  | { k: 'text'; s: string };

/** Short human-readable form of a node, for reasons and metadata. */
export function show(n: Node): string {
  switch (n.k) {
    case 'num':
      return n.base ? `${n.base.digits}_${n.base.radix}` : n.q.toString();
    case 'const':
      return n.name === 'inf' ? '∞' : n.name === 'pi' ? 'π' : n.name;
    case 'var':
      return n.name;
    case 'add':
      return '(' + n.terms.map(show).join(' + ') + ')';
    case 'neg':
      return `-${show(n.a)}`;
    case 'pm':
      return `±${show(n.a)}`;
    case 'mul':
      return `${show(n.a)}*${show(n.b)}`;
    case 'div':
      return `${show(n.a)}/${show(n.b)}`;
    case 'pow':
      return `${show(n.a)}^${show(n.b)}`;
    case 'fn':
      return `${n.name}(${n.args.map(show).join(', ')})`;
    case 'pct':
      return `${show(n.a)}%`;
    case 'deg':
      return `${show(n.a)}°`;
    case 'tuple':
      return `(${n.items.map(show).join(', ')})`;
    case 'set':
      return `{${n.items.map(show).join(', ')}}`;
    case 'list':
      return n.items.map(show).join(', ');
    case 'interval':
      return `${n.loClosed ? '[' : '('}${show(n.lo)}, ${show(n.hi)}${n.hiClosed ? ']' : ')'}`;
    case 'union':
      return n.items.map(show).join(' ∪ ');
    case 'setop':
      return `(${show(n.a)} ${n.op === '∩' ? '∩' : '∖'} ${show(n.b)})`;
    case 'big':
      return `${n.op}(${show(n.f)}, ${n.v}=${show(n.lo)}..${show(n.hi)})`;
    case 'int':
      return n.lo && n.hi ? `int(${show(n.f)} d${n.v}, ${show(n.lo)}..${show(n.hi)})` : `int(${show(n.f)} d${n.v})`;
    case 'lim':
      return `lim(${show(n.f)}, ${n.v}→${show(n.to)}${n.dir ? (n.dir > 0 ? '+' : '-') : ''})`;
    case 'matrix':
      return `[${n.rows.map((r) => r.map(show).join(', ')).join('; ')}]`;
    case 'rel':
      return n.sides.map((s, i) => (i ? ` ${n.ops[i - 1]} ` : '') + show(s)).join('');
    case 'choice':
      return `(${n.letter})`;
    case 'text':
      return JSON.stringify(n.s);
  }
}
