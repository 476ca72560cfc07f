// What every route module receives: the grader set, resolved options, metrics, and a way to open a
// per-request grading scope (cancelled by the app when the client disconnects); the one way to
// register a JSON POST route (fastify and the fast lane); and what a wire format declares about
// itself (./formats/index.ts lists them).
import type { FastifyInstance } from 'fastify';
import type { Services } from '../core/services.js';
import type { Admission } from './admission.js';
import { RequestScope, type Executor } from './grade-runner.js';
import type { GraderSet } from './grader-set.js';
import type { BodyHolder } from './json-body.js';
import { HttpError } from './http-error.js';
import type { ServerMetrics } from './metrics.js';
import type { ResolvedOptions } from './options.js';
import { sendJSON } from './formats/float-json.js';

export interface ServerContext {
  graders: GraderSet;
  opts: ResolvedOptions;
  metrics: ServerMetrics;
  admission: Admission;
  services: Services;
  /** Grades served graders' samples elsewhere (the Redis queue); absent = in this process. */
  executor?: Executor;
  /** True once shutdown began (healthz reports it). */
  closing: boolean;
  /** The JSON routes registered with `postJson`, by path: what the fast lane may answer itself. */
  jsonRoutes: Map<string, JsonRoute>;
}

/**
 * Where a request's grading scope is kept (the fastify request, or the fast lane's own record), so a
 * disconnect can cancel it; its body's text is kept there too.
 */
export interface ScopeHolder extends BodyHolder {
  arbiterScope: RequestScope | null;
}

/**
 * A POST route that takes a parsed JSON body (and the query) and gives its 200 reply, already
 * serialised: the text itself when it is ready at once (every grade finished in the call), else a
 * promise of it; it throws (or rejects with) HttpError or QueueFullError for the error replies.
 */
export type JsonRoute = (body: unknown, query: Readonly<Record<string, unknown>>, holder: ScopeHolder) => string | Promise<string>;

/**
 * Registers a JSON POST route with fastify and with the fast lane (fast-lane.ts), which answers the
 * plain requests to it without fastify's per-request work; both run `handle`, so they answer alike.
 */
export function postJson(app: FastifyInstance, ctx: ServerContext, path: string, handle: JsonRoute): void {
  app.post(path, async (request, reply) => sendJSON(reply, await handle(request.body, request.query as Record<string, unknown>, request)));
  ctx.jsonRoutes.set(path, handle);
}

/** One route a wire format serves. */
export interface FormatRoute {
  method: 'GET' | 'POST';
  /** The path in fastify's syntax (`/ng-rollout/:rolloutId/verify`). */
  path: string;
}

/**
 * A wire format (a trainer's or tool's protocol) as it declares itself: `arbiter serve --help` lists
 * its routes, the server checks at start-up that it registers exactly these, and
 * test/server/formats.contract.test.ts runs the format contract over every route.
 */
export interface WireFormat {
  /** Short name, e.g. `openrlhf`. */
  name: string;
  /** Who speaks it, in a few words (`OpenRLHF --reward.remote_url`). */
  summary: string;
  routes: readonly FormatRoute[];
  /** Served only when this holds for the server's options (default: always). */
  when?: (opts: ResolvedOptions) => boolean;
  register(app: FastifyInstance, ctx: ServerContext): void;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The grading scope of this request, cancelled if the client disconnects. */
    arbiterScope: RequestScope | null;
  }
}

/** Opens the request's grading scope; the app's (or the fast lane's) close listener cancels it on disconnect. */
export function openScope(ctx: ServerContext, request: ScopeHolder): RequestScope {
  const scope = new RequestScope({
    admission: ctx.admission,
    services: ctx.services,
    metrics: ctx.metrics,
    deadlineMs: ctx.opts.deadlineMs,
    executor: ctx.executor,
  });
  request.arbiterScope = scope;
  return scope;
}

/** The request body as a plain object, or a 400 naming what was sent instead. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpError(
      400,
      'invalid_request',
      `the request body must be a JSON object, got ${body === null ? 'null' : Array.isArray(body) ? 'an array' : typeof body}`,
    );
  }
  return body as Record<string, unknown>;
}

/** Checks a batch's size against maxBatch. */
export function checkBatch(ctx: ServerContext, field: string, n: number): void {
  if (n > ctx.opts.maxBatch)
    throw new HttpError(413, 'batch_too_large', `field "${field}" has ${n} entries; this server accepts at most ${ctx.opts.maxBatch} per request`);
}
