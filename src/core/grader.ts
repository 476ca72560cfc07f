// The grader contract and the runner that wraps every grader's evaluate function: timing,
// timeouts, pass thresholds, the runner's reserved metadata fields, and turning every failure into
// an invalid result (nothing escapes).
import type { CapabilityUse } from './capabilities.js';
import { GradeFailure, ResponseFault, type Outcome, type Result } from './result.js';
import type { GradeInput } from './sample.js';
import type { Services } from './services.js';

export interface GraderContext {
  services: Services;
  /** Aborted when the caller gives up (deadline, shutdown); long-running graders should honour it. */
  signal?: AbortSignal;
}

/** A built grader: one async function of (sample, ctx). Never rejects. */
export interface Grader {
  readonly name: string;
  readonly type: string;
  /** The validated configuration this grader was built from. */
  readonly config: Readonly<Record<string, unknown>>;
  /** What grading can reach (the union over the grader's config tree), field paths from its root. */
  readonly capabilities: readonly CapabilityUse[];
  grade(input: GradeInput, ctx: GraderContext): Promise<Result>;
}

/** What a grader type implements: compute an outcome, or throw GradeFailure. */
export type Evaluate = (input: GradeInput, ctx: GraderContext) => Outcome | Promise<Outcome>;

export interface RunnerOptions {
  name: string;
  type: string;
  config: Record<string, unknown>;
  pass_threshold?: number;
  timeout_ms?: number;
  /** Declared capabilities; a grader made without them counts as `unsafe` (unknown reach). */
  capabilities?: readonly CapabilityUse[];
}

/**
 * Metadata fields the runner owns: `grader`, `type`, `duration_ms` on every result, `passed` with a
 * pass_threshold. A grader's own metadata may not use them.
 */
export const RESERVED_METADATA_KEYS: readonly string[] = Object.freeze(['grader', 'type', 'duration_ms', 'passed']);

/**
 * A grader's own metadata without the runner's fields. Returning one is a grader bug; rather than
 * let the runner silently overwrite it (or it the runner's), it is kept as `inner_<key>` (e.g. the
 * inner result's fields passed through by `threads`), unless the grader also set `inner_<key>`,
 * which then wins and the reserved one is dropped.
 */
export function ownMetadata(meta: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!meta) return {};
  let out: Record<string, unknown> | undefined;
  for (const k of RESERVED_METADATA_KEYS) {
    if (!Object.hasOwn(meta, k)) continue;
    out ??= { ...meta };
    const v = out[k];
    delete out[k];
    if (!Object.hasOwn(meta, `inner_${k}`)) out[`inner_${k}`] = v;
  }
  return out ?? meta;
}

/** Wraps an evaluate function into a Grader with the shared result semantics. */
export function makeGrader(opts: RunnerOptions, evaluate: Evaluate): Grader {
  const { name, type, pass_threshold, timeout_ms } = opts;
  const capabilities: readonly CapabilityUse[] = opts.capabilities ?? [
    { capability: 'unsafe', field: '', reason: `grader "${name}" (type ${type}) was made without a capability declaration, so what it can reach is unknown` },
  ];

  const finish = (out: Outcome, t0: number): Result => {
    const duration_ms = performance.now() - t0;
    if (typeof out?.score !== 'number' || !Number.isFinite(out.score)) {
      return {
        score: null,
        valid: false,
        error: { kind: 'internal_error', message: `grader returned a non-finite score: ${String(out?.score)}` },
        metadata: { grader: name, type, duration_ms },
      };
    }
    const r: Result = { score: out.score, valid: true, metadata: { grader: name, type, duration_ms, ...ownMetadata(out.metadata) } };
    if (pass_threshold !== undefined) r.metadata.passed = out.score >= pass_threshold;
    if (out.reason !== undefined) r.reason = out.reason;
    if (out.components !== undefined) r.components = out.components;
    if (out.steps !== undefined) r.steps = out.steps;
    return r;
  };

  const fail = (err: unknown, t0: number): Result => {
    if (err instanceof ResponseFault) {
      // the response's own doing: a valid floor score with the reason (see ResponseFault)
      const { components, ...meta } = err.metadata ?? {};
      const out: Outcome = { score: err.floor, reason: err.message, metadata: { ...meta, response_fault: err.fault } };
      if (components) out.components = components as Record<string, Result>;
      return finish(out, t0);
    }
    const duration_ms = performance.now() - t0;
    if (err instanceof GradeFailure) {
      const { components, ...meta } = err.metadata ?? {};
      const r: Result = {
        score: null,
        valid: false,
        error: { kind: err.kind, message: err.message },
        metadata: { grader: name, type, duration_ms, ...ownMetadata(meta) },
      };
      if (components) r.components = components as Record<string, Result>;
      return r;
    }
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    return { score: null, valid: false, error: { kind: 'internal_error', message }, metadata: { grader: name, type, duration_ms } };
  };

  let grade: Grader['grade'];
  if (!timeout_ms) {
    grade = async (input, ctx) => {
      const t0 = performance.now();
      try {
        const out = evaluate(input, ctx);
        return finish(out instanceof Promise ? await out : out, t0);
      } catch (err) {
        return fail(err, t0);
      }
    };
  } else {
    grade = async (input, ctx) => {
      const t0 = performance.now();
      const ac = new AbortController();
      const onParentAbort = () => ac.abort(ctx.signal?.reason);
      ctx.signal?.addEventListener('abort', onParentAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const e = new GradeFailure('timeout', `grader "${name}" did not finish within ${timeout_ms} ms`);
            ac.abort(e);
            reject(e);
          }, timeout_ms);
        });
        const out = await Promise.race([Promise.resolve().then(() => evaluate(input, { ...ctx, signal: ac.signal })), timeout]);
        return finish(out, t0);
      } catch (err) {
        return fail(err, t0);
      } finally {
        clearTimeout(timer);
        ctx.signal?.removeEventListener('abort', onParentAbort);
      }
    };
  }
  return { name, type, config: opts.config, capabilities, grade };
}
