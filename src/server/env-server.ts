// `arbiter env serve`: the registered environments (every family of src/envs/) over HTTP in the OpenEnv shape rollout workers
// use. POST /reset starts an episode (a session) and answers its first observation; POST /step takes
// the agent's action and answers {observation, reward, done, info}; GET|POST /state and POST /close
// read and end a session; GET /tools gives the tools' JSON schemas and system prompt for the policy.
// Sessions are bounded in number, in all and per client (its remote address; 429 naming the cap
// hit), and in idle time (closed after it); one step at a time per session (409 while one runs).
// GET /metrics shows the caps and their state without a label per client. Bodies are size- and
// depth-limited; a token is required off loopback, as for the reward server.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import { Counter, Gauge, Registry } from 'prom-client';
import { DEFAULT_MAX_JSON_DEPTH } from '../core/json.js';
import { ModelError } from '../models/errors.js';
import { installAuth, isLoopback } from './auth.js';
import { errorBody, HttpError } from './http-error.js';
import { installJsonBodyParser } from './json-body.js';
import { EnvDataError, EnvOptionError, getEnv, listEnvs, type EnvDeps, type Episode } from '../agents/env.js';
// registers every environment family (src/envs/families.ts)
import { DEFAULT_ENV } from '../envs/index.js';

export interface EnvServerOptions {
  deps: EnvDeps;
  /** Open sessions at most (default 256); a reset past it is 429. */
  maxSessions?: number;
  /** Open sessions of one client (remote address) at most (default 64, a quarter of 256); a reset past it is 429. */
  maxSessionsPerClient?: number;
  /**
   * A session unused this long is closed (default 3 minutes: above the 2-minute deadlines of a
   * policy turn and of a user-model request, so a live rollout between steps keeps its session).
   */
  sessionIdleMs?: number;
  /** Environment used when a request names none (default: tau_bench). */
  defaultEnv?: string;
  /** Options every reset gets unless it sets them. */
  defaultOptions?: Record<string, unknown>;
  /** Options the resets of one environment get unless they set them, by environment (e.g. tau_bench: {max_steps}). */
  envDefaults?: Record<string, Record<string, unknown>>;
  token?: string;
  insecure?: boolean;
  bodyLimit?: number;
  maxJsonDepth?: number;
  /** Clock for idle accounting (tests inject one). */
  now?: () => number;
  logger?: boolean | string;
}

interface Session {
  id: string;
  env: string;
  /** The client holding it (its remote address). */
  client: string;
  episode: Episode;
  lastUsed: number;
  busy: boolean;
}

export interface EnvServer {
  readonly app: FastifyInstance;
  listen(opts?: { host?: string; port?: number }): Promise<string>;
  /** Closes sessions idle past the limit now (also done on every reset and on a timer). */
  sweep(): number;
  readonly sessions: ReadonlyMap<string, Session>;
  close(): Promise<void>;
}

const SESSION_RE = /^[0-9a-f-]{36}$/;

const DEFAULT_MAX_SESSIONS = 256;
const DEFAULT_MAX_SESSIONS_PER_CLIENT = 64;
const DEFAULT_SESSION_IDLE_MS = 180_000;

