// The server's request-body parser for application/json: a leading byte-order mark is dropped,
// invalid UTF-8 is a 400 naming the byte offset (never silently U+FFFD), a body nested deeper than
// maxJsonDepth is a 400 `limit_exceeded` naming the field (checked by a linear pre-scan before
// anything is built), and the rest is fastify's own parser (prototype-poisoning checks included).
// The raw text of samples' `id` members is kept per body so /v1/score can echo ids byte-exact.
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { parseJsonExact, scanJson, tooDeepMessage, type RawIdMember } from '../core/json.js';
import { firstInvalidUtf8 } from '../io/jsonl-reader.js';
import { HttpError } from './http-error.js';

const rawIds = new WeakMap<object, RawIdMember[]>();

/** The raw `id` members (objects up to three levels deep) of a parsed request body. */
export function rawIdsOf(body: unknown): RawIdMember[] {
  return (typeof body === 'object' && body !== null && rawIds.get(body)) || [];
}

export function installJsonBodyParser(app: FastifyInstance, maxDepth: number): void {
  const secureParse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0;
    const bytes = body.subarray(start);
    if (!isUtf8(bytes)) {
      const at = Math.max(0, firstInvalidUtf8(bytes));
      done(
        new HttpError(
          400,
          'malformed_json',
          `the request body is not valid UTF-8: byte 0x${bytes[at]!.toString(16).padStart(2, '0').toUpperCase()} at byte offset ${at + start}`,
        ),
        undefined,
      );
      return;
    }
    const text = bytes.toString('utf8');
    const scan = scanJson(text, { maxDepth, idLevels: 3 });
    if (scan.tooDeep) {
      done(new HttpError(400, 'limit_exceeded', `request body field ${tooDeepMessage(scan.tooDeep.path, maxDepth)}`), undefined);
      return;
    }
    // fastify's parser (synchronous), behind the exact-integer rewrite of parseJsonExact
    const parse = (t: string): unknown => {
      let out: { err: Error | null; value?: unknown } = { err: null };
      secureParse(request, t, (err: Error | null, value?: unknown) => {
        out = { err, value };
      });
      if (out.err) throw out.err;
      return out.value;
    };
    let value: unknown;
    try {
      value = parseJsonExact(text, parse);
    } catch (e) {
      done(e as Error, undefined);
      return;
    }
    if (scan.ids.length && typeof value === 'object' && value !== null) rawIds.set(value, scan.ids);
    done(null, value);
  });
}
