// The one path from a request to the core: every endpoint grades through `RequestScope.grade`, which
// takes a queue slot, calls `grader.grade(input, {services, signal})` and records metrics. The
// scope's signal aborts at the request deadline or when the client goes away; a sample still
// queued or grading then gets an invalid `timeout` result, so the response is never held hostage.
import type { Grader } from '../core/grader.js';
import { GradeFailure, invalidResult, type Result } from '../core/result.js';
import { normalizeRecord, type GradeInput } from '../core/sample.js';
import type { Services } from '../core/services.js';
import type { Admission } from './admission.js';
import type { ServerMetrics } from './metrics.js';

export interface RunnerDeps {
  admission: Admission;
  services: Services;
  metrics: ServerMetrics;
  deadlineMs: number;
}

export class RequestScope {
  private readonly ac = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private abortResult?: Promise<GradeFailure>;
  private readonly deps: RunnerDeps;

  constructor(deps: RunnerDeps) {
    this.deps = deps;
    this.timer = setTimeout(() => {
      this.ac.abort(new GradeFailure('timeout', `the request deadline of ${deps.deadlineMs} ms passed before this sample was graded`));
    }, deps.deadlineMs);
  }

  get signal(): AbortSignal {
    return this.ac.signal;
  }

  /** The client went away: stop waiting for (and queueing) this request's grades. */
  cancel(): void {
    if (!this.ac.signal.aborted) this.ac.abort(new GradeFailure('timeout', 'the client closed the connection before this sample was graded'));
  }

  end(): void {
    clearTimeout(this.timer);
  }

  /** Reserves queue room for `n` samples (throws QueueFullError); call before grading them. */
  admit(n: number): void {
    this.deps.admission.admit(n);
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

  /** Grades one input with grader `g`; never rejects. `label` names the grader in metrics. */
  async grade(g: Grader, label: string, input: GradeInput | Result): Promise<Result> {
    if (!('sample' in input)) {
      this.deps.metrics.grade(label, input);
      return input;
    }
    const { admission, services, metrics } = this.deps;
    const signal = this.ac.signal;
    let r: Result;
    if (signal.aborted) r = this.failed(g, signal.reason);
    else {
      const wait = admission.acquire(signal);
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
        const p = g.grade(input, { services, signal });
        p.then(
          () => admission.release(),
          () => admission.release(),
        );
        r = await Promise.race([p, this.aborted(g)]);
      }
    }
    metrics.grade(label, r!);
    return r!;
  }

  /** A promise that resolves to a `timeout` result when the scope aborts (created once per request). */
  private aborted(g: Grader): Promise<Result> {
    this.abortResult ??= new Promise<GradeFailure>((resolve) => {
      const s = this.ac.signal;
      if (s.aborted) resolve(toFailure(s.reason));
      else s.addEventListener('abort', () => resolve(toFailure(s.reason)), { once: true });
    });
    return this.abortResult.then((f) => this.failed(g, f));
  }

  private failed(g: Grader, reason: unknown): Result {
    const f = toFailure(reason);
    return invalidResult(f.kind, f.message, { grader: g.name, type: g.type });
  }
}

function toFailure(reason: unknown): GradeFailure {
  if (reason instanceof GradeFailure) return reason;
  return new GradeFailure('timeout', reason instanceof Error ? reason.message : 'the request was aborted');
}
