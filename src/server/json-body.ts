// The server's request-body parser for application/json: a leading byte-order mark is dropped,
// invalid UTF-8 is a 400 naming the byte offset (never silently U+FFFD), a body nested deeper than
// maxJsonDepth is a 400 `limit_exceeded` naming the field (checked by a linear pre-scan before
// anything is built), and the rest is fastify's own parser (prototype-poisoning checks included).
// The raw text of samples' `id` members is kept per body (found when first asked for) so /v1/score
// can echo ids byte-exact.
// The fast lane (fast-lane.ts) parses its bodies with the same function.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_MAX_JSON_DEPTH, mayNestDeeperThan, parseJsonExact, scanJson, tooDeepMessage, type RawIdMember } from '../core/json.js';
import { firstInvalidUtf8 } from '../io/jsonl-reader.js';
import { HttpError } from './http-error.js';

/** Per parsed body: its raw `id` members, or its text when they have not been looked for yet. */
const rawIds = new WeakMap<object, RawIdMember[] | string>();

/**
 * The raw `id` members (objects up to three levels deep) of a parsed request body. Found on first
 * use (only /v1/score asks), so the bodies of other routes are never scanned for them.
 */
export function rawIdsOf(body: unknown): RawIdMember[] {
  if (typeof body !== 'object' || body === null) return [];
  const got = rawIds.get(body);
  if (typeof got !== 'string') return got ?? [];
  const ids = scanJson(got, { maxDepth: DEFAULT_MAX_JSON_DEPTH, idLevels: 3 }).ids;
  rawIds.set(body, ids);
  return ids;
}

/**
 * True when fastify's secure parser would return exactly JSON.parse's value for `text`: its
 * poisoning checks look for a "__proto__" or "constructor" key (maybe spelt with \u escapes), and it
 * drops one leading U+FEFF; a text with none of these is parsed with JSON.parse alone.
 */
function plainJson(text: string): boolean {
  return text.charCodeAt(0) !== 0xfeff && text.indexOf('\\u') < 0 && text.indexOf('__proto__') < 0 && text.indexOf('constructor') < 0;
}

/** Parses one request body (bytes) as the server reads JSON; throws the HttpError or parser error to answer with. */
export type JsonBodyParser = (body: Buffer) => unknown;

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
  return (body) => {
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
    if (typeof value === 'object' && value !== null) rawIds.set(value, scan ? scan.ids : text);
    return value;
  };
}

export function installJsonBodyParser(app: FastifyInstance, maxDepth: number): JsonBodyParser {
  const parse = jsonBodyParser(app, maxDepth);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body: Buffer, done) => {
    let value: unknown;
    try {
      value = parse(body);
    } catch (e) {
      done(e as Error, undefined);
      return;
    }
    done(null, value);
  });
  return parse;
}
