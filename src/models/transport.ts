// The HTTP layer every model client shares (chat completions through the openai SDK, reward models
// and embeddings): a fetch that reads the whole response body before resolving, under the caller's
// abort signal (so one deadline covers connecting, headers and body) and a byte cap enforced while
// the body streams; and the retry loop with one total budget per call (attempts, backoff and
// Retry-After waits included), so no server can hold a grade longer than it says.
import { DEFAULT_RETRY, retryDelayMs, sleep, type RetryPolicy } from './backoff.js';

/** Default per-attempt deadline (connect + headers + whole body), ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/** Default total budget of one model call: every attempt, backoff and Retry-After wait, ms. */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;
/** Default cap on one response body (bytes, after decompression). */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Why reading a response failed in a way fetch itself does not report. */
export type TransportFailure = 'too_large' | 'body_closed';

/** Thrown by boundedFetch: the body was over the cap, or the connection closed before it ended. */
export class TransportError extends Error {
  constructor(
    readonly failure: TransportFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

export interface BoundedFetchOptions {
  /** Most body bytes accepted (after decompression). */
  maxBytes: number;
  /** Name of the config field that sets maxBytes (for the error message). */
  field?: string;
}

type FetchFn = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A fetch that resolves only once the whole body has arrived, holding it in memory; aborted by
 * `init.signal` at any point (so a deadline on that signal covers the body too). Rejects with a
 * TransportError when the body exceeds `maxBytes` (checked against Content-Length first, then while
 * streaming) or when the connection closes mid-body; abort errors pass through unchanged.
 */
export function boundedFetch(opts: BoundedFetchOptions): FetchFn {
  const field = opts.field ?? 'max_response_bytes';
  return async (input, init) => {
    const res = await fetch(input, init);
    const tooLarge = (n: number | string) =>
      new TransportError('too_large', `model server response is larger than ${opts.maxBytes} bytes (${n}); raise "${field}" if this is expected`, res.status);
    const declared = Number(res.headers.get('content-length'));
    if (Number.isFinite(declared) && declared > opts.maxBytes) {
      await res.body?.cancel().catch(() => undefined);
      throw tooLarge(`Content-Length ${declared}`);
    }
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    if (!res.body || NULL_BODY.has(res.status)) {
      return new Response(NULL_BODY.has(res.status) ? null : '', { status: res.status, statusText: res.statusText, headers });
    }
    const encoding = res.headers.get('content-encoding');
    if (Number.isFinite(declared) && res.headers.has('content-length') && (!encoding || encoding === 'identity')) {
      // framed by a Content-Length within the cap and not compressed: the body cannot grow past it
      try {
        return new Response(await res.arrayBuffer(), { status: res.status, statusText: res.statusText, headers });
      } catch (e) {
        throw readFailure(e, init, 0, res.status);
      }
    }
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        if (total > opts.maxBytes) {
          await reader.cancel().catch(() => undefined);
          throw tooLarge(`at least ${total} bytes`);
        }
        chunks.push(value);
      }
    } catch (e) {
      if (e instanceof TransportError) throw e;
      throw readFailure(e, init, total, res.status);
    }
    const body = new Uint8Array(total);
    let at = 0;
    for (const c of chunks) {
      body.set(c, at);
      at += c.byteLength;
    }
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}

/** An error while reading a body: the abort reason when the signal fired, else a mid-body close. */
function readFailure(e: unknown, init: RequestInit | undefined, bytes: number, status: number): unknown {
  if (init?.signal?.aborted) return init.signal.reason ?? e;
  const err = e as Error & { cause?: { code?: string; message?: string } };
  const detail = err.cause?.code ?? err.cause?.message ?? err.message;
  return new TransportError(
    'body_closed',
    `connection closed ${bytes ? `after ${bytes} bytes of` : 'before the end of'} the response body (${detail})`,
    status,
  );
}

/** How one failed attempt should be handled. */
export interface AttemptFailure {
  kind: 'judge_server_error' | 'timeout' | 'limit_exceeded';
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
  status?: number;
  body?: string;
}

export interface CallBudget {
  retry?: Partial<RetryPolicy>;
  /** Deadline of one attempt (connect + headers + body). */
  attemptTimeoutMs: number;
  /** Total budget of the call: attempts, backoff and Retry-After waits. */
  callTimeoutMs: number;
}

export interface CallOutcome<T> {
  value: T;
  retries: number;
}

/** Thrown by runAttempts when the call failed for good (the caller maps it to its own error). */
export class CallFailed extends Error {
  constructor(
    readonly failure: AttemptFailure,
    readonly attempts: number,
  ) {
    super(failure.message);
    this.name = 'CallFailed';
  }
}

/**
 * Runs `attempt` until it succeeds, a failure is not retryable, retries run out, or the call's total
 * budget is spent. Each attempt gets a signal that aborts at min(attempt deadline, budget left) or
 * when `signal` aborts; an abort of `signal` itself is rethrown as its reason. A retry whose wait
 * would end past the budget is not made.
 */
export async function runAttempts<T>(
  budget: CallBudget,
  signal: AbortSignal | undefined,
  attempt: (attemptSignal: AbortSignal, timeoutMs: number) => Promise<T>,
  classify: (err: unknown, timedOut: boolean) => AttemptFailure,
  onRetry?: () => void,
): Promise<CallOutcome<T>> {
  const retry = { ...DEFAULT_RETRY, ...budget.retry };
  const deadline = Date.now() + budget.callTimeoutMs;
  let retries = 0;
  for (;;) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const left = deadline - Date.now();
    const ms = Math.max(1, Math.min(budget.attemptTimeoutMs, left));
    const timer = AbortSignal.timeout(ms);
    const s = signal ? AbortSignal.any([signal, timer]) : timer;
    let failure: AttemptFailure;
    try {
      return { value: await attempt(s, ms), retries };
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      failure = classify(e, timer.aborted);
    }
    if (failure.retryable && retries < retry.maxRetries) {
      const wait = retryDelayMs(retry, retries + 1, failure.retryAfterMs);
      if (Date.now() + wait < deadline) {
        retries++;
        onRetry?.();
        await sleep(wait, signal);
        continue;
      }
      // retries are left but the budget is not: say so
      const attempts = retries + 1;
      throw new CallFailed(
        { ...failure, message: `${failure.message} (call budget of ${budget.callTimeoutMs} ms spent after ${attempts} attempt${attempts > 1 ? 's' : ''})` },
        attempts,
      );
    }
    const attempts = retries + 1;
    throw new CallFailed({ ...failure, message: attempts > 1 ? `${failure.message} (after ${attempts} attempts)` : failure.message }, attempts);
  }
}
