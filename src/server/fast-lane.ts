// The fast lane: the plain requests to the JSON routes registered with `postJson` (/get_reward,
// /v1/score: what trainers send once per sample) answered straight from node's request and
// response, without fastify's per-request work (request and reply objects, hook chains, content-type
// lookup, reply pipeline), which cost more than grading a string_check (docs/server.md#benchmark).
// A request takes the lane only when it is the common case: POST to the exact path (no query), a
// JSON content type, a Content-Length within the body limit, a valid bearer token when the server
// has one, the server not closing and its logger off. Anything else is handed to fastify
// untouched, which answers it as before. Both paths parse with the same parser, run the same route
// handler, answer errors with the same `errorReply`, and count the same metrics; the lane also
// keeps the app's other per-request rules (in-flight count, cancel on disconnect, `connection:
// close` while shutting down). The requests whose bodies arrived in one turn of the event loop are
// parsed and graded together after its I/O, and the replies ready in that turn are written together
// at its end (ReplyBatch).
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { BearerCheck } from './auth.js';
import type { JsonRoute, ScopeHolder, ServerContext } from './context.js';
import { errorReply } from './http-error.js';
import type { JsonBodyParser } from './json-body.js';

export interface FastLaneOptions {
  parse: JsonBodyParser;
  bodyLimit: number;
  /** The bearer-token check when the server has a token. */
  auth?: BearerCheck;
}

/** Content types fastify's application/json parser takes that the lane takes too (the rest go to fastify). */
const JSON_TYPES: ReadonlySet<string> = new Set(['application/json', 'application/json; charset=utf-8', 'application/json;charset=utf-8']);
const NO_QUERY: Readonly<Record<string, unknown>> = Object.freeze({});
const JSON_TYPE = 'application/json; charset=utf-8';

/** A reply the lane has ready, waiting for the end of the event loop's turn. */
export interface PendingReply {
  res: ServerResponse;
  status: number;
  body: string;
  headers: Record<string, string> | undefined;
  route: string;
  /** When the request arrived (performance.now()): its latency is measured to when the reply is written. */
  t0: number;
}

/**
 * Replies that became ready during one turn of the event loop, written together at its end
 * (setImmediate: after the turn's I/O callbacks and their promise jobs). A reply written to a
 * client asleep in epoll wakes it, and on a virtual machine that wake-up is a cross-CPU interrupt:
 * 5 to 6 us of kernel time per request, the largest single cost of a reply when measured (the
 * client then runs, answers, and sleeps again before the next reply). Written back to back, the
 * replies of one turn share the wake-up. A reply waits at most for the rest of the turn it was
 * ready in, which is spent grading the other requests that arrived with it.
 */
export class ReplyBatch {
  private pending: PendingReply[] = [];
  private scheduled = false;

  constructor(private readonly write: (r: PendingReply, now: number) => void) {}

  push(r: PendingReply): void {
    this.pending.push(r);
    this.schedule();
  }

