// GET /healthz (liveness + what is loaded; 503 while shutting down) and GET /metrics (Prometheus text).
import type { FastifyInstance } from 'fastify';
import type { ServerContext, WireFormat } from '../context.js';

function registerHealth(app: FastifyInstance, ctx: ServerContext): void {
  const started = Date.now();
  app.get('/healthz', async (_request, reply) => {
    if (ctx.closing) reply.code(503);
    return {
      status: ctx.closing ? 'shutting_down' : 'ok',
      graders: ctx.graders.names(),
      default_grader: ctx.graders.defaultName,
      in_flight: ctx.admission.inFlight,
      queued: ctx.admission.queued,
      uptime_s: Math.round((Date.now() - started) / 1000),
      ...(ctx.executor?.health ? { executor: ctx.executor.health() } : {}),
    };
  });

  app.get('/metrics', async (_request, reply) => {
    reply.header('content-type', ctx.metrics.contentType);
    return ctx.metrics.text();
  });
}

export const format: WireFormat = {
  name: 'health',
  summary: 'liveness and Prometheus metrics',
  routes: [
    { method: 'GET', path: '/healthz' },
    { method: 'GET', path: '/metrics' },
  ],
  register: registerHealth,
};
