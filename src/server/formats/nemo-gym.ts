// NeMo-Gym resources-server endpoints (what NeMo-Gym agents, and so NeMo-RL, call):
//   POST /seed_session      -> {}  (arbiter keeps no per-rollout state)
//   POST /verify            rollout row {responses_create_params, response, ...task fields} ->
//                           the row echoed with `reward` (float), `arbiter_invalid` (0.0 / 1.0),
//                           `arbiter_error` when it could not be graded, and for multi graders
//                           `arbiter_components` plus `reward_components` when the reward is their
//                           sum (NeMo-RL raises on a reward_components whose sum is not the reward)
//   POST /aggregate_metrics {verify_responses: [...]} -> {group_level_metrics, agent_metrics, key_metrics}
// Each also answers under /ng-rollout/<rollout id>/..., the prefix NeMo-Gym adds when its
// observability is on. The graded text is the Responses-API object's output_text parts of its
// message items; function_call items become `sample.output_tools`; the row minus `response` is `item`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Result } from '../../core/result.js';
import { invalidResult } from '../../core/result.js';
import type { Sample } from '../../core/sample.js';
import { bodyObject, checkBatch, openScope, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { stringifyExact } from '../../core/json.js';
import { floatMap, floatNum, sendJSON } from './float-json.js';

/** NeMo-Gym's rollout path prefix (observability on): /ng-rollout/<id>/verify. */
const PREFIX = '/ng-rollout/:rolloutId';
const TASK_INDEX = '_ng_task_index';

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The model's output in a Responses-API `response` object: text of output_text parts, tool calls. */
export function responseOutput(response: unknown): { ok: true; sample: Sample } | { ok: false; message: string } {
  if (!isObj(response)) return { ok: false, message: 'field "response" must be a Responses-API response object' };
  const output = response.output;
  if (!Array.isArray(output)) return { ok: false, message: 'field "response.output" must be a list of output items' };
  let text = '';
  const tools: unknown[] = [];
  for (let i = 0; i < output.length; i++) {
    const it = output[i];
    if (!isObj(it)) return { ok: false, message: `response.output[${i}] must be an object` };
    if (it.type === 'message') {
      if (!Array.isArray(it.content)) continue;
      for (const part of it.content) {
        if (isObj(part) && part.type === 'output_text') {
          if (typeof part.text !== 'string') return { ok: false, message: `response.output[${i}]: an output_text part has no text string` };
          text += part.text;
        }
      }
    } else if (it.type === 'function_call') {
      tools.push({ id: it.call_id ?? it.id, type: 'function', function: { name: it.name, arguments: it.arguments } });
    }
  }
  const sample: Sample = { output_text: text };
  if (tools.length) sample.output_tools = tools;
  return { ok: true, sample };
}

/** Component scores for reward_components (invalid components count as the fallback). */
function components(r: Result, fallback: number): Record<string, number> | undefined {
  if (!r.components) return undefined;
  const out: Record<string, number> = {};
  for (const [k, c] of Object.entries(r.components)) out[k] = c.valid && c.score !== null ? c.score : fallback;
  return out;
}

/** NeMo-RL's check (nemo_rl/environments/nemo_gym.py): reward == sum(reward_components), isclose. */
function isSum(reward: number, comp: Record<string, number>): boolean {
  const sum = Object.values(comp).reduce((a, b) => a + b, 0);
  return Math.abs(reward - sum) <= Math.max(1e-5 * Math.max(Math.abs(reward), Math.abs(sum)), 1e-6);
}

/** The verify reply: the row's fields as sent (JSON.stringify), then arbiter's fields as floats. */
function verifyJSON(row: Record<string, unknown>, r: Result, fallback: number): string {
  const ok = r.valid && r.score !== null;
  const own = new Set(['reward', 'reward_components', 'arbiter_components', 'arbiter_invalid', 'arbiter_error']);
  let s = '{';
  for (const k of Object.keys(row)) {
    if (own.has(k)) continue;
    const enc = stringifyExact(row[k]); // integers past 2^53 (BigInt) as sent
    if (enc === undefined) continue;
    s += JSON.stringify(k) + ':' + enc + ',';
  }
  const reward = ok ? r.score! : fallback;
  s += '"reward":' + floatNum(reward);
  const comp = components(r, fallback);
  if (comp) {
    s += ',"arbiter_components":' + floatMap(comp);
    if (ok && isSum(reward, comp)) s += ',"reward_components":' + floatMap(comp);
  }
  s += ',"arbiter_invalid":' + (ok ? '0.0' : '1.0');
  if (!ok) s += ',"arbiter_error":' + JSON.stringify(r.error ?? { kind: 'internal_error', message: 'no score' });
  return s + '}';
}

interface Stats {
  values: number[];
}

/** Metrics as floats, then (per-task metrics) the task index as the integer it is. */
function metricsJSON(m: Record<string, number | null>, taskIndex?: number): string {
  const s = floatMap(m);
  if (taskIndex === undefined) return s;
  return (s === '{}' ? '{' : s.slice(0, -1) + ',') + `"${TASK_INDEX}":` + JSON.stringify(taskIndex) + '}';
}

/** mean/max/min/median/std of each numeric (or boolean) top-level field, NeMo-Gym's metric names. */
function describe(fields: Map<string, Stats>): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [k, st] of fields) {
    const v = st.values;
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    out[`mean/${k}`] = mean;
    const sorted = [...v].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    out[`max/${k}`] = sorted[sorted.length - 1]!;
    out[`min/${k}`] = sorted[0]!;
    out[`median/${k}`] = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    out[`std/${k}`] = v.length > 1 ? Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)) : null;
  }
  return out;
}

