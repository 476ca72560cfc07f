// Batch scoring: POST /v1/score {grader?, samples: [{id?, item, sample}]} -> {grader, results, summary}.
// Results come back in input order, one per sample, each the core's Result plus its id; a malformed
// sample gets an invalid `bad_input` result in its place. Each result carries the sample's `keep` fields
// after its id (default `uid`, `global_step`; the body's `keep` list changes them). Ids are echoed byte-exact: the raw text of
// each sample's `id` from the request body (so 1e999 or 12345678901234567891 come back as sent); a
// sample without an id gets its index. Scores are written as JSON floats.
import type { FastifyInstance } from 'fastify';
import type { Result } from '../../core/result.js';
import { bodyObject, checkBatch, openScope, postJson, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { idsArePlain, rawIdsOf, type BodyHolder } from '../json-body.js';
import { ResultCounts } from '../../io/summary.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../../core/json.js';
import { scoreJSON } from './float-json.js';
import { DEFAULT_KEEP, keepProblem, keptFields } from '../../io/score-stream.js';

/**
 * The raw id text for samples[i] when it reads back as the parsed id (duplicate keys cannot mislead
 * it); none when every id is written as its parsed value is (idsArePlain: then the parsed ids are echoed).
 */
function rawIdTexts(holder: BodyHolder, samples: unknown[]): (string | undefined)[] {
  const out: (string | undefined)[] = new Array(samples.length);
  if (idsArePlain(holder)) return out;
  for (const m of rawIdsOf(holder)) {
    if (m.path.length === 2 && m.path[0] === 'samples' && typeof m.path[1] === 'number' && m.path[1] < samples.length) out[m.path[1]] = m.raw;
  }
  for (let i = 0; i < out.length; i++) {
    const raw = out[i];
    if (raw === undefined) continue;
    const given = (samples[i] as { id?: unknown } | null)?.id;
    const id = typeof given === 'bigint' ? Number(given) : given; // an integer past 2^53: as JSON.parse reads it
    let same = false;
    try {
      same = (typeof id === 'string' || typeof id === 'number') && JSON.parse(raw) === id;
    } catch {
      same = false;
    }
    if (!same) out[i] = undefined;
  }
  return out;
}

function registerScore(app: FastifyInstance, ctx: ServerContext): void {
  postJson(app, ctx, '/v1/score', (rawBody, _query, request) => {
    const body = bodyObject(rawBody);
    const { name, grader } = ctx.graders.resolve(body.grader);
    const samples = body.samples;
    if (!Array.isArray(samples)) throw new HttpError(400, 'invalid_request', 'field "samples" is required: a list of {id?, item, sample} objects');
    const n = samples.length;
    checkBatch(ctx, 'samples', n);
    const keep = body.keep ?? DEFAULT_KEEP;
    if (keep !== DEFAULT_KEEP) {
      if (!Array.isArray(keep) || !keep.every((k) => typeof k === 'string'))
        throw new HttpError(400, 'invalid_request', 'field "keep" must be a list of field names, e.g. ["uid", "global_step"]');
      const bad = keepProblem(keep as string[]);
      if (bad) throw new HttpError(400, 'invalid_request', `field "keep": ${bad}`);
    }
    // samples[i] sits three levels into a body the parser bounded at maxJsonDepth: when that bound is
    // within normalizeRecord's own, its walk of each record could find nothing
    const depth = ctx.opts.maxJsonDepth - 2 <= DEFAULT_MAX_JSON_DEPTH ? Infinity : undefined;
    const scope = openScope(ctx, request);
    const pending: (Result | Promise<Result>)[] = new Array(n);
    const ids: (string | number | null)[] = new Array(n);
    let raws: (string | undefined)[];
    try {
      scope.admit(n);
      raws = rawIdTexts(request, samples);
      for (let i = 0; i < n; i++) {
        const input = scope.normalize(grader, samples[i], depth);
        const given = (samples[i] as { id?: unknown } | null)?.id;
        const rawId = typeof given === 'bigint' ? Number(given) : given;
        ids[i] = 'sample' in input ? (input.id ?? i) : typeof rawId === 'string' || typeof rawId === 'number' ? rawId : i;
        if (!('sample' in input)) input.error!.message = `samples[${i}]: ${input.error!.message}`;
        pending[i] = scope.gradeNow(grader, name, input);
      }
    } catch (e) {
      scope.end();
      throw e;
    }
    return scope.whenGraded(pending, (graded) => {
      const results = graded.map((r, i) => {
        const kept = keptFields(samples[i], keep as string[]);
        return kept ? ({ ...kept, ...r } as Result) : r;
      });
      const counts = new ResultCounts();
      for (const r of results) counts.add(r);
      return scoreJSON(name, results, ids, counts.counts(), raws);
    });
  });
}

export const format: WireFormat = {
  name: 'score',
  summary: "arbiter's batch scoring",
  routes: [{ method: 'POST', path: '/v1/score' }],
  register: registerScore,
};
