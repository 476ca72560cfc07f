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
//
// Start-up never counts against a sample (core/startup.ts): a worker gets samples only once it has
// loaded and built and warmed every config the pool was asked to warm (`warm`, or a task's config
// seen for the first time), which a replacement worker does again before taking any.
import { Worker } from 'node:worker_threads';
import { GradeFailure, type Result } from '../core/result.js';
import type { GradeInput } from '../core/sample.js';
import type { ServicesOptions } from '../core/services.js';
import type { StartupItem } from '../core/startup.js';

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
  /** Configs (keys) this worker has built and warmed. */
  warmed: Set<string>;
  /** Warm-ups sent to it and not yet answered: it takes no samples meanwhile. */
  warming: number;
  /** performance.now() when it was spawned. */
  spawnedAt: number;
}

/** A config the workers are asked to hold warm, and who waits for it. */
interface WarmEntry {
  config: unknown;
  /** What the workers reported starting for it (the first report of each thing, with the longest time). */
  items: Map<string, number>;
  waiters: ((items: StartupItem[]) => void)[];
}

/** Messages a worker sends. */
interface WorkerMessage {
  ready?: true;
  results?: unknown[];
  warmed?: string;
  items?: StartupItem[];
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
/** Configs held warm at most (as many as a worker caches); the oldest is forgotten past it. */
const MAX_WARM_CONFIGS = 64;

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
  /** Configs every worker builds and warms before taking samples, by key, oldest first. */
  private readonly warmSet = new Map<string, WarmEntry>();
  /** Who waits for every worker to be ready (`started`), and the slowest start so far. */
  private startWaiters: ((items: StartupItem[]) => void)[] = [];
  private slowestStart = 0;

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
    const slot: Slot = { worker, tasks: [], ready: false, warmed: new Set(), warming: 0, spawnedAt: performance.now() };
    worker.on('message', (m: WorkerMessage) => this.onMessage(slot, m));
    worker.on('messageerror', (e) => this.settle(slot, () => Promise.reject(handoffFailure(e, 'the grade result'))));
    worker.on('error', (e) => this.crashed(slot, e));
    worker.on('exit', (code) => this.crashed(slot, undefined, code));
    return slot;
  }

  private onMessage(slot: Slot, m: WorkerMessage): void {
    if (m?.ready) {
      slot.ready = true;
      // a worker that crashes while warming counts as one that could not start (see crashed)
      if (!this.warmSet.size) this.startFailures = 0;
      this.slowestStart = Math.max(this.slowestStart, performance.now() - slot.spawnedAt);
      for (const key of this.warmSet.keys()) this.sendWarm(slot, key);
      this.checkWarm();
      this.pump();
      return;
    }
    if (typeof m?.warmed === 'string') {
      slot.warming--;
      slot.warmed.add(m.warmed);
      if (!slot.warming) this.startFailures = 0;
      const e = this.warmSet.get(m.warmed);
      if (e && Array.isArray(m.items)) for (const i of m.items) e.items.set(i.what, Math.max(e.items.get(i.what) ?? 0, i.ms));
      this.checkWarm();
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
    if ((!slot.ready || slot.warming > 0) && ++this.startFailures >= MAX_START_FAILURES) {
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
    this.checkWarm();
    this.pump();
  }

  private failAll(reason: GradeFailure): void {
    for (const t of this.queue.splice(0)) t.reject(reason);
  }

  /** Asks a ready worker to build and warm a config; it takes no samples until it answers. */
  private sendWarm(slot: Slot, key: string): void {
    if (!slot.ready || slot.warmed.has(key)) return;
    try {
      slot.worker.postMessage({ warm: key, config: this.warmSet.get(key)!.config });
      slot.warming++;
    } catch {
      // a config that cannot be posted fails with its samples (handoff), as without warming
      slot.warmed.add(key);
    }
  }

  /** Registers a config every worker is to hold warm (forgetting the oldest past the cap). */
  private register(key: string, config: unknown): WarmEntry {
    let e = this.warmSet.get(key);
    if (e) return e;
    e = { config, items: new Map(), waiters: [] };
    this.warmSet.set(key, e);
    if (this.warmSet.size > MAX_WARM_CONFIGS) {
      const [old, entry] = this.warmSet.entries().next().value!;
      this.warmSet.delete(old);
      for (const w of entry.waiters) w([]);
      for (const s of this.slots) {
        s.warmed.delete(old);
        try {
          s.worker.postMessage({ forget: old });
        } catch {
          // nothing to forget on a worker that is going away
        }
      }
    }
    for (const s of this.slots) this.sendWarm(s, key);
    return e;
  }

  /** Resolves the warm-ups every live worker has finished (all of them when the pool cannot start or is closed). */
  private checkWarm(): void {
    const over = this.closed || this.broken !== undefined || this.slots.length === 0;
    if (over || this.slots.every((s) => s.ready)) {
      const waiters = this.startWaiters;
      this.startWaiters = [];
      for (const w of waiters) w(this.startItems());
    }
    for (const [key, e] of this.warmSet) {
      if (!e.waiters.length || !(over || this.slots.every((s) => s.ready && s.warmed.has(key)))) continue;
      const items = [...this.startItems(), ...[...e.items].map(([what, ms]) => ({ what: `${what} (in each worker thread)`, ms: Math.round(ms) }))];
      const waiters = e.waiters;
      e.waiters = [];
      for (const w of waiters) w(items);
    }
  }

  private startItems(): StartupItem[] {
    return [{ what: `${this.opts.threads} worker thread${this.opts.threads === 1 ? '' : 's'}`, ms: Math.round(this.slowestStart) }];
  }

  /** Resolves once every worker has started (and warmed the pool's own config); never rejects. */
  started(): Promise<StartupItem[]> {
    return new Promise((resolve) => {
      this.startWaiters.push(resolve);
      this.checkWarm();
    });
  }

  /**
   * Has every worker, present and future, build and warm `config` before it takes samples; resolves
   * once every worker has (or the pool cannot start), with what they started. Never rejects.
   */
  warm(config: TaskConfig): Promise<StartupItem[]> {
    return new Promise((resolve) => {
      this.register(config.key, config.config).waiters.push(resolve);
      this.checkWarm();
    });
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
      const cfg = t.opts.config;
      if (cfg && !this.warmSet.has(cfg.key)) {
        // a config no worker holds warm yet: every worker builds and warms it first, outside the sample's budget
        this.register(cfg.key, cfg.config);
        break;
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
      if (!slot.ready || slot.tasks.length || slot.warming) continue;
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
    this.checkWarm();
    await Promise.all(slots.map((s) => s.worker.terminate().catch(() => {})));
  }
}
