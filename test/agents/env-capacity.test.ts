// `arbiter env serve` capacity over real HTTP: sessions capped per client (its remote address; three
// loopback addresses stand for three clients) and in all, each 429 naming the cap it hit; a client
// that disappears without closing has its sessions reclaimed after the idle timeout (an injected
// clock, no sleeps), releasing its count; the caps and their state in /metrics, no label per client.
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvServer, type EnvServer } from '../../dist/server/index.js';
import { CLI } from '../helpers/cli.js';

const servers: EnvServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function serve(opts: Partial<Parameters<typeof createEnvServer>[0]> = {}): Promise<{ server: EnvServer; url: URL }> {
  const server = createEnvServer({ deps: {}, ...opts });
  servers.push(server);
  return { server, url: new URL(await server.listen({ port: 0 })) };
}

/** One request from local address `from` (a client of its own), on a connection closed after it. */
function call(url: URL, from: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: any; text: string }> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        localAddress: from,
        agent: false,
        headers: data === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const reset = (url: URL, from: string, seed = 0) => call(url, from, 'POST', '/reset', { env: 'frozenlake', seed });

function metric(text: string, line: string): number {
  const l = text.split('\n').find((x) => x.startsWith(line + ' '));
  if (l === undefined) throw new Error(`no metric line ${line}`);
  return Number(l.slice(line.length + 1));
}

describe('env serve capacity', () => {
  it('defaults: 64 sessions per client of 256, idle sessions closed after 3 minutes', async () => {
    const { url } = await serve();
    const h = await call(url, '127.0.0.1', 'GET', '/health');
    expect(h.json).toMatchObject({ max_sessions: 256, max_sessions_per_client: 64, session_idle_ms: 180_000 });
  });

  it('caps sessions per client and in all, each 429 naming its cap; /metrics shows the caps and their state', async () => {
    const { url } = await serve({ maxSessions: 5, maxSessionsPerClient: 2 });
    for (const seed of [0, 1]) expect((await reset(url, '127.0.0.1', seed)).status).toBe(200);
    const over = await reset(url, '127.0.0.1', 2);
    expect(over.status).toBe(429);
    expect(over.json.error).toMatchObject({ code: 'too_many_sessions', details: { cap: 'per_client', limit: 2, held: 2 } });
    expect(over.json.error.message).toMatch(/this client \(127\.0\.0\.1\) holds 2 open sessions, the per-client limit \(--max-sessions-per-client 2\)/);
    // other clients are not held up by the first one's sessions
    for (const seed of [0, 1]) expect((await reset(url, '127.0.0.2', seed)).status).toBe(200);
    expect((await reset(url, '127.0.0.3')).status).toBe(200);
    const full = await reset(url, '127.0.0.4');
    expect(full.status).toBe(429);
    expect(full.json.error).toMatchObject({ code: 'too_many_sessions', details: { cap: 'total', limit: 5, held: 0 } });
    expect(full.json.error.message).toMatch(/5 sessions are open, the server's limit \(--max-sessions 5\)/);
    const m = (await call(url, '127.0.0.1', 'GET', '/metrics')).text;
    expect(metric(m, 'arbiter_env_sessions{env="frozenlake"}')).toBe(5);
    expect(metric(m, 'arbiter_env_sessions{env="tau_bench"}')).toBe(0);
    expect(metric(m, 'arbiter_env_sessions_limit{cap="total"}')).toBe(5);
    expect(metric(m, 'arbiter_env_sessions_limit{cap="per_client"}')).toBe(2);
    expect(metric(m, 'arbiter_env_session_clients')).toBe(3);
    expect(metric(m, 'arbiter_env_session_clients_at_cap')).toBe(2);
    expect(metric(m, 'arbiter_env_sessions_top_client')).toBe(2);
    expect(metric(m, 'arbiter_env_sessions_refused_total{cap="per_client"}')).toBe(1);
    expect(metric(m, 'arbiter_env_sessions_refused_total{cap="total"}')).toBe(1);
    // no series carries a client's address
    expect(m).not.toMatch(/127\.0\.0\./);
  });

  it('a client that disappears without closing: its sessions are reclaimed at the idle timeout and its count released (injected clock)', async () => {
    let t = 5_000_000;
    const { url, server } = await serve({ maxSessions: 8, maxSessionsPerClient: 2, sessionIdleMs: 60_000, now: () => t });
    // the vanishing client takes its cap and is gone (its connections closed after each reply)
    const ids = [(await reset(url, '127.0.0.5', 0)).json.session_id, (await reset(url, '127.0.0.5', 1)).json.session_id];
    expect(ids.every((x) => typeof x === 'string')).toBe(true);
    // a live client keeps its session by using it
    const live = (await reset(url, '127.0.0.6')).json.session_id as string;
    t += 30_000;
    expect((await call(url, '127.0.0.6', 'POST', '/state', { session_id: live })).status).toBe(200);
    t += 29_999;
    expect((await reset(url, '127.0.0.5', 2)).status).toBe(429);
    t += 1;
    // the next reset sweeps: the vanished client's two sessions are closed, the live one stays
    const again = await reset(url, '127.0.0.5', 3);
    expect(again.status).toBe(200);
    expect([...server.sessions.values()].map((x) => x.id).sort()).toEqual([again.json.session_id, live].sort());
    for (const id of ids) expect((await call(url, '127.0.0.5', 'POST', '/state', { session_id: id })).status).toBe(404);
    const m = (await call(url, '127.0.0.1', 'GET', '/metrics')).text;
    expect(metric(m, 'arbiter_env_sessions_closed_total{how="idle"}')).toBe(2);
    expect(metric(m, 'arbiter_env_session_clients')).toBe(2);
    expect(metric(m, 'arbiter_env_sessions{env="frozenlake"}')).toBe(2);
    // closing releases the count as well: nothing is left behind
    for (const id of [again.json.session_id, live]) expect((await call(url, '127.0.0.1', 'POST', '/close', { session_id: id })).status).toBe(200);
    const after = (await call(url, '127.0.0.1', 'GET', '/metrics')).text;
    expect(metric(after, 'arbiter_env_session_clients')).toBe(0);
    expect(metric(after, 'arbiter_env_sessions_top_client')).toBe(0);
    expect(server.sessions.size).toBe(0);
  });

  it('a per-client cap above the total is refused (exit 2)', () => {
    expect(() => createEnvServer({ deps: {}, maxSessions: 4, maxSessionsPerClient: 8 })).toThrow(
      /maxSessionsPerClient \(8\) must not exceed maxSessions \(4\)/,
    );
    const r = spawnSync(process.execPath, [CLI, 'env', 'serve', '--port', '0', '--max-sessions', '4', '--max-sessions-per-client', '8'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/must not exceed maxSessions/);
  });
});
