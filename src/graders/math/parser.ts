// Recursive-descent parser from tokens to typed answer values (see ast.ts). Follows LaTeX
// argument rules (\frac12, \sqrt2), implicit multiplication, mixed numbers (1\frac{4}{5}),
// base subscripts (52_8), ± expansions, intervals vs tuples, matrices, relations, and drops
// trailing unit words. Depth and work are bounded by the Budget.
import type { Node, RelOp } from './ast.js';
import { limitFailure, type Budget } from './limits.js';
import { INVERSE_HYPERBOLIC, ParseError, tokenize, type Tok } from './lexer.js';
import { Rational } from './rational.js';

const REL_OPS = new Set(['=', '!=', '<', '<=', '>', '>=', '≈']);
const DEGREE_WORDS = new Set(['degrees', 'degree', 'deg']);
const PERCENT_WORDS = new Set(['percent', 'pct']);
const MATRIX_ENVS = new Set(['pmatrix', 'bmatrix', 'Bmatrix', 'vmatrix', 'matrix', 'array', 'smallmatrix']);

export interface ParsedAnswer {
  node: Node;
  /** Unit words dropped from the answer (`cm`, `dollars`, `\text{ inches}`). */
  units: string[];
  /** The other reading of an answer such as `1,22` (a list of two numbers, or 1.22 with a decimal comma). */
  decimal?: Node;
}

export function parseMath(src: string, budget: Budget): ParsedAnswer {
  const toks = tokenize(src, budget);
  const p = new Parser(toks, budget);
  const node = p.parseTop();
  const out: ParsedAnswer = { node, units: p.units };
  // "1,22", "1000,99", "0,111": not thousands-shaped, so possibly a decimal comma
  const dc = /^\s*(-?)(\d+),(\d+)\s*$/.exec(src);
  if (dc && !(/^[1-9]\d{0,2}$/.test(dc[2]!) && dc[3]!.length === 3)) out.decimal = numNode(`${dc[1]}${dc[2]}.${dc[3]}`);
  return out;
}

class Parser {
  i = 0;
  depth = 0;
  /** Open `|…|` pairs: inside one, a `|` where a factor could start closes it (`|a||b|` is |a|·|b|). */
  private abs = 0;
  /** Inside an unbraced exponent or bound (`x^2_1`, `\\sum^n_{k=1}`): a `_` after its token is the outer subscript, not a base or an index. */
  private bareExponent = false;
  readonly units: string[] = [];
  constructor(
    private readonly toks: Tok[],
    private readonly budget: Budget,
  ) {}

  private peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  private isOp(s: string, o = 0): boolean {
    const t = this.toks[this.i + o];
    return t !== undefined && t.t === 'op' && t.s === s;
  }
  private next(): Tok {
    const t = this.toks[this.i++];
    if (!t) throw new ParseError('unexpected end of answer');
    this.budget.tick();
    return t;
  }
  private expectOp(s: string): void {
    const t = this.next();
    if (t.t !== 'op' || t.s !== s) throw new ParseError(`expected "${s}"`);
  }
  private enter(): void {
    if (++this.depth > this.budget.limits.max_depth) throw limitFailure(`answer nesting deeper than ${this.budget.limits.max_depth} levels`);
  }
  private leave(): void {
    this.depth--;
  }

  parseTop(): Node {
    this.skipLeading();
    if (this.i >= this.toks.length) throw new ParseError('empty answer');
    const first = this.parseItem();
    if (this.i >= this.toks.length) return first; // one item: the common case
    // ";" separates solutions, "," the parts of one: "p=5,q=2; p=7,q=2" is two solutions
    const groups: Node[][] = [[first]];
    let semi = false;
    while (this.isOp(',') || this.isOp(';')) {
      if (this.next().s === ';') {
        semi = true;
        groups.push([]);
      }
      while (this.isOp(',')) this.next();
      if (this.i >= this.toks.length) break;
      groups[groups.length - 1]!.push(this.parseItem());
    }
    if (this.i < this.toks.length) throw new ParseError(`unexpected "${this.peek()!.s}"`);
    const nonEmpty = groups.filter((g) => g.length);
    if (semi && nonEmpty.length > 1 && nonEmpty.some((g) => g.length > 1)) {
      return { k: 'list', items: nonEmpty.map((g) => (g.length === 1 ? g[0]! : { k: 'list', items: g })) };
    }
    const items = nonEmpty.flat();
    return items.length === 1 ? items[0]! : { k: 'list', items };
  }