function numericFields(rows: Record<string, unknown>[]): Map<string, Stats> {
  const fields = new Map<string, Stats>();
  for (const row of rows) {
    for (const [k, v] of Object.entries(row)) {
      if (k.startsWith('_ng_')) continue;
      const x = typeof v === 'boolean' ? Number(v) : typeof v === 'number' && Number.isFinite(v) ? v : undefined;
      if (x === undefined) continue;
      let st = fields.get(k);
      if (!st) fields.set(k, (st = { values: [] }));
      st.values.push(x);
    }
  }
  return fields;
}

function registerNemoGym(app: FastifyInstance, ctx: ServerContext): void {
  const seedSession = async () => ({});

  const verify = async (request: FastifyRequest, reply: FastifyReply) => {
    const row = bodyObject(request.body);
    const q = request.query as Record<string, unknown>;
    const { name, grader } = ctx.graders.resolve(q.grader);
    if (!('response' in row)) throw new HttpError(400, 'invalid_request', 'field "response" is required (the Responses-API response to verify)');
    const item: Record<string, unknown> = {};
    for (const k of Object.keys(row)) if (k !== 'response') item[k] = row[k];
    const out = responseOutput(row.response);
    const scope = openScope(ctx, request);
    let r: Result;
    try {
      scope.admit(1);
      r = await scope.grade(
        grader,
        name,
        out.ok ? { item, sample: out.sample } : invalidResult('bad_input', out.message, { grader: grader.name, type: grader.type }),
      );
    } finally {
      scope.end();
    }
    return sendJSON(reply, verifyJSON(row, r, ctx.opts.fallbackReward));
  };

  const aggregate = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = bodyObject(request.body);
    const rows = body.verify_responses;
    if (!Array.isArray(rows) || !rows.every(isObj))
      throw new HttpError(400, 'invalid_request', 'field "verify_responses" must be a list of verify responses (objects)');
    checkBatch(ctx, 'verify_responses', rows.length);
    if (rows.length === 0) return sendJSON(reply, '{"group_level_metrics":[],"agent_metrics":{},"key_metrics":{}}');
    const byTask = new Map<number, Record<string, unknown>[]>();
    for (const row of rows) {
      const t = typeof row[TASK_INDEX] === 'number' ? (row[TASK_INDEX] as number) : 0;
      let list = byTask.get(t);
      if (!list) byTask.set(t, (list = []));
      list.push(row);
    }
    const tasks = [...byTask.keys()].sort((a, b) => a - b);
    const group = tasks.map((t) => metricsJSON(describe(numericFields(byTask.get(t)!)), t));
    const agent = describe(numericFields(rows));
    const key: Record<string, number | null> = {};
    for (const [k, v] of Object.entries(agent)) if (k.startsWith('mean/')) key[k] = v;
    return sendJSON(
      reply,
      '{"group_level_metrics":[' + group.join(',') + '],"agent_metrics":' + metricsJSON(agent) + ',"key_metrics":' + metricsJSON(key) + '}',
    );
  };

  for (const p of ['', PREFIX]) {
    app.post(`${p}/seed_session`, seedSession);
    app.post(`${p}/verify`, verify);
    app.post(`${p}/aggregate_metrics`, aggregate);
  }
}

export const format: WireFormat = {
  name: 'nemo-gym',
  summary: 'NeMo-Gym resources server (NeMo-RL)',
  routes: ['', PREFIX].flatMap((p) => ['seed_session', 'verify', 'aggregate_metrics'].map((r) => ({ method: 'POST' as const, path: `${p}/${r}` }))),
  register: registerNemoGym,
};
