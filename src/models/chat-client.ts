// Chat-completion client for any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, hosted
// APIs), built on the official `openai` SDK: a concurrency limit per endpoint, our own retry loop
// (backoff + Retry-After on 429/5xx/connection errors, so retries are counted and capped), request
// timeouts, token usage totals, the on-disk cache, and a prompt-only fallback when a server
// rejects `response_format: json_schema`.
import type { OpenAI } from 'openai';
import { lazyRequire } from '../core/lazy.js';
import { DEFAULT_RETRY, isRetryableStatus, retryAfterMs, retryDelayMs, sleep, type RetryPolicy } from './backoff.js';
import { ModelError } from './errors.js';
import { Limiter } from './limiter.js';
import { requestKey } from './request-key.js';
import type { ResponseCache } from './response-cache.js';
import type { ChatChoice, ChatRequest, ChatResult, TokenLogprob, Usage } from './types.js';

const sdk = lazyRequire<typeof import('openai')>('openai');

export interface ChatClientOptions {
  baseURL: string;
  apiKey: string;
  /** Requests in flight to this endpoint at once (default 64). */
  maxConcurrency?: number;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt request timeout in ms (default 120 000). */
  timeoutMs?: number;
  /** Opens the response cache on first use (so runs without caching never create the file). */
  cache?: () => ResponseCache | undefined;
}

export interface CallOptions {
  signal?: AbortSignal;
  /** Read and write the on-disk cache for this call. */
  cache?: boolean;
  timeoutMs?: number;
}

/** Running totals for one endpoint. */
export interface ClientUsage {
  requests: number;
  cache_hits: number;
  retries: number;
  failures: number;
  schema_fallbacks: number;
  prompt_tokens: number;
  completion_tokens: number;
}

/** Cached value: the normalised answer without per-call bookkeeping. */
interface Stored {
  choices: ChatChoice[];
  usage: Usage;
  model: string;
}

const ERROR_BODY_CHARS = 2000;

export class ChatClient {
  readonly baseURL: string;
  readonly usage: ClientUsage = { requests: 0, cache_hits: 0, retries: 0, failures: 0, schema_fallbacks: 0, prompt_tokens: 0, completion_tokens: 0 };
  readonly limiter: Limiter;
  private readonly sdk: OpenAI;
  private readonly retry: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly openCache?: () => ResponseCache | undefined;
  /** Set once the server has rejected json_schema; later requests go prompt-only at once. */
  private schemaUnsupported = false;

  constructor(opts: ChatClientOptions) {
    this.baseURL = opts.baseURL;
    this.limiter = new Limiter(opts.maxConcurrency ?? 64);
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.timeoutMs = opts.timeoutMs ?? 120_000;
    this.openCache = opts.cache;
    this.sdk = new (sdk().OpenAI)({ baseURL: opts.baseURL, apiKey: opts.apiKey, maxRetries: 0, timeout: this.timeoutMs });
  }

  /** Builds the HTTP body (what the cache key covers). */
  static body(req: ChatRequest, withSchema: boolean): Record<string, unknown> {
    const body: Record<string, unknown> = { ...req.extra_body, model: req.model, messages: req.messages };
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.top_p !== undefined) body.top_p = req.top_p;
    if (req.max_tokens !== undefined) body.max_tokens = req.max_tokens;
    if (req.n !== undefined && req.n !== 1) body.n = req.n;
    if (req.seed !== undefined) body.seed = req.seed;
    if (req.logprobs) {
      body.logprobs = true;
      if (req.top_logprobs !== undefined) body.top_logprobs = req.top_logprobs;
    }
    if (withSchema && req.json_schema) {
      body.response_format = {
        type: 'json_schema',
        json_schema: { name: req.json_schema.name, schema: req.json_schema.schema, strict: req.json_schema.strict ?? true },
      };
    }
    return body;
  }

  async chat(req: ChatRequest, opts: CallOptions = {}): Promise<ChatResult> {
    const withSchema = !!req.json_schema && !this.schemaUnsupported;
    const body = ChatClient.body(req, withSchema);
    const cache = opts.cache ? this.openCache?.() : undefined;
    // Keyed on the request as asked (schema included), whether or not this server needs the fallback.
    const key = cache?.enabled ? requestKey(this.baseURL, withSchema || !req.json_schema ? body : ChatClient.body(req, true)) : undefined;
    if (key) {
      const hit = cache!.get<Stored>(key);
      if (hit && Array.isArray(hit.choices)) {
        this.usage.cache_hits++;
        return { ...hit, cached: true, retries: 0, schema_fallback: false };
      }
    }
    const res = await this.limiter.run(() => this.send(body, req, opts), opts.signal);
    this.usage.prompt_tokens += res.usage.prompt_tokens;
    this.usage.completion_tokens += res.usage.completion_tokens;
    if (key) cache!.set(key, { choices: res.choices, usage: res.usage, model: res.model } satisfies Stored);
    return res;
  }

  private async send(body: Record<string, unknown>, req: ChatRequest, opts: CallOptions): Promise<ChatResult> {
    let retries = 0;
    let schemaFallback = false;
    let current = body;
    for (;;) {
      this.usage.requests++;
      try {
        const completion = (await this.sdk.chat.completions.create(current as never, {
          signal: opts.signal,
          timeout: opts.timeoutMs ?? this.timeoutMs,
          maxRetries: 0,
        })) as unknown;
        const out = normalise(completion);
        if (schemaFallback) this.schemaUnsupported = true;
        return { ...out, cached: false, retries, schema_fallback: schemaFallback };
      } catch (err) {
        if (opts.signal?.aborted) throw opts.signal.reason ?? err;
        const status = err instanceof sdk().APIError ? err.status : undefined;
        // A 400/422 to a request carrying json_schema: resend prompt-only once and remember.
        if ((status === 400 || status === 422) && current.response_format !== undefined && !schemaFallback) {
          schemaFallback = true;
          this.usage.schema_fallbacks++;
          current = ChatClient.body(req, false);
          continue;
        }
        const failure = classify(err);
        if (failure.retryable && retries < this.retry.maxRetries) {
          retries++;
          this.usage.retries++;
          await sleep(retryDelayMs(this.retry, retries, failure.retryAfterMs), opts.signal);
          continue;
        }
        this.usage.failures++;
        const attempts = retries + 1;
        const suffix = attempts > 1 ? ` (after ${attempts} attempts)` : '';
        throw new ModelError(failure.kind, `${failure.message}${suffix}`, { status, attempts, body: failure.body });
      }
    }
  }
}

