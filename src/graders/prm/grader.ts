// The `prm` grader type: a process reward per step, from one of five protocols — a PRM served by
// vLLM with the STEP pooler (`vllm_pooling`), a token-probability PRM behind an OpenAI-compatible
// completions endpoint (`completions_logprobs`, Math-Shepherd style), a chat model naming the first
// wrong step (`judge`, ProcessBench's critique format), step labels in the data (`labels`), or
// implicit process rewards β·log(π/π_ref) from a policy and a reference endpoint (`implicit`, PRIME;
// unbounded) — then the anti-hacking transforms (clip, delta), the aggregate score and the first
// step under a threshold. Returns `steps` (one reward per step) and shows how the solution was split.
// A text split into steps is read through the extraction layer first (`extract.think`, default
// `keep`: the reasoning is the process being rewarded).
import { z } from 'zod';
import { PURE, raisedCaps, unsafeSwitch, type CapabilityUse } from '../../core/capabilities.js';
import type { GraderContext } from '../../core/grader.js';
import { graderSchema, type BuildContext, type GraderType } from '../../core/registry.js';
import { GradeFailure, type Outcome } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { renderString, renderValue, type Template } from '../../core/template.js';
import { checkSize, compileImages, fill, imagesField, withImages } from '../judges/messages.js';
import { visionCapabilities, visionField } from '../../images/settings.js';
import { parseFirstError } from '../judges/parse/first-error.js';
import { gradedStrings } from '../judges/parse/quotes.js';
import { plantedMeta, runJudge, rawMeta } from '../judges/run-judge.js';
import { samplingParamsSchema, judgeSettings } from '../judges/settings.js';
import { majority, plantedReason } from '../judges/verdicts.js';
import { endpointCapabilities } from '../../models/endpoint-capabilities.js';
import { extractSchema, neverCloses, readText, resolveExtract, type TextRead } from '../../extract/index.js';
import { checkEndpoint, endpointFields, getChatClient, getRewardClient, resolveEndpoint } from '../../models/endpoint.js';
import { asGradeFailure } from '../../models/errors.js';
import { findSpecialTokens } from '../../models/special-tokens.js';
import { REWARD_PATHS, RewardClient } from '../../models/reward-client.js';
import { coveringTokens, implicitRewards, responseTokens, sameTokenisation, UnscorableResponse } from './implicit.js';
import { AGGREGATES, aggregateSteps, firstBelow, PROBABILITY_AGGREGATES, PURE_TEMPERATURE, pureMinForm, transformSteps, type Aggregate } from './aggregate.js';
import {
  CRITIQUE_PROMPT,
  firstErrorLabel,
  MATH_SHEPHERD_LAYOUT,
  QWEN_PRM_SEPARATOR,
  QWEN_PRM_SYSTEM,
  qwenPrmText,
  readPoolingSteps,
  readTagProbability,
  refuseMarker,
  scoresFromErrorSteps,
  scoresFromFirstError,
  scoresFromLabels,
  tagPrompts,
  taggedParagraphs,
  joinSteps,
  type TagLayout,
} from './protocols.js';
import {
  compileSplitter,
  DEFAULT_MAX_CHARS,
  DEFAULT_MAX_STEPS,
  givenSteps,
  preview,
  splitSchema,
  splitText,
  stripStepPrefix,
  type Piece,
  type Splitter,
} from './steps.js';

const common = {
  /** The problem the steps solve (template); needed by every protocol that asks a model. */
  question: z.string().optional(),
  /** The steps as a list (a template naming one, e.g. "{{sample.steps}}"). */
  steps: z.string().optional(),
  /** Split `text` into steps by this rule instead. */
  split: splitSchema.optional(),
  /** Text to split (with `split`; default "{{sample.output_text}}"). */
  text: z.string().optional(),
  /** How the text split into steps is read: think `keep` (default: the reasoning is the process) or `strip` (the solution after it); from `whole`. */
  extract: extractSchema(['whole'] as const),
  /** Remove one leading "Step k." / "Step k:" / "k." label from every step before scoring. */
  strip_prefix: z.boolean().optional(),
  /** Characters of steps accepted (default 1,000,000) and steps per solution (default 512). */
  max_chars: z.number().int().positive().max(100_000_000).optional(),
  max_steps: z.number().int().positive().max(100_000).optional(),
  /** How step rewards make the score (default "min"). */
  aggregate: z.enum(AGGREGATES).optional(),
  /** Temperature of the "pure" soft minimum (default 0.1). */
  temperature: z.number().positive().max(1000).optional(),
  /** A step is "under the threshold" when its score is below it (default 0.5; 0 for implicit): reported as first_below. In [0, 1] except for implicit. */
  threshold: z.number().min(-1e6).max(1e6).optional(),
  /** Clip transform: each step reward becomes min(score - clip, 0). */
  clip: z.number().min(0).max(1).optional(),
  /** Delta transform: step t's reward becomes score_t - score_{t+1} (the last keeps its score). */
  delta: z.boolean().optional(),
};

