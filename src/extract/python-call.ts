// A small, bounded parser for Python-style call lists as models write them in text:
// `[f(a=1, b='x'), g(c=[1, 2.5], d={'k': None})]` or `f(a=1)`. Literals only (strings, numbers,
// True/False/None, lists, tuples, dicts); keyword arguments only, like BFCL's AST decoder.
import { ParseError, type ToolCall } from './tool-call-types.js';

const MAX_DEPTH = 64;

class Parser {
  i = 0;
  constructor(readonly s: string) {}

  ws(): void {
    while (this.i < this.s.length && /\s/.test(this.s[this.i]!)) this.i++;
  }

  peek(): string | undefined {
    this.ws();
    return this.s[this.i];
  }

  expect(ch: string): void {
    if (this.peek() !== ch) throw new ParseError(`expected "${ch}" at offset ${this.i}`);
    this.i++;
  }

  ident(): string {
    this.ws();
    const m = /^[A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)*/.exec(this.s.slice(this.i, this.i + 512));
    if (!m) throw new ParseError(`expected a name at offset ${this.i}`);
    this.i += m[0].length;
    return m[0];
  }

  calls(): ToolCall[] {
    const out: ToolCall[] = [];
    const bracketed = this.peek() === '[';
    if (bracketed) this.i++;
    while (this.peek() !== undefined && this.peek() !== ']') {
      out.push(this.call());
      if (this.peek() === ',') this.i++;
      else break;
    }
    if (bracketed) this.expect(']');
    if (this.peek() !== undefined) throw new ParseError(`unexpected text at offset ${this.i}`);
    return out;
  }

  call(): ToolCall {
    const name = this.ident();
    this.expect('(');
    const args: Record<string, unknown> = {};
    while (this.peek() !== ')') {
      this.ws();
      const kw = /^[A-Za-z_]\w*\s*=(?!=)/.exec(this.s.slice(this.i, this.i + 256));
      if (!kw) throw new ParseError(`positional argument in call to ${name} at offset ${this.i} (only keyword arguments are supported)`);
      const key = this.ident();
      this.i++;
      if (Object.prototype.hasOwnProperty.call(args, key)) throw new ParseError(`argument "${key}" repeated in call to ${name}`);
      args[key] = this.value(0);
      if (this.peek() === ',') this.i++;
      else break;
    }
    this.expect(')');
    return { name, args };
  }

  value(depth: number): unknown {
    if (depth > MAX_DEPTH) throw new ParseError('nesting too deep');
    const c = this.peek();
    if (c === undefined) throw new ParseError('unexpected end of text');
    if (c === '"' || c === "'") return this.string();
    if (c === '[' || c === '(') {
      const close = c === '[' ? ']' : ')';
      this.i++;
      const out: unknown[] = [];
      while (this.peek() !== close) {
        out.push(this.value(depth + 1));
        if (this.peek() === ',') this.i++;
        else break;
      }
      this.expect(close);
      return out;
    }
    if (c === '{') {
      this.i++;
      const out: Record<string, unknown> = {};
      while (this.peek() !== '}') {
        const k = this.value(depth + 1);
        if (typeof k !== 'string' && typeof k !== 'number') throw new ParseError('dict keys must be strings or numbers');
        this.expect(':');
        out[String(k)] = this.value(depth + 1);
        if (this.peek() === ',') this.i++;
        else break;
      }
      this.expect('}');
      return out;
    }
    const num = /^[-+]?(?:\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)/.exec(this.s.slice(this.i, this.i + 64));
    if (num) {
      this.i += num[0].length;
      const v = Number(num[0].replace(/_/g, ''));
      if (!Number.isFinite(v)) throw new ParseError(`bad number "${num[0]}"`);
      return v;
    }
    const word = this.ident();
    if (word === 'True') return true;
    if (word === 'False') return false;
    if (word === 'None') return null;
    throw new ParseError(`unsupported expression "${word}" (only literals are allowed)`);
  }

  string(): string {
    const q = this.s[this.i]!;
    const triple = this.s.startsWith(q.repeat(3), this.i);
    const end = triple ? q.repeat(3) : q;
    this.i += end.length;
    let out = '';
    for (;;) {
      if (this.i >= this.s.length) throw new ParseError('unterminated string');
      if (this.s.startsWith(end, this.i)) {
        this.i += end.length;
        return out;
      }
      const ch = this.s[this.i]!;
      if (ch === '\\') {
        const n = this.s[this.i + 1];
        const map: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
        if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i + 2, this.i + 6))) {
          out += String.fromCharCode(parseInt(this.s.slice(this.i + 2, this.i + 6), 16));
          this.i += 6;
          continue;
        }
        out += n !== undefined && map[n] !== undefined ? map[n] : '\\' + (n ?? '');
        this.i += 2;
        continue;
      }
      if (ch === '\n' && !triple) throw new ParseError('newline in string');
      out += ch;
      this.i++;
    }
  }
}

/** Parses Python-style calls; throws ParseError with the offset of the problem. */
export function parsePythonCalls(text: string): ToolCall[] {
  return new Parser(text.trim()).calls();
}