  /** Drops lead-ins such as "x \in", "\therefore", "answer:" are handled by extraction. */
  private skipLeading(): void {
    while (this.peek()?.t === 'word' && /^(is|equals|about|approximately|then|so|thus)$/i.test(this.peek()!.s)) this.i++;
  }

  private parseItem(): Node {
    let n = this.parseRelation();
    n = this.skipUnits(n);
    return n;
  }

  /** Trailing words after a value are units (dropped and recorded); degrees and percent words mark the value. */
  private skipUnits(n: Node): Node {
    while (this.peek()?.t === 'word') {
      const w = this.next().s;
      if (DEGREE_WORDS.has(w.toLowerCase())) n = { k: 'deg', a: n };
      else if (PERCENT_WORDS.has(w.toLowerCase())) n = { k: 'pct', a: n };
      else this.units.push(w);
      if (this.isOp('^') && this.peek(1)?.t === 'num') this.i += 2;
      else if (this.isOp('^') && this.isOp('{', 1) && this.peek(2)?.t === 'num' && this.isOp('}', 3)) this.i += 4;
      if (this.isOp('/') && this.peek(1)?.t === 'word') this.next();
    }
    return n;
  }

  private parseRelation(): Node {
    const first = this.parseRatio();
    if (this.isOp('in')) {
      this.next();
      return this.parseRatio();
    }
    const ops: RelOp[] = [];
    const sides: Node[] = [first];
    for (;;) {
      const t = this.peek();
      if (t?.t !== 'op' || !REL_OPS.has(t.s)) break;
      this.next();
      ops.push(t.s as RelOp);
      sides.push(this.skipUnits(this.parseRatio()));
    }
    return ops.length ? { k: 'rel', ops, sides } : first;
  }

  /** `7:32`, `A:B`, `1:2:3`: a ratio (a function node, compared by proportion). */
  private parseRatio(): Node {
    const first = this.parseUnion();
    if (!this.isOp(':')) return first;
    const parts = [first];
    while (this.isOp(':') && this.i + 1 < this.toks.length) {
      this.next();
      parts.push(this.parseUnion());
    }
    return { k: 'fn', name: 'ratio', args: parts };
  }

  private parseUnion(): Node {
    let cur = this.parseExpr();
    for (;;) {
      if (this.isOp('∪')) {
        this.next();
        const next = asInterval(this.parseExpr());
        cur = cur.k === 'union' ? { k: 'union', items: [...cur.items, next] } : { k: 'union', items: [asInterval(cur), next] };
      } else if (this.isOp('∩') || this.isOp('\\')) {
        const op = this.next().s as '∩' | '\\';
        cur = { k: 'setop', op, a: asInterval(cur), b: asInterval(this.parseExpr()) };
      } else return cur;
    }
  }

  parseExpr(): Node {
    this.enter();
    const terms: Node[] = [];
    let sign: '+' | '-' | '±' = '+';
    if (this.isOp('-') || this.isOp('+') || this.isOp('±') || this.isOp('∓')) sign = opSign(this.next().s);
    for (;;) {
      const t = this.parseTerm();
      terms.push(sign === '+' ? t : sign === '-' ? { k: 'neg', a: t } : { k: 'pm', a: t });
      if (this.isOp('+') || this.isOp('-') || this.isOp('±') || this.isOp('∓')) sign = opSign(this.next().s);
      else break;
    }
    this.leave();
    return terms.length === 1 && terms[0]!.k !== 'pm' ? terms[0]! : { k: 'add', terms };
  }

