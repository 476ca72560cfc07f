// JSON into Python values: the runtime's one JSON parser. `loads` reads JSON text as Python's
// json.loads does (dicts as PyDict), for the BFCL APIs and tau-bench's databases and tool calls alike;
// `fromJs` converts an already parsed JS value, where an integral number's Python type is lost and is
// decided by the caller (`numberAt`), from the path it sits at.
import { EnvLimit, PyException } from './errors.js';
import { PyDict, type PyValue } from './values.js';

export const MAX_JSON_DEPTH = 200;
const INT_MAX_DIGITS = 4300;

/** A json.JSONDecodeError (its `text` names the place like Python's message does). */
export class JsonDecodeError extends PyException {
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

/** How deep one parse may nest, and what it throws past that. */
interface ParseOptions {
  maxDepth: number;
  tooDeep(max: number): Error;
}

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly o: ParseOptions,
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
      if (m[1] !== undefined || m[2] !== undefined) return Number(m[0]);
      if (m[0].length > INT_MAX_DIGITS + (m[0].startsWith('-') ? 1 : 0))
        throw new PyException(
          'ValueError',
          `Exceeds the limit (${INT_MAX_DIGITS} digits) for integer string conversion: value has ${m[0].replace('-', '').length} digits; use sys.set_int_max_str_digits() to increase the limit`,
        );
      return BigInt(m[0]);
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
    if (depth > this.o.maxDepth) throw this.o.tooDeep(this.o.maxDepth);
  }

  object(depth: number): PyDict {
    this.checkDepth(depth);
    const s = this.s;
    const m = new Map<string, PyValue>();
    this.i++;
    this.ws();
    if (s.charCodeAt(this.i) === 125) {
      this.i++;
      return PyDict.ofStrMap(m);
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
        return PyDict.ofStrMap(m);
      }
      if (c !== 44) this.fail("Expecting ',' delimiter");
      this.i++;
      this.ws();
    }
  }

  array(depth: number): PyValue[] {
    this.checkDepth(depth);
    const s = this.s;
    const a: PyValue[] = [];
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
 * Python json.loads(text): an integer literal is an int, one with a fraction or exponent a float,
 * NaN/Infinity accepted, duplicate keys keep the first position and the last value, control
 * characters refused, CPython's JSONDecodeError messages, ints over 4300 digits refused as Python
 * refuses them. Nesting past `maxDepth` (default 200) is arbiter's limit (EnvLimit: the grade is
 * refused); with `recursionError` it is the RecursionError Python itself raises on deep JSON, which
 * the caller reports like any other Python exception (tau-bench's tool-call arguments, databases).
 */
export function loads(text: string, o: { maxDepth?: number; recursionError?: boolean } = {}): PyValue {
  const tooDeep = o.recursionError
    ? (max: number) => new PyException('RecursionError', `JSON nested deeper than ${max} levels`)
    : (max: number) => new EnvLimit(`JSON nested deeper than ${max}`);
  return parse(text, { maxDepth: o.maxDepth ?? MAX_JSON_DEPTH, tooDeep });
}

function parse(text: string, o: ParseOptions): PyValue {
  const p = new Parser(text, o);
  p.ws();
  const v = p.value(0);
  p.ws();
  if (p.i !== text.length) p.fail('Extra data');
  return v;
}

/** Decides the Python value of a JS number found at `path` (keys, with '[]' for list items). */
export type NumberAt = (path: readonly string[], n: number) => PyValue;

/** Integral numbers become ints, others floats. */
export const intWhenIntegral: NumberAt = (_p, n) => (Number.isInteger(n) ? BigInt(n) : n);

/** Converts a parsed JSON value (objects, arrays, strings, numbers, booleans, null) into Python values. */
export function fromJs(v: unknown, numberAt: NumberAt = intWhenIntegral, path: string[] = [], depth = 0): PyValue {
  if (depth > MAX_JSON_DEPTH) throw new EnvLimit(`JSON nested deeper than ${MAX_JSON_DEPTH}`);
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return numberAt(path, v);
    case 'bigint':
      return v;
  }
  if (Array.isArray(v)) {
    path.push('[]');
    try {
      return v.map((x) => fromJs(x, numberAt, path, depth + 1));
    } finally {
      path.pop();
    }
  }
  if (typeof v === 'object') {
    const d = new PyDict();
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      path.push(k);
      try {
        d.set(k, fromJs(x, numberAt, path, depth + 1));
      } finally {
        path.pop();
      }
    }
    return d;
  }
  throw new PyException('TypeError', `a ${typeof v} is not a JSON value`);
}
