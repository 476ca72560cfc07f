// A small, bounded parser for the Python expressions models and BFCL write as tool calls:
// `[f(a=1, b='x'), g(c=[1, 2.5], d={'k': None})]`, `sort('file.txt')`, `m.f(x=-2 ** 3)`. It
// builds a typed AST (ints apart from floats, tuples apart from lists, all of Python's string
// prefixes and escapes, comments, implicit string concatenation) and tells a syntax error (what
// Python would reject too) from valid Python it does not model (lambdas, comprehensions, f-strings,
// comparisons, subscripts: `unsupported`). `unparse` prints an AST as ast.unparse does.
// `parsePythonCalls` reads a call list the way the tool_call grader needs it: literals only,
// keyword arguments only, like BFCL's AST decoder.
import { bytesRepr, floatRepr, strRepr } from '../py/repr.js';
import { ParseError, type ToolCall, type UnsupportedConstruct } from './tool-call-types.js';

const MAX_DEPTH = 64;
const MAX_INT_DIGITS = 4300;

export type PyBinOp = '+' | '-' | '*' | '/' | '//' | '%' | '**';

export type PyAst =
  | { k: 'int'; v: bigint }
  | { k: 'float'; v: number }
  | { k: 'str'; v: string }
  | { k: 'bytes'; v: Uint8Array }
  | { k: 'const'; v: boolean | null }
  | { k: 'ellipsis' }
  | { k: 'list'; items: PyAst[] }
  | { k: 'tuple'; items: PyAst[] }
  | { k: 'set'; items: PyAst[] }
  | { k: 'dict'; entries: [PyAst, PyAst][] }
  | { k: 'name'; id: string }
  | { k: 'attr'; value: PyAst; attr: string }
  | { k: 'call'; func: PyAst; args: PyAst[]; keywords: [string, PyAst][] }
  | { k: 'unary'; op: '-' | '+' | '~'; operand: PyAst }
  | { k: 'binop'; op: PyBinOp; left: PyAst; right: PyAst };

const KEYWORDS = new Set([
  'False',
  'None',
  'True',
  'and',
  'as',
  'assert',
  'async',
  'await',
  'break',
  'class',
  'continue',
  'def',
  'del',
  'elif',
  'else',
  'except',
  'finally',
  'for',
  'from',
  'global',
  'if',
  'import',
  'in',
  'is',
  'lambda',
  'nonlocal',
  'not',
  'or',
  'pass',
  'raise',
  'return',
  'try',
  'while',
  'with',
  'yield',
]);
/** Keywords that continue a valid expression in ways this parser does not evaluate. */
const UNSUPPORTED_KEYWORDS = new Set(['and', 'or', 'not', 'if', 'else', 'for', 'in', 'is', 'lambda', 'await', 'yield', 'async']);

const syntax = (m: string): ParseError => new ParseError(m, 'syntax');
const unsupported = (m: string, c: UnsupportedConstruct = 'expression'): ParseError => new ParseError(m, 'unsupported', c);

const IDENT_START = /[\p{L}\p{Nl}_]/u;
const IDENT_REST = /[\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]/u;

class Parser {
  i = 0;
  /** Bracket nesting: newlines are whitespace only inside brackets. */
  private depth = 0;
  constructor(readonly s: string) {}

  /** Skips whitespace, comments and line continuations; a bare newline at depth 0 ends the expression. */
  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s[this.i]!;
      if (c === ' ' || c === '\t' || c === '\f') this.i++;
      else if (c === '#') {
        while (this.i < s.length && s[this.i] !== '\n' && s[this.i] !== '\r') this.i++;
      } else if (c === '\\' && (s[this.i + 1] === '\n' || s[this.i + 1] === '\r')) {
        this.i += s[this.i + 1] === '\r' && s[this.i + 2] === '\n' ? 3 : 2;
      } else if (c === '\n' || c === '\r') {
        if (this.depth > 0) this.i++;
        else {
          const rest = s.slice(this.i);
          if (/^(?:\s|#[^\n\r]*)*$/.test(rest)) this.i = s.length;
          else throw syntax(`invalid syntax: a new line at offset ${this.i} (one expression expected)`);
        }
      } else break;
    }
  }

