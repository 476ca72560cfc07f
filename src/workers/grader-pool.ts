// A pool of worker threads that grade samples off the event loop, so CPU-heavy grading leaves it
// free (the server stays responsive) and uses every core. Each worker builds graders from JSON
// configs: the pool's own `config` (the `threads` grader), or a config sent with the task (the
// shared pool that runs `cpu_heavy` grader types under a budget). Idle workers take up to `batch`
// queued samples of one config per message, which amortises the cost of crossing threads.
//
// Nothing that crosses the thread boundary can throw out of the pool: a sample that cannot be
// copied to a worker (nested too deep, an uncloneable value) fails alone as an invalid result
// (limit_exceeded / bad_input) while the rest of its batch is sent on; a grade that overruns its
// deadline, its time limit or is aborted terminates its worker, which is replaced, and the other
// samples of its batch are re-queued; a worker that crashes or exits has its batch re-queued one
// sample per message, so only the sample that crashes a worker alone fails. Workers that cannot
// start at all fail the queued samples with the reason instead of being restarted forever.
import { Worker } from 'node:worker_threads';
import { GradeFailure, type Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import type { ServicesOptions } from '../core/services.js';

/** A grader config sent with a task; `key` (its JSON) identifies it in the workers' caches. */
export interface TaskConfig {
  key: string;
  config: unknown;
}

export interface GradeOptions {
  /** Rejects with the abort reason (and kills the worker) when this fires first. */
  signal?: AbortSignal;
  /** Grade with this config instead of the pool's own. */
  config?: TaskConfig;
  /** Time limit counted from when a worker takes the sample (queueing excluded); it is then killed. */
  timeoutMs?: number;
  /** The failure past `timeoutMs` (default: a timeout naming the limit). */
  timeoutFailure?: () => GradeFailure;
}

interface Task {
  input: GradeInput;
  opts: GradeOptions;
  /** Send this task alone (after its batch crashed a worker, or could not be sent). */
  solo: boolean;
  onAbort?: () => void;
  timer?: NodeJS.Timeout;
  resolve(r: Result): void;
  reject(e: unknown): void;
}

interface Slot {
  worker: Worker;
  /** The batch this worker is grading (empty when idle). */
  tasks: Task[];
  /** The worker finished loading (its first message arrived). */
  ready: boolean;
}

export interface GraderPoolOptions {
  /** The grader every task uses unless it brings its own config. */
  config?: unknown;
  threads: number;
  /** Most samples sent to a worker in one message (default 16). */
  batch?: number;
  servicesOptions: ServicesOptions;
}

const WORKER_URL = new URL('./grader-worker.js', import.meta.url);
/** Consecutive workers that died before becoming ready, after which the pool gives up. */
const MAX_START_FAILURES = 3;

/** Why a value could not be posted to a worker, as the failure of the sample that holds it. */
export function handoffFailure(e: unknown, what = 'the sample'): GradeFailure {
  const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  if (e instanceof RangeError) return new GradeFailure('limit_exceeded', `${what} is nested too deeply to hand to a worker thread (${msg})`);
  if (e instanceof Error && e.name === 'DataCloneError')
    return new GradeFailure('bad_input', `${what} holds a value that cannot be copied to a worker thread (${msg})`);
  return new GradeFailure('internal_error', `${what} could not be handed to a worker thread (${msg})`);
}

function crashFailure(e: Error | undefined, code?: number): GradeFailure {
  if (e && (e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY')
    return new GradeFailure('limit_exceeded', `the grade ran out of memory in its worker thread (${e.message})`);
  return new GradeFailure('internal_error', e ? `grader worker crashed: ${e.message}` : `grader worker exited with code ${code}`);
}

function isResult(r: unknown): r is Result {
  return typeof r === 'object' && r !== null && typeof (r as Result).valid === 'boolean' && typeof (r as Result).metadata === 'object';
}

/**
 * Modules every worker imports first to register grader types (the built-in list,
 * graders/builtins.ts, adds itself here; one that exports `importGraderTypesFor(config)` is asked
 * to register the types of each config before the worker builds it): the worker host itself
 * imports no grader family, so the folders stay acyclic.
 */
const registrations = new Set<string>();
export function addWorkerRegistrations(moduleUrl: string): void {
  registrations.add(moduleUrl);
}

export class GraderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly batch: number;
  private closed = false;
  private startFailures = 0;
  /** Set when workers cannot start: every task fails with it. */
  private broken?: GradeFailure;
  /** Workers replaced after a timeout, an abort or a crash. */
  restarts = 0;

  constructor(private readonly opts: GraderPoolOptions) {
    this.batch = Math.max(1, opts.batch ?? 16);
    for (let i = 0; i < opts.threads; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, {
      workerData: { config: this.opts.config, servicesOptions: this.opts.servicesOptions, registrations: [...registrations] },
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
    });
    worker.unref();
    const slot: Slot = { worker, tasks: [], ready: false };
    worker.on('message', (m: { ready?: true; results?: unknown[] }) => this.onMessage(slot, m));
    worker.on('messageerror', (e) => this.settle(slot, () => Promise.reject(handoffFailure(e, 'the grade result'))));
    worker.on('error', (e) => this.crashed(slot, e));
    worker.on('exit', (code) => this.crashed(slot, undefined, code));
    return slot;
  }

  private onMessage(slot: Slot, m: { ready?: true; results?: unknown[] }): void {
    if (m?.ready) {
      slot.ready = true;
      this.startFailures = 0;
      this.pump();
      return;
    }
    const results = m?.results;
    const n = slot.tasks.length;
    this.settle(slot, (_t, i) => {
      const r = Array.isArray(results) && results.length === n ? results[i] : undefined;
      return isResult(r) ? Promise.resolve(r) : Promise.reject(new GradeFailure('internal_error', 'the grader worker sent back a malformed result'));
    });
  }

  /** Ends a slot's batch with per-task outcomes and hands it more work. */
  private settle(slot: Slot, outcome: (t: Task, i: number) => Promise<Result>): void {
    const tasks = slot.tasks;
    slot.tasks = [];
    tasks.forEach((t, i) => {
      this.detach(t);
      outcome(t, i).then(t.resolve, t.reject);
    });
    this.pump();
  }

  private crashed(slot: Slot, e: Error | undefined, code?: number): void {
    if (this.closed || !this.slots.includes(slot)) return;
    if (!slot.ready && ++this.startFailures >= MAX_START_FAILURES) {
      this.broken = new GradeFailure('internal_error', `grader workers cannot start: ${e ? e.message : `exit code ${code}`}`);
    }
    this.replace(slot, undefined, crashFailure(e, code));
  }

  private detach(t: Task): void {
    if (t.onAbort) t.opts.signal?.removeEventListener('abort', t.onAbort);
    t.onAbort = undefined;
    clearTimeout(t.timer);
    t.timer = undefined;
  }

  /**
   * Terminates a slot's worker and starts a fresh one. With a `culprit` (aborted, timed out) that
   * task fails with `reason` and the rest of the batch is re-queued. Without one (a crash) a lone
   * task fails with `reason`; a batch is re-queued one task per message to find the one at fault.
   */
  private replace(slot: Slot, culprit: Task | undefined, reason: GradeFailure | unknown): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.restarts++;
    if (this.closed || this.broken) this.slots.splice(i, 1);
    else {
      try {
        this.slots[i] = this.spawn();
      } catch (e) {
        // runs in event handlers: a worker that cannot even be created must not throw from here
        this.slots.splice(i, 1);
        if (!this.slots.length) this.broken = new GradeFailure('internal_error', `grader workers cannot start: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    slot.worker.removeAllListeners('exit');
    slot.worker.terminate().catch(() => {});
    const tasks = slot.tasks;
    slot.tasks = [];
    const requeue: Task[] = [];
    for (const t of tasks) {
      this.detach(t);
      if (t === culprit || (culprit === undefined && tasks.length === 1)) t.reject(reason);
      else {
        if (culprit === undefined) t.solo = true;
        requeue.push(t);
      }
    }
    this.queue.unshift(...requeue);
    if (this.broken) this.failAll(this.broken);
    this.pump();
  }

  private failAll(reason: GradeFailure): void {
    for (const t of this.queue.splice(0)) t.reject(reason);
  }

  /** Takes the next batch for an idle worker: tasks of one config, at most `size`. */
  private take(size: number): Task[] {
    const batch: Task[] = [];
    while (this.queue.length) {
      const t = this.queue[0]!;
      if (t.opts.signal?.aborted) {
        this.queue.shift();
        t.reject(t.opts.signal.reason);
        continue;
      }
      const alone = (x: Task) => x.solo || x.opts.timeoutMs !== undefined;
      if (batch.length && (batch.length >= size || alone(t) || t.opts.config?.key !== batch[0]!.opts.config?.key)) break;
      this.queue.shift();
      batch.push(t);
      if (alone(t)) break;
    }
    return batch;
  }

  private pump(): void {
    if (this.broken) {
      this.failAll(this.broken);
      return;
    }
    // only workers that finished loading get work, so start-up time never counts against a sample;
    // the queue is shared among all free workers, those still starting included
    let idle = this.slots.filter((s) => !s.tasks.length).length;
    for (const slot of this.slots) {
      if (!slot.ready || slot.tasks.length) continue;
      for (;;) {
        // share the queue evenly among idle workers, at most `batch` each
        const batch = this.take(Math.min(this.batch, Math.ceil(this.queue.length / Math.max(1, idle))));
        if (!batch.length) return;
        const config = batch[0]!.opts.config;
        try {
          slot.worker.postMessage({ inputs: batch.map((t) => t.input), ...(config ? { key: config.key, config: config.config } : {}) });
        } catch (e) {
          // nothing was sent: a lone sample fails with the reason; a batch is retried one by one
          if (batch.length === 1) batch[0]!.reject(handoffFailure(e));
          else {
            for (const t of batch) t.solo = true;
            this.queue.unshift(...batch);
          }
          continue;
        }
        idle--;
        slot.tasks = batch;
        for (const t of batch) {
          const { signal, timeoutMs, timeoutFailure } = t.opts;
          if (signal) {
            t.onAbort = () => this.replace(slot, t, signal.reason);
            signal.addEventListener('abort', t.onAbort, { once: true });
          }
          if (timeoutMs !== undefined) {
            t.timer = setTimeout(
              () => this.replace(slot, t, timeoutFailure?.() ?? new GradeFailure('timeout', `the grade did not finish within ${timeoutMs} ms`)),
              timeoutMs,
            );
          }
        }
        break;
      }
    }
  }

  /** Grades one sample on a worker. Rejects with a GradeFailure (or the abort reason); never throws. */
  grade(input: GradeInput, signalOrOpts?: AbortSignal | GradeOptions): Promise<Result> {
    const opts: GradeOptions = signalOrOpts instanceof AbortSignal ? { signal: signalOrOpts } : (signalOrOpts ?? {});
    if (this.closed) return Promise.reject(new GradeFailure('internal_error', 'the grader pool is closed'));
    if (this.broken) return Promise.reject(this.broken);
    if (opts.signal?.aborted) return Promise.reject(opts.signal.reason);
    return new Promise((resolve, reject) => {
      this.queue.push({ input, opts, solo: false, resolve, reject });
      // let the current burst of grade() calls queue up, then hand out batches
      if (this.queue.length === 1) queueMicrotask(() => this.pump());
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new GradeFailure('internal_error', 'the grader pool is closed');
    this.failAll(err);
    const slots = this.slots.splice(0);
    for (const s of slots) {
      for (const t of s.tasks.splice(0)) {
        this.detach(t);
        t.reject(err);
      }
    }
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => {})));
  }
}
