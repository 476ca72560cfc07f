// A pool of worker threads that each build the same grader from its JSON config and grade samples
// sent to them, so CPU-heavy grading leaves the event loop free (the server stays responsive) and
// uses every core. Idle workers take up to `batch` queued samples per message, which amortises the
// cost of crossing threads. A grade that overruns its deadline or is aborted terminates its worker,
// which is replaced; the other samples of its batch are re-queued, so even a grader stuck in a loop
// cannot stall the process or take innocent samples down with it.
import { Worker } from 'node:worker_threads';
import { GradeFailure, type Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import type { ServicesOptions } from '../core/services.js';

interface Task {
  input: GradeInput;
  signal?: AbortSignal;
  onAbort?: () => void;
  resolve(r: Result): void;
  reject(e: unknown): void;
}

interface Slot {
  worker: Worker;
  /** The batch this worker is grading (empty when idle). */
  tasks: Task[];
}

export interface GraderPoolOptions {
  config: unknown;
  threads: number;
  /** Most samples sent to a worker in one message (default 16). */
  batch?: number;
  servicesOptions: ServicesOptions;
}

const WORKER_URL = new URL('./grader-worker.js', import.meta.url);

export class GraderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private readonly batch: number;
  private closed = false;
  /** Workers replaced after a timeout, an abort or a crash. */
  restarts = 0;

  constructor(private readonly opts: GraderPoolOptions) {
    this.batch = Math.max(1, opts.batch ?? 16);
    for (let i = 0; i < opts.threads; i++) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, {
      workerData: { config: this.opts.config, servicesOptions: this.opts.servicesOptions },
      resourceLimits: { maxOldGenerationSizeMb: 1024 },
    });
    worker.unref();
    const slot: Slot = { worker, tasks: [] };
    worker.on('message', (m: { results: Result[] }) => {
      const tasks = slot.tasks;
      slot.tasks = [];
      tasks.forEach((t, i) => {
        this.detach(t);
        t.resolve(m.results[i]!);
      });
      this.pump();
    });
    worker.on('error', (e) => this.replace(slot, undefined, new GradeFailure('internal_error', `grader worker crashed: ${e.message}`)));
    worker.on('exit', (code) => {
      if (!this.closed && this.slots.includes(slot)) this.replace(slot, undefined, new GradeFailure('internal_error', `grader worker exited with code ${code}`));
    });
    return slot;
  }

  private detach(t: Task): void {
    if (t.onAbort) t.signal?.removeEventListener('abort', t.onAbort);
    t.onAbort = undefined;
  }

  /**
   * Terminates a slot's worker and starts a fresh one. The `culprit` task (aborted) fails with
   * `reason`; the rest of the batch is re-queued. Without a culprit (a crash) the whole batch fails.
   */
  private replace(slot: Slot, culprit: Task | undefined, reason: unknown): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    this.restarts++;
    if (this.closed) this.slots.splice(i, 1);
    else this.slots[i] = this.spawn();
    void slot.worker.terminate();
    const tasks = slot.tasks;
    slot.tasks = [];
    const requeue: Task[] = [];
    for (const t of tasks) {
      this.detach(t);
      if (culprit === undefined || t === culprit) t.reject(reason);
      else requeue.push(t);
    }
    this.queue.unshift(...requeue);
    this.pump();
  }

  private pump(): void {
    let idle = this.slots.filter((s) => !s.tasks.length).length;
    for (const slot of this.slots) {
      if (slot.tasks.length) continue;
      // share the queue evenly among idle workers, at most `batch` each
      const size = Math.min(this.batch, Math.ceil(this.queue.length / Math.max(1, idle--)));
      const batch: Task[] = [];
      while (batch.length < size && this.queue.length) {
        const t = this.queue.shift()!;
        if (t.signal?.aborted) t.reject(t.signal.reason);
        else batch.push(t);
      }
      if (!batch.length) return;
      slot.tasks = batch;
      for (const t of batch) {
        if (!t.signal) continue;
        t.onAbort = () => this.replace(slot, t, t.signal!.reason);
        t.signal.addEventListener('abort', t.onAbort, { once: true });
      }
      slot.worker.postMessage({ inputs: batch.map((t) => t.input) });
    }
  }

  /** Grades one sample on a worker; rejects with the abort reason when `signal` fires first. */
  grade(input: GradeInput, signal?: AbortSignal): Promise<Result> {
    if (this.closed) return Promise.reject(new GradeFailure('internal_error', 'the grader pool is closed'));
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      this.queue.push({ input, ...(signal ? { signal } : {}), resolve, reject });
      // let the current burst of grade() calls queue up, then hand out batches
      if (this.queue.length === 1) queueMicrotask(() => this.pump());
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const err = new GradeFailure('internal_error', 'the grader pool is closed');
    for (const t of this.queue.splice(0)) t.reject(err);
    await Promise.all(this.slots.splice(0).map((s) => s.worker.terminate()));
  }
}
