// The server's request-body parser for application/json: a leading byte-order mark is dropped,
// invalid UTF-8 is a 400 naming the byte offset (never silently U+FFFD), a body nested deeper than
// maxJsonDepth is a 400 `limit_exceeded` naming the field (checked by a linear pre-scan before
// anything is built), and the rest is fastify's own parser (prototype-poisoning checks included).
// The body's text is kept on the request (its `BodyHolder`), so /v1/score can find the raw text of
// samples' `id` members when it needs them (to echo ids byte-exact).
// The fast lane (fast-lane.ts) parses its bodies with the same function.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_MAX_JSON_DEPTH, mayNestDeeperThan, parseJsonExact, scanJson, tooDeepMessage, type RawIdMember } from '../core/json.js';
import { firstInvalidUtf8 } from '../io/jsonl-reader.js';
import { HttpError } from './http-error.js';

/**
 * Where a request keeps its parsed body's text, and the raw `id` members once found (the fastify
 * request, or the fast lane's record of the request).
 */
export interface BodyHolder {
  arbiterBodyText: string | null;
  arbiterRawIds: RawIdMember[] | null;
}

/**
 * The raw `id` members (objects up to three levels deep) of a request's parsed body. Found on first
 * use (only /v1/score asks), so the bodies of other routes are never scanned for them.
 */
export function rawIdsOf(holder: BodyHolder): RawIdMember[] {
  if (holder.arbiterRawIds) return holder.arbiterRawIds;
  const text = holder.arbiterBodyText;
  if (text === null) return [];
  holder.arbiterRawIds = scanJson(text, { maxDepth: DEFAULT_MAX_JSON_DEPTH, idLevels: 3 }).ids;
  return holder.arbiterRawIds;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/**
 * False when the number literal at `j` is not a plain integer (no sign on 0, no leading zero, no
 * fraction or exponent, at most 15 digits), true when it is or when no number starts there.
 */
function plainNumberAt(text: string, j: number): boolean {
  let c = text.charCodeAt(j);
  const neg = c === 0x2d;
  if (neg) c = text.charCodeAt(++j);
  if (!isDigit(c)) return !neg;
  let k = j;
  while (isDigit(text.charCodeAt(k))) k++;
  const n = k - j;
  c = text.charCodeAt(k);
  if (c === 0x2e || c === 0x65 || c === 0x45) return false; // . e E
  if (text.charCodeAt(j) === 0x30) return n === 1 && !neg; // 0, never -0 or 01
  return n <= 15;
}

/**
 * True when every `id` of the request's body is written as JSON.stringify writes its parsed value,
 * so no raw id text is needed to echo it byte-exact: a cheap test of the common case (when it says
 * no, the body is scanned: rawIdsOf). It holds when the body has no `\u` and no `\/` escape and
 * every number after an `"id"` key, at any depth, is a plain integer of at most 15 digits:
 * - without those two escapes, the escapes left (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`) are the
 *   ones JSON.stringify writes, so every string is written as JSON.stringify writes it;
 * - without `\u`, a key named id can only be spelt `"id"`, so the pattern finds every id number
 *   (it may find more, inside strings: that only makes the test stricter);
 * - such an integer reads back exactly and String() writes it as sent (not `-0`, `1.0`, `1e0`).
 */
export function idsArePlain(holder: BodyHolder): boolean {
  const text = holder.arbiterBodyText;
  if (text === null) return true;
  if (text.includes('\\u') || text.includes('\\/')) return false;
  for (let i = text.indexOf('"id"'); i >= 0; i = text.indexOf('"id"', i + 4)) {
    let j = i + 4;
    while (isSpace(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== 0x3a) continue; // not followed by ':'
    j++;
    while (isSpace(text.charCodeAt(j))) j++;
    if (!plainNumberAt(text, j)) return false;
  }
  return true;
}

/**
 * True when fastify's secure parser would return exactly JSON.parse's value for `text`: its
 * poisoning checks look for a "__proto__" or "constructor" key (maybe spelt with \u escapes), and it
 * drops one leading U+FEFF; a text with none of these is parsed with JSON.parse alone.
 */
function plainJson(text: string): boolean {
  return text.charCodeAt(0) !== 0xfeff && text.indexOf('\\u') < 0 && text.indexOf('__proto__') < 0 && text.indexOf('constructor') < 0;
}

/**
 * Parses one request body (bytes) as the server reads JSON, keeping its text in `holder`; throws the
 * HttpError or parser error to answer with.
 */
export type JsonBodyParser = (body: Buffer, holder: BodyHolder) => unknown;

/**
 * The server's JSON body parser over fastify's secure parser: the fastify content-type parser and
 * the fast lane (fast-lane.ts) both parse with it.
 */
function jsonBodyParser(app: FastifyInstance, maxDepth: number): JsonBodyParser {
  const secureParse = app.getDefaultJsonParser('error', 'error');
  // fastify's parser (synchronous; it does not read the request), behind the exact-integer rewrite of parseJsonExact
  const parse = (t: string): unknown => {
    let out: { err: Error | null; value?: unknown } = { err: null };
    secureParse(null as never, t, (err: Error | null, value?: unknown) => {
      out = { err, value };
    });
    if (out.err) throw out.err;
    return out.value;
  };
  return (body, holder) => {
    const start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    const bytes = start ? body.subarray(start) : body;
    if (!isUtf8(bytes)) {
      const at = Math.max(0, firstInvalidUtf8(bytes));
      throw new HttpError(
        400,
        'malformed_json',
        `the request body is not valid UTF-8: byte 0x${bytes[at]!.toString(16).padStart(2, '0').toUpperCase()} at byte offset ${at + start}`,
      );
    }
    const text = bytes.toString('utf8');
    // the linear scan only for a body with more than maxDepth brackets (a native count decides)
    const scan = mayNestDeeperThan(text, maxDepth) ? scanJson(text, { maxDepth, idLevels: 3 }) : undefined;
    if (scan?.tooDeep) throw new HttpError(400, 'limit_exceeded', `request body field ${tooDeepMessage(scan.tooDeep.path, maxDepth)}`);
    let value: unknown;
    if (plainJson(text)) {
      try {
        value = parseJsonExact(text);
      } catch {
        value = parseJsonExact(text, parse); // the secure parser's own error
      }
    } else value = parseJsonExact(text, parse);
    holder.arbiterBodyText = text;
    holder.arbiterRawIds = scan ? scan.ids : null;
    return value;
  };
}

declare module 'fastify' {
  interface FastifyRequest extends BodyHolder {}
}

export function installJsonBodyParser(app: FastifyInstance, maxDepth: number): JsonBodyParser {
  const parse = jsonBodyParser(app, maxDepth);
  app.decorateRequest('arbiterBodyText', null);
  app.decorateRequest('arbiterRawIds', null);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    let value: unknown;
    try {
      value = parse(body, request);
    } catch (e) {
      done(e as Error, undefined);
      return;
    }
    done(null, value);
  });
  return parse;
}
