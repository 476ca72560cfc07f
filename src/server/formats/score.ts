// Batch scoring: POST /v1/score {grader?, samples: [{id?, item, sample}]} -> {grader, results, summary}.
// Results come back in input order, one per sample, each the core's Result plus its id; a malformed
// sample gets an invalid `bad_input` result in its place.
import type { FastifyInstance } from 'fastify';
import type { Result } from '../../core/result.js';
import { bodyObject, checkBatch, openScope, type ServerContext } from '../context.js';
import { HttpError } from '../http-error.js';

export function registerScore(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/score', async (request) => {
    const body = bodyObject(request.body);
    const { name, grader } = ctx.graders.resolve(body.grader);
    const samples = body.samples;
    if (!Array.isArray(samples)) throw new HttpError(400, 'invalid_request', 'field "samples" is required: a list of {id?, item, sample} objects');
    const n = samples.length;
    checkBatch(ctx, 'samples', n);
    const scope = openScope(ctx, request);
    try {
      scope.admit(n);
      const pending: Promise<Result>[] = new Array(n);
      const ids: (string | number | null)[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const input = scope.normalize(grader, samples[i]);
        const rawId = (samples[i] as { id?: unknown } | null)?.id;
        ids[i] = 'sample' in input ? (input.id ?? i) : typeof rawId === 'string' || typeof rawId === 'number' ? rawId : i;
        if (!('sample' in input)) input.error!.message = `samples[${i}]: ${input.error!.message}`;
        pending[i] = scope.grade(grader, name, input);
      }
      const results = await Promise.all(pending);
      let valid = 0;
      let sum = 0;
      const error_kinds: Record<string, number> = {};
      const out = new Array<Record<string, unknown>>(n);
      for (let i = 0; i < n; i++) {
        const r = results[i]!;
        if (r.valid && r.score !== null) {
          valid++;
          sum += r.score;
        } else {
          const k = r.error?.kind ?? 'internal_error';
          error_kinds[k] = (error_kinds[k] ?? 0) + 1;
        }
        out[i] = { id: ids[i], ...r };
      }
      return {
        grader: name,
        results: out,
        summary: { count: n, valid, invalid: n - valid, mean_score: valid ? sum / valid : null, error_kinds },
      };
    } finally {
      scope.end();
    }
  });
}
