// Start-up outside budgets: the one mechanism through which what graders need before their first
// grade (tokenizers, language profiles, worker threads and the configs built in them) is started
// and warmed, at load (the CLI, the server) or, at the latest, before the first grade's budget
// starts. A start-up resource loads once per thread and records how long it took; warmGrader
// warms a grader tree and reports the time; the runner (core/grader.ts) makes a grade that arrives
// while start-up is still running wait for it outside its `timeout_ms`, up to the start-up limit
// (`startup_timeout_ms`, default DEFAULT_STARTUP_TIMEOUT_MS), past which the grade is an invalid
// `timeout` saying start-up was at fault, not the response.
import type { Grader } from './grader.js';
import { GradeFailure } from './result.js';
import type { Services } from './services.js';

/** How long a grade waits for its grader's start-up when no `startup_timeout_ms` is set: 120 s. */
export const DEFAULT_STARTUP_TIMEOUT_MS = 120_000;

/** One thing started: what it is, and how long it took (ms). */
export interface StartupItem {
  what: string;
  ms: number;
}

/** What warming a grader did: its total time and the things started (loads already done elsewhere are not repeated). */
export interface StartupReport {
  ms: number;
  items: StartupItem[];
}

/** How a grader will be run, which decides what its start-up is. */
export interface WarmOptions {
  /**
   * Its grades will run under a deadline (the server's, a queue job's): `cpu_heavy` types then
   * grade in killable worker threads, so those threads are started and warmed rather than this one.
   */
  deadline?: boolean;
}

const loaded: StartupItem[] = [];
let hook: ((what: string) => Promise<void> | void) | undefined;

/**
 * Test seam: a function awaited before each start-up resource of this thread loads (a test makes a
 * load slow deterministically with it, in a worker thread through a `workerModules` module).
 */
export function setStartupHook(h: ((what: string) => Promise<void> | void) | undefined): void {
  hook = h;
}

/**
 * A resource loaded once per thread on first call (a failed load is retried on the next call),
 * recorded with its load time in `loadedResources()`.
 */
export function startupResource<T>(what: string, load: () => T | Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => {
    if (p) return p;
    const t0 = performance.now();
    p = (async () => {
      await hook?.(what);
      const v = await load();
      loaded.push({ what, ms: Math.round(performance.now() - t0) });
      return v;
    })();
    p.catch(() => (p = undefined));
    return p;
  };
}

/** The start-up resources this thread has loaded, in order, with their load times. */
export function loadedResources(): readonly StartupItem[] {
  return loaded;
}

/**
 * Starts and warms everything `grader` needs with these services (once: a second call, or a grade,
 * finds it done) and reports the time. Never rejects: a part that fails to start is left for the
 * grade to retry, and reported as failed.
 */
export async function warmGrader(grader: Grader, services: Services, opts: WarmOptions = {}): Promise<StartupReport> {
  const t0 = performance.now();
  const before = loaded.length;
  const items = (await grader.warm?.(services, opts)) ?? [];
  return { ms: Math.round(performance.now() - t0), items: [...loaded.slice(before), ...items] };
}

/** One line for `--verbose` and the server's start-up log. */
export function formatStartup(report: StartupReport, what = 'graders'): string {
  const parts = report.items.map((i) => `${i.what} ${i.ms} ms`);
  return `start-up of the ${what}: ${report.ms} ms${parts.length ? ` (${parts.join('; ')})` : ' (nothing to start)'}; not counted in any timeout_ms`;
}

/**
 * Per-services start-up of one grader node: `warm` runs once per (services, deadline or not); the
 * runner calls `wait` before a grade's budget starts.
 */
export class StartupGate {
  private readonly runs = new WeakMap<Services, Map<boolean, { done: boolean; p: Promise<StartupItem[]> }>>();

  constructor(
    private readonly name: string,
    private readonly warm: (services: Services, deadline: boolean) => Promise<StartupItem[]>,
    private readonly limitMs: number,
  ) {}

  /** Starts (or joins) this node's start-up; resolves with what it started, never rejects. */
  start(services: Services, deadline: boolean): Promise<StartupItem[]> {
    let m = this.runs.get(services);
    if (!m) this.runs.set(services, (m = new Map()));
    let run = m.get(deadline);
    if (!run) {
      const r: { done: boolean; p: Promise<StartupItem[]> } = { done: false, p: Promise.resolve([]) };
      r.p = this.warm(services, deadline).then(
        (items) => {
          r.done = true;
          return items;
        },
        (e: unknown) => {
          // left to the grade, which retries the load and fails with its own error if it must
          r.done = true;
          return [{ what: `failed: ${e instanceof Error ? e.message : String(e)}`, ms: 0 }];
        },
      );
      m.set(deadline, (run = r));
    }
    return run.p;
  }

  /** True when start-up for these services is finished (the grade need not wait). */
  ready(services: Services, deadline: boolean): boolean {
    return this.runs.get(services)?.get(deadline)?.done === true;
  }

  /**
   * Waits for start-up, at most the start-up limit; throws the start-up `timeout` past it, or the
   * abort reason if `signal` fires first.
   */
  async wait(services: Services, deadline: boolean, signal?: AbortSignal): Promise<void> {
    const p = this.start(services, deadline);
    if (this.ready(services, deadline)) return;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await Promise.race([
        p,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new GradeFailure(
                  'timeout',
                  `grader "${this.name}" could not start within its start-up limit of ${this.limitMs} ms (startup_timeout_ms; loading what it needs, e.g. a tokenizer or worker threads, took too long: the machine is slow or overloaded, the response is not at fault)`,
                ),
              ),
            this.limitMs,
          );
          if (signal) {
            onAbort = () => reject(signal.reason);
            if (signal.aborted) onAbort();
            else signal.addEventListener('abort', onAbort, { once: true });
          }
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) signal?.removeEventListener('abort', onAbort);
    }
  }
}
