// Runs `cpu_heavy` grader types where their budget can preempt them. A synchronous grade on the
// event loop cannot be interrupted: timeout_ms never fires and the server stops answering until it
// ends. So when a budget applies to such a grade (its own or an ancestor's `timeout_ms`, the
// server's request deadline) it is sent to one shared pool of worker threads per Services
// (`preemptThreads` option, default min(4, cores)), built there from the same config, and the
// worker is killed when the budget runs out. The grader's own `timeout_ms` counts from when a
// worker takes the sample (waiting for a free or starting worker excluded); an ancestor's timeout
// and the server deadline are wall-clock budgets of their own and count from their start.
// Without any budget (e.g. `arbiter score` with no timeout_ms) the grade runs inline as before.
// Its start-up (core/startup.ts) is the pool's: the workers start and build and warm the config
// (tokenizer, language profiles, the family's modules) before any of its grades is handed to them.
// Inside a worker thread (this pool's or a `threads` grader's) graders are never wrapped: they
// are already killable.
import { availableParallelism } from 'node:os';
import { isMainThread } from 'node:worker_threads';
import type { Evaluate } from '../core/grader.js';
import { GradeFailure } from '../core/result.js';
import { setPreemptor, type PreemptSpec } from '../core/registry.js';
import type { Services, ServicesOptions } from '../core/services.js';
import type { StartupItem } from '../core/startup.js';
import { GraderPool } from './grader-pool.js';
import { outcomeOf, poolFailure } from './outcome.js';

/** Services key of the shared pool. */
export const PREEMPT_POOL = 'workers:preempt';

/** Worker threads of the shared pool: `preemptThreads` (1..256), default min(4, cores). */
export function preemptThreads(options: ServicesOptions): number {
  const v = options.preemptThreads;
  if (v === undefined) return Math.max(1, Math.min(4, availableParallelism()));
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 256) {
    throw new GradeFailure('config_error', `services option preemptThreads must be an integer from 1 to 256, got ${JSON.stringify(v)}`);
  }
  return v;
}

/** The shared pool of these services, started on first use. */
function poolOf(services: Services): GraderPool {
  return services.get(
    PREEMPT_POOL,
    () => new GraderPool({ threads: preemptThreads(services.options), batch: 1, servicesOptions: services.options }),
    (p) => p.close(),
  );
}

export function preempt(spec: PreemptSpec, evaluate: Evaluate): { evaluate: Evaluate; warm(services: Services): Promise<StartupItem[]> } {
  // the worker's copy has no timeout of its own: this side owns the budget and kills the worker
  const { timeout_ms: _own, startup_timeout_ms: _startup, ...config } = spec.config;
  const task = { key: JSON.stringify(config), config };
  const { timeoutMs } = spec;
  const timeoutFailure = () => new GradeFailure('timeout', `grader "${spec.name}" did not finish within ${timeoutMs} ms`);
  const warm = async (services: Services) => poolOf(services).warm(task);
  const run: Evaluate = async (input, ctx) => {
    const signal = ctx.signal;
    if (!signal && timeoutMs === undefined) return evaluate(input, ctx);
    const pool = poolOf(ctx.services);
    let r: Awaited<ReturnType<GraderPool['grade']>>;
    try {
      r = await pool.grade(input, { ...(signal ? { signal } : {}), config: task, ...(timeoutMs !== undefined ? { timeoutMs, timeoutFailure } : {}) });
    } catch (e) {
      throw poolFailure(e);
    }
    return outcomeOf(r);
  };
  return { evaluate: run, warm };
}

// inside worker threads grades are already killable: there the runner applies timeout_ms itself
if (isMainThread) setPreemptor(preempt);
