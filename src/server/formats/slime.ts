// slime's remote reward model (`--rm-type remote_rm --rm-url http://HOST:PORT/reward`): slime posts
// {prompt, response, label} for each sample and takes the reply JSON itself as the reward. POST
// /reward answers a bare float by default (the fallback reward when the sample cannot be graded,
// with `x-arbiter-valid: false`), or with `?format=dict` / the server's rewardFormat "dict" the
// result object with the reward first, {reward, score, valid, error?, reason?, components?,
// metadata}, for slime's `--reward-key reward` (`score` is null when the sample was not graded).
import type { FastifyInstance } from 'fastify';
import type { Result } from '../../core/result.js';
import { invalidResult } from '../../core/result.js';
import { bodyObject, openScope, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { REWARD_FORMATS, type RewardFormat } from '../options.js';
import { floatNum, resultJSON, sendJSON } from './float-json.js';

function formatOf(q: Record<string, unknown>, dflt: RewardFormat): RewardFormat {
  const f = q.format;
  if (f === undefined || f === '') return dflt;
  if (typeof f === 'string' && (REWARD_FORMATS as readonly string[]).includes(f)) return f as RewardFormat;
  throw new HttpError(400, 'invalid_request', `query parameter "format" must be one of ${REWARD_FORMATS.join(', ')}, got ${JSON.stringify(f).slice(0, 60)}`);
}

function registerSlime(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/reward', async (request, reply) => {
    const body = bodyObject(request.body);
    const q = request.query as Record<string, unknown>;
    const format = formatOf(q, ctx.opts.rewardFormat);
    const { name, grader } = ctx.graders.resolve(body.grader ?? q.grader);
    if (!('response' in body)) throw new HttpError(400, 'invalid_request', 'field "response" is required (the model response text, as slime sends it)');
    // Every other field (slime sends prompt and label) becomes a field of the item.
    const item: Record<string, unknown> = {};
    for (const k of Object.keys(body)) if (k !== 'response' && k !== 'grader') item[k] = body[k];
    const scope = openScope(ctx, request);
    let r: Result;
    try {
      scope.admit(1);
      const input =
        typeof body.response === 'string'
          ? { item, sample: { output_text: body.response } }
          : invalidResult('bad_input', `field "response" must be a string, got ${body.response === null ? 'null' : typeof body.response}`, {
              grader: grader.name,
              type: grader.type,
            });
      r = await scope.grade(grader, name, input);
    } finally {
      scope.end();
    }
    const ok = r.valid && r.score !== null;
    const reward = ok ? r.score! : ctx.opts.fallbackReward;
    reply.header('x-arbiter-valid', String(ok));
    if (!ok && r.error) reply.header('x-arbiter-error-kind', r.error.kind);
    return sendJSON(reply, format === 'number' ? floatNum(reward) : '{"reward":' + floatNum(reward) + ',' + resultJSON(r).slice(1));
  });
}

export const format: WireFormat = {
  name: 'slime',
  summary: 'slime remote reward model (--rm-type remote_rm)',
  routes: [{ method: 'POST', path: '/reward' }],
  register: registerSlime,
};
