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

  // The requests whose bodies arrived in one turn of the event loop are parsed and graded together
  // after its I/O (setImmediate), not each inside its socket's read: the route's code then runs
  // for one request after another with its caches warm, instead of between the HTTP parser's and
  // the kernel's. A flush of the replies is queued with them, after them: the replies of the
  // requests graded at once are written in the same turn.
  let work: LaneRequest[] = [];
  const runWork = (): void => {
    const batch = work;
    work = [];
    for (const w of batch) w.run();
  };
  const lane: Lane = {
    metrics,
    parse,
    reply: (r) => replies.push(r),
    later: (w) => {
      work.push(w);
      if (work.length === 1) {
        setImmediate(runWork);
        replies.schedule();
      }
    },
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
    if (handle) serveInLane(lane, req, res, handle);
    else fastify(req, res);
  });
  return true;
}

/** What the requests in the lane share: the metrics, the body parser, the reply batch, the work queue. */
interface Lane {
  metrics: ServerContext['metrics'];
  parse: JsonBodyParser;
  reply(r: PendingReply): void;
  later(w: LaneRequest): void;
}

/** Where a request in the lane keeps its LaneRequest (the shared listeners below find it there). */
const LANE: unique symbol = Symbol('arbiter.lane');
type Tagged = { [LANE]?: LaneRequest };

/**
 * One request in the lane: its body as it arrives, its grading scope, its one reply. One object per
 * request, read by listeners shared by every request, where closures would be eight allocations.
 */
class LaneRequest implements ScopeHolder {
  arbiterScope: ScopeHolder['arbiterScope'] = null;
  arbiterBodyText: string | null = null;
  arbiterRawIds: ScopeHolder['arbiterRawIds'] = null;
  chunks: Buffer[] = [];
  size = 0;
  /** One reply per request (a late error after the reply is ready sends nothing). */
  answered = false;

  constructor(
    readonly lane: Lane,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly handle: JsonRoute,
    readonly route: string,
    readonly t0: number,
  ) {}

  send(status: number, body: string, headers?: Record<string, string>): void {
    if (this.answered) return;
    this.answered = true;
    this.lane.reply({ res: this.res, status, body, headers, route: this.route, t0: this.t0 });
  }

  fail(e: unknown): void {
    const r = errorReply(e instanceof Error ? e : new Error(String(e)), this.req.headers['content-type']);
    if (r.queueFull) this.lane.metrics.rejection(this.route);
    if (!this.res.headersSent && !this.res.destroyed) this.send(r.status, JSON.stringify(r.body), r.headers);
  }

  /** Parses the body and runs the route (from the lane's work queue). */
  run(): void {
    if (this.answered || this.res.destroyed) return;
    let body: unknown;
    let out: string | Promise<string>;
    try {
      body = this.lane.parse(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size), this);
      out = this.handle(body, NO_QUERY, this);
    } catch (e) {
      this.fail(e);
      return;
    }
    if (typeof out === 'string') this.send(200, out);
    else
      out.then(
        (text) => this.send(200, text),
        (e: unknown) => this.fail(e),
      );
  }
}

function onData(this: IncomingMessage & Tagged, c: Buffer): void {
  const lr = this[LANE]!;
  lr.chunks.push(c);
  lr.size += c.length;
}

function onError(this: IncomingMessage & Tagged, e: Error & { statusCode?: number }): void {
  // the body did not arrive whole (client gone): fastify answers these 400, so does the lane
  if (!(typeof e.statusCode === 'number' && e.statusCode >= 400)) e.statusCode = 400;
  this[LANE]!.fail(e);
}

function onEnd(this: IncomingMessage & Tagged): void {
  const lr = this[LANE]!;
  lr.lane.later(lr);
}

function onClose(this: ServerResponse & Tagged): void {
  const lr = this[LANE]!;
  lr.lane.metrics.httpInFlight--;
  if (lr.arbiterScope && !this.writableFinished) lr.arbiterScope.cancel();
}

/** Takes a request the lane answers: counts it in flight, reads its body, queues its work. */
function serveInLane(lane: Lane, req: IncomingMessage & Tagged, res: ServerResponse & Tagged, handle: JsonRoute): void {
  const lr = new LaneRequest(lane, req, res, handle, req.url!, performance.now());
  req[LANE] = lr;
  res[LANE] = lr;
  lane.metrics.httpInFlight++;
  res.on('close', onClose);
  req.on('data', onData);
  req.on('error', onError);
  req.on('end', onEnd);
}