  peek(): string | undefined {
    this.ws();
    return this.s[this.i];
  }

  startsWith(t: string): boolean {
    this.ws();
    return this.s.startsWith(t, this.i);
  }

  expect(ch: string): void {
    const c = this.peek();
    if (c === ch) {
      this.i++;
      return;
    }
    const open = { ')': '(', ']': '[', '}': '{' }[ch];
    if (c === undefined && open) throw syntax(`'${open}' was never closed`);
    throw syntax(`expected "${ch}" at offset ${this.i}`);
  }

  /** The identifier (or keyword) at the cursor, NFKC-normalised as Python does, and its source length. */
  word(): { name: string; len: number } | undefined {
    this.ws();
    const s = this.s;
    const first = s.codePointAt(this.i);
    if (first === undefined) return undefined;
    const ch = String.fromCodePoint(first);
    if (!IDENT_START.test(ch)) return undefined;
    let j = this.i + ch.length;
    while (j < s.length) {
      const c = String.fromCodePoint(s.codePointAt(j)!);
      if (!IDENT_REST.test(c) && !IDENT_START.test(c)) break;
      j += c.length;
      if (j - this.i > 512) throw new ParseError('a name is longer than 512 characters', 'limit');
    }
    return { name: s.slice(this.i, j).normalize('NFKC'), len: j - this.i };
  }

  /** Peeks the keyword at the cursor without consuming it. */
  keywordHere(): string | undefined {
    const w = this.word()?.name;
    return w !== undefined && KEYWORDS.has(w) ? w : undefined;
  }

  /** Fails on tokens that continue a valid expression this parser does not model. */
  private checkContinuation(): void {
    this.ws();
    const s = this.s;
    const kw = this.keywordHere();
    if (kw && UNSUPPORTED_KEYWORDS.has(kw)) throw unsupported(`"${kw}" expressions are not evaluated (offset ${this.i})`);
    const two = s.slice(this.i, this.i + 2);
    if (['==', '!=', '<=', '>=', '<<', '>>', ':=', '->'].includes(two) || (['<', '>', '|', '&', '^', '@'].includes(s[this.i]!) && two !== '->')) {
      throw unsupported(`operator "${two.trim()}" is not evaluated (offset ${this.i})`);
    }
  }

  parseTop(): PyAst {
    this.ws();
    if (this.i >= this.s.length) throw syntax('empty expression');
    const e = this.exprList(0, undefined);
    this.checkContinuation();
    this.ws();
    if (this.i < this.s.length) throw syntax(`unexpected text at offset ${this.i}`);
    return e;
  }

  /** `a, b, c` (a tuple when a comma appears) up to `close` or the end. */
  exprList(d: number, close: string | undefined): PyAst {
    const first = this.expr(d);
    if (this.peek() !== ',') return first;
    const items = [first];
    while (this.peek() === ',') {
      this.i++;
      const c = this.peek();
      if (c === undefined || c === close) break;
      items.push(this.expr(d));
    }
    return { k: 'tuple', items };
  }

  expr(d: number): PyAst {
    if (d > MAX_DEPTH) throw new ParseError('nesting too deep', 'limit');
    this.ws();
    if (this.s[this.i] === '*') throw unsupported(`starred expression at offset ${this.i} is not evaluated`, 'starred');
    const kw = this.keywordHere();
    if (kw === 'lambda' || kw === 'not' || kw === 'await' || kw === 'yield') throw unsupported(`"${kw}" expressions are not evaluated`);
    const e = this.arith(d);
    this.checkContinuation();
    return e;
  }

  arith(d: number): PyAst {
    let left = this.term(d);
    for (;;) {
      const c = this.peek();
      if ((c === '+' || c === '-') && this.s[this.i + 1] !== '=') {
        this.i++;
        left = { k: 'binop', op: c, left, right: this.term(d) };
      } else return left;
    }
  }

