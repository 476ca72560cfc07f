// Retry policy for model servers: which failures are worth retrying, how long to wait
// (exponential backoff with jitter), and the server's Retry-After / retry-after-ms hints.

export interface RetryPolicy {
  /** Retries after the first attempt (0 = no retries). */
  maxRetries: number;
  /** First backoff delay in ms (doubles each retry). */
  baseDelayMs: number;
  /** Upper bound on any single wait, including a server's Retry-After. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000 };

/** HTTP statuses that are retried: rate limits, timeouts, conflicts and server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Parses a Retry-After delay in ms from `retry-after-ms` (ms), or `retry-after` (seconds, or an
 * HTTP date). Returns undefined when absent or unreadable.
 */
export function retryAfterMs(get: (name: string) => string | null | undefined, now = Date.now()): number | undefined {
  const ms = get('retry-after-ms');
  if (ms != null && ms.trim() !== '') {
    const v = Number(ms);
    if (Number.isFinite(v) && v >= 0) return v;
  }
  const ra = get('retry-after');
  if (ra == null || ra.trim() === '') return undefined;
  const secs = Number(ra);
  if (Number.isFinite(secs) && secs >= 0) return secs * 1000;
  const date = Date.parse(ra);
  if (Number.isFinite(date)) return Math.max(0, date - now);
  return undefined;
}

/** Delay before retry number `retry` (1-based): the server's hint if given, else jittered backoff. */
export function retryDelayMs(policy: RetryPolicy, retry: number, hintMs?: number, rand: () => number = Math.random): number {
  if (hintMs !== undefined) return Math.min(hintMs, policy.maxDelayMs);
  const exp = policy.baseDelayMs * 2 ** (retry - 1);
  const jittered = exp * (0.75 + 0.5 * rand());
  return Math.min(jittered, policy.maxDelayMs);
}

/** Sleeps `ms`, rejecting early with the signal's reason when aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