const poolingSchema = graderSchema({
  ...common,
  ...endpointFields,
  protocol: z.literal('vllm_pooling'),
  model: z.string().min(1),
  /** "chatml": the prompt is built here in Qwen2.5's chat template and sent as text (batched); "server": chat messages, templated by the server (one request each). */
  chat_template: z.enum(['chatml', 'server']).optional(),
  /** System prompt (default Qwen2.5-Math-PRM's). */
  system: z.string().optional(),
  /** Step separator token (default "<extra_0>"). */
  separator: z.string().min(1).optional(),
  /** Class of the per-step distribution that means "right" (default 1: [p_wrong, p_right]). */
  label_index: z.number().int().min(0).max(63).optional(),
  /** Endpoint path (default /pooling). */
  path: z.string().startsWith('/').optional(),
  /** Texts per request (default 32). */
  batch_size: z.number().int().min(1).max(4096).optional(),
  /** Extra request body fields (e.g. {"task": "token_classify"} for vLLM versions that ask for the pooling task). */
  extra_body: z.record(z.string(), z.unknown()).optional(),
});

const logprobsSchema = graderSchema({
  ...common,
  ...endpointFields,
  protocol: z.literal('completions_logprobs'),
  model: z.string().min(1),
  /** Step tag after which the PRM predicts "+" or "-" (default Math-Shepherd's "ки"). */
  step_tag: z.string().min(1).optional(),
  /** Token meaning a right step (default "+") and a wrong one (default "-"). */
  good_token: z.string().min(1).optional(),
  bad_token: z.string().min(1).optional(),
  /** Text before the steps; {question} (default "{question} "). */
  prompt_prefix: z.string().optional(),
  /** One step; {k} (from 1), {step}, {tag} (default "Step {k}: {step} {tag}\n"). */
  step_template: z.string().optional(),
  /** Alternatives asked per token (default 20; vLLM allows up to its --max-logprobs). */
  top_logprobs: z.number().int().min(2).max(100).optional(),
  /** Prompts per request (default 64; one per step). */
  batch_size: z.number().int().min(1).max(4096).optional(),
  /** Read and write the on-disk response cache (default false). */
  cache: z.boolean().optional(),
});

const judgeSchema = graderSchema({
  ...common,
  ...endpointFields,
  protocol: z.literal('judge'),
  model: z.string().min(1),
  sampling_params: samplingParamsSchema.optional(),
  /** Judge samples per grade (default 1): step scores are the fraction of samples that find a step right. */
  samples: z.number().int().min(1).max(64).optional(),
  use_n: z.boolean().optional(),
  min_valid_samples: z.number().int().min(1).optional(),
  cache: z.union([z.boolean(), z.literal('auto')]).optional(),
  extra_body: z.record(z.string(), z.unknown()).optional(),
  /** User prompt; slots {question} and {steps} (the paragraphs in <paragraph_i> tags). */
  prompt: z.string().optional(),
  /** Optional system prompt. */
  system_prompt: z.string().optional(),
  /** Images shown with the prompt (templates giving image URLs, e.g. "{{item.image}}"), and how they are sized and limited (docs/multimodal.md). */
  ...imagesField,
  ...visionField,
});

const labelsSchema = graderSchema({
  ...common,
  protocol: z.literal('labels'),
  /** Per-step labels (template naming a list of true/false or numbers in [0, 1]). */
  labels: z.string().optional(),
  /** Index of the first wrong step, from 0, or -1 (ProcessBench's `label`). */
  first_error: z.string().optional(),
  /** Wrong steps numbered from 1 (PRMBench's `error_steps`). */
  error_steps: z.string().optional(),
  /** "probability" (default): labels are true/false or numbers in [0, 1]; "unbounded": any finite numbers (precomputed rewards, e.g. log-ratios). */
  label_range: z.enum(['probability', 'unbounded']).optional(),
});

const implicitSchema = graderSchema({
  ...common,
  ...endpointFields,
  protocol: z.literal('implicit'),
  /** The policy (PRIME's implicit PRM) served behind base_url. */
  model: z.string().min(1),
  /** The reference model's endpoint: its model name and the endpoint fields (base_url, api_key_env, …). */
  reference: z.object({ model: z.string().min(1), ...endpointFields }).strict(),
  /** The prompt text the policy was given, chat template applied (template, e.g. "{{sample.prompt_text}}"). */
  prompt: z.string(),
  /** β of the reward β·(log π − log π_ref) (default 0.05, PRIME's beta_train). */
  beta: z.number().positive().max(1000).optional(),
  /** Sent as vLLM's add_special_tokens (default false: the prompt text already holds the chat template's special tokens). */
  add_special_tokens: z.boolean().optional(),
  /** Read and write the on-disk response cache (default false). */
  cache: z.boolean().optional(),
  /**
   * The response's implicit reward when its own text cannot be scored as sampled (a special-token
   * look-alike, or its first token merging with the prompt's last): put on its last token and last
   * step, every other token and step 0 (default -1; implicit rewards are unbounded, so the scale is yours).
   */
  floor: z.number().min(-1e6).max(1e6).optional(),
});

