// Bounded JSON for untrusted input: a linear pre-scan that refuses documents nested deeper than a
// limit (before anything recursive — structured clone, JSON.stringify, graders — can overflow the
// stack on them) and captures the raw source text of `id` members, so ids are echoed byte-exact.
// Also the same depth bound for values that arrive already parsed, and a serialiser that writes a
// record's id back verbatim.
import { GradeFailure } from './result.js';

/** Default nesting limit for one JSON document (a JSONL line, a request body). Objects and arrays count one level each. */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/**
 * Symbol under which a record carries the raw JSON text of its id (invisible to JSON.stringify);
 * `stringifyRecord` writes it back instead of the re-serialised value.
 */
export const ID_JSON: unique symbol = Symbol('arbiter.idJson');

export interface RawIdMember {
  /** Where the object holding `"id"` sits: [] for the top-level object, ['samples', 3] for body.samples[3]. */
  path: (string | number)[];
  /** The value's source text, without surrounding whitespace. */
  raw: string;
}

export interface JsonScan {
  /** Set when nesting exceeds maxDepth: the path of the container where it first does. */
  tooDeep?: { path: string; maxDepth: number };
  /** Raw `"id"` members of objects at nesting level <= idLevels, in source order. */
  ids: RawIdMember[];
}

export interface ScanOptions {
  maxDepth?: number;
  /** Capture `"id"` members of objects nested at most this deep (1 = the top-level object only; 0 = none). */
  idLevels?: number;
  /** Stop at the first captured id (the caller already knows the depth is within bounds). */
  firstId?: boolean;
}

const Q = 34,
  BS = 92,
  LB = 91,
  RB = 93,
  LC = 123,
  RC = 125,
  COMMA = 44,
  COLON = 58;

function isJsonSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Index of the quote closing the string that opens at `i` (one not preceded by an odd run of backslashes), or text.length. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const k = text.indexOf('"', j);
    if (k < 0) return text.length;
    let b = k - 1;
    while (b >= j && text.charCodeAt(b) === BS) b--;
    if ((k - 1 - b) % 2 === 0) return k;
    j = k + 1;
  }
}