export function createEnvServer(o: EnvServerOptions): EnvServer {
  const maxSessions = o.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const perClientCap = o.maxSessionsPerClient ?? Math.min(DEFAULT_MAX_SESSIONS_PER_CLIENT, maxSessions);
  const idleMs = o.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS;
  const now = o.now ?? Date.now;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError('maxSessions must be a positive integer');
  if (!Number.isInteger(perClientCap) || perClientCap < 1) throw new RangeError('maxSessionsPerClient must be a positive integer');
  if (perClientCap > maxSessions)
    throw new RangeError(`maxSessionsPerClient (${perClientCap}) must not exceed maxSessions (${maxSessions}): the per-client cap would never apply`);
  if (!(idleMs > 0)) throw new RangeError('sessionIdleMs must be positive');
  const sessions = new Map<string, Session>();
  /** Open sessions per client; a client with none has no entry (so the map is bounded by the sessions). */
  const perClient = new Map<string, number>();
  const registry = new Registry();
  const refused = new Counter({
    name: 'arbiter_env_sessions_refused_total',
    help: 'resets answered 429, by the cap hit (total: --max-sessions, per_client: --max-sessions-per-client)',
    labelNames: ['cap'],
    registers: [registry],
  });
  const closedBy = new Counter({
    name: 'arbiter_env_sessions_closed_total',
    help: 'sessions ended, by how (closed: POST /close, idle: reclaimed after --session-idle-ms, failed: the reset failed, shutdown)',
    labelNames: ['how'],
    registers: [registry],
  });
  new Gauge({
    name: 'arbiter_env_sessions',
    help: 'open sessions by environment',
    labelNames: ['env'],
    registers: [registry],
    collect() {
      this.reset();
      for (const e of listEnvs()) this.labels(e.name).set(0);
      for (const x of sessions.values()) this.labels(x.env).inc();
    },
  });
  new Gauge({
    name: 'arbiter_env_sessions_limit',
    help: 'session caps: total (--max-sessions) and per_client (--max-sessions-per-client)',
    labelNames: ['cap'],
    registers: [registry],
    collect() {
      this.labels('total').set(maxSessions);
      this.labels('per_client').set(perClientCap);
    },
  });
  new Gauge({
    name: 'arbiter_env_session_idle_timeout_seconds',
    help: 'a session unused this long is closed (--session-idle-ms)',
    registers: [registry],
    collect() {
      this.set(idleMs / 1000);
    },
  });
  new Gauge({
    name: 'arbiter_env_session_clients',
    help: 'clients (remote addresses) holding at least one session',
    registers: [registry],
    collect() {
      this.set(perClient.size);
    },
  });
  new Gauge({
    name: 'arbiter_env_session_clients_at_cap',
    help: 'clients holding --max-sessions-per-client sessions (their next reset is 429)',
    registers: [registry],
    collect() {
      let n = 0;
      for (const c of perClient.values()) if (c >= perClientCap) n++;
      this.set(n);
    },
  });
  new Gauge({
    name: 'arbiter_env_sessions_top_client',
    help: 'sessions held by the client holding the most',
    registers: [registry],
    collect() {
      let m = 0;
      for (const c of perClient.values()) if (c > m) m = c;
      this.set(m);
    },
  });
  /** Ends a session and releases its client's count. */
  const drop = (x: Session, how: 'closed' | 'idle' | 'failed' | 'shutdown') => {
    if (!sessions.delete(x.id)) return;
    x.episode.close();
    const c = (perClient.get(x.client) ?? 1) - 1;
    if (c > 0) perClient.set(x.client, c);
    else perClient.delete(x.client);
    closedBy.labels(how).inc();
  };
  const logger = o.logger === true ? { level: 'info' } : typeof o.logger === 'string' ? { level: o.logger } : false;
  const app = Fastify({ logger, bodyLimit: o.bodyLimit ?? 8 * 1024 * 1024, return503OnClosing: true, forceCloseConnections: 'idle' });
  installJsonBodyParser(app, o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
  if (o.token) installAuth(app, o.token);

  const sweep = (): number => {
    const t = now();
    let n = 0;
    for (const s of [...sessions.values()]) {
      if (!s.busy && t - s.lastUsed >= idleMs) {
        drop(s, 'idle');
        n++;
      }
    }
    return n;
  };
  const timer = setInterval(sweep, Math.max(1000, Math.min(60_000, Math.floor(idleMs / 4))));
  timer.unref();

  const sessionOf = (body: unknown, query: unknown): Session => {
    const id = (body as { session_id?: unknown } | undefined)?.session_id ?? (query as { session_id?: unknown } | undefined)?.session_id;
    if (typeof id !== 'string' || !SESSION_RE.test(id)) throw new HttpError(400, 'invalid_request', 'session_id (from /reset) is required');
    const s = sessions.get(id);
    if (!s) throw new HttpError(404, 'unknown_session', `no open session ${id} (closed, idle for more than ${idleMs} ms, or never opened)`);
    return s;
  };

  const envFailure = (e: unknown): never => {
    if (e instanceof EnvOptionError) throw new HttpError(400, 'invalid_request', e.message);
    if (e instanceof ModelError) throw new HttpError(502, 'user_simulator_error', `the user simulator failed: ${e.message}`);
    if ((e as Error)?.name === 'UserSimulatorError') throw new HttpError(502, 'user_simulator_error', (e as Error).message);
    if (e instanceof EnvDataError || (e as Error)?.name === 'TauDataError') throw new HttpError(500, 'environment_error', (e as Error).message);
    throw e;
  };

  app.setErrorHandler((err: FastifyError | HttpError | Error, request, reply) => {
    if (err instanceof HttpError) {
      if (err.headers) reply.headers(err.headers);
      return reply.code(err.status).send(errorBody(err.code, err.message, err.details));
    }
    const status = (err as FastifyError).statusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = status === 413 ? 'body_too_large' : /JSON/.test((err as FastifyError).code ?? '') ? 'malformed_json' : 'invalid_request';
      return reply.code(status).send(errorBody(code, err.message));
    }
    request.log.error({ err }, 'unexpected error');
    return reply.code(500).send(errorBody('internal_error', `internal error: ${err.message}`));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0]}`));
  });

  const health = async () => ({
    status: 'ok',
    sessions: sessions.size,
    max_sessions: maxSessions,
    max_sessions_per_client: perClientCap,
    session_idle_ms: idleMs,
    envs: listEnvs().map((e) => e.name),
  });
  app.get('/health', health);
  app.get('/healthz', health);
  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  app.get('/envs', async () => ({ envs: Object.fromEntries(listEnvs().map((e) => [e.name, e.describe()])) }));

  const envName = (x: unknown): string => {
    const name = typeof x === 'string' ? x : (o.defaultEnv ?? DEFAULT_ENV);
    if (!name)
      throw new HttpError(
        400,
        'invalid_request',
        `"env" is required (one of ${listEnvs()
          .map((e) => e.name)
          .join(', ')})`,
      );
    if (!getEnv(name))
      throw new HttpError(
        404,
        'unknown_env',
        `unknown environment "${name}" (known: ${listEnvs()
          .map((e) => e.name)
          .join(', ')})`,
      );
    return name;
  };

  app.get('/tools', async (request) => {
    const q = request.query as Record<string, unknown>;
    const family = getEnv(envName(q.env))!;
    try {
      return family.tools(q);
    } catch (e) {
      return envFailure(e);
    }
  });

  app.post('/reset', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (typeof body !== 'object' || Array.isArray(body)) throw new HttpError(400, 'invalid_request', 'the body must be a JSON object of environment options');
    const name = envName(body.env);
    sweep();
    const client = request.ip;
    const held = perClient.get(client) ?? 0;
    if (sessions.size >= maxSessions) {
      refused.labels('total').inc();
      throw new HttpError(
        429,
        'too_many_sessions',
        `${sessions.size} sessions are open, the server's limit (--max-sessions ${maxSessions}); close finished ones with POST /close (unused ones are closed after ${idleMs} ms)`,
        { headers: { 'retry-after': '1' }, details: { cap: 'total', limit: maxSessions, held } },
      );
    }
    if (held >= perClientCap) {
      refused.labels('per_client').inc();
      throw new HttpError(
        429,
        'too_many_sessions',
        `this client (${client}) holds ${held} open sessions, the per-client limit (--max-sessions-per-client ${perClientCap}); close finished ones with POST /close (unused ones are closed after ${idleMs} ms)`,
        { headers: { 'retry-after': '1' }, details: { cap: 'per_client', limit: perClientCap, held } },
      );
    }
    const { env: _env, ...options } = body;
    let episode: Episode;
    try {
      episode = getEnv(name)!.create({ ...o.defaultOptions, ...o.envDefaults?.[name], ...options }, o.deps);
    } catch (e) {
      return envFailure(e);
    }
    const s: Session = { id: randomUUID(), env: name, client, episode, lastUsed: now(), busy: true };
    sessions.set(s.id, s); // counted while the first observation is produced
    perClient.set(client, held + 1);
    try {
      const r = await episode.reset();
      return { session_id: s.id, observation: r.observation, reward: null, done: false, info: r.info };
    } catch (e) {
      drop(s, 'failed');
      return envFailure(e);
    } finally {
      s.busy = false;
      s.lastUsed = now();
    }
  });

  app.post('/step', async (request) => {
    const body = request.body as Record<string, unknown> | undefined;
    const s = sessionOf(body, undefined);
    if (body?.action === undefined)
      throw new HttpError(400, 'invalid_request', '"action" is required: an assistant message {content, tool_calls} or {name, arguments}');
    if (s.busy) throw new HttpError(409, 'session_busy', 'a step of this session is still running');
    if (s.episode.state().done) throw new HttpError(409, 'episode_done', 'the episode is done; read it with /state, end it with /close');
    s.busy = true;
    try {
      return await s.episode.step(body.action);
    } catch (e) {
      return envFailure(e);
    } finally {
      s.busy = false;
      s.lastUsed = now();
    }
  });

  const state = async (request: { body?: unknown; query?: unknown }) => {
    const s = sessionOf(request.body, request.query);
    s.lastUsed = now();
    return { session_id: s.id, ...s.episode.state() };
  };
  app.get('/state', state);
  app.post('/state', state);

  app.post('/close', async (request) => {
    const s = sessionOf(request.body, undefined);
    if (s.busy) throw new HttpError(409, 'session_busy', 'a step of this session is still running');
    const st = s.episode.state();
    drop(s, 'closed');
    return { session_id: s.id, closed: true, ...st };
  });

  let closed: Promise<void> | undefined;
  return {
    app,
    sessions,
    sweep,
    async listen(l = {}) {
      const host = l.host ?? '127.0.0.1';
      if (!isLoopback(host) && !o.token && !o.insecure) {
        throw new Error(`refusing to serve on non-loopback address ${host} without a token: set a token (--token or ARBITER_TOKEN) or pass --insecure`);
      }
      await app.listen({ host, port: l.port ?? 8100 });
      const addr = app.server.address();
      if (addr && typeof addr === 'object') return `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      return `http://${host}:${l.port ?? 8100}`;
    },
    close() {
      closed ??= (async () => {
        clearInterval(timer);
        await app.close();
        for (const s of [...sessions.values()]) drop(s, 'shutdown');
      })();
      return closed;
    },
  };
}