/** The implicit protocol's default floor (see `floor`). */
const IMPLICIT_FLOOR = -1;

const schema = z.discriminatedUnion('protocol', [poolingSchema, logprobsSchema, judgeSchema, labelsSchema, implicitSchema]);
export type PrmConfig = z.infer<typeof schema>;

function regexCapability(cfg: PrmConfig): CapabilityUse[] {
  return typeof cfg.split === 'object' && cfg.split.rule === 'regex' && cfg.split.allow_unsafe_regex
    ? unsafeSwitch('split.allow_unsafe_regex', 'accepts regexes that can backtrack exponentially, stalling the process')
    : [];
}

function capabilities(cfg: PrmConfig): readonly CapabilityUse[] {
  // a request may lower the input caps, never raise them
  const own = [...regexCapability(cfg), ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS, max_steps: DEFAULT_MAX_STEPS })];
  if (cfg.protocol === 'labels') return [...PURE, ...own];
  if (cfg.protocol === 'vllm_pooling') return [...endpointCapabilities(cfg, (base) => RewardClient.urlOf(base, cfg.path ?? REWARD_PATHS.vllm_pooling)), ...own];
  if (cfg.protocol === 'implicit')
    return [...endpointCapabilities(cfg), ...endpointCapabilities(cfg.reference).map((u) => ({ ...u, field: `reference.${u.field}` })), ...own];
  if (cfg.protocol === 'judge') return [...endpointCapabilities(cfg), ...visionCapabilities(cfg), ...own];
  return [...endpointCapabilities(cfg), ...own];
}

/** The steps of one sample, with how they were obtained (for metadata); `unclosed`: the text's reasoning never closes, so there are none. */
interface Steps {
  texts: string[];
  split: Record<string, unknown>;
  unclosed?: TextRead;
  /** The text split (before extraction) and every step's [start, end) in it, when split from a text. */
  source?: { text: string; spans: [number, number][] };
}

type StepSource = (input: GradeInput) => Steps;

function compileSteps(cfg: PrmConfig, b: BuildContext): StepSource {
  const lim = { maxChars: cfg.max_chars ?? DEFAULT_MAX_CHARS, maxSteps: cfg.max_steps ?? DEFAULT_MAX_STEPS };
  if (cfg.steps !== undefined && cfg.split !== undefined) b.fail('split', 'give "steps" (a list) or "split" (a rule to split "text"), not both');
  if (cfg.text !== undefined && cfg.split === undefined) b.fail('text', '"text" is what "split" cuts into steps; it needs "split"');
  const strip = cfg.strip_prefix ?? false;
  const extract = resolveExtract(cfg.extract, { think: 'keep', from: 'whole' });
  if (cfg.extract !== undefined && cfg.steps !== undefined)
    b.issue('extract', '"extract" says how a text is read before "split" cuts it; "steps" gives the steps as a list, so it would have no effect');
  const finish = (texts: string[], split: Record<string, unknown>): Steps => {
    const out = strip ? texts.map(stripStepPrefix) : texts;
    if (out.length === 0)
      throw new GradeFailure(
        'bad_input',
        `the solution has no steps (${split.source === 'split' ? `nothing to split by rule ${split.rule}` : 'an empty list'})`,
      );
    return { texts: out, split: { ...split, count: out.length, ...(strip ? { strip_prefix: true } : {}), preview: out.slice(0, 64).map((s) => preview(s)) } };
  };
  const fromPieces = (
    r: { pieces: Piece[]; markers: number },
    sp: Splitter,
    field: string,
    offset: number,
    read: Record<string, unknown>,
    raw: unknown,
  ): Steps => ({
    ...finish(
      r.pieces.map((p) => p.text),
      {
        source: 'split',
        rule: sp.rule,
        text: field,
        markers: r.markers,
        spans: r.pieces.slice(0, 512).map((p) => [p.start + offset, p.end + offset]),
        ...read,
      },
    ),
    ...(typeof raw === 'string' ? { source: { text: raw, spans: r.pieces.map((p): [number, number] => [p.start + offset, p.end + offset]) } } : {}),
  });
  // Splits `raw` after the extraction layer read it; spans point into `raw`. A value that is not
  // a string, or over max_chars, goes to splitText as is, which reports it.
  const splitRead = (raw: unknown, where: string, sp: Splitter, field: string): Steps => {
    if (typeof raw !== 'string' || raw.length > lim.maxChars) return fromPieces(splitText(raw, where, sp, lim), sp, field, 0, {}, undefined);
    const got = readText(raw, extract);
    if (!got.ok) return { texts: [], split: { source: 'split', rule: sp.rule, text: field, extracted: got.read }, unclosed: got.read };
    // stripping keeps a suffix of the text (from `whole`), so the spans shift by where it starts
    return fromPieces(splitText(got.text, where, sp, lim), sp, field, got.start ?? 0, got.changed ? { extracted: got.read } : {}, raw);
  };
  if (cfg.split !== undefined) {
    const sp = compileSplitter(cfg.split, (f, m) => b.issue(f, m));
    const text = b.template('text', cfg.text ?? '{{sample.output_text}}');
    return (input) => splitRead(renderValue(text, input), cfg.text ?? 'sample.output_text', sp, cfg.text ?? '{{sample.output_text}}');
  }
  if (cfg.steps !== undefined) {
    const t = b.template('steps', cfg.steps);
    return (input) => finish(givenSteps(renderValue(t, input), cfg.steps!, lim), { source: 'steps', template: cfg.steps });
  }
  // default: the sample's own steps when it has them, else output_text split by blank lines
  const blank = compileSplitter('blank_lines', (f, m) => b.issue(f, m));
  return (input) => {
    if (input.sample.steps !== undefined) {
      // a list has no reasoning block to strip: reading its steps as they are would score the reasoning asked to be dropped
      if (extract.think === 'strip')
        throw new GradeFailure(
          'config_error',
          'extract.think "strip" reads a text before it is split, but this sample gives its steps as a list (sample.steps)',
        );
      return finish(givenSteps(input.sample.steps, 'sample.steps', lim), { source: 'sample.steps' });
    }
    if (input.sample.output_text === undefined)
      throw new GradeFailure('template_error', 'missing variable: the sample has neither "steps" nor "output_text" (set "steps" or "split" to choose)');
    return splitRead(input.sample.output_text, 'sample.output_text', blank, '{{sample.output_text}}');
  };
}

