// Scalar reward-model client: scores conversations with a reward model served by vLLM (the /pooling
// endpoint with chat messages or text, or /classify) or SGLang (/classify, the embedding-style
// endpoint answering [{"embedding": [score]}] for chat-templated text). Text inputs are batched;
// requests share the endpoint's concurrency limit and the chat client's retry policy.
import { DEFAULT_RETRY, isRetryableStatus, retryAfterMs, retryDelayMs, sleep, type RetryPolicy } from './backoff.js';
import { ModelError } from './errors.js';
import { Limiter } from './limiter.js';
import { MicroBatcher } from './micro-batcher.js';
import type { ChatMessage } from './types.js';

export type RewardProtocol = 'vllm_pooling' | 'vllm_classify' | 'sglang';

export const REWARD_PATHS: Record<RewardProtocol, string> = { vllm_pooling: '/pooling', vllm_classify: '/classify', sglang: '/classify' };

export interface RewardClientOptions {
  /** Server root (a trailing /v1 is dropped: these endpoints live at the root). */
  baseURL: string;
  apiKey?: string;
  protocol: RewardProtocol;
  model: string;
  /** Endpoint path override (default by protocol). */
  path?: string;
  maxConcurrency?: number;
  /** Texts per request (default 32). */
  batchSize?: number;
  /** How long a batch waits to fill (ms, default 2). */
  batchWaitMs?: number;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  /** Which value of a multi-valued output is the reward (default: the last token's / first class). */
  reduce?: 'last' | 'first' | 'mean';
  /** Class index for classify outputs (default 0). */
  labelIndex?: number;
}

export type RewardInput = { messages: ChatMessage[] } | { text: string };

const BODY_LIMIT = 64 * 1024 * 1024;

export class RewardClient {
  readonly url: string;
  readonly limiter: Limiter;
  readonly usage = { requests: 0, batches: 0, items: 0, retries: 0, failures: 0 };
  private readonly retry: RetryPolicy;
  private readonly batcher: MicroBatcher<string, number>;

  constructor(readonly opts: RewardClientOptions) {
    const root = opts.baseURL.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.url = root + (opts.path ?? REWARD_PATHS[opts.protocol]);
    this.limiter = new Limiter(opts.maxConcurrency ?? 16);
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    this.batcher = new MicroBatcher<string, number>({
      maxBatch: opts.batchSize ?? 32,
      maxWaitMs: opts.batchWaitMs ?? 2,
      send: (texts) => this.limiter.run(() => this.post(this.textBody(texts), texts.length)),
    });
  }

  /** Raw reward for one input. */
  async score(input: RewardInput, signal?: AbortSignal): Promise<number> {
    this.usage.items++;
    if ('messages' in input) {
      if (this.opts.protocol !== 'vllm_pooling') throw new ModelError('config_error', `protocol ${this.opts.protocol} takes text (a chat-templated prompt), not messages`);
      const out = await this.limiter.run(() => this.post({ model: this.opts.model, messages: input.messages }, 1, signal), signal);
      return out[0]!;
    }
    return this.batcher.submit(input.text);
  }

  private textBody(texts: string[]): Record<string, unknown> {
    return this.opts.protocol === 'sglang' ? { model: this.opts.model, text: texts } : { model: this.opts.model, input: texts };
  }

  private async post(body: Record<string, unknown>, expected: number, signal?: AbortSignal): Promise<number[]> {
    this.usage.batches++;
    let retries = 0;
    for (;;) {
      this.usage.requests++;
      let retryable = false;
      let hint: number | undefined;
      let status: number | undefined;
      let message: string;
      let raw: string | undefined;
      let kind: 'judge_server_error' | 'timeout' = 'judge_server_error';
      const timeout = AbortSignal.timeout(this.opts.timeoutMs ?? 120_000);
      try {
        const res = await fetch(this.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}) },
          body: JSON.stringify(body),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
        const text = await res.text();
        if (text.length > BODY_LIMIT) throw new ModelError('judge_server_error', `reward server answer is ${text.length} bytes (limit ${BODY_LIMIT})`);
        if (res.ok) return this.extract(text, expected);
        status = res.status;
        raw = text.slice(0, 2000);
        message = `reward server answered HTTP ${res.status}: ${text.slice(0, 200)}`;
        retryable = isRetryableStatus(res.status);
        hint = retryAfterMs((n) => res.headers.get(n));
      } catch (e) {
        if (signal?.aborted) throw signal.reason ?? e;
        if (e instanceof ModelError) {
          this.usage.failures++;
          throw e;
        }
        const err = e as Error & { cause?: { code?: string; message?: string } };
        if (timeout.aborted) {
          kind = 'timeout';
          message = 'reward server request timed out';
        } else message = `connection to reward server failed: ${err.cause?.code ?? err.cause?.message ?? err.message}`;
        retryable = true;
      }
      if (retryable && retries < this.retry.maxRetries) {
        retries++;
        this.usage.retries++;
        await sleep(retryDelayMs(this.retry, retries, hint), signal);
        continue;
      }
      this.usage.failures++;
      throw new ModelError(kind, retries ? `${message} (after ${retries + 1} attempts)` : message, { status, attempts: retries + 1, body: raw });
    }
  }

  /** Pulls one number per input out of a vLLM pooling/classify or SGLang answer. */
  extract(text: string, expected: number): number[] {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new ModelError('judge_server_error', 'reward server sent invalid JSON', { body: text.slice(0, 2000) });
    }
    const rows: unknown[] = Array.isArray(json) ? json : Array.isArray((json as { data?: unknown })?.data) ? (json as { data: unknown[] }).data : [];
    if (rows.length !== expected) throw new ModelError('judge_server_error', `reward server returned ${rows.length} results for ${expected} inputs`, { body: text.slice(0, 2000) });
    const ordered = rows.every((r) => typeof (r as { index?: unknown })?.index === 'number')
      ? [...rows].sort((a, b) => (a as { index: number }).index - (b as { index: number }).index)
      : rows;
    return ordered.map((r, i) => {
      const o = (r ?? {}) as Record<string, unknown>;
      const li = this.opts.labelIndex ?? 0;
      let v: unknown;
      if (Array.isArray(o.probs)) v = o.probs[li];
      else if (o.embedding !== undefined) v = pickNumber(flatten(o.embedding), this.opts.reduce ?? 'first', li);
      else if (o.data !== undefined) v = pickNumber(flatten(o.data), this.opts.reduce ?? 'last', li);
      else if (o.score !== undefined) v = o.score;
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        throw new ModelError('judge_server_error', `reward server result ${i} holds no finite score`, { body: JSON.stringify(r).slice(0, 2000) });
      }
      return v;
    });
  }
}

function flatten(x: unknown): number[] {
  if (typeof x === 'number') return [x];
  if (Array.isArray(x)) return x.flatMap(flatten);
  return [];
}

function pickNumber(xs: number[], reduce: 'last' | 'first' | 'mean', labelIndex: number): number | undefined {
  if (xs.length === 0) return undefined;
  if (reduce === 'mean') return xs.reduce((a, b) => a + b, 0) / xs.length;
  if (reduce === 'first') return xs[labelIndex];
  return xs[xs.length - 1];
}
