// Config fields shared by every judge grader (model, sampling, self-consistency, cache, logprobs,
// images: `vision`) and their resolution into the settings a judge call uses.
import { z } from 'zod';
import type { CapabilityUse } from '../../core/capabilities.js';
import type { BuildContext } from '../../core/registry.js';
import { visionCapabilities, visionField, visionSettings, type VisionConfig, type VisionSettings } from '../../images/settings.js';
import { endpointCapabilities } from '../../models/endpoint-capabilities.js';
import { checkEndpoint, endpointFields, resolveEndpoint, type EndpointConfig, type ResolvedEndpoint } from '../../models/endpoint.js';

export const samplingParamsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  seed: z.number().int().optional(),
  /** OpenAI grader spelling. */
  max_completions_tokens: z.number().int().positive().optional(),
  max_tokens: z.number().int().positive().optional(),
  reasoning_effort: z.enum(['minimal', 'low', 'medium', 'high']).optional(),
});

export const judgeFields = {
  ...endpointFields,
  model: z.string().min(1),
  /** OpenAI grader style sampling parameters. */
  sampling_params: samplingParamsSchema.optional(),
  /** Judge samples per grade (self-consistency); default 1. */
  samples: z.number().int().min(1).max(64).optional(),
  /** How samples combine: mean (default for scores), median, or majority (default for labels/verdicts). */
  aggregate: z.enum(['mean', 'median', 'majority']).optional(),
  /** Ask for all samples in one request with `n` (default true); missing choices are topped up one by one. */
  use_n: z.boolean().optional(),
  /** Fewest samples that must parse (default: more than half). */
  min_valid_samples: z.number().int().min(1).optional(),
  /** On-disk cache: "auto" (default) = on when temperature is 0. */
  cache: z.union([z.boolean(), z.literal('auto')]).optional(),
  /** Score from token probabilities at the verdict (needs a server that returns logprobs). */
  logprob_score: z.boolean().optional(),
  /** Extra request body fields (e.g. {"chat_template_kwargs": {"enable_thinking": false}}). */
  extra_body: z.record(z.string(), z.unknown()).optional(),
  /** How images in the prompt are sized and limited (docs/multimodal.md). */
  ...visionField,
};

export interface JudgeConfigFields extends EndpointConfig {
  model: string;
  sampling_params?: z.infer<typeof samplingParamsSchema>;
  samples?: number;
  aggregate?: 'mean' | 'median' | 'majority';
  use_n?: boolean;
  min_valid_samples?: number;
  cache?: boolean | 'auto';
  logprob_score?: boolean;
  extra_body?: Record<string, unknown>;
  vision?: VisionConfig;
}

export interface JudgeSettings {
  endpoint: ResolvedEndpoint;
  model: string;
  temperature: number;
  top_p?: number;
  seed?: number;
  max_tokens?: number;
  samples: number;
  useN: boolean;
  minValid: number;
  cache: boolean;
  logprobs: boolean;
  extraBody?: Record<string, unknown>;
  vision: VisionSettings;
}

/** What a judge grader can reach: its endpoint, and `vision` limits raised above their defaults. */
export function judgeCapabilities(cfg: JudgeConfigFields): CapabilityUse[] {
  return [...endpointCapabilities(cfg), ...visionCapabilities(cfg)];
}

/** Resolves the settings; with a build context, refuses endpoint settings that cannot hold as written. */
export function judgeSettings(cfg: JudgeConfigFields, b?: BuildContext): JudgeSettings {
  if (b) checkEndpoint(cfg, b);
  const sp = cfg.sampling_params ?? {};
  const temperature = sp.temperature ?? 0;
  const samples = cfg.samples ?? 1;
  const extra: Record<string, unknown> = { ...cfg.extra_body };
  if (sp.reasoning_effort) extra.reasoning_effort = sp.reasoning_effort;
  return {
    endpoint: resolveEndpoint(cfg),
    model: cfg.model,
    temperature,
    top_p: sp.top_p,
    seed: sp.seed,
    max_tokens: sp.max_completions_tokens ?? sp.max_tokens,
    samples,
    useN: cfg.use_n ?? true,
    minValid: Math.min(samples, cfg.min_valid_samples ?? Math.floor(samples / 2) + 1),
    cache: cfg.cache === undefined || cfg.cache === 'auto' ? temperature === 0 : cfg.cache,
    logprobs: cfg.logprob_score ?? false,
    extraBody: Object.keys(extra).length ? extra : undefined,
    vision: visionSettings(cfg.vision, b),
  };
}