/**
 * A step that would change the PRM's prompt rather than be scored in it — it holds the separator
 * (an extra step boundary) or a special/control token look-alike (`<|im_end|>` ends the turn) — is
 * refused: the solution gets the floor, every step 0, with the reason naming the step and the token.
 */
function refusedSteps(steps: readonly string[], separator: string | undefined): Scored | undefined {
  for (let i = 0; i < steps.length; i++) {
    const found = findSpecialTokens(steps[i]!, 4);
    if (separator !== undefined && steps[i]!.includes(separator) && !found.includes(separator)) found.unshift(separator);
    if (!found.length) continue;
    const list = found.map((t) => JSON.stringify(t)).join(', ');
    return {
      scores: steps.map(() => 0),
      meta: { refused_step: { step: i, tokens: found } },
      reason: `step ${i} contains ${list}, ${separator !== undefined && found.includes(separator) ? "the PRM's step separator or " : ''}a special-token look-alike that would change the PRM's prompt rather than be scored in it, so the solution gets the floor (every step 0)`,
    };
  }
  return undefined;
}

/** A question (the item's, not the response's) with a special-token look-alike is bad_input. */
function refuseSpecialInQuestion(question: string): void {
  const found = findSpecialTokens(question, 4);
  if (found.length)
    throw new GradeFailure(
      'bad_input',
      `the question contains ${found.map((t) => JSON.stringify(t)).join(', ')}, a special-token look-alike that would break the PRM prompt`,
    );
}

/** What a protocol computes for one sample: a probability-like score per step, plus its own metadata. */
interface Scored {
  scores: number[];
  meta: Record<string, unknown>;
  reason?: string;
}

type Scorer = (input: GradeInput, steps: string[], ctx: GraderContext, st: Steps) => Promise<Scored>;

function questionOf(b: BuildContext, cfg: { question?: string }, protocol: string): Template {
  if (cfg.question === undefined) b.fail('question', `protocol "${protocol}" scores steps against their problem: give "question", e.g. "{{item.question}}"`);
  return b.template('question', cfg.question);
}