  term(d: number): PyAst {
    let left = this.factor(d);
    for (;;) {
      this.ws();
      const s = this.s;
      let op: PyBinOp | undefined;
      if (s.startsWith('//', this.i) && s[this.i + 2] !== '=') op = '//';
      else if (s[this.i] === '*' && s[this.i + 1] !== '*' && s[this.i + 1] !== '=') op = '*';
      else if (s[this.i] === '/' && s[this.i + 1] !== '=') op = '/';
      else if (s[this.i] === '%' && s[this.i + 1] !== '=') op = '%';
      if (!op) return left;
      this.i += op.length;
      left = { k: 'binop', op, left, right: this.factor(d) };
    }
  }

  factor(d: number): PyAst {
    if (d > MAX_DEPTH) throw new ParseError('nesting too deep', 'limit');
    const c = this.peek();
    if (c === '-' || c === '+' || c === '~') {
      this.i++;
      return { k: 'unary', op: c, operand: this.factor(d + 1) };
    }
    const base = this.primary(d);
    if (this.startsWith('**')) {
      this.i += 2;
      return { k: 'binop', op: '**', left: base, right: this.factor(d + 1) };
    }
    return base;
  }

  primary(d: number): PyAst {
    let e = this.atom(d);
    for (;;) {
      const c = this.peek();
      if (c === '(') {
        e = this.callArgs(e, d);
      } else if (c === '.' && !/[0-9]/.test(this.s[this.i + 1] ?? '')) {
        this.i++;
        const name = this.word();
        if (name === undefined || KEYWORDS.has(name.name)) throw syntax(`expected an attribute name at offset ${this.i}`);
        this.i += name.len;
        e = { k: 'attr', value: e, attr: name.name };
      } else if (c === '[') {
        throw unsupported(`subscript at offset ${this.i} is not evaluated`, 'subscript');
      } else return e;
    }
  }

  callArgs(func: PyAst, d: number): PyAst {
    this.i++;
    this.depth++;
    const args: PyAst[] = [];
    const keywords: [string, PyAst][] = [];
    while (this.peek() !== ')') {
      if (this.peek() === undefined) throw syntax("'(' was never closed");
      if (this.s[this.i] === '*') throw unsupported(`*args / **kwargs at offset ${this.i} are not evaluated`, 'starred');
      const save = this.i;
      const word = this.word();
      const w = word?.name;
      if (w !== undefined && !KEYWORDS.has(w)) {
        this.i += word!.len;
        this.ws();
        if (this.s[this.i] === '=' && this.s[this.i + 1] !== '=') {
          this.i++;
          keywords.push([w, this.expr(d + 1)]);
          if (this.peek() === ',') this.i++;
          else break;
          continue;
        }
      }
      this.i = save;
      if (keywords.length) throw syntax('positional argument follows keyword argument');
      args.push(this.expr(d + 1));
      if (this.peek() === ',') this.i++;
      else break;
    }
    this.expect(')');
    this.depth--;
    return { k: 'call', func, args, keywords };
  }

