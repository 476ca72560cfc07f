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
 * The deadlines of the scopes that share one deadline length. They begin in order, so they expire in
 * order: one timer, set for the oldest scope still open, serves them all (a timer per request cost
 * more than grading a string_check; docs/server.md#benchmark). A scope that ends is dropped from the
 * front as soon as the scopes before it have ended, and the queue is compacted when ended ones behind
 * a long-running one outnumber the open ones, so it holds O(open scopes).
 */
class DeadlineQueue {
  private q: RequestScope[] = [];
  private head = 0;
  private open = 0;
  private timer: NodeJS.Timeout | undefined;

  add(s: RequestScope): void {
    this.trim();
    this.q.push(s);
    this.open++;
    if (this.timer === undefined) this.arm();
    else if (this.q.length - this.head > 1024 + 2 * this.open) {
      this.q = this.q.slice(this.head).filter((x) => !x.ended);
      this.head = 0;
    }
  }

  /**
   * A scope ended (its deadline no longer matters). The timer is left to fire (it then finds nothing
   * due and is set again only for open scopes): clearing and setting one per request is the cost
   * this queue avoids, since most requests end before the next one begins.
   */
  done(): void {
    this.open--;
    if (this.open === 0) {
      this.q = [];
      this.head = 0;
    }
  }

  private trim(): void {
    while (this.head < this.q.length && this.q[this.head]!.ended) this.q[this.head++] = undefined as never;
    if (this.head > 1024 && this.head * 2 > this.q.length) {
      this.q = this.q.slice(this.head);
      this.head = 0;
    }
  }

  private arm(): void {
    this.trim();
    const first = this.q[this.head];
    if (!first) return;
    // unref: an open request keeps the process alive through its socket, not through its deadline
    this.timer = setTimeout(() => this.fire(), Math.max(0, first.deadlineAt - Date.now())).unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    for (;;) {
      this.trim();
      const s = this.q[this.head];
      if (!s || s.deadlineAt > now) break;
      this.q[this.head++] = undefined as never;
      s.expire();
    }
    if (this.open > 0) this.arm();
  }
}

/** The deadline queues by deadline length (a server has one). */
const deadlineQueues = new Map<number, DeadlineQueue>();

/**
 * One request's grading scope. Its abort (deadline, client gone) is plain callbacks; the
 * AbortSignal handed to graders as `ctx.signal` is only created if a grader reads it, which keeps
 * the per-request cost low for the many graders that never do.
 */
export class RequestScope implements Cancellable, ExecutorRequest {
  private readonly deps: RunnerDeps;
  readonly deadlineAt: number;
  /** True once `end` was called. */
  ended = false;
  private readonly deadlines: DeadlineQueue;
  private ac?: AbortController;
  private reason?: GradeFailure;
  private listeners?: ((reason: unknown) => void)[];
  /** The context passed to `grader.grade`. */
  readonly ctx: GraderContext;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
    this.deadlineAt = Date.now() + deps.deadlineMs;
    let q = deadlineQueues.get(deps.deadlineMs);
    if (!q) deadlineQueues.set(deps.deadlineMs, (q = new DeadlineQueue()));
    this.deadlines = q;
    q.add(this);
    this.ctx = new ScopeContext(deps.services, this);
  }

  /** The request deadline passed (called by its DeadlineQueue). */
  expire(): void {
    if (this.ended) return;
    this.abort(new GradeFailure('timeout', `the request deadline of ${this.deps.deadlineMs} ms passed before this sample was graded`));
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
    if (this.ended) return;
    this.ended = true;
    this.deadlines.done();
    this.listeners = undefined;
  }

  /**
   * Calls `reply` with the results once every grade of `pending` (gradeNow's) is ready, and ends the
   * scope after it: in the same call when all were ready at once (no promise made), else when the
   * last settles. Returns `reply`'s value, or a promise of it; a throw in `reply` is thrown (or
   * rejected) as is.
   */
  whenGraded<T>(pending: (Result | Promise<Result>)[], reply: (results: Result[]) => T): T | Promise<T> {
    if (!pending.some((p) => p instanceof Promise)) {
      try {
        return reply(pending as Result[]);
      } finally {
        this.end();
      }
    }
    return Promise.all(pending)
      .then(reply)
      .finally(() => this.end());
  }

  /** Reserves queue room for `n` samples (throws QueueFullError); call before grading them. */
  admit(n: number): void {
    this.deps.admission.admit(n);
    this.deps.executor?.admit?.(n);
  }

  /**
   * Normalises a raw record (`{id?, item, sample}` or shorthand); a malformed one becomes an invalid
   * `bad_input` result instead of an exception. `maxDepth` as normalizeRecord's (Infinity: the
   * record comes from a body already bounded within the default).
   */
  normalize(g: Grader, rec: unknown, maxDepth?: number): GradeInput | Result {
    try {
      return normalizeRecord(rec, { maxDepth });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      return invalidResult(e instanceof GradeFailure ? e.kind : 'bad_input', message, { grader: g.name, type: g.type });
    }
  }

  /**
   * Grades one input with grader `g`; never rejects. `label` names the grader in metrics. `ctx`
   * replaces the scope's context (the group stage's); with `record` false the caller records the
   * grade itself (after a group stage has finished it). gradeNow's result, as a promise.
   */
  grade(g: Grader, label: string, input: GradeInput | Result, ctx: GraderContext = this.ctx, record = true): Promise<Result> {
    const r = this.gradeNow(g, label, input, ctx, record);
    return r instanceof Promise ? r : Promise.resolve(r);
  }

  /**
   * `grade`, its result returned as is when it is ready before this call returns (a free slot, no
   * executor, a grader whose `gradeNow` finished: a pure grader's common case), else the promise.
   * Never throws, never rejects.
   */
  gradeNow(g: Grader, label: string, input: GradeInput | Result, ctx: GraderContext = this.ctx, record = true): Result | Promise<Result> {
    const sample = 'sample' in input ? input : undefined;
    const done = (r: Result): Result => {
      if (record) this.deps.metrics.grade(label, r, sample);
      return r;
    };
    if (!sample) return done(input as Result);
    if (this.reason) return done(this.failed(g, this.reason));
    const wait = this.deps.admission.acquire(this);
    if (!wait) return this.run(g, sample, ctx, done);
    return wait.then(
      () => this.run(g, sample, ctx, done),
      (reason: unknown) => done(this.failed(g, reason)),
    );
  }

  /**
   * Grades `input` holding a slot. The slot is held until the grader really settles, even past the
   * deadline: in-flight counts stay honest and a grader that ignores its signal cannot pile up without
   * bound. The result is the grader's, or the abort's when the scope is aborted first; a result
   * ready at once (gradeNow) is returned as is, its slot already given back.
   */
  private run(g: Grader, input: GradeInput, ctx: GraderContext, done: (r: Result) => Result): Result | Promise<Result> {
    const { admission, executor } = this.deps;
    let p: Promise<Result>;
    try {
      const now = executor ? executor.grade(g, input, ctx, this) : g.gradeNow ? g.gradeNow(input, ctx) : g.grade(input, ctx);
      if (!(now instanceof Promise)) {
        admission.release();
        return done(now);
      }
      p = now;
    } catch (e) {
      p = Promise.reject(e);
    }
    return new Promise<Result>((resolve) => {
      let settled = false;
      const finish = (r: Result): void => {
        if (settled) return;
        settled = true;
        resolve(done(r));
      };
      p.then(
        (res) => {
          admission.release();
          finish(res);
        },
        (e: unknown) => {
          admission.release();
          finish(invalidResult('internal_error', `grader rejected: ${String(e)}`, { grader: g.name, type: g.type }));
        },
      );
      this.onAbort((reason) => finish(this.failed(g, reason)));
    });
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
