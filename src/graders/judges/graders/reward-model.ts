// `reward_model`: a scalar reward from a reward model served by vLLM (/pooling with chat messages
// or text, /classify) or SGLang (/classify with chat-templated text), normalised per model:
// score = (raw - offset) / scale, then an optional sigmoid. Requests are batched per request shape
// (endpoint, model, key, limits); label_index and reduce are this grader's own. Special-token
// look-alikes in the inserted sample and item values (`<|im_end|>` in a response) are neutralised
// before they reach the model's prompt; the template's own tokens in `text` are kept. Images in
// `input` messages (vLLM's multimodal reward models take them on /pooling) are resolved as every
// judge's are (src/images/); a bad image from the response gets the floor 0, so it needs `sigmoid`.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../../core/registry.js';
import { endpointCapabilities } from '../../../models/endpoint-capabilities.js';
import { renderString } from '../../../core/template.js';
import { checkEndpoint, endpointFields, getRewardClient, resolveEndpoint } from '../../../models/endpoint.js';
import { judgeExtractField, judgedInput } from '../response.js';
import { asGradeFailure } from '../../../models/errors.js';
import { neutralizeContent, neutralizeDeep } from '../../../models/special-tokens.js';
import { REWARD_PATHS, type RewardInput } from '../../../models/reward-client.js';
import { compileMessages, messageSchema } from '../messages.js';
import { visionCapabilities, visionField, visionSettings } from '../../../images/settings.js';

const schema = graderSchema({
  ...endpointFields,
  ...judgeExtractField,
  model: z.string().min(1),
  protocol: z.enum(['vllm_pooling', 'vllm_classify', 'sglang']),
  /** Chat messages to score (vllm_pooling; the server applies the chat template). */
  input: z.array(messageSchema).min(1).optional(),
  /** A prompt already in the model's chat template (vllm_classify, sglang, or vllm_pooling). */
  text: z.string().optional(),
  /** Endpoint path override (default /pooling or /classify). */
  path: z.string().startsWith('/').optional(),
  /** Subtracted from the raw reward (e.g. its mean on a calibration set); default 0. */
  offset: z.number().optional(),
  /** The shifted reward is divided by this (e.g. its standard deviation); default 1. */
  scale: z
    .number()
    .refine((x) => x !== 0, 'scale must not be 0')
    .optional(),
  /** Squash the normalised reward into (0, 1) with a logistic sigmoid (default false). */
  sigmoid: z.boolean().optional(),
  /** Texts per request (default 32). */
  batch_size: z.number().int().min(1).max(4096).optional(),
  /** Which value of a multi-valued output (token rewards, embedding) is the reward. */
  reduce: z.enum(['last', 'first', 'mean']).optional(),
  /** Class index for classify outputs (default 0). */
  label_index: z.number().int().min(0).optional(),
  /** How images in `input` are sized and limited (docs/multimodal.md). */
  ...visionField,
});

export type RewardModelConfig = z.infer<typeof schema>;

export const rewardModel: GraderType<RewardModelConfig> = {
  type: 'reward_model',
  summary: 'scalar reward from a reward model on vLLM (/pooling, /classify) or SGLang (/classify), normalised',
  schema,
  capabilities: (cfg) => [
    ...endpointCapabilities(cfg, (base) => base.replace(/\/v1$/, '') + (cfg.path ?? REWARD_PATHS[cfg.protocol])), // the URL RewardClient posts to
    ...visionCapabilities(cfg),
  ],
  build(cfg, b) {
    if ((cfg.input === undefined) === (cfg.text === undefined))
      b.fail('input', 'give exactly one of "input" (chat messages) or "text" (a chat-templated prompt)');
    if (cfg.input !== undefined && cfg.protocol !== 'vllm_pooling')
      b.fail('input', `protocol "${cfg.protocol}" needs "text" (a prompt in the model's chat template); chat messages work with vllm_pooling`);
    if (cfg.vision !== undefined && cfg.input === undefined)
      b.issue('vision', 'images are sent in "input" messages; with "text" there are none, so "vision" would have no effect');
    const render = cfg.input ? compileMessages(b, 'input', cfg.input, { vision: visionSettings(cfg.vision, b), floor: 0 }) : undefined;
    if (render?.responseImages && !cfg.sigmoid)
      b.issue(
        'input',
        'images from the response (a part templated from sample.* only) need a bounded reward (sigmoid: true): a bad image of the response gets the floor, and an unbounded reward has none',
      );
    const text = cfg.text !== undefined ? b.template('text', cfg.text) : undefined;
    checkEndpoint(cfg, b);
    const ep = resolveEndpoint(cfg);
    const offset = cfg.offset ?? 0;
    const scale = cfg.scale ?? 1;
    // how this grader reads a result: never part of the shared client (graders share batches)
    const pick = { reduce: cfg.reduce, labelIndex: cfg.label_index };
    if (cfg.extract?.think === 'strip' && !cfg.sigmoid)
      b.issue(
        'extract.think',
        'stripping the reasoning needs a bounded reward (sigmoid: true): a response whose reasoning never closes gets the floor, and an unbounded reward has none',
      );
    const judged = judgedInput(cfg.extract, 0);
    return async (given, ctx) => {
      const input = judged(given);
      const client = getRewardClient(ctx.services, ep, { protocol: cfg.protocol, model: cfg.model, path: cfg.path, batchSize: cfg.batch_size });
      const prompt = render ? await render(input, ctx) : undefined;
      const req: RewardInput = prompt
        ? { messages: prompt.messages.map((m) => ({ ...m, content: neutralizeContent(m.content) })) }
        : { text: renderString(text!, { ...input, item: neutralizeDeep(input.item), sample: neutralizeDeep(input.sample) }) };
      let raw: number;
      try {
        raw = await client.score(req, ctx.signal, pick);
      } catch (e) {
        throw asGradeFailure(e, { model: cfg.model, url: client.url });
      }
      let score = (raw - offset) / scale;
      if (cfg.sigmoid) score = 1 / (1 + Math.exp(-score));
      return {
        score,
        reason: `reward model ${cfg.model} gave ${raw}${offset || scale !== 1 ? ` (normalised: (raw - ${offset}) / ${scale})` : ''}${cfg.sigmoid ? ', then a sigmoid' : ''}`,
        metadata: { model: cfg.model, raw_reward: raw, ...(prompt?.images.length ? { images: prompt.images } : {}) },
      };
    };
  },
};
