// Chat-completion client for any OpenAI-compatible server (vLLM, SGLang, llama.cpp, Ollama, hosted
// APIs), built on the official `openai` SDK over the shared bounded transport: one client per full
// set of settings (key, retries, deadlines, size cap), a concurrency limit shared per endpoint, our
// own retry loop within one budget per call (backoff + Retry-After on 429/5xx/connection errors and
// bodies cut off mid-way), token usage totals, the on-disk cache (keyed by endpoint, key identity and
// full body), and a prompt-only fallback when a server rejects `response_format: json_schema`. Legacy
// text completions (`/completions`, raw prompts with token logprobs) go through the same pieces.
import type { OpenAI } from 'openai';
import { lazyRequire } from '../core/lazy.js';
import { isRetryableStatus, retryAfterMs, type RetryPolicy } from './backoff.js';
import { ModelError, connectionFailureDetail } from './errors.js';
import { Limiter } from './limiter.js';
import { keyIdentity, requestKey } from './request-key.js';
import type { ResponseCache } from './response-cache.js';
import {
  boundedFetch,
  CallFailed,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_MAX_RESPONSE_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  runAttempts,
  TransportError,
  type AttemptFailure,
} from './transport.js';
import type {
  ChatChoice,
  ChatRequest,
  ChatResult,
  ChatToolCall,
  CompletionChoice,
  CompletionLogprobs,
  CompletionRequest,
  CompletionResult,
  TokenLogprob,
  Usage,
} from './types.js';

const sdk = lazyRequire<typeof import('openai')>('openai');

export interface ChatClientOptions {
  baseURL: string;
  apiKey: string;
  /** Requests in flight to this endpoint at once (default 64); ignored when `limiter` is given. */
  maxConcurrency?: number;
  /** A concurrency limit shared with other clients of the same endpoint. */
  limiter?: Limiter;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt deadline in ms, covering connect, headers and the whole body (default 60 000). */
  timeoutMs?: number;
  /** Total budget of one call in ms: every attempt, backoff and Retry-After wait (default 120 000). */
  callTimeoutMs?: number;
  /** Largest response body accepted, in bytes (default 4 MiB). */
  maxResponseBytes?: number;
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
  private readonly retry: Partial<RetryPolicy>;
  private readonly timeoutMs: number;
  private readonly callTimeoutMs: number;
  private readonly keyId: string;
  private readonly openCache?: () => ResponseCache | undefined;
  /** Models for which the server rejected json_schema; later requests go prompt-only at once. */
  private readonly schemaUnsupported = new Set<string>();

  constructor(opts: ChatClientOptions) {
    this.baseURL = opts.baseURL;
    this.limiter = opts.limiter ?? new Limiter(opts.maxConcurrency ?? 64);
    this.retry = opts.retry ?? {};
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.callTimeoutMs = opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.keyId = keyIdentity(opts.apiKey);
    this.openCache = opts.cache;
    this.sdk = new (sdk().OpenAI)({
      baseURL: opts.baseURL,
      apiKey: opts.apiKey,
      maxRetries: 0,
      timeout: this.timeoutMs,
      fetch: boundedFetch({ maxBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES }),
    });
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
    const withSchema = !!req.json_schema && !this.schemaUnsupported.has(req.model);
    const body = ChatClient.body(req, withSchema);
    const cache = opts.cache ? this.openCache?.() : undefined;
    // Keyed on the request as asked (schema included), whether or not this server needs the fallback.
    const key = cache?.enabled ? requestKey(this.baseURL, withSchema || !req.json_schema ? body : ChatClient.body(req, true), this.keyId) : undefined;
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

  /** Builds the body of a legacy completions request (what the cache key covers). */
  static completionBody(req: CompletionRequest): Record<string, unknown> {
    const body: Record<string, unknown> = { ...req.extra_body, model: req.model, prompt: req.prompt };
    if (req.max_tokens !== undefined) body.max_tokens = req.max_tokens;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.top_p !== undefined) body.top_p = req.top_p;
    if (req.n !== undefined && req.n !== 1) body.n = req.n;
    if (req.seed !== undefined) body.seed = req.seed;
    if (req.logprobs !== undefined) body.logprobs = req.logprobs;
    if (req.stop !== undefined) body.stop = req.stop;
    return body;
  }

