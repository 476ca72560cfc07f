// The one path from a request to the core: every endpoint grades through `RequestScope.grade`, which
// takes a queue slot, calls `grader.grade(input, {services, signal})` (or hands the sample to an
// `Executor`, such as the Redis queue's, that grades it elsewhere) and records metrics. The scope
// aborts at the request deadline or when the client goes away; a sample still queued or grading
// then gets an invalid `timeout` result, so the response is never held hostage.
import { setMaxListeners } from 'node:events';
import type { Registry } from 'prom-client';
import type { Grader, GraderContext } from '../core/grader.js';
import { GradeFailure, invalidResult, type Result } from '../core/result.js';
import { normalizeRecord, type GradeInput } from '../core/sample.js';
import type { Services } from '../core/services.js';
import type { Admission, Cancellable } from './admission.js';
import type { ServerMetrics } from './metrics.js';

/** What an executor sees of the request a sample belongs to. */
export interface ExecutorRequest {
  /** The request's deadline, epoch milliseconds. */
  readonly deadlineAt: number;
  /** Runs once when the request is aborted (deadline passed, client gone). */
  onAbort(cb: (reason: unknown) => void): void;
}

/**
 * Where the samples of served graders are graded when not in this process (the default): e.g. the
 * Redis queue (src/queue), which hands them to worker processes. The scope still owns admission,
 * deadlines, ordering and metrics, so every endpoint behaves the same whatever the executor.
 */
export interface Executor {
  /** Grades one sample; never rejects. The scope answers `timeout` itself at the deadline. */
  grade(g: Grader, input: GradeInput, ctx: GraderContext, req: ExecutorRequest): Promise<Result>;
  /** Extra admission for `n` samples (throws QueueFullError), after the local queue's. */
  admit?(n: number): void;
  /** Why samples of `g` may be late (appended to their timeout messages), if known. */
  timeoutDetail?(g: Grader): string | undefined;
  /** State for /healthz. */
  health?(): Record<string, unknown>;
  /** Called once after the last request finished. */
  close(): Promise<void>;
}

/** What an executor factory gets from the server it is built for. */
export interface ExecutorEnv {
  /** The served graders by name (inline graders are not among them: they are graded in-process). */
  graders: ReadonlyMap<string, Grader>;
  services: Services;
  deadlineMs: number;
  /** The server's metrics registry, for the executor's own metrics. */
  registry: Registry;
  /** The most samples one request may carry. */
  maxBatch: number;
}

export type ExecutorFactory = (env: ExecutorEnv) => Executor;

export interface RunnerDeps {
  admission: Admission;
  services: Services;
  metrics: ServerMetrics;
  deadlineMs: number;
  /** Grades elsewhere; absent = in this process. */
  executor?: Executor;
}

/**
 * The grader context of a scope: its `signal` is the scope's, made on first read. A class (its getter
 * on the prototype): an object literal with a getter costs about 1 µs to build, several times the
 * rest of a scope.
 */
class ScopeContext implements GraderContext {
  constructor(
    readonly services: Services,
    private readonly scope: RequestScope,
  ) {}
  get signal(): AbortSignal {
    return this.scope.signal;
  }
}

/**
 * One request's grading scope. Its abort (deadline, client gone) is plain callbacks; the
 * AbortSignal handed to graders as `ctx.signal` is only created if a grader reads it, which keeps
 * the per-request cost low for the many graders that never do.
 */
