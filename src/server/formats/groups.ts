// Group endpoints:
//   POST /v1/advantages {config, records}                       -> {estimator, records, summary}
//   POST /v1/groups {grader?, samples, advantages?, monitors?, global_step?} -> {grader, estimator, results, summary, monitors?}
// /v1/advantages adds advantages to already-scored records; /v1/groups grades the samples of one or
// more prompt groups (by `uid`) with a loaded grader, runs the root grader's group stage, and returns
// each result with its advantage in one call. Configs come from the request: they are validated like
// files and never reach beyond arithmetic.
import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../../core/errors.js';
import type { Result } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { groupContext } from '../../graders/composite/group-stage.js';
import { computeAdvantages } from '../../group/advantages.js';
import { parseAdvantageConfig, type AdvantageConfig } from '../../group/config.js';
import { advantageRecords, finishGroups, groupOutput, monitorResults, toMember } from '../../group/group-grade.js';
import { parseMonitorConfig, type MonitorConfig } from '../../group/monitor-config.js';
import { ResultCounts } from '../../io/summary.js';
import { bodyObject, checkBatch, openScope, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { floatJSON, resultJSON, sendJSON } from './float-json.js';

/** Most records per /v1/advantages request, and most response tokens per request (token advantages are materialised). */
export const MAX_ADVANTAGE_RECORDS = 1_000_000;
export const MAX_REQUEST_TOKENS = 4_000_000;

function advantageConfig(raw: unknown, field: string): AdvantageConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new HttpError(400, 'invalid_request', `field "${field}" must be an advantage config object, e.g. {"estimator": "grpo"}`);
  try {
    return parseAdvantageConfig(raw, `request body field "${field}"`);
  } catch (e) {
    if (e instanceof ConfigError) throw new HttpError(400, 'invalid_advantage_config', e.message, { details: e.issues });
    throw e;
  }
}

function checkTokens(cfg: AdvantageConfig | null, lengths: unknown[]): void {
  if (!cfg?.tokenLevel) return;
  let n = 0;
  for (const l of lengths) if (typeof l === 'number' && Number.isFinite(l) && l > 0) n += l;
  if (n > MAX_REQUEST_TOKENS)
    throw new HttpError(
      413,
      'too_many_tokens',
      `the records claim ${n} response tokens in all; ${cfg.estimator} returns one advantage per token and this server accepts at most ${MAX_REQUEST_TOKENS} per request`,
    );
}

function maskedCounts(out: Record<string, unknown>[]): { masked: number; mask_reasons: Record<string, number> } {
  const mask_reasons: Record<string, number> = {};
  let masked = 0;
  for (const o of out) {
    if (o.advantage_masked !== true) continue;
    masked++;
    const k = String(o.advantage_mask_reason);
    mask_reasons[k] = (mask_reasons[k] ?? 0) + 1;
  }
  return { masked, mask_reasons };
}

const lengthOf = (x: unknown): unknown => {
  if (typeof x !== 'object' || x === null) return undefined;
  const o = x as Record<string, unknown>;
  return o.response_length ?? (typeof o.sample === 'object' && o.sample !== null ? (o.sample as Record<string, unknown>).response_length : undefined);
};

/**
 * /v1/advantages: the fields of the records written as JSON floats (`1.0`, never `1`, which Python
 * reads as an int): scores (also components' `score` and trl's `scores`), per-step scores,
 * advantages and token advantages. Everything else (ids, uids, counts) as JSON.stringify writes it,
 * BigInts as their digits. /v1/groups writes its results with resultJSON (the same fields as floats,
 * metadata untouched) and the summary's mean_score as a float.
 */
const FLOAT_KEYS: ReadonlySet<string> = new Set(['score', 'scores', 'steps', 'advantage', 'token_advantages']);
const MEAN_SCORE: ReadonlySet<string> = new Set(['mean_score']);

