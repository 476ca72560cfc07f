// createServer: builds the fastify app over the core (named graders, queue, metrics, auth, limits)
// and returns a handle to listen on an address and to close gracefully. Used by `arbiter serve`
// and by library callers embedding the server.
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { Services } from '../core/services.js';
import { formatStartup, warmGrader, type StartupItem, type StartupReport } from '../core/startup.js';
import type { Grader } from '../core/grader.js';
import { Admission, type QueueFullError } from './admission.js';
import { bearerCheck, installAuth, isLoopback } from './auth.js';
import type { ServerContext } from './context.js';
import { installFastLane } from './fast-lane.js';
import { FORMATS } from './formats/index.js';
import { GraderSet } from './grader-set.js';
import { errorBody, errorReply, type HttpError } from './http-error.js';
import { installJsonBodyParser } from './json-body.js';
import { ServerMetrics } from './metrics.js';
import { resolveOptions, type ResolvedOptions, type ServerOptions } from './options.js';

export interface ListenOptions {
  host?: string;
  port?: number;
}

export interface ArbiterServer {
  readonly app: FastifyInstance;
  readonly options: ResolvedOptions;
  readonly graders: GraderSet;
  /**
   * Starts and warms what the served graders need (tokenizers, the worker threads of cpu_heavy
   * graders; core/startup.ts) and reports the time; once (listen calls it first), so no request
   * pays for start-up. Nothing to start when an executor grades elsewhere.
   */
  warm(): Promise<StartupReport>;
  /** Warms the graders (`warm`), then binds and starts serving; resolves to the base URL (e.g. http://127.0.0.1:8000). */
  listen(opts?: ListenOptions): Promise<string>;
  /**
   * Stops accepting connections, lets in-flight requests finish (each is bounded by the request
   * deadline), then closes the executor and the graders' services. Safe to call twice.
   */
  close(): Promise<void>;
}

function toMap(g: ServerOptions['graders']): Map<string, Grader> {
  return g instanceof Map ? new Map(g) : new Map(Object.entries(g));
}

/**
 * Registers every wire format on the list that these options serve; a format that registers a
 * route it does not declare, or declares one it does not register, is a bug caught here at start-up.
 */
function registerFormats(app: FastifyInstance, ctx: ServerContext): void {
  let registered: string[] = [];
  app.addHook('onRoute', (r) => {
    for (const m of Array.isArray(r.method) ? r.method : [r.method]) if (m !== 'HEAD') registered.push(`${m} ${r.url}`);
  });
  for (const f of FORMATS) {
    if (f.when && !f.when(ctx.opts)) continue;
    registered = [];
    f.register(app, ctx);
    const declared = f.routes.map((r) => `${r.method} ${r.path}`);
    const undeclared = registered.filter((r) => !declared.includes(r));
    const missing = declared.filter((r) => !registered.includes(r));
    if (undeclared.length || missing.length) {
      throw new Error(
        `wire format "${f.name}": ${undeclared.length ? `registers undeclared route(s) ${undeclared.join(', ')}` : ''}${undeclared.length && missing.length ? '; ' : ''}${missing.length ? `declares route(s) it does not register: ${missing.join(', ')}` : ''}`,
      );
    }
  }
}

