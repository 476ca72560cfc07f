// Redis connections for the queue: parsing `redis://[user:pass@]HOST:PORT[/DB]` (or `rediss://` for
// TLS) strictly, building ioredis clients that reconnect on their own with a short capped backoff,
// and a startup check that says plainly when Redis cannot be reached.
import { Redis, type RedisOptions } from 'ioredis';

export interface RedisTarget {
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
  tls: boolean;
  /** The URL without its password, for messages and metrics. */
  display: string;
}

/** Parses a queue URL; throws RangeError naming what is wrong. */
export function parseRedisUrl(url: string): RedisTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RangeError(`queue URL "${url}" is not a URL; expected redis://HOST:PORT[/DB]`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new RangeError(`queue URL "${redact(u)}" must start with redis:// (or rediss:// for TLS)`);
  if (!u.hostname) throw new RangeError(`queue URL "${redact(u)}" has no host; expected redis://HOST:PORT[/DB]`);
  if (u.search || u.hash) throw new RangeError(`queue URL "${redact(u)}" must not have a query or a fragment`);
  const port = u.port === '' ? 6379 : Number(u.port);
  const path = u.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d{1,5}$/.test(path))
    throw new RangeError(`queue URL "${redact(u)}": the path must be a database number (redis://HOST:PORT/DB), got "/${path}"`);
  const db = path === '' ? 0 : Number(path);
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const t: RedisTarget = { host, port, db, tls: u.protocol === 'rediss:', display: redact(u) };
  if (u.username) t.username = decodeURIComponent(u.username);
  if (u.password) t.password = decodeURIComponent(u.password);
  return t;
}

function redact(u: URL): string {
  const c = new URL(u.href);
  if (c.password) c.password = '***';
  return c.href.replace(/\/$/, '');
}

/**
 * ioredis options for a target. `blocking` connections (BullMQ workers, queue events) wait for
 * their commands across reconnects; the others fail fast while disconnected, so their callers
 * retry with their own deadline instead of hanging.
 */
export function redisOptions(t: RedisTarget, opts: { blocking: boolean; name?: string }): RedisOptions {
  return {
    host: t.host,
    port: t.port,
    db: t.db,
    ...(t.username ? { username: t.username } : {}),
    ...(t.password ? { password: t.password } : {}),
    ...(t.tls ? { tls: {} } : {}),
    ...(opts.name ? { connectionName: opts.name } : {}),
    // reconnect forever, quickly at first: 50 ms, 100 ms, ... at most 1 s apart
    retryStrategy: (times: number) => Math.min(50 * times, 1000),
    maxRetriesPerRequest: opts.blocking ? null : 1,
    enableOfflineQueue: opts.blocking,
    connectTimeout: 5000,
  };
}

/** A client that reports its errors to `onError` (ioredis would print them otherwise). */
export function redisClient(t: RedisTarget, opts: { blocking: boolean; name?: string; onError?: (e: Error) => void }): Redis {
  const r = new Redis(redisOptions(t, opts));
  r.on('error', (e: Error) => opts.onError?.(e));
  return r;
}

/**
 * Resolves when Redis answers PING within `timeoutMs` (a Redis still starting up gets that long);
 * rejects with a plain message naming the URL and the last connection error otherwise.
 */
export async function checkRedis(t: RedisTarget, timeoutMs = 5000): Promise<void> {
  let last: Error | undefined;
  const r = new Redis({ ...redisOptions(t, { blocking: true }), maxRetriesPerRequest: null, connectTimeout: Math.min(timeoutMs, 5000) });
  r.on('error', (e: Error) => (last = e));
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      r.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (e) {
    throw new Error(`cannot reach Redis at ${t.display}: ${(last ?? (e as Error)).message} (start redis-server, or check --queue)`);
  } finally {
    clearTimeout(timer);
    r.disconnect();
  }
}