  parseTerm(): Node {
    let cur = this.parseFactor();
    for (;;) {
      if (this.isOp('*')) {
        this.next();
        cur = { k: 'mul', a: cur, b: this.parseFactor() };
      } else if (this.isOp('/')) {
        this.next();
        cur = { k: 'div', a: cur, b: this.parseFactor() };
      } else if (this.isOp('mod')) {
        this.next();
        cur = { k: 'fn', name: 'mod', args: [cur, this.parseFactor()] };
      } else if (this.startsAtom()) {
        const t = this.peek()!;
        // mixed number: an integer literal directly followed by a proper fraction of integer literals
        if (cur.k === 'num' && cur.lit && t.t === 'cmd' && t.s === 'frac') {
          const save = this.i;
          const f = this.parsePower();
          if (f.k === 'div' && f.a.k === 'num' && f.a.lit && f.b.k === 'num' && f.b.lit && f.a.q.cmp(f.b.q) < 0) {
            cur = { k: 'add', terms: [cur, f] };
            continue;
          }
          this.i = save;
        }
        cur = { k: 'mul', a: cur, b: this.parsePower() };
      } else break;
    }
    return cur;
  }

  private parseFactor(): Node {
    if (this.isOp('-') || this.isOp('+')) {
      const neg = this.next().s === '-';
      this.enter();
      const f = this.parseFactor();
      this.leave();
      return neg ? { k: 'neg', a: f } : f;
    }
    return this.parsePower();
  }

  private startsAtom(): boolean {
    const t = this.peek();
    if (!t) return false;
    if (t.t === 'num' || t.t === 'id' || t.t === 'const' || t.t === 'fn') return true;
    if (t.t === 'cmd') return t.s !== 'end';
    return t.t === 'op' && (t.s === '(' || t.s === '{' || t.s === '[' || (t.s === '|' && this.abs === 0));
  }

  private parsePower(): Node {
    let base = this.parsePostfix(this.parseAtom());
    if (this.isOp('^')) {
      this.next();
      if (this.isOp('°')) {
        this.next();
        return { k: 'deg', a: base };
      }
      if (this.isOp('{') && this.isOp('°', 1) && this.isOp('}', 2)) {
        this.i += 3;
        return { k: 'deg', a: base };
      }
      this.enter();
      const bare = this.bareExponent;
      this.bareExponent = !this.isOp('{');
      const exp = this.parseExponent();
      this.bareExponent = bare;
      this.leave();
      // x^2_1 is x_1^2: a sub- and a superscript attach to the same base in either order
      if (base.k === 'var' && !base.name.includes('_') && this.isOp('_')) base = { k: 'var', name: base.name + '_' + this.readSubscript() };
      base = this.parsePostfix({ k: 'pow', a: base, b: exp });
    }
    return base;
  }

  private parseExponent(): Node {
    if (this.isOp('-') || this.isOp('+')) {
      const neg = this.next().s === '-';
      const e = this.parseExponent();
      return neg ? { k: 'neg', a: e } : e;
    }
    return this.parsePower();
  }

  private parsePostfix(n: Node): Node {
    for (;;) {
      if (this.isOp('!') && !this.isOp('=', 1)) {
        this.next();
        n = { k: 'fn', name: 'fact', args: [n] };
      } else if (this.isOp('%')) {
        this.next();
        n = { k: 'pct', a: n };
      } else if (this.isOp('°')) {
        this.next();
        n = { k: 'deg', a: n };
      } else if (this.isOp("'")) {
        this.next();
      } else return n;
    }
  }

  /** One LaTeX argument: a braced group, or a single token (one digit of a number). */
  private parseArg(): Node {
    const t = this.peek();
    if (!t) throw new ParseError('missing argument');
    if (t.t === 'op' && t.s === '{') return this.parseAtom();
    if (t.t === 'num' && t.s.length > 1 && /^\d/.test(t.s)) {
      this.toks[this.i] = { t: 'num', s: t.s.slice(1) };
      this.budget.tick();
      return numNode(t.s[0]!);
    }
    return this.parseAtom();
  }

  private parseAtom(): Node {
    this.enter();
    try {
      return this.atom();
    } finally {
      this.leave();
    }
  }