export class RequestScope implements Cancellable, ExecutorRequest {
  private readonly deps: RunnerDeps;
  readonly deadlineAt: number;
  private readonly timer: NodeJS.Timeout;
  private ac?: AbortController;
  private reason?: GradeFailure;
  private listeners?: ((reason: unknown) => void)[];
  /** The context passed to `grader.grade`. */
  readonly ctx: GraderContext;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
    this.deadlineAt = Date.now() + deps.deadlineMs;
    this.timer = setTimeout(() => {
      this.abort(new GradeFailure('timeout', `the request deadline of ${deps.deadlineMs} ms passed before this sample was graded`));
    }, deps.deadlineMs);
    this.ctx = new ScopeContext(deps.services, this);
  }

  /** Aborted at the deadline or when the client goes away. */
  get signal(): AbortSignal {
    if (!this.ac) {
      this.ac = new AbortController();
      // every grader with a timeout in a large batch listens to this one signal
      setMaxListeners(0, this.ac.signal);
      if (this.reason) this.ac.abort(this.reason);
    }
    return this.ac.signal;
  }

  onAbort(cb: (reason: unknown) => void): void {
    if (this.reason) cb(this.reason);
    else (this.listeners ??= []).push(cb);
  }

  private abort(reason: GradeFailure): void {
    if (this.reason) return;
    this.reason = reason;
    this.ac?.abort(reason);
    const l = this.listeners;
    this.listeners = undefined;
    if (l) for (const cb of l) cb(reason);
  }

  /** The client went away: stop waiting for (and queueing) this request's grades. */
  cancel(): void {
    this.abort(new GradeFailure('timeout', 'the client closed the connection before this sample was graded'));
  }

  end(): void {
    clearTimeout(this.timer);
    this.listeners = undefined;
  }

  /** Reserves queue room for `n` samples (throws QueueFullError); call before grading them. */
  admit(n: number): void {
    this.deps.admission.admit(n);
    this.deps.executor?.admit?.(n);
  }

  /**
   * Normalises a raw record (`{id?, item, sample}` or shorthand); a malformed one becomes an invalid
   * `bad_input` result instead of an exception.
   */
  normalize(g: Grader, rec: unknown): GradeInput | Result {
    try {
      return normalizeRecord(rec);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return invalidResult(e instanceof GradeFailure ? e.kind : 'bad_input', message, { grader: g.name, type: g.type });
    }
  }

  /**
   * Grades one input with grader `g`; never rejects. `label` names the grader in metrics. `ctx`
   * replaces the scope's context (the group stage's); with `record` false the caller records the
   * grade itself (after a group stage has finished it).
   */
  async grade(g: Grader, label: string, input: GradeInput | Result, ctx: GraderContext = this.ctx, record = true): Promise<Result> {
    const { admission, metrics } = this.deps;
    let r: Result;
    if (!('sample' in input)) r = input;
    else if (this.reason) r = this.failed(g, this.reason);
    else {
      const wait = admission.acquire(this);
      let ok = true;
      if (wait) {
        try {
          await wait;
        } catch (reason) {
          ok = false;
          r = this.failed(g, reason);
        }
      }
      if (ok) {
        // The slot is held until the grader really settles, even past the deadline: in-flight
        // counts stay honest and a grader that ignores its signal cannot pile up without bound.
        const ex = this.deps.executor;
        const p = ex ? ex.grade(g, input, ctx, this) : g.grade(input, ctx);
        r = await new Promise<Result>((resolve) => {
          p.then(
            (res) => {
              admission.release();
              resolve(res);
            },
            (e: unknown) => {
              admission.release();
              resolve(invalidResult('internal_error', `grader rejected: ${String(e)}`, { grader: g.name, type: g.type }));
            },
          );
          this.onAbort((reason) => resolve(this.failed(g, reason)));
        });
      }
    }
    if (record) metrics.grade(label, r!, 'sample' in input ? input : undefined);
    return r!;
  }

  private failed(g: Grader, reason: unknown): Result {
    const f = toFailure(reason);
    const detail = f.kind === 'timeout' ? this.deps.executor?.timeoutDetail?.(g) : undefined;
    return invalidResult(f.kind, detail ? `${f.message} (${detail})` : f.message, { grader: g.name, type: g.type });
  }
}

function toFailure(reason: unknown): GradeFailure {
  if (reason instanceof GradeFailure) return reason;
  return new GradeFailure('timeout', reason instanceof Error ? reason.message : 'the request was aborted');
}
