// Bearer-token authentication (constant-time comparison) and the loopback-only binding rule.
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { HttpError } from './http-error.js';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Requires `Authorization: Bearer <token>` on every path except /healthz. */
export function installAuth(app: FastifyInstance, token: string): void {
  const want = digest(token);
  app.addHook('onRequest', async (request) => {
    const url = request.url;
    if (url === '/healthz' || url.startsWith('/healthz?')) return;
    const h = request.headers.authorization;
    const m = typeof h === 'string' ? /^Bearer\s+(.+)$/i.exec(h.trim()) : null;
    if (!m || !timingSafeEqual(digest(m[1]!), want)) {
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
