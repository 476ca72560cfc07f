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