  /**
   * A legacy text completion (`POST {base}/completions`) through the same limiter, retry loop,
   * deadlines, size cap and cache as chat: raw prompts (a list is answered in one request), and the
   * legacy logprobs shape (`tokens`, `token_logprobs`, `top_logprobs`).
   */
  async complete(req: CompletionRequest, opts: CallOptions = {}): Promise<CompletionResult> {
    const body = ChatClient.completionBody(req);
    const cache = opts.cache ? this.openCache?.() : undefined;
    const key = cache?.enabled ? requestKey(this.baseURL, { endpoint: 'completions', body }, this.keyId) : undefined;
    if (key) {
      const hit = cache!.get<{ choices: CompletionChoice[]; usage: Usage; model: string }>(key);
      if (hit && Array.isArray(hit.choices)) {
        this.usage.cache_hits++;
        return { ...hit, cached: true, retries: 0 };
      }
    }
    const budget = { retry: this.retry, attemptTimeoutMs: opts.timeoutMs ?? this.timeoutMs, callTimeoutMs: this.callTimeoutMs };
    let res: CompletionResult;
    try {
      const out = await this.limiter.run(
        () =>
          runAttempts(
            budget,
            opts.signal,
            async (signal, ms) => {
              this.usage.requests++;
              return normaliseCompletion(await this.sdk.completions.create(body as never, { signal, timeout: ms + 1000, maxRetries: 0 }));
            },
            classify,
            () => this.usage.retries++,
          ),
        opts.signal,
      );
      res = { ...out.value, cached: false, retries: out.retries };
    } catch (e) {
      if (e instanceof CallFailed) {
        this.usage.failures++;
        throw new ModelError(e.failure.kind, e.failure.message, { status: e.failure.status, attempts: e.attempts, body: e.failure.body });
      }
      throw e;
    }
    this.usage.prompt_tokens += res.usage.prompt_tokens;
    this.usage.completion_tokens += res.usage.completion_tokens;
    if (key) cache!.set(key, { choices: res.choices, usage: res.usage, model: res.model });
    return res;
  }

  private async send(body: Record<string, unknown>, req: ChatRequest, opts: CallOptions): Promise<ChatResult> {
    let schemaFallback = false;
    let current = body;
    const budget = { retry: this.retry, attemptTimeoutMs: opts.timeoutMs ?? this.timeoutMs, callTimeoutMs: this.callTimeoutMs };
    try {
      const out = await runAttempts(
        budget,
        opts.signal,
        async (signal, ms) => {
          this.usage.requests++;
          try {
            // our signal carries the deadline; the SDK's own timer is a little later as a backstop
            return normalise(await this.sdk.chat.completions.create(current as never, { signal, timeout: ms + 1000, maxRetries: 0 }));
          } catch (err) {
            const status = err instanceof sdk().APIError ? err.status : undefined;
            // A 400/422 to a request carrying json_schema: resend prompt-only once and remember.
            if ((status === 400 || status === 422) && current.response_format !== undefined && !schemaFallback) {
              schemaFallback = true;
              this.usage.schema_fallbacks++;
              current = ChatClient.body(req, false);
              this.usage.requests++;
              return normalise(await this.sdk.chat.completions.create(current as never, { signal, timeout: ms + 1000, maxRetries: 0 }));
            }
            throw err;
          }
        },
        classify,
        () => this.usage.retries++,
      );
      if (schemaFallback) this.schemaUnsupported.add(req.model);
      return { ...out.value, cached: false, retries: out.retries, schema_fallback: schemaFallback };
    } catch (e) {
      if (e instanceof CallFailed) {
        this.usage.failures++;
        throw new ModelError(e.failure.kind, e.failure.message, { status: e.failure.status, attempts: e.attempts, body: e.failure.body });
      }
      throw e;
    }
  }
}

/** Maps an error from one SDK call (or from reading its answer) to how the retry loop treats it. */
export function classify(err: unknown, timedOut: boolean): AttemptFailure {
  if (timedOut) return { kind: 'timeout', message: 'model server request timed out (no complete answer within the deadline)', retryable: true };
  if (err instanceof ModelError)
    return { kind: err.kind === 'timeout' ? 'timeout' : 'judge_server_error', message: err.message, retryable: false, body: err.body };
  const cause = (err as { cause?: unknown })?.cause;
  const transport = err instanceof TransportError ? err : cause instanceof TransportError ? cause : undefined;
  if (transport) {
    return transport.failure === 'too_large'
      ? { kind: 'limit_exceeded', message: transport.message, retryable: false, status: transport.status }
      : { kind: 'judge_server_error', message: transport.message, retryable: true, status: transport.status };
  }
  if (err instanceof sdk().APIConnectionTimeoutError) return { kind: 'timeout', message: 'model server request timed out', retryable: true };
  if (err instanceof sdk().APIConnectionError) {
    return { kind: 'judge_server_error', message: `connection to model server failed: ${connectionFailureDetail(err)}`, retryable: true };
  }
  if (err instanceof sdk().APIError && typeof err.status === 'number') {
    const headers = err.headers as Headers | undefined;
    const body = err.error === undefined ? undefined : JSON.stringify(err.error).slice(0, ERROR_BODY_CHARS);
    return {
      kind: 'judge_server_error',
      message: `model server answered HTTP ${err.status}: ${err.message.slice(0, 300)}`,
      retryable: isRetryableStatus(err.status),
      retryAfterMs: headers ? retryAfterMs((n) => headers.get(n)) : undefined,
      status: err.status,
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
    const text = typeof completion === 'string' ? completion : (JSON.stringify(completion) ?? String(completion));
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
    if (Object.hasOwn(ch, 'stop_reason')) {
      const sr = ch.stop_reason;
      out.stop_reason = typeof sr === 'string' || typeof sr === 'number' ? sr : null;
    }
    const lp = (ch.logprobs as { content?: unknown } | null | undefined)?.content;
    if (Array.isArray(lp)) out.logprobs = lp.map(normaliseToken);
    if (Array.isArray(msg.tool_calls) && msg.tool_calls.length) out.tool_calls = msg.tool_calls.map(normaliseToolCall);
    return out;
  });
  choices.sort((a, b) => a.index - b.index);
  return { choices, usage: usageOf(c.usage), model: typeof c.model === 'string' ? c.model : '' };
}