  private atom(): Node {
    const t = this.next();
    switch (t.t) {
      case 'num': {
        const n = numNode(t.s);
        if (this.isOp('_') && !this.bareExponent) {
          this.next();
          const sub = this.next();
          let radix: string | undefined;
          if (sub.t === 'num') radix = sub.s;
          else if (sub.t === 'op' && sub.s === '{') {
            const r = this.next();
            if (r.t !== 'num') throw new ParseError('bad base subscript');
            radix = r.s;
            this.expectOp('}');
          }
          if (radix === undefined || !/^\d+$/.test(radix) || !/^[0-9]+$/.test(t.s)) throw new ParseError('bad base subscript');
          const r = Number(radix);
          if (r < 2 || r > 36) throw new ParseError('bad base');
          let v = 0n;
          for (const ch of t.s) {
            const d = Number(ch);
            if (d >= r) throw new ParseError(`digit ${ch} not valid in base ${r}`);
            v = v * BigInt(r) + BigInt(d);
          }
          return { k: 'num', q: Rational.of(v), base: { digits: t.s.replace(/^0+(?=.)/, ''), radix: r } };
        }
        return n;
      }
      case 'const':
        if (t.s === 'reals')
          return { k: 'interval', lo: { k: 'neg', a: { k: 'const', name: 'inf' } }, hi: { k: 'const', name: 'inf' }, loClosed: false, hiClosed: false };
        return { k: 'const', name: t.s };
      case 'id': {
        let name = t.s;
        if (this.isOp('_') && !this.bareExponent) name += '_' + this.readSubscript();
        if (name === 'e') return { k: 'const', name: 'e' };
        if (name === 'i') return { k: 'const', name: 'i' };
        return { k: 'var', name };
      }
      case 'fn':
        return this.parseFunction(t.s);
      case 'cmd':
        if (t.s === 'frac') {
          const a = this.parseArg();
          const b = this.parseArg();
          return { k: 'div', a, b };
        }
        if (t.s === 'binom') {
          const a = this.parseArg();
          const b = this.parseArg();
          return { k: 'fn', name: 'binom', args: [a, b] };
        }
        if (t.s === 'sqrt') {
          if (this.isOp('[')) {
            this.next();
            const idx = this.parseExpr();
            this.expectOp(']');
            return { k: 'fn', name: 'root', args: [this.parseArg(), idx] };
          }
          return { k: 'fn', name: 'sqrt', args: [this.parseArg()] };
        }
        if (t.s === 'begin') return this.parseEnv(t.env ?? '');
        if (t.s === 'sum' || t.s === 'prod') return this.parseBigOp(t.s);
        if (t.s === 'int') return this.parseIntegral();
        if (t.s === 'lim') return this.parseLimit();
        throw new ParseError(`unexpected \\${t.s}`);
      case 'word':
        throw new ParseError(`unexpected word "${t.s}"`);
      case 'op': {
        if (t.s === '|') return this.parseOpAtom(t.s);
        // a bracket starts afresh: `|2(3|x|)|` holds the product 3|x| inside its parentheses, `x^{a_1}` a subscript
        const abs = this.abs;
        const bare = this.bareExponent;
        this.abs = 0;
        this.bareExponent = false;
        try {
          return this.parseOpAtom(t.s);
        } finally {
          this.abs = abs;
          this.bareExponent = bare;
        }
      }
    }
  }

  /** The subscript after `_` (one token or a braced group), as the text of a variable's name. */
  private readSubscript(): string {
    this.next();
    const sub = this.next();
    if (sub.t === 'num' || sub.t === 'id') return sub.s;
    if (sub.t === 'op' && sub.s === '{') {
      let inner = '';
      while (!this.isOp('}')) inner += this.next().s;
      this.next();
      return inner;
    }
    throw new ParseError('bad subscript');
  }

