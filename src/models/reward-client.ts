// Scalar reward-model client: scores conversations with a reward model served by vLLM (the /pooling
// endpoint with chat messages or text, or /classify) or SGLang (/classify, the embedding-style
// endpoint answering [{"embedding": [score]}] for chat-templated text). Text inputs are batched per
// request shape (URL, protocol, model, key and limits); which value of a result is the reward
// (`label_index`, `reduce`) is read per call, so graders sharing a batch never share that choice.
// Requests go through the shared bounded transport: deadline over headers and body, size cap, and
// retries within one budget per call.
import { stringifyExact } from '../core/json.js';
import { isRetryableStatus, retryAfterMs, type RetryPolicy } from './backoff.js';
import { ModelError, connectionFailureDetail } from './errors.js';
import { Limiter } from './limiter.js';
import { MicroBatcher } from './micro-batcher.js';
import {
  boundedFetch,
  CallFailed,
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  runAttempts,
  TransportError,
  type AttemptFailure,
} from './transport.js';
import type { ChatMessage } from './types.js';

export type RewardProtocol = 'vllm_pooling' | 'vllm_classify' | 'sglang';

export const REWARD_PATHS: Record<RewardProtocol, string> = { vllm_pooling: '/pooling', vllm_classify: '/classify', sglang: '/classify' };

/** Default cap on one reward response: a batch answer carries up to batch_size results. */
export const DEFAULT_REWARD_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_REWARD_CONCURRENCY = 16;

/** Which value of a (possibly multi-valued) result is the reward. */
export interface RewardPick {
  /** Token-level / embedding outputs: last (default for pooling), first (default for embeddings), or mean. */
  reduce?: 'last' | 'first' | 'mean';
  /** Class index for classify outputs and `first` (default 0). */
  labelIndex?: number;
}

export interface RewardClientOptions extends RewardPick {
  /** Server root (a trailing /v1 is dropped: these endpoints live at the root). */
  baseURL: string;
  apiKey?: string;
  protocol: RewardProtocol;
  model: string;
  /** Endpoint path override (default by protocol). */
  path?: string;
  /** Requests in flight at once (default 16); ignored when `limiter` is given. */
  maxConcurrency?: number;
  limiter?: Limiter;
  /** Texts per request (default 32). */
  batchSize?: number;
  /** How long a batch waits to fill (ms, default 2). */
  batchWaitMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Per-attempt deadline over connect, headers and body (ms, default 60 000). */
  timeoutMs?: number;
  /** Total budget of one request with its retries (ms, default 120 000). */
  callTimeoutMs?: number;
  /** Largest response body accepted (bytes, default 16 MiB). */
  maxResponseBytes?: number;
  /** Extra body fields sent with every request (e.g. vLLM's pooling `task`); model and inputs always win. */
  extraBody?: Record<string, unknown>;
}

export type RewardInput = { messages: ChatMessage[] } | { text: string };

export class RewardClient {
  readonly url: string;
  readonly limiter: Limiter;
  readonly usage = { requests: 0, batches: 0, items: 0, retries: 0, failures: 0 };
  private readonly batcher: MicroBatcher<string, unknown>;
  private readonly fetch: ReturnType<typeof boundedFetch>;

  constructor(readonly opts: RewardClientOptions) {
    this.url = RewardClient.urlOf(opts.baseURL, opts.path ?? REWARD_PATHS[opts.protocol]);
    this.limiter = opts.limiter ?? new Limiter(opts.maxConcurrency ?? DEFAULT_REWARD_CONCURRENCY);
    this.fetch = boundedFetch({ maxBytes: opts.maxResponseBytes ?? DEFAULT_REWARD_MAX_RESPONSE_BYTES });
    this.batcher = new MicroBatcher<string, unknown>({
      maxBatch: opts.batchSize ?? 32,
      maxWaitMs: opts.batchWaitMs ?? 2,
      send: (texts) => this.limiter.run(() => this.post(this.textBody(texts), texts.length)),
    });
  }

  /** The endpoint URL: the server root (a trailing /v1 dropped) plus the path. */
  static urlOf(baseURL: string, path: string): string {
    return baseURL.replace(/\/+$/, '').replace(/\/v1$/, '') + path;
  }

  /** Raw reward for one input, read with `pick` (default: the client's own reduce / labelIndex). */
  async score(input: RewardInput, signal?: AbortSignal, pick: RewardPick = this.opts): Promise<number> {
    return this.pick(await this.encode(input, signal), 0, pick);
  }

  /**
   * The server's whole result for one input (e.g. a vLLM pooling row `{index, data: [[...], ...]}`),
   * for callers that read more than one number from it (process rewards: one value per step). Text
   * inputs are batched like `score`'s.
   */
  async encode(input: RewardInput, signal?: AbortSignal): Promise<unknown> {
    this.usage.items++;
    if ('messages' in input) {
      if (this.opts.protocol !== 'vllm_pooling')
        throw new ModelError('config_error', `protocol ${this.opts.protocol} takes text (a chat-templated prompt), not messages`);
      const rows = await this.limiter.run(() => this.post({ ...this.opts.extraBody, model: this.opts.model, messages: input.messages }, 1, signal), signal);
      return rows[0];
    }
    return this.batcher.submit(input.text, signal);
  }

