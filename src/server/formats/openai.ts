// OpenAI graders API shapes: POST /v1/graders/run {grader?, model_sample, item} -> {reward,
// sub_rewards, metadata: {name, type, errors, execution_time, scores, ...}} and POST
// /v1/graders/validate {grader} -> {grader}. `grader` is a loaded grader's name, or (with
// allowInlineGraders) a grader config object as OpenAI's API takes it, run only within the
// operator's inline policy (inline-policy.ts). The same handlers answer at the official SDKs' paths
// ({base}/fine_tuning/alpha/graders/run|validate, with or without /v1).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ConfigError } from '../../core/errors.js';
import type { Grader } from '../../core/grader.js';
import { loadGrader } from '../../core/registry.js';
import { parseJsonBounded } from '../../core/json.js';
import type { Result } from '../../core/result.js';
import { bodyObject, openScope, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { checkInline } from '../inline-policy.js';
import { floatJSON, sendJSON } from './float-json.js';
import { errorFlags } from './openai-errors.js';

/** Label used in metrics for inline graders (their names are client-chosen, so unbounded). */
const INLINE = '(inline)';

function configError(e: ConfigError): HttpError {
  return new HttpError(400, 'invalid_grader', e.message, { details: e.issues });
}

function inlineGrader(ctx: ServerContext, config: Record<string, unknown>): Grader {
  if (!ctx.opts.allowInlineGraders) {
    throw new HttpError(
      403,
      'inline_graders_disabled',
      'this server only runs its loaded graders; send "grader": "<name>" (start it with --allow-inline-graders to accept configs)',
    );
  }
  let grader: Grader;
  try {
    grader = loadGrader(config, { file: 'request body field "grader"' });
  } catch (e) {
    if (e instanceof ConfigError) throw configError(e);
    throw e;
  }
  const refused = checkInline(grader, {
    allowNetwork: ctx.opts.inlineAllowNetwork,
    codeUnsandboxed: Boolean(ctx.services.options.unsafeNoSandbox) || process.env.ARBITER_UNSAFE_NO_SANDBOX === '1',
  });
  if (refused.length) {
    ctx.metrics.inlineRefusal(refused[0]!.capability);
    const list = refused.map((v) => `${v.path}: ${v.message}`).join('; ');
    throw new HttpError(403, 'inline_grader_refused', `inline grader refused: ${list}`, { details: refused });
  }
  return grader;
}

/**
 * OpenAI's `model_sample` is the output text; a JSON object/array text also fills output_json
 * (unless it is nested deeper than the server's JSON depth limit: then output_json stays absent
 * and a template asking for it reports `limit_exceeded`).
 */
function sampleOf(modelSample: unknown, maxDepth: number): unknown {
  if (typeof modelSample !== 'string') return modelSample;
  const sample: Record<string, unknown> = { output_text: modelSample };
  const t = modelSample.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      sample.output_json = parseJsonBounded(modelSample, maxDepth);
    } catch {
      // not JSON: output_json stays absent, as for any free-text answer
    }
  }
  return sample;
}

function subRewards(r: Result): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [k, c] of Object.entries(r.components ?? {})) out[k] = c.score;
  return out;
}

export function toOpenAIResponse(r: Result, fallback: number): Record<string, unknown> {
  const sub = subRewards(r);
  const { grader, type, duration_ms, ...rest } = r.metadata;
  const metadata: Record<string, unknown> = {
    name: grader,
    type,
    errors: errorFlags(r),
    execution_time: duration_ms / 1000,
    scores: sub,
    token_usage: null,
    sampled_model_name: null,
    valid: r.valid,
  };
  if (r.error) metadata.error = r.error;
  if (r.reason !== undefined) metadata.reason = r.reason;
  if (Object.keys(rest).length) metadata.details = rest;
  return {
    reward: r.valid && r.score !== null ? r.score : fallback,
    metadata,
    sub_rewards: sub,
    model_grader_token_usage_per_model: {},
  };
}

/** Where each handler answers: arbiter's short path, and the SDKs' path with base URL .../v1 or the bare host. */
export const OPENAI_GRADER_PATHS = {
  run: ['/v1/graders/run', '/v1/fine_tuning/alpha/graders/run', '/fine_tuning/alpha/graders/run'],
  validate: ['/v1/graders/validate', '/v1/fine_tuning/alpha/graders/validate', '/fine_tuning/alpha/graders/validate'],
} as const;

/** Keys of a run response whose numbers are rewards (written as JSON floats). */
const REWARD_KEYS: ReadonlySet<string> = new Set(['reward', 'sub_rewards', 'scores']);

function registerOpenAI(app: FastifyInstance, ctx: ServerContext): void {
  const run = async (request: FastifyRequest, reply: FastifyReply) => {
    const body = bodyObject(request.body);
    let grader: Grader;
    let label: string;
    if (body.grader !== null && typeof body.grader === 'object' && !Array.isArray(body.grader)) {
      grader = inlineGrader(ctx, body.grader as Record<string, unknown>);
      label = INLINE;
    } else {
      const r = ctx.graders.resolve(body.grader);
      grader = r.grader;
      label = r.name;
    }
    if (body.model_sample === undefined) throw new HttpError(400, 'invalid_request', 'field "model_sample" is required (the model output text)');
    const scope = openScope(ctx, request);
    try {
      scope.admit(1);
      const input = scope.normalize(grader, { item: body.item ?? {}, sample: sampleOf(body.model_sample, ctx.opts.maxJsonDepth) });
      const result = await scope.grade(grader, label, input);
      return sendJSON(reply, floatJSON(toOpenAIResponse(result, ctx.opts.fallbackReward), REWARD_KEYS)!);
    } finally {
      scope.end();
    }
  };

  const validate = async (request: FastifyRequest) => {
    const body = bodyObject(request.body);
    const g = body.grader;
    if (typeof g === 'string') return { grader: ctx.graders.resolve(g).grader.config };
    if (g === null || typeof g !== 'object' || Array.isArray(g)) {
      throw new HttpError(400, 'invalid_request', 'field "grader" must be a grader config object or the name of a loaded grader');
    }
    // Validation only builds the config (no grading), so it is allowed even without inline graders.
    try {
      loadGrader(g, { file: 'request body field "grader"' });
    } catch (e) {
      if (e instanceof ConfigError) throw configError(e);
      throw e;
    }
    return { grader: g };
  };

  for (const path of OPENAI_GRADER_PATHS.run) app.post(path, run);
  for (const path of OPENAI_GRADER_PATHS.validate) app.post(path, validate);
}

export const format: WireFormat = {
  name: 'openai',
  summary: "OpenAI's graders API (also at the OpenAI SDKs' fine_tuning/alpha paths)",
  routes: [...OPENAI_GRADER_PATHS.run, ...OPENAI_GRADER_PATHS.validate].map((path) => ({ method: 'POST', path })),
  register: registerOpenAI,
};