function poolingScorer(cfg: z.infer<typeof poolingSchema>, b: BuildContext): Scorer {
  const q = questionOf(b, cfg, cfg.protocol);
  checkEndpoint(cfg, b);
  const ep = resolveEndpoint(cfg);
  const separator = cfg.separator ?? QWEN_PRM_SEPARATOR;
  const system = cfg.system ?? QWEN_PRM_SYSTEM;
  const labelIndex = cfg.label_index ?? 1;
  const server = cfg.chat_template === 'server';
  if (server && cfg.batch_size !== undefined)
    b.issue('batch_size', 'chat_template "server" sends one conversation per request; batch_size applies to "chatml" (text) only');
  return async (input, steps, ctx) => {
    const question = renderString(q, input);
    if (server) refuseMarker(question, separator, 'the question');
    else qwenPrmText(system, question, [], separator); // the question and system prompt checked before the steps
    refuseSpecialInQuestion(question);
    const refused = refusedSteps(steps, separator);
    if (refused) return { ...refused, meta: { model: cfg.model, chat_template: server ? 'server' : 'chatml', ...refused.meta } };
    const client = getRewardClient(ctx.services, ep, {
      protocol: 'vllm_pooling',
      model: cfg.model,
      path: cfg.path,
      batchSize: cfg.batch_size,
      extraBody: cfg.extra_body,
    });
    let row: unknown;
    let text: string | undefined;
    if (server) {
      const messages = [
        { role: 'system' as const, content: system },
        { role: 'user' as const, content: question },
        { role: 'assistant' as const, content: joinSteps(steps, separator) },
      ];
      checkSize(system.length + question.length + (messages[2]!.content as string).length);
      try {
        row = await client.encode({ messages }, ctx.signal);
      } catch (e) {
        throw asGradeFailure(e, { model: cfg.model, url: client.url });
      }
    } else {
      text = qwenPrmText(system, question, steps, separator);
      checkSize(text.length);
      try {
        row = await client.encode({ text }, ctx.signal);
      } catch (e) {
        throw asGradeFailure(e, { model: cfg.model, url: client.url });
      }
    }
    const scores = readPoolingSteps(row, steps.length, labelIndex);
    return { scores, meta: { model: cfg.model, url: client.url, chat_template: server ? 'server' : 'chatml' } };
  };
}

/** Most characters of all step prompts of one solution together (each prompt repeats the steps before it). */
export const MAX_TAG_PROMPT_CHARS = 8_000_000;

function logprobsScorer(cfg: z.infer<typeof logprobsSchema>, b: BuildContext): Scorer {
  const q = questionOf(b, cfg, cfg.protocol);
  checkEndpoint(cfg, b);
  const ep = resolveEndpoint(cfg);
  const layout: TagLayout = {
    prefix: cfg.prompt_prefix ?? MATH_SHEPHERD_LAYOUT.prefix,
    step: cfg.step_template ?? MATH_SHEPHERD_LAYOUT.step,
    tag: cfg.step_tag ?? MATH_SHEPHERD_LAYOUT.tag,
  };
  if (!layout.step.includes('{tag}')) b.issue('step_template', 'must contain {tag}: the PRM gives its verdict at the tag');
  if (!layout.step.includes('{step}')) b.issue('step_template', 'must contain {step}');
  const good = cfg.good_token ?? '+';
  const bad = cfg.bad_token ?? '-';
  if (good.trim() === bad.trim()) b.issue('bad_token', 'good_token and bad_token must differ');
  const batch = cfg.batch_size ?? 64;
  const top = cfg.top_logprobs ?? 20;
  return async (input, steps, ctx) => {
    const question = renderString(q, input);
    refuseSpecialInQuestion(question);
    const refused = refusedSteps(steps, undefined);
    if (refused) return { ...refused, meta: { model: cfg.model, requests: 0, step_tag: layout.tag, ...refused.meta } };
    const prompts = tagPrompts(question, steps, layout);
    const chars = prompts.reduce((a, p) => a + p.length, 0);
    if (chars > MAX_TAG_PROMPT_CHARS)
      throw new GradeFailure(
        'limit_exceeded',
        `the ${steps.length} step prompts hold ${chars} characters together (limit ${MAX_TAG_PROMPT_CHARS}); each prompt repeats the steps before it`,
      );
    const client = getChatClient(ctx.services, ep);
    const chunks: string[][] = [];
    for (let i = 0; i < prompts.length; i += batch) chunks.push(prompts.slice(i, i + batch));
    let requests = 0;
    let retries = 0;
    const scores: number[] = [];
    try {
      const answers = await Promise.all(
        chunks.map((prompt) =>
          client.complete({ model: cfg.model, prompt, max_tokens: 1, temperature: 0, logprobs: top }, { signal: ctx.signal, cache: cfg.cache ?? false }),
        ),
      );
      answers.forEach((a, c) => {
        if (!a.cached) requests++;
        retries += a.retries;
        const want = chunks[c]!.length;
        if (a.choices.length !== want)
          throw new GradeFailure('judge_server_error', `the PRM server answered ${a.choices.length} choices for ${want} prompts`, {
            raw: JSON.stringify(a.choices).slice(0, 2000),
          });
        a.choices.forEach((ch, i) => {
          scores.push(readTagProbability(ch, good, bad, c * batch + i));
        });
      });
    } catch (e) {
      throw asGradeFailure(e, { model: cfg.model, base_url: ep.baseURL });
    }
    const meta: Record<string, unknown> = { model: cfg.model, requests, step_tag: layout.tag };
    if (retries) meta.retries = retries;
    return { scores, meta };
  };
}

