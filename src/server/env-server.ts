// `arbiter env serve`: the registered environments (every family of src/envs/) over HTTP in the OpenEnv shape rollout workers
// use. POST /reset starts an episode (a session) and answers its first observation; POST /step takes
// the agent's action and answers {observation, reward, done, info}; GET|POST /state and POST /close
// read and end a session; GET /tools gives the tools' JSON schemas and system prompt for the policy.
// Sessions are bounded in number (429 when full) and idle time (closed after it); one step at a time
// per session (409 while one runs). Bodies are size- and depth-limited; a token is required off
// loopback, as for the reward server.
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
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
  /** A session unused this long is closed (default 10 minutes). */
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

export function createEnvServer(o: EnvServerOptions): EnvServer {
  const maxSessions = o.maxSessions ?? 256;
  const idleMs = o.sessionIdleMs ?? 600_000;
  const now = o.now ?? Date.now;
  if (!Number.isInteger(maxSessions) || maxSessions < 1) throw new RangeError('maxSessions must be a positive integer');
  if (!(idleMs > 0)) throw new RangeError('sessionIdleMs must be positive');
  const sessions = new Map<string, Session>();
  const logger = o.logger === true ? { level: 'info' } : typeof o.logger === 'string' ? { level: o.logger } : false;
  const app = Fastify({ logger, bodyLimit: o.bodyLimit ?? 8 * 1024 * 1024, return503OnClosing: true, forceCloseConnections: 'idle' });
  installJsonBodyParser(app, o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH);
  if (o.token) installAuth(app, o.token);

  const sweep = (): number => {
    const t = now();
    let n = 0;
    for (const [id, s] of sessions) {
      if (!s.busy && t - s.lastUsed >= idleMs) {
        s.episode.close();
        sessions.delete(id);
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
    session_idle_ms: idleMs,
    envs: listEnvs().map((e) => e.name),
  });
  app.get('/health', health);
  app.get('/healthz', health);
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
    if (sessions.size >= maxSessions) {
      throw new HttpError(429, 'too_many_sessions', `${sessions.size} sessions are open (the limit is ${maxSessions}); close finished ones with POST /close`, {
        headers: { 'retry-after': '1' },
      });
    }
    const { env: _env, ...options } = body;
    let episode: Episode;
    try {
      episode = getEnv(name)!.create({ ...o.defaultOptions, ...o.envDefaults?.[name], ...options }, o.deps);
    } catch (e) {
      return envFailure(e);
    }
    const s: Session = { id: randomUUID(), env: name, episode, lastUsed: now(), busy: true };
    sessions.set(s.id, s); // counted while the first observation is produced
    try {
      const r = await episode.reset();
      return { session_id: s.id, observation: r.observation, reward: null, done: false, info: r.info };
    } catch (e) {
      sessions.delete(s.id);
      episode.close();
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
    s.episode.close();
    sessions.delete(s.id);
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
        for (const s of sessions.values()) s.episode.close();
        sessions.clear();
      })();
      return closed;
    },
  };
}