export function createServer(options: ServerOptions): ArbiterServer {
  const graderMap = toMap(options.graders);
  const opts = resolveOptions(options, [...graderMap.keys()]);
  const ownServices = !options.services;
  const services = options.services ?? new Services();
  const admission = new Admission(opts.concurrency, opts.maxQueue);
  const metrics = new ServerMetrics(admission, opts.monitorWindow);
  const executor = options.executor?.({ graders: graderMap, services, deadlineMs: opts.deadlineMs, registry: metrics.registry, maxBatch: opts.maxBatch });
  const ctx: ServerContext = {
    graders: new GraderSet(graderMap, opts.defaultGrader),
    opts,
    metrics,
    admission,
    services,
    executor,
    closing: false,
    jsonRoutes: new Map(),
  };

  const logger = options.logger === true ? { level: 'info' } : typeof options.logger === 'string' ? { level: options.logger } : false;
  const app = Fastify({
    logger,
    bodyLimit: opts.bodyLimit,
    // Receiving a request is bounded (headers, then headers + body; 408 and close past either);
    // node checks these every connectionsCheckingInterval, so it is a fraction of the smaller one.
    // Grading time after the body is in is bounded by the deadline, not by these.
    http: {
      headersTimeout: opts.headersTimeoutMs,
      requestTimeout: opts.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.max(10, Math.floor(opts.headersTimeoutMs / 10))),
    },
    requestTimeout: opts.requestTimeoutMs,
    keepAliveTimeout: opts.keepAliveTimeoutMs,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
  });
  // Connections past the cap are closed by node as soon as they are accepted ('drop').
  app.server.maxConnections = opts.maxConnections;
  app.server.on('drop', () => metrics.connectionDropped());

  const parseJson = installJsonBodyParser(app, opts.maxJsonDepth);
  // every wire format takes JSON: a text/plain body is refused (415 naming the header) like any other
  // media type, not parsed into a string that a route would refuse as "not a JSON object"
  app.removeContentTypeParser('text/plain');
  app.decorateRequest('arbiterScope', null);
  app.addHook('onRequest', (request, reply, done) => {
    metrics.httpInFlight++;
    reply.raw.once('close', () => {
      metrics.httpInFlight--;
      if (request.arbiterScope && !reply.raw.writableFinished) request.arbiterScope.cancel();
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    metrics.request(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // While closing, end keep-alive connections after their response, so close() does not wait for
  // clients' idle timeouts once in-flight requests are done.
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (ctx.closing) reply.header('connection', 'close');
    done(null, payload);
  });
  if (opts.token) installAuth(app, opts.token);

  app.setErrorHandler((err: FastifyError | HttpError | QueueFullError | Error, request, reply) => {
    const r = errorReply(err, request.headers['content-type']);
    if (r.queueFull) metrics.rejection(request.routeOptions.url ?? 'unmatched');
    if (r.unexpected) request.log.error({ err }, 'unexpected error');
    if (r.headers) reply.headers(r.headers);
    return reply.code(r.status).send(r.body);
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });

  registerFormats(app, ctx);
  // the plain requests to postJson routes skip fastify (fast-lane.ts); with a request logger on,
  // every request goes through fastify so that each is logged
  if (!logger) installFastLane(app, ctx, { parse: parseJson, bodyLimit: opts.bodyLimit, auth: opts.token ? bearerCheck(opts.token) : undefined });

  let closed: Promise<void> | undefined;
  let warmed: Promise<StartupReport> | undefined;
  const warm = () =>
    (warmed ??= (async () => {
      const t0 = performance.now();
      const items: StartupItem[] = [];
      // requests grade under the deadline: cpu_heavy graders' worker threads are what starts
      if (!executor) for (const g of graderMap.values()) items.push(...(await warmGrader(g, services, { deadline: true })).items);
      const report = { ms: Math.round(performance.now() - t0), items };
      app.log.info({ startup_ms: report.ms, started: items }, formatStartup(report));
      return report;
    })());
  return {
    app,
    options: opts,
    graders: ctx.graders,
    warm,
    async listen(l: ListenOptions = {}) {
      const host = l.host ?? '127.0.0.1';
      if (!isLoopback(host) && !opts.token && !opts.insecure) {
        throw new Error(`refusing to serve on non-loopback address ${host} without a token: set a token (--token or ARBITER_TOKEN) or pass --insecure`);
      }
      await warm();
      await app.listen({ host, port: l.port ?? 8000 });
      const addr = app.server.address();
      if (addr && typeof addr === 'object') {
        const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
        return `http://${h}:${addr.port}`;
      }
      return `http://${host}:${l.port ?? 8000}`;
    },
    close() {
      closed ??= (async () => {
        ctx.closing = true;
        try {
          await app.close();
        } finally {
          await executor?.close();
          if (ownServices) await services.close();
        }
      })();
      return closed;
    },
  };
}