  private parseOpAtom(s: string): Node {
    switch (s) {
      case '(':
      case '[':
        return this.parseBracket(s);
      case '{': {
        if (this.isOp('}')) {
          this.next();
          return { k: 'set', items: [] };
        }
        const items = this.parseCommaItems();
        if (items.length === 1 && this.isOp('choose')) {
          // {n \choose k}
          this.next();
          const k = this.parseExpr();
          this.expectOp('}');
          return { k: 'fn', name: 'binom', args: [items[0]!, k] };
        }
        this.expectOp('}');
        return items.length === 1 ? items[0]! : { k: 'set', items };
      }
      case '\\{': {
        if (this.isOp('\\}')) {
          this.next();
          return { k: 'set', items: [] };
        }
        // set-builder notation {x | x > 2}, {x : x > 2}, {x \in R : ...}: the condition, a set of reals
        if (this.peek()?.t === 'id' && (this.isOp('|', 1) || this.isOp(':', 1) || this.isOp('in', 1))) {
          const save = this.i;
          this.i++;
          if (this.isOp('in')) {
            this.next();
            this.parseExpr();
          }
          if (this.isOp('|') || this.isOp(':')) {
            this.next();
            const cond = this.parseRelation();
            if (this.isOp('\\}')) {
              this.next();
              return cond;
            }
          }
          this.i = save;
        }
        const items = this.parseCommaItems();
        this.expectOp('\\}');
        return { k: 'set', items };
      }
      case '|': {
        this.abs++;
        const a = this.parseExpr();
        this.abs--;
        this.expectOp('|');
        return { k: 'fn', name: 'abs', args: [a] };
      }
      case '∅':
        return { k: 'set', items: [] };
      default:
        throw new ParseError(`unexpected "${s}"`);
    }
  }

  private parseCommaItems(): Node[] {
    const items = [this.skipUnits(this.parseRelation())];
    while (this.isOp(',') || this.isOp(';')) {
      this.next();
      items.push(this.skipUnits(this.parseRelation()));
    }
    return items;
  }

  /** `_{v=lo}^{hi}` or `^{hi}_{v=lo}` after \\sum / \\prod / \\int; returns what was given. */
  private parseBounds(): { sub?: Node; sup?: Node } {
    const out: { sub?: Node; sup?: Node } = {};
    for (let k = 0; k < 2; k++) {
      if (this.isOp('_') && !out.sub) {
        this.next();
        if (this.isOp('{')) {
          this.next();
          out.sub = this.parseRelation();
          this.expectOp('}');
        } else out.sub = this.parseArg();
      } else if (this.isOp('^') && !out.sup) {
        this.next();
        // an unbraced bound is one token: in \\sum^n_{k=1} the subscript belongs to \\sum, not to n
        const bare = this.bareExponent;
        this.bareExponent = true;
        out.sup = this.parseArg();
        this.bareExponent = bare;
      }
    }
    return out;
  }

  private parseBigOp(op: 'sum' | 'prod'): Node {
    const { sub, sup } = this.parseBounds();
    const bound = sub?.k === 'rel' && sub.ops.length === 1 && sub.ops[0] === '=' ? sub.sides[0]! : undefined;
    // the index may be i or e, which elsewhere are the imaginary unit and Euler's number
    const name = bound?.k === 'var' ? bound.name : bound?.k === 'const' && (bound.name === 'i' || bound.name === 'e') ? bound.name : undefined;
    if (sub?.k !== 'rel' || name === undefined || !sup) throw new ParseError(`\\${op} needs bounds like _{k=1}^{n}`);
    this.enter();
    let f = this.parseTerm();
    this.leave();
    if (bound!.k === 'const') f = constToVar(f, name);
    return { k: 'big', op, v: name, lo: sub.sides[1]!, hi: sup, f };
  }

  private parseIntegral(): Node {
    const { sub, sup } = this.parseBounds();
    if ((sub === undefined) !== (sup === undefined)) throw new ParseError('an integral needs both bounds or none');
    // the integrand runs up to "d<var>" at bracket depth 0
    let depth = 0;
    let end = -1;
    for (let j = this.i; j < this.toks.length - 1; j++) {
      const t = this.toks[j]!;
      if (t.t === 'op' && (t.s === '(' || t.s === '[' || t.s === '{')) depth++;
      else if (t.t === 'op' && (t.s === ')' || t.s === ']' || t.s === '}')) depth--;
      else if (depth === 0 && t.t === 'id' && t.s === 'd' && this.toks[j + 1]!.t === 'id') {
        end = j;
        break;
      }
      if (depth < 0) break;
    }
    if (end < 0) throw new ParseError('integral without d<variable>');
    const inner = new Parser(this.toks.slice(this.i, end), this.budget);
    inner.depth = this.depth + 1;
    const f = inner.parseExpr();
    if (inner.i !== end - this.i) throw new ParseError('could not read the integrand');
    this.i = end + 2;
    const v = this.toks[end + 1]!.s;
    return sub && sup ? { k: 'int', v, lo: sub, hi: sup, f } : { k: 'int', v, f };
  }