function judgeScorer(cfg: z.infer<typeof judgeSchema>, b: BuildContext): Scorer {
  const q = questionOf(b, cfg, cfg.protocol);
  // the judge's own settings (the step aggregate is this grader's, not a vote over judge samples)
  const { aggregate: _stepAggregate, ...judgeCfg } = cfg;
  const s = judgeSettings(judgeCfg, b);
  const renderImages = compileImages(b, 'images', cfg.images, { vision: s.vision, floor: 0 });
  const template = cfg.prompt ?? CRITIQUE_PROMPT;
  if (cfg.prompt !== undefined && !cfg.prompt.includes('{steps}')) b.issue('prompt', 'must contain {steps} (the paragraphs to check)');
  return async (input, steps, ctx) => {
    const question = renderString(q, input);
    const user = fill(template, { question, steps: taggedParagraphs(steps) });
    checkSize(user.length + (cfg.system_prompt?.length ?? 0));
    const imgs = await renderImages(input, ctx);
    const messages = withImages(
      cfg.system_prompt
        ? [
            { role: 'system' as const, content: cfg.system_prompt },
            { role: 'user' as const, content: user },
          ]
        : [{ role: 'user' as const, content: user }],
      imgs,
    );
    const graded = gradedStrings(steps, input.sample);
    const run = await runJudge(ctx, s, messages, (t) => parseFirstError(t, { steps: steps.length, graded }), undefined, imgs.images);
    // verdict markers in the steps (a planted \boxed{k}) behind an unreadable verdict: every step wrong
    if (run.planted) {
      return {
        scores: steps.map(() => 0),
        meta: { ...run.meta, planted: { ...plantedMeta(run.planted), floor: 0 } },
        reason: plantedReason(run.planted, 0),
      };
    }
    const picks = run.valid.map((v) => v.verdict.value);
    // step k is right in a sample when that sample's first error lies after it (or there is none)
    const scores = steps.map((_, k) => picks.filter((e) => e === -1 || e > k).length / picks.length);
    const vote = majority(picks);
    // a tied vote takes the earliest named error (the stricter reading)
    const firstError = vote.tied ? Math.min(...[...vote.counts].filter(([, n]) => n === vote.count).map(([v]) => (v === -1 ? Infinity : v))) : vote.value;
    const first = firstError === Infinity ? -1 : firstError;
    const meta: Record<string, unknown> = {
      ...run.meta,
      first_error: first,
      ...(picks.length > 1 ? { first_error_votes: picks } : {}),
      verdict_format: run.valid[0]!.verdict.format,
    };
    if (run.parsed.length === 1) Object.assign(meta, rawMeta(run.parsed));
    return { scores, meta, reason: first === -1 ? 'the judge found no wrong paragraph' : `the judge names paragraph ${first} as the first wrong one` };
  };
}

function labelsScorer(cfg: z.infer<typeof labelsSchema>, b: BuildContext): Scorer {
  if (cfg.question !== undefined) b.issue('question', 'the labels protocol asks no model, so "question" would have no effect; remove it');
  const given = (['labels', 'first_error', 'error_steps'] as const).filter((k) => cfg[k] !== undefined);
  if (given.length !== 1)
    b.fail('labels', 'give exactly one of "labels" (one per step), "first_error" (index from 0, or -1) or "error_steps" (numbers from 1)');
  const field = given[0]!;
  const unbounded = cfg.label_range === 'unbounded';
  if (unbounded && field !== 'labels')
    b.issue('label_range', `"unbounded" applies to "labels" (numbers per step); "${field}" gives 0/1 step scores, so it would have no effect`);
  const t = b.template(field, cfg[field]!);
  return async (input, steps) => {
    const v = renderValue(t, input);
    const where = cfg[field]!;
    let scores: number[];
    if (field === 'labels') scores = scoresFromLabels(v, steps.length, where, unbounded);
    else if (field === 'first_error') scores = scoresFromFirstError(firstErrorLabel(v, steps.length, where), steps.length);
    else scores = scoresFromErrorSteps(v, steps.length, where);
    return { scores, meta: { labels_from: field } };
  };
}

/** PRIME's beta_train default. */
export const IMPLICIT_BETA = 0.05;