function trimJson(text: string, start: number, end: number): string {
  while (start < end && isJsonSpace(text.charCodeAt(start))) start++;
  while (end > start && isJsonSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function keyText(text: string, s: number, e: number): string {
  const raw = text.slice(s, e);
  if (raw.indexOf('\\') < 0) return raw.slice(1, -1);
  try {
    return String(JSON.parse(raw));
  } catch {
    return raw;
  }
}

function isIdKey(text: string, s: number, e: number): boolean {
  if (e - s === 4) return text.startsWith('"id"', s);
  // an escaped spelling such as "\u0069d" is still the key id for JSON.parse
  return e - s <= 40 && text.slice(s, e).includes('\\') && keyText(text, s, e) === 'id';
}

/** Renders a path like item.answer[0]["odd key"]; long paths keep their first components. */
export function formatPath(path: readonly (string | number)[], maxParts = 8): string {
  let out = '';
  const n = Math.min(path.length, maxParts);
  for (let i = 0; i < n; i++) {
    const p = path[i]!;
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p.length > 40 ? p.slice(0, 40) + '…' : p)}]`;
  }
  if (path.length > maxParts) out += '…';
  return out || '(the top level)';
}

/**
 * One linear pass over a JSON text: finds where nesting first exceeds `maxDepth` and the raw text of
 * `id` members near the top. It never throws and does not validate syntax (JSON.parse does that
 * afterwards); on malformed text its findings are only advisory.
 */
export function scanJson(text: string, opts: ScanOptions = {}): JsonScan {
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const idLevels = Math.min(opts.idLevels ?? 0, maxDepth);
  const result: JsonScan = { ids: [] };
  const firstId = opts.firstId === true;
  let stop = false;
  // per open level (1-based), kept only up to maxDepth: array or object, element index, last key span
  const isArr: boolean[] = [];
  const index: number[] = [];
  const keyS: number[] = [];
  const keyE: number[] = [];
  const capStart: number[] = []; // start of an id value being captured at this level, or -1
  let depth = 0;
  let expectKey = false;
  const n = text.length;
  const pathTo = (level: number): (string | number)[] => {
    const p: (string | number)[] = [];
    for (let k = 1; k <= level; k++) {
      if (isArr[k]) p.push(index[k]!);
      else if (keyS[k]! >= 0) p.push(keyText(text, keyS[k]!, keyE[k]!));
    }
    return p;
  };
  const endCapture = (at: number) => {
    if (depth >= 1 && depth <= idLevels && capStart[depth]! >= 0) {
      result.ids.push({ path: pathTo(depth - 1), raw: trimJson(text, capStart[depth]!, at) });
      capStart[depth] = -1;
      stop = firstId;
    }
  };
  let i = 0;
  while (i < n && !stop) {
    const c = text.charCodeAt(i);
    if (c === Q) {
      const end = stringEnd(text, i);
      if (expectKey && depth >= 1 && depth <= maxDepth) {
        keyS[depth] = i;
        keyE[depth] = end + 1;
      }
      expectKey = false;
      i = end + 1;
      continue;
    }
    if (c === LC || c === LB) {
      depth++;
      if (depth <= maxDepth) {
        isArr[depth] = c === LB;
        index[depth] = 0;
        keyS[depth] = -1;
        capStart[depth] = -1;
      } else if (!result.tooDeep) {
        result.tooDeep = { path: formatPath(pathTo(maxDepth)), maxDepth };
      }
      expectKey = c === LC;
    } else if (c === RC || c === RB) {
      endCapture(i);
      if (depth > 0) depth--;
      expectKey = false;
    } else if (c === COMMA) {
      endCapture(i);
      if (depth >= 1 && depth <= maxDepth) {
        if (isArr[depth]) index[depth]!++;
        else expectKey = true;
      }
    } else if (c === COLON) {
      if (depth >= 1 && depth <= idLevels && !isArr[depth] && keyS[depth]! >= 0 && isIdKey(text, keyS[depth]!, keyE[depth]!)) {
        capStart[depth] = i + 1;
      }
    }
    i++;
  }
  return result;
}

/**
 * The raw text of the top-level `"id"` when it is the object's first member and a string or number
 * (`{"id": 12, ...}`, the usual layout), found without a full scan; undefined otherwise (then use
 * scanJson). Only a hint for callers that validate it against the parsed value.
 */
export function leadingIdRaw(text: string): string | undefined {
  let i = 0;
  const n = text.length;
  while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== LC) return undefined;
  i++;
  while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
  if (!text.startsWith('"id"', i)) return undefined;
  i += 4;
  while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) !== COLON) return undefined;
  i++;
  while (i < n && isJsonSpace(text.charCodeAt(i))) i++;
  const start = i;
  if (text.charCodeAt(i) === Q) {
    for (let j = i + 1; ; ) {
      const k = text.indexOf('"', j);
      if (k < 0) return undefined;
      let b = k - 1;
      while (b > i && text.charCodeAt(b) === BS) b--;
      if ((k - 1 - b) % 2 === 0) return text.slice(start, k + 1);
      j = k + 1;
    }
  }
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === COMMA || c === RC || isJsonSpace(c)) break;
    i++;
  }
  return i > start ? text.slice(start, i) : undefined;
}

/**
 * False when `text` cannot nest deeper than `maxDepth`: it holds at most that many '{' and '['
 * characters (inside strings or not). A cheap native-speed test that spares most lines the scan.
 */
export function mayNestDeeperThan(text: string, maxDepth: number): boolean {
  let n = 0;
  for (let i = text.indexOf('{'); i >= 0; i = text.indexOf('{', i + 1)) if (++n > maxDepth) return true;
  for (let i = text.indexOf('['); i >= 0; i = text.indexOf('[', i + 1)) if (++n > maxDepth) return true;
  return false;
}

/** The message for a document nested too deep. */
export function tooDeepMessage(path: string, maxDepth: number): string {
  return `${path}: JSON nested deeper than ${maxDepth} levels (the limit for untrusted input)`;
}

/**
 * JSON.parse behind the depth pre-scan: throws GradeFailure('limit_exceeded') naming the path for a
 * document nested deeper than `maxDepth`, and SyntaxError for malformed text.
 */
export function parseJsonBounded(text: string, maxDepth = DEFAULT_MAX_JSON_DEPTH): unknown {
  const scan = mayNestDeeperThan(text, maxDepth) ? scanJson(text, { maxDepth }) : undefined;
  if (scan?.tooDeep) throw new GradeFailure('limit_exceeded', tooDeepMessage(scan.tooDeep.path, maxDepth));
  return JSON.parse(text);
}

/**
 * The same bound for a value that is already parsed (library callers): returns the path of the first
 * place nested deeper than `maxDepth` or undefined (a cycle is walked once, not
 * forever). Iterative, so it
 * cannot overflow the stack itself; an object reached again no shallower than before is not walked
 * again, so shared sub-objects cost no more than nodes × maxDepth.
 */
export function findTooDeep(value: unknown, maxDepth = DEFAULT_MAX_JSON_DEPTH): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  interface Node {
    v: object;
    d: number;
    parent?: Node;
    key?: string | number;
  }
  const seen = new Map<object, number>([[value, 1]]);
  const stack: Node[] = [{ v: value, d: 1 }];
  const push = (parent: Node, key: string | number, x: unknown) => {
    if (typeof x !== 'object' || x === null) return;
    const d = parent.d + 1;
    const before = seen.get(x);
    if (before !== undefined && before <= d) return;
    seen.set(x, d);
    stack.push({ v: x, d, parent, key });
  };
  while (stack.length) {
    const node = stack.pop()!;
    if (node.d > maxDepth) {
      const path: (string | number)[] = [];
      for (let n: Node | undefined = node; n?.parent; n = n.parent) path.push(n.key!);
      return formatPath(path.reverse());
    }
    const v = node.v;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) push(node, i, v[i]);
    } else {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) push(node, keys[i]!, (v as Record<string, unknown>)[keys[i]!]);
    }
  }
  return undefined;
}

/**
 * JSON text of a record whose first key is `id`: the id is written as its raw source text when the
 * record carries one under ID_JSON (so 1e999, 12345678901234567891 and "\u0041" come back as
 * written), else as JSON.stringify writes it.
 */
export function stringifyRecord(rec: { id?: unknown; [ID_JSON]?: string }): string {
  const s = stringifyExact(rec);
  const raw = rec[ID_JSON];
  if (raw === undefined) return s;
  const head = '{"id":' + JSON.stringify(rec.id);
  return s.startsWith(head) ? '{"id":' + raw + s.slice(head.length) : s;
}

// ---- exact numbers: integers outside the safe range as BigInt ----

/**
 * Sixteen digits in a row: every integer literal outside ±(2^53 − 1) has at least that many, so a
 * text without such a run parses exactly with plain JSON.parse (one native scan decides). Spelt
 * out rather than \d{16}: V8 then skips ahead by the pattern's length (about 8 times faster).
 */
const LONG_DIGITS = new RegExp('\\d'.repeat(16));

/** True when `text` may hold an integer literal JSON.parse would round (a cheap, conservative test). */
export function mayHoldBigInts(text: string): boolean {
  return LONG_DIGITS.test(text);
}

const INT_LITERAL = /^-?(?:0|[1-9]\d*)$/;

function isNumberChar(c: number): boolean {
  return (c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69; // 0-9 - + . e E
}

/** A text with its unsafe integer literals replaced by marker strings, and what they stand for. */
interface BigIntRewrite {
  text: string;
  prefix: string;
  values: bigint[];
}

/**
 * Replaces every integer literal outside the safe range (outside strings; only well-formed ones, so
 * invalid JSON stays invalid) by a string `"\u0000<nonce><index>"`, or undefined when there is none.
 * The nonce is a U+0000 alone when the text holds no `\u0000` escape (then no string of the text can
 * decode to a marker), else random as well.
 */
function rewriteBigInts(text: string): BigIntRewrite | undefined {
  let out = '';
  let last = 0;
  const values: bigint[] = [];
  const prefix = /\\u0000/i.test(text) ? `\u0000${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}:` : '\u0000';
  const escPrefix = JSON.stringify(prefix).slice(1, -1);
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === Q) {
      const end = stringEnd(text, i);
      i = end + 1;
      continue;
    }
    if ((c >= 48 && c <= 57) || c === 45) {
      let j = i + 1;
      while (j < n && isNumberChar(text.charCodeAt(j))) j++;
      if (j - i >= 16) {
        const tok = text.slice(i, j);
        if (INT_LITERAL.test(tok) && !Number.isSafeInteger(Number(tok))) {
          out += text.slice(last, i) + '"' + escPrefix + values.length + '"';
          values.push(BigInt(tok));
          last = j;
        }
      }
      i = j;
      continue;
    }
    i++;
  }
  return values.length ? { text: out + text.slice(last), prefix, values } : undefined;
}

/** Puts the rewrite's BigInts back in place of their markers (in a value parsed from its text). */
function restoreBigInts(root: unknown, rw: BigIntRewrite): unknown {
  const { prefix, values } = rw;
  const big = (x: unknown): bigint | undefined =>
    typeof x === 'string' && x.charCodeAt(0) === 0 && x.startsWith(prefix) ? values[Number(x.slice(prefix.length))] : undefined;
  const top = big(root);
  if (top !== undefined) return top;
  const stack: object[] = typeof root === 'object' && root !== null ? [root] : [];
  while (stack.length) {
    const o = stack.pop()!;
    if (Array.isArray(o)) {
      for (let i = 0; i < o.length; i++) {
        const x: unknown = o[i];
        const b = big(x);
        if (b !== undefined) o[i] = b;
        else if (typeof x === 'object' && x !== null) stack.push(x);
      }
    } else {
      const rec = o as Record<string, unknown>;
      for (const k of Object.keys(rec)) {
        const x = rec[k];
        const b = big(x);
        // defineProperty: an own "__proto__" key stays a plain property
        if (b !== undefined) Object.defineProperty(rec, k, { value: b, writable: true, enumerable: true, configurable: true });
        else if (typeof x === 'object' && x !== null) stack.push(x);
      }
    }
  }
  return root;
}

/**
 * A JSON parse that keeps integers exact: literals without fraction or exponent outside
 * ±(2^53 − 1) become BigInt (as Python's json reads them as int); everything else is exactly what
 * `parse` (JSON.parse by default, or e.g. fastify's secure parser) builds. Lines without a run of
 * 16 digits take the plain parse and nothing more. A syntax error is the one `parse` reports for
 * the original text.
 */
export function parseJsonExact(text: string, parse: (text: string) => unknown = JSON.parse): unknown {
  if (!mayHoldBigInts(text)) return parse(text);
  const rw = rewriteBigInts(text);
  if (!rw) return parse(text);
  let v: unknown;
  try {
    v = parse(rw.text);
  } catch (e) {
    parse(text); // the original text's own error message (and position)
    throw e;
  }
  return restoreBigInts(v, rw);
}

/** A character JSON.stringify writes escaped: a quote, a backslash, a control character, a surrogate (paired or not). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what JSON.stringify escapes, matched on purpose
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * JSON.stringify of a string, without its per-call cost (about 0.1 µs) when nothing in the string
 * needs an escape: then the text is the string between quotes, as JSON.stringify writes it.
 */
export function jsonString(s: string): string {
  return ESCAPED.test(s) ? JSON.stringify(s) : `"${s}"`;
}

let bigMark = `\u0000big${Math.random().toString(36).slice(2)}:`;

/**
 * JSON.stringify that writes BigInt values as their digits (JSON.stringify throws on them). Values
 * without a BigInt cost one plain JSON.stringify call.
 */
export function stringifyExact(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space) as string;
  } catch (e) {
    if (!(e instanceof TypeError) || !/BigInt/i.test(e.message)) throw e;
  }
  for (;;) {
    const mark = bigMark;
    let clash = false;
    const s = JSON.stringify(
      value,
      (_k, x: unknown) => {
        if (typeof x === 'bigint') return mark + x.toString();
        if (typeof x === 'string' && x.includes(mark)) clash = true;
        return x;
      },
      space,
    );
    if (!clash) {
      const esc = JSON.stringify(mark).slice(1, -1);
      return s.split(`"${esc}`).reduce((acc, part, i) => (i === 0 ? part : acc + part.replace(/^(-?\d+)"/, '$1')), '');
    }
    bigMark = `\u0000big${Math.random().toString(36).slice(2)}:`; // a string held the marker: pick another
  }
}
