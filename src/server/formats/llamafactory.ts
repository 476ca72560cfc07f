// LLaMA-Factory's reward server API (PPO with `reward_model_type: api`, `reward_model:
// http://HOST:PORT/v1/score/evaluation`): POST /v1/score/evaluation {model, messages: [text, ...],
// max_length?} -> {id, object: "score.evaluation", model, scores: [float, ...]}. LLaMA-Factory sends,
// per sample, the prompt and the response decoded together with their special tokens (the chat
// template's markers, the response's end-of-sequence token), with no label. The response is what
// follows the last assistant marker in the text, leading whitespace removed (the common chat templates' markers below, or the
// `response_after` query parameter for another template), with trailing EOS/pad tokens removed;
// the text before it is `item.prompt`. A text without a marker is not graded (grading the prompt
// could leak its answer): it gets the fallback reward and `arbiter_invalid` 1.0 at its index (the
// client reads only `scores`, which are JSON floats).
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { GradeInput } from '../../core/sample.js';
import type { Result } from '../../core/result.js';
import { invalidResult } from '../../core/result.js';
import { bodyObject, checkBatch, openScope, type ServerContext, type WireFormat } from '../context.js';
import { HttpError } from '../http-error.js';
import { floatList, sendJSON } from './float-json.js';
import { stripTrailingTokens } from './response-text.js';

/** Where the assistant's turn starts in the chat templates LLaMA-Factory ships most used. */
export const ASSISTANT_MARKERS: readonly string[] = [
  '<|im_start|>assistant\n', // qwen, qwen3, chatml, yi, …
  '<|start_header_id|>assistant<|end_header_id|>\n\n', // llama3
  '<|assistant|>', // glm4, phi
  '<｜Assistant｜>', // deepseek3, deepseekr1
  '<start_of_turn>model\n', // gemma
  '[/INST]', // llama2, mistral
];

/** The response after the last marker (leading whitespace removed: `[/INST] ` templates), or undefined when the text holds none. */
function split(text: string, markers: readonly string[]): { prompt: string; response: string } | undefined {
  let at = -1;
  let len = 0;
  for (const m of markers) {
    const i = text.lastIndexOf(m);
    if (i > at) {
      at = i;
      len = m.length;
    }
  }
  return at < 0 ? undefined : { prompt: text.slice(0, at + len), response: text.slice(at + len).trimStart() };
}

function markersOf(q: Record<string, unknown>): readonly string[] {
  const v = q.response_after;
  if (v === undefined) return ASSISTANT_MARKERS;
  const list = Array.isArray(v) ? v : [v];
  if (!list.every((x) => typeof x === 'string' && x !== ''))
    throw new HttpError(400, 'invalid_request', 'query parameter "response_after" must be a non-empty string (the text that starts the response)');
  return list as string[];
}

function registerLlamaFactory(app: FastifyInstance, ctx: ServerContext): void {
  app.post('/v1/score/evaluation', async (request, reply) => {
    const body = bodyObject(request.body);
    const q = request.query as Record<string, unknown>;
    const markers = markersOf(q);
    const { name, grader } = ctx.graders.resolve(body.grader ?? q.grader);
    if (typeof body.model !== 'string') throw new HttpError(400, 'invalid_request', 'field "model" is required (a string; LLaMA-Factory sends "model")');
    const messages = body.messages;
    if (!Array.isArray(messages) || messages.length === 0)
      throw new HttpError(400, 'invalid_request', 'field "messages" is required: a non-empty list of texts (prompt and response decoded together)');
    if (body.max_length !== undefined && body.max_length !== null)
      throw new HttpError(400, 'invalid_request', 'field "max_length" is not supported: arbiter grades the whole response, it does not truncate tokens');
    const n = messages.length;
    checkBatch(ctx, 'messages', n);
    const scope = openScope(ctx, request);
    let results: Result[];
    try {
      scope.admit(n);
      const pending: Promise<Result>[] = new Array(n);
      for (let i = 0; i < n; i++) {
        const text = messages[i];
        const bad = (message: string) => invalidResult('bad_input', `messages[${i}]: ${message}`, { grader: grader.name, type: grader.type });
        let input: GradeInput | Result;
        if (typeof text !== 'string') input = bad(`must be a string, got ${text === null ? 'null' : typeof text}`);
        else {
          const s = split(text, markers);
          input = s
            ? { id: i, item: { prompt: s.prompt }, sample: { output_text: stripTrailingTokens(s.response, ctx.opts.eosTokens) } }
            : bad(
                `no assistant marker found, so where the response starts is unknown (looked for ${markers.map((m) => JSON.stringify(m)).join(', ')}; give ?response_after=MARKER for another chat template)`,
              );
        }
        pending[i] = scope.grade(grader, name, input);
      }
      results = await Promise.all(pending);
    } finally {
      scope.end();
    }
    const fallback = ctx.opts.fallbackReward;
    const scores = results.map((r) => (r.valid && r.score !== null ? r.score : fallback));
    const invalid = results.map((r): number => (r.valid && r.score !== null ? 0 : 1));
    reply.header('x-arbiter-invalid', String(invalid.reduce((a, b) => a + b, 0)));
    const id = `scoreval-${randomBytes(16).toString('hex')}`;
    return sendJSON(
      reply,
      `{"id":${JSON.stringify(id)},"object":"score.evaluation","model":${JSON.stringify(body.model)},"scores":${floatList(scores)},"arbiter_invalid":${floatList(invalid)}}`,
    );
  });
}

export const format: WireFormat = {
  name: 'llamafactory',
  summary: 'LLaMA-Factory PPO reward server (reward_model_type: api)',
  routes: [{ method: 'POST', path: '/v1/score/evaluation' }],
  register: registerLlamaFactory,
};
