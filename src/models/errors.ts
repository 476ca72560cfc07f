// The one error type the model clients throw: it names the grade error kind it maps to
// (server error, timeout, ...) so judges turn it into an invalid result without guessing.
import { GradeFailure, type ErrorKind } from '../core/result.js';

export type ModelErrorKind = Extract<ErrorKind, 'judge_server_error' | 'timeout' | 'config_error' | 'bad_input' | 'limit_exceeded'>;

export class ModelError extends Error {
  readonly kind: ModelErrorKind;
  /** HTTP status of the last failed attempt, when there was one. */
  readonly status?: number;
  /** Attempts made (1 + retries). */
  readonly attempts: number;
  /** Start of the server's error body, for diagnosis. */
  readonly body?: string;
  constructor(kind: ModelErrorKind, message: string, opts: { status?: number; attempts?: number; body?: string } = {}) {
    super(message);
    this.name = 'ModelError';
    this.kind = kind;
    this.status = opts.status;
    this.attempts = opts.attempts ?? 1;
    this.body = opts.body;
  }

  /** As a GradeFailure (what graders throw), keeping the status and body in metadata. */
  toGradeFailure(extra: Record<string, unknown> = {}): GradeFailure {
    const meta: Record<string, unknown> = { ...extra, attempts: this.attempts };
    if (this.status !== undefined) meta.http_status = this.status;
    if (this.body !== undefined) meta.raw = this.body;
    return new GradeFailure(this.kind, this.message, meta);
  }
}

/** Rethrows model errors as grade failures; other errors pass through unchanged. */
export function asGradeFailure(err: unknown, extra: Record<string, unknown> = {}): unknown {
  return err instanceof ModelError ? err.toGradeFailure(extra) : err;
}

// errno codes a connection fails with, in plain words
const ERRNO_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused: nothing listens there',
  ECONNRESET: 'the server closed the connection',
  ENOTFOUND: 'host name not found',
  EAI_AGAIN: 'host name lookup failed for now',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'the server closed the connection while the request was sent',
  UND_ERR_SOCKET: 'the socket closed unexpectedly',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no response headers in time',
  UND_ERR_BODY_TIMEOUT: 'the response body stalled',
  CERT_HAS_EXPIRED: 'the server certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server certificate is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the server certificate cannot be verified',
};

/**
 * What a failed connection was, from the innermost error of its cause chain that names one
 * ("ECONNREFUSED 127.0.0.1:9 (connection refused: nothing listens there)"), instead of fetch's
 * "fetch failed".
 */
export function connectionFailureDetail(e: unknown): string {
  let outer = '';
  let inner = '';
  let found: { code?: unknown; address?: unknown; port?: unknown; hostname?: unknown; message?: unknown } | undefined;
  let cur: unknown = e;
  for (let depth = 0; depth < 8 && cur && typeof cur === 'object'; depth++) {
    const c = cur as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (!outer && typeof c.message === 'string') outer = c.message;
    if (typeof c.message === 'string' && c.message) inner = c.message;
    if (typeof c.code === 'string') found = c as typeof found;
    // happy eyeballs: an AggregateError holds one error per address tried
    const next = c.cause ?? (Array.isArray(c.errors) ? c.errors[0] : undefined);
    cur = next;
  }
  if (!found || typeof found.code !== 'string') {
    // no errno: the innermost reason says what happened (fetch's "bad port": a port the Fetch standard blocks, e.g. 9)
    if (inner === 'bad port') return `${outer ? `${outer} ` : ''}(bad port: fetch refuses to connect to this port, one the Fetch standard blocks; use another)`;
    return inner && inner !== outer ? `${outer} (${inner})` : outer || String(e);
  }
  const where =
    typeof found.address === 'string'
      ? `${found.address}${typeof found.port === 'number' ? `:${found.port}` : ''}`
      : typeof found.hostname === 'string'
        ? found.hostname
        : '';
  const words = ERRNO_WORDS[found.code];
  return [found.code, where, words ? `(${words})` : typeof found.message === 'string' && !where ? `(${found.message})` : ''].filter(Boolean).join(' ');
}
