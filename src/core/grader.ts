// The grader contract and the runner that wraps every grader's evaluate function: timing,
// timeouts, pass thresholds, the runner's reserved metadata fields, and turning every failure into
// an invalid result (nothing escapes).
import type { CapabilityUse } from './capabilities.js';
import { GradeFailure, ResponseFault, type Outcome, type Result } from './result.js';
import type { GradeInput } from './sample.js';
import type { Services } from './services.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, StartupGate, type StartupItem, type WarmOptions } from './startup.js';

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
  /**
   * The same grade, its result returned as is when it is ready before this call returns (a pure
   * grader's evaluate with no timeout and nothing to start), else the promise `grade` gives. The
   * server's hot routes call it to skip a promise per sample. Never throws, never rejects.
   */
  gradeNow?(input: GradeInput, ctx: GraderContext): Result | Promise<Result>;
  /**
   * Starts and warms what grading needs with these services (tokenizers, worker threads; see
   * core/startup.ts) and resolves with what it started; once per services and mode, never
   * rejects. Absent when the grader needs nothing started. A grade that comes first starts it
   * and waits for it outside its budget. Call it through `warmGrader`.
   */
  warm?(services: Services, opts?: WarmOptions): Promise<StartupItem[]>;
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
  /**
   * Starts what the grader needs before its first grade (`deadline`: its grades run under a
   * deadline, see WarmOptions); the runner waits for it before a grade's budget starts.
   */
  warm?: (services: Services, deadline: boolean) => Promise<StartupItem[]>;
  /** Whether `warm` depends on `deadline` (else one start-up serves both). */
  warmDependsOnDeadline?: boolean;
  /** Longest wait for start-up before a grade is a start-up `timeout` (default DEFAULT_STARTUP_TIMEOUT_MS). */
  startup_timeout_ms?: number;
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

/**
 * Milliseconds since `t0` (performance.now()), to the microsecond: the clock's float noise
 * (0.3042209999999841) says nothing, and a number with few digits is written about 5 times
 * faster (every reply writes one per result).
 */
function elapsedMs(t0: number): number {
  return Math.round((performance.now() - t0) * 1000) / 1000;
}

/** Wraps an evaluate function into a Grader with the shared result semantics. */
export function makeGrader(opts: RunnerOptions, evaluate: Evaluate): Grader {
  const { name, type, pass_threshold, timeout_ms } = opts;
  const capabilities: readonly CapabilityUse[] = opts.capabilities ?? [
    { capability: 'unsafe', field: '', reason: `grader "${name}" (type ${type}) was made without a capability declaration, so what it can reach is unknown` },
  ];

  const finish = (out: Outcome, t0: number): Result => {
    const duration_ms = elapsedMs(t0);
    if (typeof out?.score !== 'number' || !Number.isFinite(out.score)) {
      return {
        score: null,
        valid: false,
        error: { kind: 'internal_error', message: `grader returned a non-finite score: ${String(out?.score)}` },
        metadata: { grader: name, type, duration_ms },
      };
    }
    // without metadata of the grader's own, a literal (a spread of an empty object still costs a copy)
    const metadata = out.metadata === undefined ? { grader: name, type, duration_ms } : { grader: name, type, duration_ms, ...ownMetadata(out.metadata) };
    const r: Result = { score: out.score, valid: true, metadata };
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
    const duration_ms = elapsedMs(t0);
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
  let gradeNow: Grader['gradeNow'];
  if (!timeout_ms) {
    // an evaluate that returns its outcome (not a promise) is finished in the same call
    const now = (input: GradeInput, ctx: GraderContext): Result | Promise<Result> => {
      const t0 = performance.now();
      try {
        const out = evaluate(input, ctx);
        if (out instanceof Promise) return out.then((o) => finish(o, t0)).catch((err: unknown) => fail(err, t0));
        return finish(out, t0);
      } catch (err) {
        return fail(err, t0);
      }
    };
    gradeNow = now;
    grade = async (input, ctx) => now(input, ctx);
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
  if (!opts.warm) return { name, type, config: opts.config, capabilities, grade, ...(gradeNow ? { gradeNow } : {}) };
  const gate = new StartupGate(name, opts.warm, opts.startup_timeout_ms ?? DEFAULT_STARTUP_TIMEOUT_MS);
  const byDeadline = opts.warmDependsOnDeadline === true;
  const run = grade;
  // start-up runs before the budget: a grade that arrives while it is running waits outside timeout_ms
  const gated: Grader['grade'] = async (input, ctx) => {
    const deadline = byDeadline && ctx.signal !== undefined;
    if (!gate.ready(ctx.services, deadline)) {
      const t0 = performance.now();
      try {
        await gate.wait(ctx.services, deadline, ctx.signal);
      } catch (e) {
        return fail(e instanceof GradeFailure ? e : new GradeFailure('timeout', `grade aborted while its grader was starting: ${String(e)}`), t0);
      }
    }
    return run(input, ctx);
  };
  return {
    name,
    type,
    config: opts.config,
    capabilities,
    grade: gated,
    warm: (services, w) => gate.start(services, byDeadline && w?.deadline === true),
  };
}