function implicitScorer(cfg: z.infer<typeof implicitSchema>, b: BuildContext): Scorer {
  if (cfg.question !== undefined)
    b.issue('question', 'the implicit protocol scores the response under the policy and reference models, not against a question; remove it');
  if (cfg.steps !== undefined)
    b.fail(
      'steps',
      'the implicit protocol assigns tokens to steps by their place in the response text: split the response ("split", "text") instead of giving "steps" as a list',
    );
  if (cfg.extract?.think === 'strip')
    b.issue(
      'extract',
      'the implicit protocol rewards every response token; extract.think "strip" would leave the reasoning\'s tokens out of the steps but not out of the response',
    );
  checkEndpoint(cfg, b);
  checkEndpoint(cfg.reference, b);
  const policyEp = resolveEndpoint(cfg);
  const refEp = resolveEndpoint(cfg.reference);
  const promptT = b.template('prompt', cfg.prompt);
  const beta = cfg.beta ?? IMPLICIT_BETA;
  const addSpecial = cfg.add_special_tokens ?? false;
  const floor = cfg.floor ?? IMPLICIT_FLOOR;
  return async (input, _steps, ctx, st) => {
    if (!st.source)
      throw new GradeFailure(
        'config_error',
        'the implicit protocol needs the steps\' places in the response text, but this sample gives its steps as a list (sample.steps): set "split" to cut the response',
      );
    const response = st.source.text;
    const prompt = renderString(promptT, input);
    checkSize(prompt.length + response.length);
    const echo = async (ep: typeof policyEp, model: string, who: string) => {
      const client = getChatClient(ctx.services, ep);
      try {
        const a = await client.complete(
          { model, prompt: prompt + response, max_tokens: 0, temperature: 0, logprobs: 1, extra_body: { echo: true, add_special_tokens: addSpecial } },
          { signal: ctx.signal, cache: cfg.cache ?? false },
        );
        if (a.choices.length !== 1)
          throw new GradeFailure('judge_server_error', `the ${who} answered ${a.choices.length} choices for one prompt`, {
            raw: JSON.stringify(a.choices).slice(0, 2000),
          });
        return { logprobs: a.choices[0]!.logprobs, cached: a.cached };
      } catch (e) {
        throw asGradeFailure(e, { model, base_url: ep.baseURL });
      }
    };
    // The response's own text cannot be scored as sampled: a valid floor on its last token and step,
    // so a line that carries it still gets its outcome (an invalid grade would mask the whole line).
    const floored = (why: string, tokens: number, requests: number, meta: Record<string, unknown> = {}) => {
      const tokenRewards = Array.from({ length: tokens }, (_, i) => (i === tokens - 1 ? floor : 0));
      return {
        scores: st.source!.spans.map((_, i, a) => (i === a.length - 1 ? floor : 0)),
        meta: { model: cfg.model, reference_model: cfg.reference.model, beta, response_reward: floor, token_rewards: tokenRewards, requests, floor, ...meta },
        reason: `${why}, so the response gets the floor ${floor} (on its last token and step)`,
      };
    };
    // the policy sampled these characters as text: one that a tokenizer reads as a special token would be scored as another token
    const found = findSpecialTokens(response, 4);
    if (found.length) {
      const pol = await echo(policyEp, cfg.model, 'policy');
      return floored(
        `the response contains ${found.map((t) => JSON.stringify(t)).join(', ')}, a special-token look-alike that the server tokenises as a special token rather than the text the policy sampled`,
        coveringTokens(pol.logprobs, response, 'policy'),
        pol.cached ? 0 : 1,
        { refused_tokens: found },
      );
    }
    const ask = async (ep: typeof policyEp, model: string, who: string) => {
      const a = await echo(ep, model, who);
      return { tokens: responseTokens(a.logprobs, response, who), cached: a.cached };
    };
    let pol: Awaited<ReturnType<typeof ask>>;
    let ref: Awaited<ReturnType<typeof ask>>;
    try {
      [pol, ref] = await Promise.all([ask(policyEp, cfg.model, 'policy'), ask(refEp, cfg.reference.model, 'reference')]);
    } catch (e) {
      if (!(e instanceof UnscorableResponse)) throw e;
      return floored(e.reason, e.tokens, 2);
    }
    sameTokenisation(pol.tokens, ref.tokens);
    const r = implicitRewards(pol.tokens, ref.tokens, beta, st.source.spans);
    return {
      scores: r.stepRewards,
      meta: {
        model: cfg.model,
        reference_model: cfg.reference.model,
        beta,
        response_reward: r.responseReward,
        token_rewards: r.tokenRewards,
        tokens: pol.tokens.tokens,
        token_steps: r.tokenSteps,
        prompt_tokens: pol.tokens.promptTokens,
        requests: (pol.cached ? 0 : 1) + (ref.cached ? 0 : 1),
      },
      reason: `${r.tokenRewards.length} response tokens, β·log(π/π_ref) summed: ${r.responseReward}`,
    };
  };
}

function fmt(xs: readonly number[]): string {
  const shown = xs.slice(0, 16).map((x) => (Number.isInteger(x) ? String(x) : x.toFixed(4)));
  return `[${shown.join(', ')}${xs.length > 16 ? `, … ${xs.length - 16} more` : ''}]`;
}

