// OpenRLHF's remote reward API: POST /get_reward {query, prompts, labels, metas?} ->
// {rewards, scores, extra_logs}. Responses are recovered from the queries (prompt prefix and
// EOS tokens removed), labels become `item.label`; invalid grades get the fallback reward and are
// counted per sample in `extra_logs.arbiter_invalid` (OpenRLHF logs the mean of each extra_logs list).
// Every number in the reply is a JSON float (`1.0`): OpenRLHF builds its reward tensors from them.
import type { FastifyInstance } from 'fastify';
import type { Result } from '../../core/result.js';
import { bodyObject, checkBatch, openScope, postJson, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { getRewardJSON } from './float-json.js';
import { extractResponse } from './response-text.js';
import { invalidResult } from '../../core/result.js';

function stringList(body: Record<string, unknown>, field: string, required: boolean): string[] | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required) throw new HttpError(400, 'invalid_request', `field "${field}" is required (a list of strings)`);
    return undefined;
  }
  if (!Array.isArray(v)) throw new HttpError(400, 'invalid_request', `field "${field}" must be a list, got ${typeof v}`);
  return v as string[];
}

/** Flattens component scores into `extra_logs` keys (`acc`, `acc/sub`), fallback for invalid ones. */
function addComponents(logs: Map<string, number[]>, prefix: string, r: Result, i: number, n: number, fallback: number): void {
  if (!r.components) return;
  for (const [k, c] of Object.entries(r.components)) {
    const key = prefix ? `${prefix}/${k}` : k;
    let list = logs.get(key);
    if (!list) logs.set(key, (list = new Array<number>(n).fill(fallback)));
    list[i] = c.valid && c.score !== null ? c.score : fallback;
    addComponents(logs, key, c, i, n, fallback);
  }
}

function registerOpenRLHF(app: FastifyInstance, ctx: ServerContext): void {
  postJson(app, ctx, '/get_reward', (rawBody, q, request) => {
    const body = bodyObject(rawBody);
    const { name, grader } = ctx.graders.resolve(body.grader ?? q.grader);
    const queries = stringList(body, 'query', true)!;
    const prompts = stringList(body, 'prompts', false);
    const labels = body.labels === undefined || body.labels === null ? undefined : body.labels;
    const metas = body.metas;
    const n = queries.length;
    checkBatch(ctx, 'query', n);
    if (prompts && prompts.length !== n) throw new HttpError(400, 'invalid_request', `"prompts" has ${prompts.length} entries but "query" has ${n}`);
    if (labels !== undefined && (!Array.isArray(labels) || labels.length !== n)) {
      throw new HttpError(400, 'invalid_request', `"labels" must be a list with one entry per query (${n})`);
    }
    if (metas !== undefined && metas !== null && (!Array.isArray(metas) || metas.length !== n)) {
      throw new HttpError(400, 'invalid_request', `"metas" must be a list with one entry per query (${n})`);
    }

    const scope = openScope(ctx, request);
    const pending: (Result | Promise<Result>)[] = new Array(n);
    try {
      scope.admit(n);
      for (let i = 0; i < n; i++) {
        const query = queries[i];
        const prompt = prompts?.[i];
        if (typeof query !== 'string' || (prompt !== undefined && prompt !== null && typeof prompt !== 'string')) {
          const what = typeof query !== 'string' ? `query[${i}]` : `prompts[${i}]`;
          pending[i] = scope.gradeNow(grader, name, invalidResult('bad_input', `${what} must be a string`, { grader: grader.name, type: grader.type }));
          continue;
        }
        const ex = extractResponse(query, prompt ?? undefined, ctx.opts.eosTokens);
        if (!ex.ok) {
          pending[i] = scope.gradeNow(grader, name, invalidResult('bad_input', `sample ${i}: ${ex.message}`, { grader: grader.name, type: grader.type }));
          continue;
        }
        const item: Record<string, unknown> = {};
        if (labels !== undefined) item.label = (labels as unknown[])[i];
        if (prompt !== undefined && prompt !== null) item.prompt = prompt;
        const meta = Array.isArray(metas) ? metas[i] : undefined;
        if (meta !== undefined && meta !== null) item.meta = meta;
        pending[i] = scope.gradeNow(grader, name, { id: i, item, sample: { output_text: ex.text } });
      }
    } catch (e) {
      scope.end();
      throw e;
    }
    return scope.whenGraded(pending, (results) => {
      const fallback = ctx.opts.fallbackReward;
      const rewards = new Array<number>(n);
      const invalid = new Array<number>(n);
      const logs = new Map<string, number[]>();
      for (let i = 0; i < n; i++) {
        const r = results[i]!;
        const ok = r.valid && r.score !== null;
        rewards[i] = ok ? r.score! : fallback;
        invalid[i] = ok ? 0 : 1;
        addComponents(logs, '', r, i, n, fallback);
      }
      return getRewardJSON(rewards, invalid, logs);
    });
  });
}

export const format: WireFormat = {
  name: 'openrlhf',
  summary: 'OpenRLHF remote reward (--reward.remote_url)',
  routes: [{ method: 'POST', path: '/get_reward' }],
  register: registerOpenRLHF,
};