  private parseLimit(): Node {
    if (!this.isOp('_') || !this.isOp('{', 1)) throw new ParseError('\\lim needs _{x \\to a}');
    this.i += 2;
    const v = this.next();
    if (v.t !== 'id') throw new ParseError('\\lim needs a variable');
    this.expectOp('→');
    // the target runs to the closing brace; a trailing ^+ / ^{-} makes the limit one-sided
    let depth = 0;
    let close = -1;
    for (let j = this.i; j < this.toks.length; j++) {
      const t = this.toks[j]!;
      if (t.t === 'op' && t.s === '{') depth++;
      else if (t.t === 'op' && t.s === '}' && depth-- === 0) {
        close = j;
        break;
      }
    }
    if (close < 0) throw new ParseError('unclosed \\lim subscript');
    let cut = close;
    let dir: 1 | -1 | undefined;
    const sign = (t: Tok | undefined) => (t?.t === 'op' && (t.s === '+' || t.s === '-') ? (t.s === '+' ? 1 : -1) : 0);
    const at = (k: number) => this.toks[k];
    if (at(close - 2)?.s === '^' && sign(at(close - 1))) {
      dir = sign(at(close - 1)) as 1 | -1;
      cut = close - 2;
    } else if (at(close - 4)?.s === '^' && at(close - 3)?.s === '{' && sign(at(close - 2)) && at(close - 1)?.s === '}') {
      dir = sign(at(close - 2)) as 1 | -1;
      cut = close - 4;
    }
    const inner = new Parser(this.toks.slice(this.i, cut), this.budget);
    inner.depth = this.depth + 1;
    const to = inner.parseExpr();
    if (inner.i !== cut - this.i) throw new ParseError('could not read the limit target');
    this.i = close + 1;
    this.enter();
    const f = this.parseTerm();
    this.leave();
    return dir ? { k: 'lim', v: v.s, to, dir, f } : { k: 'lim', v: v.s, to, f };
  }

  private parseBracket(open: string): Node {
    const items = this.parseCommaItems();
    const close = this.next();
    if (close.t !== 'op' || (close.s !== ')' && close.s !== ']')) throw new ParseError(`unclosed "${open}"`);
    if (items.length === 1 && open === '(' && close.s === ')') return items[0]!;
    if (items.length === 2 && (open !== '(' || close.s !== ')')) {
      return { k: 'interval', lo: items[0]!, hi: items[1]!, loClosed: open === '[', hiClosed: close.s === ']' };
    }
    if (open !== '(' && close.s === ')') throw new ParseError('mismatched brackets');
    if (items.length === 1 && open === '[') return items[0]!;
    return { k: 'tuple', items };
  }

  private parseFunction(name: string): Node {
    let power: Node | undefined;
    let base: Node | undefined;
    for (;;) {
      if (this.isOp('^') && !power) {
        this.next();
        power = this.parseArg();
      } else if (this.isOp('_') && !base && name === 'log') {
        this.next();
        base = this.parseArg();
      } else break;
    }
    let args: Node[];
    if (this.isOp('(')) {
      this.next();
      args = this.parseCommaItems();
      this.expectOp(')');
    } else if (this.isOp('{')) {
      args = [this.parseAtom()];
    } else {
      // unbraced argument: an implicit product of atoms, stopping at the next function
      let a = this.parsePower();
      while (this.startsAtom() && this.peek()!.t !== 'fn') a = { k: 'mul', a, b: this.parsePower() };
      args = [a];
    }
    let n: Node;
    if (name === 'log' && base) n = { k: 'fn', name: 'logb', args: [args[0]!, base] };
    else n = { k: 'fn', name: canonicalFn(name), args };
    if (power) {
      // f^{-1} of a trigonometric or hyperbolic f is its inverse function (sin^{-1} x = arcsin x, sinh^{-1} x = arsinh x),
      // by convention: any other power of it is a power of its value (sin^2 x)
      const inverse = INVERSE_BY_POWER[name];
      if (inverse && power.k === 'neg' && power.a.k === 'num' && power.a.q.eq(Rational.ONE)) {
        return { k: 'fn', name: inverse, args };
      }
      n = { k: 'pow', a: n, b: power };
    }
    return n;
  }