  /** Makes sure a flush is queued (before work queued after this call, in the same check phase). */
  schedule(): void {
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Writes every waiting reply, in the order they became ready. */
  readonly flush = (): void => {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = [];
    const now = performance.now();
    for (const r of batch) {
      try {
        this.write(r, now);
      } catch (e) {
        r.res.destroy(e as Error); // one reply that cannot be written does not hold back the others
      }
    }
  };
}

/**
 * Puts the lane in front of fastify's request listener on `app.server`. Returns false (and changes
 * nothing) when the server does not have exactly fastify's one request listener.
 */
export function installFastLane(app: FastifyInstance, ctx: ServerContext, o: FastLaneOptions): boolean {
  const server = app.server;
  const listeners = server.listeners('request');
  if (listeners.length !== 1) return false;
  const fastify = listeners[0] as RequestListener;
  const { metrics } = ctx;
  const { parse, bodyLimit, auth } = o;

  const take = (req: IncomingMessage): JsonRoute | undefined => {
    if (req.method !== 'POST' || ctx.closing) return undefined;
    const handle = ctx.jsonRoutes.get(req.url!);
    if (!handle) return undefined;
    const h = req.headers;
    const ct = h['content-type'];
    if (ct === undefined || !(ct === 'application/json' || JSON_TYPES.has(ct.toLowerCase()))) return undefined;
    const len = h['content-length'];
    if (len === undefined || h['transfer-encoding'] !== undefined || h['content-encoding'] !== undefined) return undefined;
    const n = Number(len);
    if (!(n > 0 && n <= bodyLimit)) return undefined;
    if (auth && auth(h.authorization) !== 'ok') return undefined;
    return handle;
  };

  const serve = (req: IncomingMessage, res: ServerResponse, handle: JsonRoute): void => {
    const t0 = performance.now();
    const route = req.url!;
    const holder: ScopeHolder = { arbiterScope: null, arbiterBodyText: null, arbiterRawIds: null };
    metrics.httpInFlight++;
    res.once('close', () => {
      metrics.httpInFlight--;
      if (holder.arbiterScope && !res.writableFinished) holder.arbiterScope.cancel();
    });
    let answered = false; // one reply per request (a late error after the reply is ready sends nothing)
    const send = (status: number, body: string, headers?: Record<string, string>): void => {
      if (answered) return;
      answered = true;
      replies.push({ res, status, body, headers, route, t0 });
    };
    const fail = (e: unknown): void => {
      const r = errorReply(e instanceof Error ? e : new Error(String(e)), req.headers['content-type']);
      if (r.queueFull) metrics.rejection(route);
      if (!res.headersSent && !res.destroyed) send(r.status, JSON.stringify(r.body), r.headers);
    };
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      chunks.push(c);
      size += c.length;
    });
    req.on('error', (e: Error & { statusCode?: number }) => {
      // the body did not arrive whole (client gone): fastify answers these 400, so does the lane
      if (!(typeof e.statusCode === 'number' && e.statusCode >= 400)) e.statusCode = 400;
      fail(e);
    });
    req.on('end', () => {
      later(() => {
        if (answered || res.destroyed) return;
        let body: unknown;
        try {
          body = parse(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size), holder);
        } catch (e) {
          fail(e);
          return;
        }
        let out: string | Promise<string>;
        try {
          out = handle(body, NO_QUERY, holder);
        } catch (e) {
          fail(e);
          return;
        }
        if (typeof out === 'string') send(200, out);
        else out.then((text) => send(200, text), fail);
      });
    });
  };

  // The requests whose bodies arrived in one turn of the event loop are parsed and graded together
  // after its I/O (setImmediate), not each inside its socket's read: the route's code then runs
  // for one request after another with its caches warm, instead of between the HTTP parser's and
  // the kernel's. A flush of the replies is queued with them, after them: the replies of the
  // requests graded at once are written in the same turn.
  let work: (() => void)[] = [];
  const runWork = (): void => {
    const batch = work;
    work = [];
    for (const w of batch) w();
  };
  const later = (w: () => void): void => {
    work.push(w);
    if (work.length === 1) {
      setImmediate(runWork);
      replies.schedule();
    }
  };

  const replies = new ReplyBatch((r, now) => {
    if (r.res.destroyed) return; // the client went away while the reply waited
    // a flat [name, value, ...] list: node writes it without walking an object
    const out: string[] = ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(r.body))];
    if (r.headers) for (const k of Object.keys(r.headers)) out.push(k, r.headers[k]!);
    // while closing, end keep-alive connections after their response (as the app's onSend hook does)
    if (ctx.closing) out.push('connection', 'close');
    r.res.writeHead(r.status, out);
    r.res.end(r.body);
    metrics.request(r.route, 'POST', r.status, (now - r.t0) / 1000);
  });

  server.removeListener('request', fastify);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const handle = take(req);
    if (handle) serve(req, res, handle);
    else fastify(req, res);
  });
  return true;
}
