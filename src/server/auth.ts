// Bearer-token authentication (constant-time comparison) and the loopback-only binding rule.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-error.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** A check of an Authorization header against the token: 'ok', 'missing' (no bearer token) or 'invalid'. */
export type BearerCheck = (header: string | undefined) => 'ok' | 'missing' | 'invalid';

/** The check for `token` (constant-time); the auth hook and the fast lane both use it. */
export function bearerCheck(token: string): BearerCheck {
  const want = digest(token);
  return (h) => {
    const m = typeof h === 'string' ? /^Bearer\s+(.+)$/i.exec(h.trim()) : null;
    if (!m) return 'missing';
    return timingSafeEqual(digest(m[1]!), want) ? 'ok' : 'invalid';
  };
}

/** Requires `Authorization: Bearer <token>` on every path except /healthz. */
export function installAuth(app: FastifyInstance, token: string): void {
  const check = bearerCheck(token);
  app.addHook('onRequest', async (request) => {
    const url = request.url;
    if (url === '/healthz' || url.startsWith('/healthz?')) return;
    const got = check(request.headers.authorization);
    if (got !== 'ok') {
      const m = got === 'invalid';
      throw new HttpError(401, 'unauthorized', m ? 'invalid bearer token' : 'missing "Authorization: Bearer <token>" header', {
        headers: { 'www-authenticate': 'Bearer realm="arbiter"' },
      });
    }
  });
}

/** True for addresses only this machine can reach: 127.0.0.0/8, ::1, localhost. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.');
  return false;
}
