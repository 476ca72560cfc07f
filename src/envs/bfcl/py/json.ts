// JSON into Python values. `loads` reads JSON text as Python's json.loads does (a number with a
// fraction or exponent is a float, otherwise an int; NaN/Infinity accepted); `fromJs` converts an
// already parsed JS value, where an integral number's Python type is lost and is decided by the
// caller (`numberAt`), from the path it sits at.
import { EnvLimit, PyException } from './errors.js';
import { PyDict, type PyValue } from './values.js';

export const MAX_JSON_DEPTH = 200;

class Reader {
  i = 0;
  constructor(readonly s: string) {}

  fail(what: string): never {
    throw new PyException('JSONDecodeError', `${what}: char ${this.i}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  value(depth: number): PyValue {
    if (depth > MAX_JSON_DEPTH) throw new EnvLimit(`JSON nested deeper than ${MAX_JSON_DEPTH}`);
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return this.string();
    if (this.s.startsWith('true', this.i)) return this.lit(4, true);
    if (this.s.startsWith('false', this.i)) return this.lit(5, false);
    if (this.s.startsWith('null', this.i)) return this.lit(4, null);
    if (this.s.startsWith('NaN', this.i)) return this.lit(3, Number.NaN);
    if (this.s.startsWith('Infinity', this.i)) return this.lit(8, Infinity);
    if (this.s.startsWith('-Infinity', this.i)) return this.lit(9, -Infinity);
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?/.exec(this.s.slice(this.i, this.i + 400));
    if (!m) this.fail('Expecting value');
    this.i += m[0].length;
    if (m[1] !== undefined || m[2] !== undefined) return Number(m[0]);
    if (m[0].length > 4300) throw new PyException('ValueError', 'Exceeds the limit (4300 digits) for integer string conversion');
    return BigInt(m[0]);
  }

  lit(n: number, v: PyValue): PyValue {
    this.i += n;
    return v;
  }

  object(depth: number): PyDict {
    this.i++;
    const d = new PyDict();
    this.ws();
    if (this.s[this.i] === '}') {
      this.i++;
      return d;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail('Expecting property name enclosed in double quotes');
      const k = this.string();
      this.ws();
      if (this.s[this.i] !== ':') this.fail("Expecting ':' delimiter");
      this.i++;
      d.set(k, this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === '}') return d;
      if (c !== ',') this.fail("Expecting ',' delimiter");
    }
  }

  array(depth: number): PyValue[] {
    this.i++;
    const out: PyValue[] = [];
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value(depth + 1));
      this.ws();
      const c = this.s[this.i++];
      if (c === ']') return out;
      if (c !== ',') this.fail("Expecting ',' delimiter");
    }
  }

  string(): string {
    const start = ++this.i;
    const s = this.s;
    let out = '';
    let run = start;
    for (;;) {
      if (this.i >= s.length) this.fail('Unterminated string starting at');
      const c = s.charCodeAt(this.i);
      if (c === 0x22) {
        out += s.slice(run, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail('Invalid control character at');
      if (c === 0x5c) {
        out += s.slice(run, this.i);
        const e = s[this.i + 1];
        const simple: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
        if (e !== undefined && simple[e] !== undefined) {
          out += simple[e];
          this.i += 2;
        } else if (e === 'u' && /^[0-9a-fA-F]{4}$/.test(s.slice(this.i + 2, this.i + 6))) {
          out += String.fromCharCode(parseInt(s.slice(this.i + 2, this.i + 6), 16));
          this.i += 6;
        } else this.fail('Invalid \\escape');
        run = this.i;
        continue;
      }
      this.i++;
    }
  }
}

/** Python json.loads(text). */
export function loads(text: string): PyValue {
  const r = new Reader(text);
  const v = r.value(0);
  r.ws();
  if (r.i !== text.length) r.fail('Extra data');
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