  private textBody(texts: string[]): Record<string, unknown> {
    const extra = this.opts.extraBody;
    return this.opts.protocol === 'sglang' ? { ...extra, model: this.opts.model, text: texts } : { ...extra, model: this.opts.model, input: texts };
  }

  /** One request (with retries): the results, one per input, in input order. */
  private async post(body: Record<string, unknown>, expected: number, signal?: AbortSignal): Promise<unknown[]> {
    this.usage.batches++;
    const budget = {
      retry: this.opts.retry,
      attemptTimeoutMs: this.opts.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      callTimeoutMs: this.opts.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    };
    try {
      const out = await runAttempts(
        budget,
        signal,
        async (s) => {
          this.usage.requests++;
          const res = await this.fetch(this.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
            body: stringifyExact(body), // item values may hold integers past 2^53 (BigInt)
            signal: s,
          });
          const text = await res.text();
          if (!res.ok)
            throw new HttpStatus(
              res.status,
              text,
              retryAfterMs((n) => res.headers.get(n)),
            );
          return this.rows(text, expected);
        },
        classifyReward,
        () => this.usage.retries++,
      );
      return out.value;
    } catch (e) {
      if (e instanceof CallFailed) {
        this.usage.failures++;
        throw new ModelError(e.failure.kind, e.failure.message, { status: e.failure.status, attempts: e.attempts, body: e.failure.body });
      }
      throw e;
    }
  }

  /** The per-input results of a vLLM pooling/classify or SGLang answer, in input order. */
  rows(text: string, expected: number): unknown[] {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ModelError('judge_server_error', 'reward server sent invalid JSON', { body: text.slice(0, 2000) });
    }
    const rows: unknown[] = Array.isArray(json) ? json : Array.isArray((json as { data?: unknown })?.data) ? (json as { data: unknown[] }).data : [];
    if (rows.length !== expected)
      throw new ModelError('judge_server_error', `reward server returned ${rows.length} results for ${expected} inputs`, { body: text.slice(0, 2000) });
    return rows.every((r) => typeof (r as { index?: unknown })?.index === 'number')
      ? [...rows].sort((a, b) => (a as { index: number }).index - (b as { index: number }).index)
      : rows;
  }

  /** The reward in one result, read as `pick` says. */
  pick(row: unknown, i: number, pick: RewardPick): number {
    const o = (row ?? {}) as Record<string, unknown>;
    const li = pick.labelIndex ?? 0;
    let v: unknown;
    if (Array.isArray(o.probs)) v = o.probs[li];
    else if (o.embedding !== undefined) v = pickNumber(flatten(o.embedding), pick.reduce ?? 'first', li);
    else if (o.data !== undefined) v = pickNumber(flatten(o.data), pick.reduce ?? 'last', li);
    else if (o.score !== undefined) v = o.score;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw new ModelError(
        'judge_server_error',
        `reward server result ${i} holds no finite score${pick.labelIndex !== undefined ? ` at label_index ${li}` : ''}`,
        { body: JSON.stringify(row)?.slice(0, 2000) },
      );
    }
    return v;
  }

  /** Rewards of a whole answer read with the client's own pick options (kept for callers and tests). */
  extract(text: string, expected: number): number[] {
    return this.rows(text, expected).map((r, i) => this.pick(r, i, this.opts));
  }
}

class HttpStatus extends Error {
  constructor(
    readonly status: number,
    readonly text: string,
    readonly retryAfter?: number,
  ) {
    super(`reward server answered HTTP ${status}: ${text.slice(0, 200)}`);
  }
}

function classifyReward(e: unknown, timedOut: boolean): AttemptFailure {
  if (timedOut) return { kind: 'timeout', message: 'reward server request timed out (no complete answer within the deadline)', retryable: true };
  if (e instanceof HttpStatus)
    return {
      kind: 'judge_server_error',
      message: e.message,
      retryable: isRetryableStatus(e.status),
      retryAfterMs: e.retryAfter,
      status: e.status,
      body: e.text.slice(0, 2000),
    };
  if (e instanceof ModelError) return { kind: e.kind === 'timeout' ? 'timeout' : 'judge_server_error', message: e.message, retryable: false, body: e.body };
  if (e instanceof TransportError) {
    return e.failure === 'too_large'
      ? { kind: 'limit_exceeded', message: e.message.replace('model server', 'reward server'), retryable: false, status: e.status }
      : { kind: 'judge_server_error', message: e.message, retryable: true, status: e.status };
  }
  return {
    kind: 'judge_server_error',
    message: `connection to reward server failed: ${connectionFailureDetail(e)}`,
    retryable: true,
  };
}

/** The numbers of a nested array in order (iterative: a deeply nested answer cannot overflow the stack). */
function flatten(x: unknown): number[] {
  const out: number[] = [];
  const stack: unknown[] = [x];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'number') out.push(v);
    else if (Array.isArray(v)) for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
  }
  return out;
}

function pickNumber(xs: number[], reduce: 'last' | 'first' | 'mean', labelIndex: number): number | undefined {
  if (xs.length === 0) return undefined;
  if (reduce === 'mean') return xs.reduce((a, b) => a + b, 0) / xs.length;
  if (reduce === 'first') return xs[labelIndex];
  return xs[xs.length - 1];
}
