// An error that maps to an HTTP status and a JSON error body, and the body shape every endpoint uses.

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