export const prm: GraderType<PrmConfig> = {
  type: 'prm',
  summary:
    'process reward per step (vLLM STEP-pooler PRM, completions-logprob PRM, chat step judge, data labels, or implicit β·log(π/π_ref) rewards), aggregated; clip/delta transforms',
  schema: schema as unknown as z.ZodType<PrmConfig>,
  capabilities,
  build(cfg, b) {
    const implicit = cfg.protocol === 'implicit';
    // implicit step rewards (sums of log-ratios) and unbounded labels: nothing that assumes a probability applies
    const unbounded = implicit || (cfg.protocol === 'labels' && cfg.label_range === 'unbounded');
    const unboundedWhy = implicit ? 'implicit step rewards are unbounded log-ratio sums' : 'label_range "unbounded" step rewards are any numbers';
    const aggregate: Aggregate = cfg.aggregate ?? (implicit ? 'sum' : 'min');
    const transformed = cfg.clip !== undefined || cfg.delta === true;
    if (unbounded && PROBABILITY_AGGREGATES.includes(aggregate))
      b.issue('aggregate', `"${aggregate}" needs step probabilities in [0, 1]; ${unboundedWhy} (use sum, min, mean or last)`);
    if (unbounded && cfg.clip !== undefined)
      b.issue('clip', `clip's threshold is a step probability in [0, 1]; ${unboundedWhy} (use a threshold with first_below, or delta)`);
    if (!unbounded && cfg.threshold !== undefined && (cfg.threshold < 0 || cfg.threshold > 1))
      b.issue(
        'threshold',
        `must be in [0, 1] (a step probability) for protocol "${cfg.protocol}"; only implicit and label_range "unbounded" step rewards are unbounded`,
      );
    if (transformed && !unbounded && PROBABILITY_AGGREGATES.includes(aggregate)) {
      b.issue(
        'aggregate',
        `"${aggregate}" needs step probabilities; after clip or delta the step rewards are differences or penalties (use min, mean, last or sum)`,
      );
    }
    if (cfg.temperature !== undefined && aggregate !== 'pure') b.issue('temperature', 'temperature is the "pure" soft minimum\'s; it needs aggregate "pure"');
    const temperature = cfg.temperature ?? PURE_TEMPERATURE;
    const threshold = cfg.threshold ?? (unbounded ? 0 : 0.5);
    const stepsOf = compileSteps(cfg, b);
    let score: Scorer;
    switch (cfg.protocol) {
      case 'vllm_pooling':
        score = poolingScorer(cfg, b);
        break;
      case 'completions_logprobs':
        score = logprobsScorer(cfg, b);
        break;
      case 'judge':
        score = judgeScorer(cfg, b);
        break;
      case 'labels':
        score = labelsScorer(cfg, b);
        break;
      case 'implicit':
        score = implicitScorer(cfg, b);
        break;
    }
    return async (input, ctx): Promise<Outcome> => {
      const st = stepsOf(input);
      // no solution after the reasoning: one step scored 0, the lowest score of a one-step solution under every aggregate and transform
      const got: Scored = st.unclosed ? { scores: [0], meta: {}, reason: neverCloses('no solution to score') } : await score(input, st.texts, ctx, st);
      const raw = got.scores;
      const stepsOut = transformed ? transformSteps(raw, { clip: cfg.clip, delta: cfg.delta }) : raw;
      const value = aggregateSteps(stepsOut, aggregate, temperature);
      const first = firstBelow(raw, threshold);
      const meta: Record<string, unknown> = { protocol: cfg.protocol, ...got.meta, aggregate, threshold, first_below: first, split: st.split };
      if (transformed) {
        meta.raw_steps = raw;
        meta.transforms = { ...(cfg.clip !== undefined ? { clip: cfg.clip } : {}), ...(cfg.delta ? { delta: true } : {}) };
      }
      if (aggregate === 'pure') {
        const p = pureMinForm(raw, temperature);
        meta.pure = { temperature, weights: p.weights, credits: p.credits };
      }
      const what = transformed
        ? `${aggregate} of ${stepsOut.length} step rewards ${fmt(stepsOut)} (${[cfg.clip !== undefined ? `clip ${cfg.clip}` : '', cfg.delta ? 'delta' : ''].filter(Boolean).join(', then ')} of scores ${fmt(raw)})`
        : `${aggregate} of ${raw.length} step scores ${fmt(raw)}`;
      const firstText = first === -1 ? `no step under ${threshold}` : `first step under ${threshold}: step ${first} (from 0)`;
      return { score: value, steps: stepsOut, reason: `${got.reason ? `${got.reason}; ` : ''}${what} = ${value}; ${firstText}`, metadata: meta };
    };
  },
};
