// Python's json module over Python values: loads() keeps what JSON.parse loses (an integer literal is
// an int, one with a fraction or exponent a float; NaN/Infinity accepted; duplicate keys keep the
// first position and the last value; control characters in strings refused), and dumps() writes
// what json.dumps writes by default (", " and ": " separators, ASCII only, float repr).
import { DEFAULT_MAX_JSON_DEPTH } from '../../core/json.js';
import { PyError, reprFloat, type PyDict, type PyList, type PyValue } from './value.js';

/** A json.JSONDecodeError (its `text` names the place like Python's message does). */
export class JsonDecodeError extends PyError {
  constructor(msg: string, doc: string, pos: number) {
    let line = 1;
    let col = pos + 1;
    const nl = doc.lastIndexOf('\n', pos - 1);
    if (nl >= 0) {
      for (let i = 0; i < pos; i++) if (doc.charCodeAt(i) === 10) line++;
      col = pos - nl;
    }
    super('JSONDecodeError', `${msg}: line ${line} column ${col} (char ${pos})`);
  }
}

const WS = (c: number) => c === 32 || c === 9 || c === 10 || c === 13;
const NUMBER = /-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/y;

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly maxDepth: number,
  ) {}

  fail(msg: string, at = this.i): never {
    throw new JsonDecodeError(msg, this.s, at);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length && WS(s.charCodeAt(this.i))) this.i++;
  }

  value(depth: number): PyValue {
    const s = this.s;
    const c = s.charCodeAt(this.i);
    if (c === 34) return this.string();
    if (c === 123) return this.object(depth + 1);
    if (c === 91) return this.array(depth + 1);
    if (c === 110 && s.startsWith('null', this.i)) {
      this.i += 4;
      return null;
    }
    if (c === 116 && s.startsWith('true', this.i)) {
      this.i += 4;
      return true;
    }
    if (c === 102 && s.startsWith('false', this.i)) {
      this.i += 5;
      return false;
    }
    NUMBER.lastIndex = this.i;
    const m = NUMBER.exec(s);
    if (m) {
      this.i += m[0].length;
      if (m[1] === undefined && m[2] === undefined) return BigInt(m[0]);
      return Number(m[0]);
    }
    if (c === 78 && s.startsWith('NaN', this.i)) {
      this.i += 3;
      return NaN;
    }
    if (c === 73 && s.startsWith('Infinity', this.i)) {
      this.i += 8;
      return Infinity;
    }
    if (c === 45 && s.startsWith('-Infinity', this.i)) {
      this.i += 9;
      return -Infinity;
    }
    return this.fail('Expecting value');
  }

  string(): string {
    const s = this.s;
    const start = this.i;
    let i = this.i + 1;
    let out = '';
    let from = i;
    for (;;) {
      if (i >= s.length) this.fail('Unterminated string starting at', start);
      const c = s.charCodeAt(i);
      if (c === 34) {
        out += s.slice(from, i);
        this.i = i + 1;
        return out;
      }
      if (c < 0x20) this.fail('Invalid control character at', i);
      if (c !== 92) {
        i++;
        continue;
      }
      out += s.slice(from, i);
      const e = s[i + 1];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
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
        case 'u': {
          const h = s.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(h)) this.fail('Invalid \\uXXXX escape', i + 1);
          out += String.fromCharCode(parseInt(h, 16)); // a surrogate pair of escapes joins by itself
          i += 4;
          break;
        }
        default:
          if (e === undefined) this.fail('Unterminated string starting at', start);
          this.fail('Invalid \\escape', i);
      }
      i += 2;
      from = i;
    }
  }

  checkDepth(depth: number): void {
    if (depth > this.maxDepth) throw new PyError('RecursionError', `JSON nested deeper than ${this.maxDepth} levels`);
  }

  object(depth: number): PyDict {
    this.checkDepth(depth);
    const s = this.s;
    const m: PyDict = new Map();
    this.i++;
    this.ws();
    if (s.charCodeAt(this.i) === 125) {
      this.i++;
      return m;
    }
    for (;;) {
      if (s.charCodeAt(this.i) !== 34) this.fail('Expecting property name enclosed in double quotes');
      const k = this.string();
      this.ws();
      if (s.charCodeAt(this.i) !== 58) this.fail("Expecting ':' delimiter");
      this.i++;
      this.ws();
      m.set(k, this.value(depth));
      this.ws();
      const c = s.charCodeAt(this.i);
      if (c === 125) {
        this.i++;
        return m;
      }
      if (c !== 44) this.fail("Expecting ',' delimiter");
      this.i++;
      this.ws();
    }
  }

  array(depth: number): PyList {
    this.checkDepth(depth);
    const s = this.s;
    const a: PyList = [];
    this.i++;
    this.ws();
    if (s.charCodeAt(this.i) === 93) {
      this.i++;
      return a;
    }
    for (;;) {
      a.push(this.value(depth));
      this.ws();
      const c = s.charCodeAt(this.i);
      if (c === 93) {
        this.i++;
        return a;
      }
      if (c !== 44) this.fail("Expecting ',' delimiter");
      this.i++;
      this.ws();
    }
  }
}

/**
 * Python json.loads(text). Throws JsonDecodeError on malformed text, PyError('RecursionError')
 * past `maxDepth` levels of nesting.
 */
export function loads(text: string, maxDepth = DEFAULT_MAX_JSON_DEPTH): PyValue {
  const p = new Parser(text, maxDepth);
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail('Extra data');
  return v;
}

const ESC: Record<number, string> = { 34: '\\"', 92: '\\\\', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t' };

/** A JSON string literal as json.dumps writes it (ensure_ascii: everything outside ' '..'~' escaped). */
export function dumpsStr(s: string): string {
  let plain = true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c > 0x7e || c === 34 || c === 92) {
      plain = false;
      break;
    }
  }
  if (plain) return `"${s}"`;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e && c !== 34 && c !== 92) out += s[i];
    else out += ESC[c] ?? '\\u' + c.toString(16).padStart(4, '0');
  }
  return out + '"';
}

function dumpsFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return reprFloat(x);
}

/** Python json.dumps(v) with default settings. */
export function dumps(v: PyValue): string {
  const parts: string[] = [];
  write(v, parts);
  return parts.join('');
}

function write(v: PyValue, out: string[]): void {
  if (v === null) out.push('null');
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (typeof v === 'number') out.push(dumpsFloat(v));
  else if (typeof v === 'string') out.push(dumpsStr(v));
  else if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i) out.push(', ');
      write(v[i]!, out);
    }
    out.push(']');
  } else {
    out.push('{');
    let first = true;
    for (const [k, x] of v) {
      if (!first) out.push(', ');
      first = false;
      out.push(dumpsStr(k), ': ');
      write(x, out);
    }
    out.push('}');
  }
}