  atom(d: number): PyAst {
    if (d > MAX_DEPTH) throw new ParseError('nesting too deep', 'limit');
    const c = this.peek();
    if (c === undefined) throw syntax('unexpected end of text');
    if (c === '(' || c === '[') {
      const close = c === '(' ? ')' : ']';
      this.i++;
      this.depth++;
      const items: PyAst[] = [];
      let comma = false;
      while (this.peek() !== close) {
        if (this.peek() === undefined) throw syntax(`'${c}' was never closed`);
        items.push(this.expr(d + 1));
        if (this.peek() === ',') {
          this.i++;
          comma = true;
        } else break;
      }
      this.expect(close);
      this.depth--;
      if (c === '[') return { k: 'list', items };
      if (items.length === 1 && !comma) return items[0]!;
      return { k: 'tuple', items };
    }
    if (c === '{') {
      this.i++;
      this.depth++;
      if (this.peek() === '}') {
        this.i++;
        this.depth--;
        return { k: 'dict', entries: [] };
      }
      if (this.startsWith('**')) throw unsupported('dict unpacking is not evaluated');
      const first = this.expr(d + 1);
      if (this.peek() === ':') {
        this.i++;
        const entries: [PyAst, PyAst][] = [[first, this.expr(d + 1)]];
        while (this.peek() === ',') {
          this.i++;
          if (this.peek() === '}') break;
          if (this.startsWith('**')) throw unsupported('dict unpacking is not evaluated');
          const k = this.expr(d + 1);
          this.expect(':');
          entries.push([k, this.expr(d + 1)]);
        }
        this.expect('}');
        this.depth--;
        return { k: 'dict', entries };
      }
      const items = [first];
      while (this.peek() === ',') {
        this.i++;
        if (this.peek() === '}') break;
        items.push(this.expr(d + 1));
      }
      this.expect('}');
      this.depth--;
      return { k: 'set', items };
    }
    if (c === '.' && this.s.startsWith('...', this.i)) {
      this.i += 3;
      return { k: 'ellipsis' };
    }
    if (/[0-9.]/.test(c)) return this.number();
    const word = this.word();
    if (word !== undefined) {
      const w = word.name;
      const q = this.s[this.i + word.len];
      if ((q === "'" || q === '"') && /^(?:[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/.test(w)) return this.strings();
      this.i += word.len;
      if (w === 'True') return { k: 'const', v: true };
      if (w === 'False') return { k: 'const', v: false };
      if (w === 'None') return { k: 'const', v: null };
      if (KEYWORDS.has(w)) {
        if (UNSUPPORTED_KEYWORDS.has(w)) throw unsupported(`"${w}" expressions are not evaluated`);
        throw syntax(`invalid syntax at "${w}"`);
      }
      return { k: 'name', id: w };
    }
    if (c === '"' || c === "'") return this.strings();
    throw syntax(`unexpected character ${JSON.stringify(c)} at offset ${this.i}`);
  }

  number(): PyAst {
    const s = this.s.slice(this.i, this.i + 5000);
    const D = '\\d(?:_?\\d)*';
    const float = new RegExp(`^(?:(?:${D})?\\.${D}(?:[eE][-+]?${D})?|${D}\\.(?:[eE][-+]?${D})?|${D}[eE][-+]?${D})`);
    const radix = /^0(?:[xX](?:_?[0-9a-fA-F])+|[oO](?:_?[0-7])+|[bB](?:_?[01])+)/;
    const dec = /^(?:[1-9](?:_?\d)*|0(?:_?0)*)/;
    let node: PyAst;
    const fm = float.exec(s);
    const rm = fm ? null : radix.exec(s);
    const dm = fm || rm ? null : dec.exec(s);
    const m = fm ?? rm ?? dm;
    if (!m) throw syntax(`invalid number at offset ${this.i}`);
    if (fm) node = { k: 'float', v: Number(fm[0].replace(/_/g, '')) };
    else if (rm) node = { k: 'int', v: BigInt(rm[0].replace(/_/g, '')) };
    else if (dm) {
      const digits = m[0].replace(/_/g, '');
      if (digits.length > MAX_INT_DIGITS) throw new ParseError(`an int literal has more than ${MAX_INT_DIGITS} digits`, 'limit');
      node = { k: 'int', v: BigInt(digits) };
    } else throw syntax(`invalid number at offset ${this.i}`);
    const after = s[m[0].length];
    if (after === 'j' || after === 'J') throw unsupported('complex literals are not evaluated', 'complex');
    if (after !== undefined && (/[0-9]/.test(after) || IDENT_REST.test(after) || IDENT_START.test(after))) {
      throw syntax(/[0-9]/.test(after) ? 'leading zeros in decimal integer literals are not permitted' : `invalid decimal literal at offset ${this.i}`);
    }
    this.i += m[0].length;
    return node;
  }

  /** One or more adjacent string (or bytes) literals. */
  strings(): PyAst {
    let out = '';
    let kind: 'str' | 'bytes' | undefined;
    for (;;) {
      this.ws();
      const m = /^([rRuUbBfF]{0,2})(['"])/.exec(this.s.slice(this.i, this.i + 3));
      if (!m || !/^(?:|[rRuUbBfF]|[rR][bBfF]|[bBfF][rR])$/.test(m[1]!)) break;
      const prefix = m[1]!.toLowerCase();
      if (prefix.includes('f')) throw unsupported('f-strings are not evaluated');
      const k = prefix.includes('b') ? 'bytes' : 'str';
      if (kind !== undefined && kind !== k) throw syntax('cannot mix bytes and nonbytes literals');
      kind = k;
      this.i += m[1]!.length;
      out += this.string(prefix.includes('r'), k === 'bytes');
    }
    if (kind === undefined) throw syntax(`expected a string at offset ${this.i}`);
    if (kind === 'bytes') return { k: 'bytes', v: Uint8Array.from([...out].map((c) => c.charCodeAt(0))) };
    return { k: 'str', v: out };
  }

  /** One literal's value (for bytes: one char per byte, code points below 256). */
  string(raw: boolean, bytes = false): string {
    const s = this.s;
    const q = s[this.i]!;
    const triple = s.startsWith(q.repeat(3), this.i);
    const end = triple ? q.repeat(3) : q;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.i >= s.length) throw syntax(triple ? 'unterminated triple-quoted string literal' : 'unterminated string literal');
      if (s.startsWith(end, this.i)) {
        this.i += end.length;
        return out;
      }
      const ch = s[this.i]!;
      if ((ch === '\n' || ch === '\r') && !triple) throw syntax('unterminated string literal');
      if (ch !== '\\') {
        if (bytes && ch.charCodeAt(0) > 0x7f) throw syntax('bytes can only contain ASCII literal characters');
        out += ch;
        this.i++;
        continue;
      }
      const n = s[this.i + 1];
      if (n === undefined) throw syntax('unterminated string literal');
      if (raw) {
        out += ch + n;
        this.i += 2;
        continue;
      }
      this.i += 2;
      switch (n) {
        case '\n':
          break;
        case '\r':
          if (s[this.i] === '\n') this.i++;
          break;
        case '\\':
        case "'":
        case '"':
          out += n;
          break;
        case 'a':
          out += '\x07';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        case 'x':
        case 'u':
        case 'U': {
          if (bytes && n !== 'x') {
            out += `\\${n}`;
            break;
          }
          const len = n === 'x' ? 2 : n === 'u' ? 4 : 8;
          const hex = s.slice(this.i, this.i + len);
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) throw syntax(`(unicode error) truncated \\${n}${'X'.repeat(len)} escape`);
          const cp = parseInt(hex, 16);
          if (cp > 0x10ffff) throw syntax('(unicode error) illegal Unicode character');
          out += String.fromCodePoint(cp);
          this.i += len;
          break;
        }
        case 'N':
          if (bytes) {
            out += '\\N';
            break;
          }
          throw unsupported('\\N{...} escapes are not evaluated', 'escape');
        default:
          if (/[0-7]/.test(n)) {
            let oct = n;
            while (oct.length < 3 && /[0-7]/.test(s[this.i] ?? '')) oct += s[this.i++];
            out += String.fromCodePoint(bytes ? parseInt(oct, 8) & 0xff : parseInt(oct, 8));
          } else out += `\\${n}`;
      }
    }
  }
}

/** Parses one Python expression; throws ParseError (kind syntax / unsupported / limit). */
export function parsePythonExpr(text: string): PyAst {
  return new Parser(text).parseTop();
}

// ---- ast.unparse -------------------------------------------------------------------------------

const PREC: Record<string, number> = { tuple: 0, '+': 11, '-': 11, '*': 12, '/': 12, '//': 12, '%': 12, unary: 13, '**': 14, atom: 16 };

/** Python's ast.unparse for the nodes this parser builds. */
export function unparse(n: PyAst, outer = 0): string {
  const wrap = (s: string, p: number) => (p < outer ? `(${s})` : s);
  switch (n.k) {
    case 'int':
      return n.v.toString();
    case 'float':
      return Number.isFinite(n.v) ? floatRepr(n.v) : '1e309';
    case 'str':
      return strRepr(n.v);
    case 'bytes':
      return bytesRepr(n.v);
    case 'const':
      return n.v === null ? 'None' : n.v ? 'True' : 'False';
    case 'ellipsis':
      return '...';
    case 'list':
      return `[${n.items.map((x) => unparse(x)).join(', ')}]`;
    case 'set':
      return `{${n.items.map((x) => unparse(x)).join(', ')}}`;
    case 'tuple': {
      const inner = n.items.length === 1 ? `${unparse(n.items[0]!, 1)},` : n.items.map((x) => unparse(x, 1)).join(', ');
      return n.items.length === 0 ? '()' : `(${inner})`;
    }
    case 'dict':
      return `{${n.entries.map(([k, v]) => `${unparse(k)}: ${unparse(v)}`).join(', ')}}`;
    case 'name':
      return n.id;
    case 'attr': {
      const base = unparse(n.value, PREC.atom);
      return n.value.k === 'int' ? `${base} .${n.attr}` : `${base}.${n.attr}`;
    }
    case 'call': {
      const parts = [...n.args.map((a) => unparse(a)), ...n.keywords.map(([k, v]) => `${k}=${unparse(v)}`)];
      return `${unparse(n.func, PREC.atom)}(${parts.join(', ')})`;
    }
    case 'unary': {
      const p = PREC.unary!;
      return wrap(`${n.op}${unparse(n.operand, p)}`, p);
    }
    case 'binop': {
      const p = PREC[n.op]!;
      const right = n.op === '**';
      const l = unparse(n.left, right ? p + 1 : p);
      const r = unparse(n.right, right ? p : p + 1);
      return wrap(`${l} ${n.op} ${r}`, p);
    }
  }
}

// ---- the tool_call grader's reading ------------------------------------------------------------

/** An int as JSON parsing gives it: a number when a double holds it exactly, else the BigInt (as parseJsonExact). */
function exactInt(v: bigint): number | bigint {
  const x = Number(v);
  return Number.isSafeInteger(x) ? x : v;
}

function literal(n: PyAst, where: string): unknown {
  switch (n.k) {
    case 'int':
      return exactInt(n.v);
    case 'float':
      return n.v;
    case 'str':
      return n.v;
    case 'const':
      return n.v;
    case 'list':
    case 'tuple':
      return n.items.map((x) => literal(x, where));
    case 'dict': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of n.entries) {
        const key = literal(k, where);
        if (typeof key !== 'string' && typeof key !== 'number') throw new ParseError('dict keys must be strings or numbers');
        out[String(key)] = literal(v, where);
      }
      return out;
    }
    case 'unary': {
      if (n.operand.k === 'int' && n.op !== '~') return exactInt(n.op === '-' ? -n.operand.v : n.operand.v);
      const v = n.operand.k === 'float' ? n.operand.v : undefined;
      if (v === undefined || n.op === '~') throw new ParseError(`unsupported expression in ${where} (only literals are allowed)`);
      return n.op === '-' ? -v : v;
    }
    default:
      throw new ParseError(`unsupported expression "${unparse(n).slice(0, 40)}" in ${where} (only literals are allowed)`);
  }
}

function dottedName(n: PyAst): string | undefined {
  if (n.k === 'name') return n.id;
  if (n.k === 'attr') {
    const base = dottedName(n.value);
    return base === undefined ? undefined : `${base}.${n.attr}`;
  }
  return undefined;
}

function toToolCall(n: PyAst): ToolCall {
  if (n.k !== 'call') throw new ParseError(`expected a function call, got "${unparse(n).slice(0, 40)}"`);
  const name = dottedName(n.func);
  if (name === undefined) throw new ParseError('expected a name before "("');
  if (n.args.length) throw new ParseError(`positional argument in call to ${name} (only keyword arguments are supported)`);
  const args: Record<string, unknown> = {};
  for (const [k, v] of n.keywords) args[k] = literal(v, `call to ${name}`);
  return { name, args };
}

/** Parses Python-style calls (`f(a=1)` or a list/tuple of calls); throws ParseError naming the problem. */
export function parsePythonCalls(text: string): ToolCall[] {
  const t = text.trim();
  if (t === '') throw new ParseError('unexpected end of text');
  const ast = parsePythonExpr(t);
  if (ast.k === 'list' || ast.k === 'tuple') return ast.items.map(toToolCall);
  return [toToolCall(ast)];
}
