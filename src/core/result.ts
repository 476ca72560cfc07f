// The one result shape every grader returns, the error-kind taxonomy, and helpers to build results.

/**
 * Why a grade could not be computed. `valid: false` results always carry one of these kinds;
 * a wrong answer is never an error (it is a valid result with a low score).
 */
export const ERROR_KINDS = {
  bad_input: 'the sample or dataset item is malformed or lacks what the grader needs (e.g. unparsable gold answer, bad JSONL line)',
  template_error: 'a {{...}} template referenced a variable that is missing from the sample or item',
  formula_error: 'a multi grader formula could not be evaluated (non-finite result, invalid component)',
  config_error: 'the grader configuration cannot be used for this sample (e.g. missing endpoint)',
  timeout: 'the grade did not finish within its time budget',
  sandbox_error: 'the code sandbox failed (could not start, crashed) — not the same as failing tests',
  python_error: 'a python grader raised an exception or returned a non-numeric value',
  judge_server_error: 'the model server failed (HTTP error, connection error, retries exhausted)',
  judge_parse_error: 'the model answered but no verdict could be parsed from its output',
  judge_refusal: 'the model refused to judge',
  limit_exceeded: 'an input the response cannot be blamed for (the item, the reference, a request) exceeded a hard limit (size, depth, step budget)',
  precision_lost: "a numeric comparison lost the precision to decide and could not recover it (the grader's arithmetic ran out, not the input)",
  internal_error: 'a bug in arbiter or a grader: an unexpected exception',
} as const;

export type ErrorKind = keyof typeof ERROR_KINDS;

export interface GradeError {
  kind: ErrorKind;
  message: string;
}

export interface ResultMetadata {
  /** Name of the grader (config `name`, or the key inside a multi grader). */
  grader: string;
  /** Grader type, e.g. `string_check`. */
  type: string;
  /** The grade's wall time in milliseconds, to the microsecond. */
  duration_ms: number;
  /** True when score >= pass_threshold (only when the grader has a pass_threshold). */
  passed?: boolean;
  [key: string]: unknown;
}

export interface Result {
  score: number | null;
  valid: boolean;
  error?: GradeError;
  reason?: string;
  components?: Record<string, Result>;
  steps?: number[];
  metadata: ResultMetadata;
}

/** What a grader's evaluate function returns on success; the runner adds validity and metadata. */
export interface Outcome {
  score: number;
  reason?: string;
  components?: Record<string, Result>;
  steps?: number[];
  metadata?: Record<string, unknown>;
}

/**
 * Thrown inside graders to say "this sample could not be graded". The runner turns it into an
 * invalid result; `metadata` (e.g. the raw judge output) is kept on the result.
 */
export class GradeFailure extends Error {
  readonly kind: ErrorKind;
  readonly metadata?: Record<string, unknown>;
  constructor(kind: ErrorKind, message: string, metadata?: Record<string, unknown>) {
    super(message);
    this.name = 'GradeFailure';
    this.kind = kind;
    this.metadata = metadata;
  }
}

/**
 * Thrown inside graders when what cannot be graded is the RESPONSE itself: over a size, depth or
 * count limit, injected verdict or special-token text, too many actions. The response is to blame,
 * so the runner turns it into a VALID result at the grader's floor score (0 unless the type's
 * range starts lower) with the message as the reason and `metadata.response_fault` naming the
 * kind of limit: never an invalid result, which trainers mask (advantage 0) and which would let a
 * bad response escape the penalty a wrong answer gets. Invalid (GradeFailure) stays for what the
 * response cannot be blamed for: a bad item or reference, a failed judge or sandbox, the grader's
 * own budget running out on a response within the documented limits.
 */
export class ResponseFault extends Error {
  readonly fault: ErrorKind | 'injected_verdict' | 'special_token' | 'unparsable';
  readonly floor: number;
  readonly metadata?: Record<string, unknown>;
  constructor(fault: ResponseFault['fault'], message: string, opts: { floor?: number; metadata?: Record<string, unknown> } = {}) {
    super(message);
    this.name = 'ResponseFault';
    this.fault = fault;
    this.floor = opts.floor ?? 0;
    this.metadata = opts.metadata;
  }
}

/**
 * The failure a composite grader raises when a child could not be graded: the child's error kind,
 * a message naming the child, and the components graded so far (kept on the invalid result).
 */
export function childFailure(what: string, child: Result, components: Record<string, Result>): GradeFailure {
  return new GradeFailure(child.error?.kind ?? 'internal_error', `${what} could not be graded: ${child.error?.message ?? 'invalid'}`, { components });
}

export function isErrorKind(x: unknown): x is ErrorKind {
  return typeof x === 'string' && Object.hasOwn(ERROR_KINDS, x);
}

/** Builds an invalid result. */
export function invalidResult(kind: ErrorKind, message: string, meta: { grader: string; type: string; duration_ms?: number; [k: string]: unknown }): Result {
  return {
    score: null,
    valid: false,
    error: { kind, message },
    metadata: { duration_ms: 0, ...meta },
  };
}
