// The policy being searched over: an OpenAI-compatible chat-completions server, asked for whole
// solutions (n samples per request, topped up one by one when a server returns fewer) or for the
// next step of a partial solution (stop at the step delimiter; the partial is continued as the
// assistant's own message, vLLM/SGLang `continue_final_message`, or restated in the prompt). Every
// call goes through the shared chat client (limits, deadlines, retries) and its tokens are counted.
import { z } from 'zod';
import type { Services } from '../core/services.js';
import { compileTemplate, renderString, type Template } from '../core/template.js';
import type { GradeInput } from '../core/sample.js';
import { endpointFields, getChatClient, resolveEndpoint, type ResolvedEndpoint } from '../models/endpoint.js';
import type { ChatChoice, ChatMessage, ChatRequest, ChatResult } from '../models/types.js';

export const generatorSchema = z.strictObject({
  ...endpointFields,
  model: z.string().min(1),
  /** The user turn (template over the data row; default "{{item.question}}"). */
  prompt: z.string().optional(),
  /** Optional system prompt. */
  system: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  seed: z.number().int().optional(),
  /** Longest whole solution (tokens, default 2048). */
  max_tokens: z.number().int().positive().optional(),
  /** Longest single step in step-level search (tokens, default 512). */
  max_step_tokens: z.number().int().positive().optional(),
  /** What separates steps (default a blank line, "\n\n"): the stop string of step-level generation. */
  step_delimiter: z.string().min(1).optional(),
  /** How a partial solution is continued: as the assistant's own message (default) or restated in the user prompt. */
  continuation: z.enum(['continue_final_message', 'prompt']).optional(),
  /** Ask for all samples in one request with `n` (default true). */
  use_n: z.boolean().optional(),
  /** Extra body fields (e.g. {"top_k": 20}). */
  extra_body: z.record(z.string(), z.unknown()).optional(),
});

export type GeneratorConfig = z.infer<typeof generatorSchema>;

/** A generated text and what it cost. */
export interface Generated {
  text: string;
  finish_reason: string | null;
  /** vLLM's stop_reason when the server sent one (null: ended at end-of-sequence or the length limit). */
  stop_reason?: string | number | null;
}

export interface GenerationCost {
  requests: number;
  completion_tokens: number;
  prompt_tokens: number;
  /** Requests whose answer reported no token usage. */
  unreported: number;
}

export const CONTINUE_INSTRUCTION = 'Continue the solution below with its next step only.';

export class Generator {
  readonly cfg: GeneratorConfig;
  readonly delimiter: string;
  private readonly ep: ResolvedEndpoint;
  private readonly prompt: Template;

  constructor(cfg: GeneratorConfig) {
    this.cfg = cfg;
    this.ep = resolveEndpoint(cfg);
    this.prompt = compileTemplate(cfg.prompt ?? '{{item.question}}');
    this.delimiter = cfg.step_delimiter ?? '\n\n';
  }

  /** The user turn for a data row. */
  userPrompt(input: GradeInput): string {
    return renderString(this.prompt, input);
  }

  private base(messages: ChatMessage[], maxTokens: number): ChatRequest {
    const req: ChatRequest = { model: this.cfg.model, messages, max_tokens: maxTokens };
    if (this.cfg.temperature !== undefined) req.temperature = this.cfg.temperature;
    if (this.cfg.top_p !== undefined) req.top_p = this.cfg.top_p;
    if (this.cfg.seed !== undefined) req.seed = this.cfg.seed;
    if (this.cfg.extra_body) req.extra_body = { ...this.cfg.extra_body };
    return req;
  }

  private messages(user: string): ChatMessage[] {
    return this.cfg.system
      ? [
          { role: 'system', content: this.cfg.system },
          { role: 'user', content: user },
        ]
      : [{ role: 'user', content: user }];
  }

  /** `n` samples for one request shape: one request with `n`, topped up by single requests (distinct seeds). */
  private async sample(services: Services, req: ChatRequest, n: number, cost: GenerationCost, signal?: AbortSignal): Promise<ChatChoice[]> {
    const client = getChatClient(services, this.ep);
    const account = (r: ChatResult) => {
      cost.requests++;
      cost.completion_tokens += r.usage.completion_tokens;
      cost.prompt_tokens += r.usage.prompt_tokens;
      if (r.usage.completion_tokens === 0 && r.choices.some((c) => c.content !== '')) cost.unreported++;
    };
    const out: ChatChoice[] = [];
    const useN = this.cfg.use_n ?? true;
    if (useN && n > 1) {
      const r = await client.chat({ ...req, n }, { signal });
      account(r);
      out.push(...r.choices.slice(0, n));
    }
    let extra = 0;
    // single requests get distinct seeds: the configured one first (when no request with n went out), then the next ones
    const first = useN && n > 1 ? 1 : 0;
    while (out.length < n) {
      const seed = req.seed !== undefined ? req.seed + first + extra : undefined;
      const r = await client.chat(seed !== undefined ? { ...req, seed } : req, { signal });
      account(r);
      extra++;
      out.push(...r.choices.slice(0, n - out.length));
      if (r.choices.length === 0) break;
    }
    return out;
  }

  /** `n` whole solutions to a data row. */
  async solutions(services: Services, input: GradeInput, n: number, cost: GenerationCost, signal?: AbortSignal): Promise<Generated[]> {
    const req = this.base(this.messages(this.userPrompt(input)), this.cfg.max_tokens ?? 2048);
    return (await this.sample(services, req, n, cost, signal)).map(toGenerated);
  }

  /** `n` samples of the next step after `steps` (the text up to the next delimiter). */
  async nextSteps(
    services: Services,
    input: GradeInput,
    steps: readonly string[],
    n: number,
    cost: GenerationCost,
    signal?: AbortSignal,
  ): Promise<Generated[]> {
    const user = this.userPrompt(input);
    const maxTokens = this.cfg.max_step_tokens ?? 512;
    let req: ChatRequest;
    if (steps.length === 0) {
      req = this.base(this.messages(user), maxTokens);
    } else if ((this.cfg.continuation ?? 'continue_final_message') === 'continue_final_message') {
      const partial = steps.join(this.delimiter) + this.delimiter;
      req = this.base([...this.messages(user), { role: 'assistant', content: partial }], maxTokens);
      req.extra_body = { ...req.extra_body, continue_final_message: true, add_generation_prompt: false };
    } else {
      req = this.base(this.messages(`${user}\n\n${CONTINUE_INSTRUCTION}\n\n${steps.join(this.delimiter)}`), maxTokens);
    }
    req.extra_body = { ...req.extra_body, stop: [this.delimiter] };
    return (await this.sample(services, req, n, cost, signal)).map(toGenerated);
  }
}

function toGenerated(c: ChatChoice): Generated {
  const g: Generated = { text: c.content, finish_reason: c.finish_reason };
  if (c.stop_reason !== undefined) g.stop_reason = c.stop_reason;
  return g;
}

export function newCost(): GenerationCost {
  return { requests: 0, completion_tokens: 0, prompt_tokens: 0, unreported: 0 };
}