interface Failure {
  kind: 'judge_server_error' | 'timeout';
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  body?: string;
}

function classify(err: unknown): Failure {
  if (err instanceof ModelError) return { kind: 'judge_server_error', message: err.message, retryable: false, body: err.body };
  if (err instanceof sdk().APIConnectionTimeoutError) return { kind: 'timeout', message: 'model server request timed out', retryable: true };
  if (err instanceof sdk().APIConnectionError) {
    const cause = (err as { cause?: { message?: string; code?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? err.message;
    return { kind: 'judge_server_error', message: `connection to model server failed: ${detail}`, retryable: true };
  }
  if (err instanceof sdk().APIError && typeof err.status === 'number') {
    const headers = err.headers as Headers | undefined;
    const body = err.error === undefined ? undefined : JSON.stringify(err.error).slice(0, ERROR_BODY_CHARS);
    return {
      kind: 'judge_server_error',
      message: `model server answered HTTP ${err.status}: ${err.message.slice(0, 300)}`,
      retryable: isRetryableStatus(err.status),
      retryAfterMs: headers ? retryAfterMs((n) => headers.get(n)) : undefined,
      body,
    };
  }
  const e = err as Error;
  return { kind: 'judge_server_error', message: `model server call failed: ${e?.name ?? 'Error'}: ${String(e?.message ?? e).slice(0, 300)}`, retryable: false };
}

function num(x: unknown): number {
  return typeof x === 'number' && Number.isFinite(x) ? x : 0;
}

/** Turns an SDK completion (or anything a server sent) into ChatResult fields; throws ModelError when unusable. */
export function normalise(completion: unknown): { choices: ChatChoice[]; usage: Usage; model: string } {
  const c = completion as { choices?: unknown; usage?: Record<string, unknown>; model?: unknown } | null;
  if (!c || typeof c !== 'object' || !Array.isArray(c.choices) || c.choices.length === 0) {
    const text = typeof completion === 'string' ? completion : JSON.stringify(completion) ?? String(completion);
    throw new ModelError('judge_server_error', 'model server sent a response without choices', { body: text.slice(0, ERROR_BODY_CHARS) });
  }
  const choices: ChatChoice[] = c.choices.map((raw, i) => {
    const ch = (raw ?? {}) as Record<string, unknown>;
    const msg = (ch.message ?? {}) as Record<string, unknown>;
    const out: ChatChoice = {
      index: typeof ch.index === 'number' ? ch.index : i,
      content: typeof msg.content === 'string' ? msg.content : '',
      finish_reason: typeof ch.finish_reason === 'string' ? ch.finish_reason : null,
    };
    const reasoning = msg.reasoning_content ?? msg.reasoning;
    if (typeof reasoning === 'string' && reasoning) out.reasoning = reasoning;
    if (typeof msg.refusal === 'string' && msg.refusal) out.refusal = msg.refusal;
    const lp = (ch.logprobs as { content?: unknown } | null | undefined)?.content;
    if (Array.isArray(lp)) out.logprobs = lp.map(normaliseToken);
    return out;
  });
  choices.sort((a, b) => a.index - b.index);
  const u = c.usage ?? {};
  const usage: Usage = {
    prompt_tokens: num(u.prompt_tokens),
    completion_tokens: num(u.completion_tokens),
    total_tokens: num(u.total_tokens) || num(u.prompt_tokens) + num(u.completion_tokens),
  };
  return { choices, usage, model: typeof c.model === 'string' ? c.model : '' };
}

function normaliseToken(t: unknown): TokenLogprob {
  const o = (t ?? {}) as { token?: unknown; logprob?: unknown; top_logprobs?: unknown };
  const top = Array.isArray(o.top_logprobs) ? o.top_logprobs : [];
  return {
    token: typeof o.token === 'string' ? o.token : '',
    logprob: typeof o.logprob === 'number' ? o.logprob : -Infinity,
    top_logprobs: top.map((x) => {
      const y = (x ?? {}) as { token?: unknown; logprob?: unknown };
      return { token: typeof y.token === 'string' ? y.token : '', logprob: typeof y.logprob === 'number' ? y.logprob : -Infinity };
    }),
  };
}
