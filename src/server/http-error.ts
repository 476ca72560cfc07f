// An error that maps to an HTTP status and a JSON error body, the body shape every endpoint uses,
// and the one mapping from anything a request can throw to its status, headers and body (fastify's
// error handler and the fast lane both answer with it).
import type { FastifyError } from 'fastify';
import { QueueFullError } from './admission.js';

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;
  constructor(status: number, code: string, message: string, extra: { details?: unknown; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.details = extra.details;
    this.headers = extra.headers;
  }
}

/** OpenAI-style error body: `{error: {message, type, code}}` (+ `details` when there are any). */
export function errorBody(code: string, message: string, details?: unknown): { error: Record<string, unknown> } {
  const error: Record<string, unknown> = { message, type: code, code };
  if (details !== undefined) error.details = details;
  return { error };
}

/** What a request that failed with some error is answered with. */
export interface ErrorReply {
  status: number;
  headers?: Record<string, string>;
  body: { error: Record<string, unknown> };
  /** The queue was full (counted as a rejection). */
  queueFull?: boolean;
  /** Not a client error: an unexpected failure worth logging. */
  unexpected?: boolean;
}

/** The reply for an error thrown while handling a request; `contentType` is the request's header (for 415). */
export function errorReply(err: FastifyError | HttpError | QueueFullError | Error, contentType: string | undefined): ErrorReply {
  if (err instanceof HttpError) return { status: err.status, headers: err.headers, body: errorBody(err.code, err.message, err.details) };
  if (err instanceof QueueFullError) {
    return { status: 429, headers: { 'retry-after': String(err.retryAfterS) }, body: errorBody('queue_full', err.message), queueFull: true };
  }
  const status = (err as FastifyError).statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const fc = (err as FastifyError).code ?? '';
    if (status === 415) {
      const got = contentType === undefined ? 'no content-type header' : `content-type ${JSON.stringify(contentType.slice(0, 100))}`;
      return {
        status: 415,
        body: errorBody('unsupported_media_type', `unsupported media type: the request has ${got}; send the body as JSON with content-type: application/json`),
      };
    }
    const code = status === 413 ? 'body_too_large' : /JSON/.test(fc) ? 'malformed_json' : 'invalid_request';
    return { status, body: errorBody(code, err.message) };
  }
  return { status: 500, body: errorBody('internal_error', `internal error: ${err.message}`), unexpected: true };
}
