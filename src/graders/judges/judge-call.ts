// One judge call with self-consistency: asks for k samples (one request with `n`, topped up with
// single requests when a server returns fewer choices), through the shared endpoint client, and
// returns every choice with the call's usage. Server failures come back as GradeFailures. Special
// token look-alikes in any message text (`<|im_end|>` in a response) are neutralised before they
// reach the judge's chat template.
import type { GraderContext } from '../../core/grader.js';
import { getChatClient } from '../../models/endpoint.js';
import { asGradeFailure } from '../../models/errors.js';
import type { ChatChoice, ChatMessage, ChatRequest, ChatResult, JsonSchemaFormat, Usage } from '../../models/types.js';
import { neutralizeContent } from '../../models/special-tokens.js';
import type { JudgeSettings } from './settings.js';

export interface JudgeCallResult {
  choices: ChatChoice[];
  usage: Usage;
  cached: boolean;
  retries: number;
  schema_fallback: boolean;
  requests: number;
}

/** top_logprobs asked for when a logprob score is wanted. */
export const TOP_LOGPROBS = 20;

export async function callJudge(ctx: GraderContext, s: JudgeSettings, messages: ChatMessage[], jsonSchema?: JsonSchemaFormat): Promise<JudgeCallResult> {
  const client = getChatClient(ctx.services, s.endpoint);
  const base: ChatRequest = {
    model: s.model,
    messages: messages.map((m) => ({ ...m, content: neutralizeContent(m.content) })),
    temperature: s.temperature,
    top_p: s.top_p,
    max_tokens: s.max_tokens,
    seed: s.seed,
    extra_body: s.extraBody,
  };
  if (s.logprobs) {
    base.logprobs = true;
    base.top_logprobs = TOP_LOGPROBS;
  }
  if (jsonSchema) base.json_schema = jsonSchema;
  const opts = { signal: ctx.signal, cache: s.cache };
  const results: ChatResult[] = [];
  try {
    if (s.samples === 1) {
      results.push(await client.chat(base, opts));
    } else if (s.useN) {
      results.push(await client.chat({ ...base, n: s.samples }, opts));
      const missing = s.samples - results[0]!.choices.length;
      if (missing > 0) {
        const more = await Promise.all(Array.from({ length: missing }, (_, i) => client.chat({ ...base, seed: seedFor(s.seed, i + 1) }, opts)));
        results.push(...more);
      }
    } else {
      results.push(...(await Promise.all(Array.from({ length: s.samples }, (_, i) => client.chat({ ...base, seed: seedFor(s.seed, i) }, opts)))));
    }
  } catch (e) {
    throw asGradeFailure(e, { model: s.model, base_url: s.endpoint.baseURL });
  }
  const choices = results.flatMap((r) => r.choices).slice(0, s.samples);
  const usage: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (const r of results) {
    usage.prompt_tokens += r.usage.prompt_tokens;
    usage.completion_tokens += r.usage.completion_tokens;
    usage.total_tokens += r.usage.total_tokens;
  }
  return {
    choices: choices.map((c, i) => ({ ...c, index: i })),
    usage,
    cached: results.every((r) => r.cached),
    retries: results.reduce((a, r) => a + r.retries, 0),
    schema_fallback: results.some((r) => r.schema_fallback),
    requests: results.filter((r) => !r.cached).length,
  };
}

function seedFor(seed: number | undefined, i: number): number {
  return (seed ?? 0) + i;
}

/** Call bookkeeping for result metadata. */
export function callMeta(r: JudgeCallResult, s: JudgeSettings): Record<string, unknown> {
  const m: Record<string, unknown> = { model: s.model, usage: r.usage, cached: r.cached };
  if (r.retries) m.retries = r.retries;
  if (r.schema_fallback) m.schema_fallback = true;
  return m;
}