  private parseEnv(env: string): Node {
    if (!MATRIX_ENVS.has(env)) throw new ParseError(`unsupported environment ${env}`);
    const rows: Node[][] = [];
    let row: Node[] = [];
    for (;;) {
      const t = this.peek();
      if (!t) throw new ParseError(`unclosed ${env}`);
      if (t.t === 'cmd' && t.s === 'end') {
        this.next();
        if (row.length) rows.push(row);
        break;
      }
      row.push(this.parseExpr());
      if (this.isOp('&')) this.next();
      else if (this.isOp('\\\\')) {
        this.next();
        rows.push(row);
        row = [];
      }
    }
    if (!rows.length || rows.some((r) => r.length !== rows[0]!.length)) throw new ParseError('ragged matrix');
    const m: Node = { k: 'matrix', rows };
    return env === 'vmatrix' ? { k: 'fn', name: 'det', args: [m] } : m;
  }
}

function opSign(s: string): '+' | '-' | '±' {
  return s === '+' ? '+' : s === '-' ? '-' : '±';
}

function numNode(s: string): Node {
  const q = Rational.parse(s);
  if (!q) {
    // 1.5e6000: beyond the literal cap, kept as mantissa * 10^exponent (exact or log-scale later)
    const sci = /^([^eE]+)[eE]([+-]?\d+)$/.exec(s);
    const m = sci && Rational.parse(sci[1]!);
    if (m && sci[2]!.length <= 12) {
      return {
        k: 'mul',
        a: { k: 'num', q: m },
        b: { k: 'pow', a: { k: 'num', q: Rational.of(10n), lit: true }, b: { k: 'num', q: Rational.of(BigInt(sci[2]!)) } },
      };
    }
    throw new ParseError(`bad number ${s}`);
  }
  if (/^\d+$/.test(s)) return { k: 'num', q, lit: true };
  const dm = /^(\d*)\.(\d+)$/.exec(s);
  if (dm) {
    // a written decimal: its places and significant digits (for the rounding rule)
    const digits = (dm[1]! + dm[2]!).replace(/^0+/, '');
    return { k: 'num', q, dec: { places: dm[2]!.length, sig: digits.length } };
  }
  return { k: 'num', q };
}

/** The inverse a power −1 names: `\\sin^{-1}`, `\\sec^{-1}`, `\\sinh^{-1}`. */
const INVERSE_BY_POWER: Record<string, string> = {
  sin: 'asin',
  cos: 'acos',
  tan: 'atan',
  sec: 'arcsec',
  csc: 'arccsc',
  cot: 'arccot',
  sinh: 'asinh',
  cosh: 'acosh',
  tanh: 'atanh',
  coth: 'acoth',
  sech: 'asech',
  csch: 'acsch',
};

function canonicalFn(name: string): string {
  const hyp = INVERSE_HYPERBOLIC[name];
  if (hyp) return hyp;
  switch (name) {
    case 'arcsin':
      return 'asin';
    case 'arccos':
      return 'acos';
    case 'arctan':
      return 'atan';
    default:
      return name;
  }
}

/** The constant i or e read as the variable of that name (a summation index). */
function constToVar(n: Node, name: string): Node {
  switch (n.k) {
    case 'const':
      return n.name === name ? { k: 'var', name } : n;
    case 'add':
      return { k: 'add', terms: n.terms.map((t) => constToVar(t, name)) };
    case 'neg':
    case 'pm':
    case 'pct':
    case 'deg':
      return { ...n, a: constToVar(n.a, name) } as Node;
    case 'mul':
    case 'div':
    case 'pow':
      return { ...n, a: constToVar(n.a, name), b: constToVar(n.b, name) } as Node;
    case 'fn':
      return { ...n, args: n.args.map((a) => constToVar(a, name)) };
    default:
      return n;
  }
}

/** A 2-tuple inside a union is an open interval. */
function asInterval(n: Node): Node {
  if (n.k === 'tuple' && n.items.length === 2) return { k: 'interval', lo: n.items[0]!, hi: n.items[1]!, loClosed: false, hiClosed: false };
  return n;
}