/** A server's `usage` object as token counts (missing or malformed fields count 0). */
function usageOf(u: Record<string, unknown> = {}): Usage {
  return {
    prompt_tokens: num(u.prompt_tokens),
    completion_tokens: num(u.completion_tokens),
    total_tokens: num(u.total_tokens) || num(u.prompt_tokens) + num(u.completion_tokens),
  };
}

function normaliseToolCall(t: unknown, i: number): ChatToolCall {
  const o = (t ?? {}) as { id?: unknown; function?: { name?: unknown; arguments?: unknown } | null };
  const fn = o.function ?? {};
  const args = fn.arguments;
  return {
    id: typeof o.id === 'string' ? o.id : `call_${i}`,
    type: 'function',
    function: {
      name: typeof fn.name === 'string' ? fn.name : '',
      arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
    },
  };
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

/** Turns a legacy completions answer into CompletionResult fields; throws ModelError when unusable. */
export function normaliseCompletion(completion: unknown): { choices: CompletionChoice[]; usage: Usage; model: string } {
  const c = completion as { choices?: unknown; usage?: Record<string, unknown>; model?: unknown } | null;
  if (!c || typeof c !== 'object' || !Array.isArray(c.choices) || c.choices.length === 0) {
    const text = typeof completion === 'string' ? completion : (JSON.stringify(completion) ?? String(completion));
    throw new ModelError('judge_server_error', 'model server sent a completions response without choices', { body: text.slice(0, ERROR_BODY_CHARS) });
  }
  const choices: CompletionChoice[] = c.choices.map((raw, i) => {
    const ch = (raw ?? {}) as Record<string, unknown>;
    const out: CompletionChoice = {
      index: typeof ch.index === 'number' ? ch.index : i,
      text: typeof ch.text === 'string' ? ch.text : '',
      finish_reason: typeof ch.finish_reason === 'string' ? ch.finish_reason : null,
    };
    const lp = ch.logprobs as Record<string, unknown> | null | undefined;
    if (lp && typeof lp === 'object') out.logprobs = normaliseLegacyLogprobs(lp);
    return out;
  });
  choices.sort((a, b) => a.index - b.index);
  return { choices, usage: usageOf(c.usage), model: typeof c.model === 'string' ? c.model : '' };
}

/** The legacy logprobs object, keeping only well-formed entries (a malformed one becomes null, never a number). */
function normaliseLegacyLogprobs(lp: Record<string, unknown>): CompletionLogprobs {
  const tokens = Array.isArray(lp.tokens) ? lp.tokens.map((t) => (typeof t === 'string' ? t : '')) : [];
  const tl = Array.isArray(lp.token_logprobs) ? lp.token_logprobs.map((x) => (typeof x === 'number' ? x : null)) : [];
  const top = Array.isArray(lp.top_logprobs)
    ? lp.top_logprobs.map((m) => {
        if (!m || typeof m !== 'object' || Array.isArray(m)) return null;
        const o: Record<string, number> = {};
        for (const [k, v] of Object.entries(m as Record<string, unknown>)) if (typeof v === 'number') o[k] = v;
        return o;
      })
    : [];
  const out: CompletionLogprobs = { tokens, token_logprobs: tl, top_logprobs: top };
  if (Array.isArray(lp.text_offset)) out.text_offset = lp.text_offset.map((x) => (typeof x === 'number' && Number.isInteger(x) ? x : null));
  return out;
}