function registerGroups(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/advantages', async (request, reply) => {
    const body = bodyObject(request.body);
    if (body.config === undefined) throw new HttpError(400, 'invalid_request', 'field "config" is required: an advantage config such as {"estimator": "grpo"}');
    const cfg = advantageConfig(body.config, 'config');
    const records = body.records;
    if (!Array.isArray(records)) throw new HttpError(400, 'invalid_request', 'field "records" is required: a list of {id?, uid, score, ...} objects');
    if (records.length > MAX_ADVANTAGE_RECORDS)
      throw new HttpError(
        413,
        'batch_too_large',
        `field "records" has ${records.length} entries; this server accepts at most ${MAX_ADVANTAGE_RECORDS} per request`,
      );
    checkTokens(cfg, records.map(lengthOf));
    const out = computeAdvantages(cfg, records);
    return sendJSON(reply, floatJSON({ estimator: cfg.estimator, records: out, summary: { count: out.length, ...maskedCounts(out) } }, FLOAT_KEYS)!);
  });

  app.post('/v1/groups', async (request, reply) => {
    const body = bodyObject(request.body);
    const { name, grader } = ctx.graders.resolve(body.grader);
    const samples = body.samples;
    if (!Array.isArray(samples))
      throw new HttpError(400, 'invalid_request', 'field "samples" is required: a list of {id?, uid?, item, sample, response_length?} objects');
    const n = samples.length;
    checkBatch(ctx, 'samples', n);
    const cfg = body.advantages === null ? null : advantageConfig(body.advantages ?? { estimator: 'grpo' }, 'advantages');
    let mon: MonitorConfig | null = null;
    if (body.monitors !== undefined && body.monitors !== null) {
      try {
        mon = parseMonitorConfig(body.monitors, 'request body field "monitors"');
      } catch (e) {
        if (e instanceof ConfigError) throw new HttpError(400, 'invalid_monitor_config', e.message, { details: e.issues });
        throw e;
      }
    }
    checkTokens(cfg, samples.map(lengthOf));
    const step = body.global_step;
    if (step !== undefined && (typeof step !== 'number' || !Number.isFinite(step) || step < 0))
      throw new HttpError(
        400,
        'invalid_request',
        'field "global_step" must be a non-negative number (the training step, seen by graders as {{item.global_step}})',
      );

    const members = samples.map((s, i) => toMember(s, i, `samples[${i}]`, grader));
    const withUid = members.filter((m) => m.uid !== undefined).length;
    if (withUid !== 0 && withUid !== n)
      throw new HttpError(
        400,
        'invalid_request',
        `${withUid} of ${n} samples have a "uid": give every sample its group's uid, or none (the request is then one group)`,
      );
    if (step !== undefined) {
      members.forEach((m, i) => {
        if (!m.input) return;
        const have = m.input.item.global_step;
        if (have !== undefined && have !== step)
          throw new HttpError(
            400,
            'invalid_request',
            `samples[${i}].item.global_step (${JSON.stringify(have)}) differs from the request's global_step (${step})`,
          );
        m.input = { ...m.input, item: { ...m.input.item, global_step: step } };
      });
    }

    const scope = openScope(ctx, request);
    try {
      scope.admit(n);
      const gctx = groupContext(scope.ctx);
      const results: Result[] = await Promise.all(members.map((m) => scope.grade(grader, name, (m.input ?? m.invalid) as GradeInput | Result, gctx, false)));
      await finishGroups(grader, members, results, gctx);
      results.forEach((r, i) => ctx.metrics.grade(name, r, members[i]!.input, members[i]!.uid));
      const adv = cfg ? computeAdvantages(cfg, advantageRecords(members, results), 'samples') : null;
      const out = groupOutput(members, results, adv);
      const reports = mon ? monitorResults(out, members, mon) : null;
      const counts = new ResultCounts();
      for (const r of results) counts.add(r);
      const summary = { ...counts.counts(), ...(adv ? maskedCounts(adv) : {}) };
      let s = '{"grader":' + JSON.stringify(name) + ',"estimator":' + JSON.stringify(cfg?.estimator ?? null) + ',"results":[';
      for (let i = 0; i < out.length; i++) s += (i > 0 ? ',' : '') + resultJSON(out[i]!);
      s += '],"summary":' + floatJSON(summary, MEAN_SCORE)!;
      if (reports) s += ',"monitors":' + JSON.stringify(reports);
      return sendJSON(reply, s + '}');
    } finally {
      scope.end();
    }
  });
}

export const format: WireFormat = {
  name: 'groups',
  summary: "arbiter's group grading and advantages",
  routes: [
    { method: 'POST', path: '/v1/advantages' },
    { method: 'POST', path: '/v1/groups' },
  ],
  register: registerGroups,
};
