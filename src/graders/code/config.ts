// Config pieces shared by the `code` and `python` grader types: the limits object (snake_case in
// configs, mapped to the sandbox's limits) and access to the shared sandbox pool.
import { z } from 'zod';
import type { GraderContext } from '../../core/grader.js';
import type { SandboxLimits } from '../../sandbox/limits.js';
import { SandboxPool, type PoolOptions } from '../../sandbox/pool.js';

const pos = z.number().positive();

export const limitsSchema = z
  .strictObject({
    /** Wall-clock limit of one program run, ms. */
    time_ms: pos.optional(),
    cpu_seconds: pos.optional(),
    memory_mb: pos.optional(),
    processes: z.number().int().positive().optional(),
    output_bytes: z.number().int().positive().optional(),
    file_size_bytes: z.number().int().positive().optional(),
    open_files: z.number().int().positive().optional(),
    tmp_mb: pos.optional(),
    /** All the run's processes and its /tmp files together, MiB (a memory cgroup; refused without one). */
    run_memory_mb: pos.optional(),
  })
  .optional();

export type LimitsConfig = z.infer<typeof limitsSchema>;

/** Maps a config limits object to sandbox limits (undefined fields stay unset). */
export function toSandboxLimits(l: LimitsConfig): Partial<SandboxLimits> {
  if (!l) return {};
  const out: Partial<SandboxLimits> = {};
  if (l.time_ms !== undefined) {
    out.wallMs = l.time_ms;
    out.cpuSeconds = Math.max(1, Math.ceil(l.time_ms / 1000));
  }
  if (l.cpu_seconds !== undefined) out.cpuSeconds = l.cpu_seconds;
  if (l.memory_mb !== undefined) out.memoryBytes = l.memory_mb * 1024 * 1024;
  if (l.processes !== undefined) out.processes = l.processes;
  if (l.output_bytes !== undefined) out.outputBytes = l.output_bytes;
  if (l.file_size_bytes !== undefined) out.fileSizeBytes = l.file_size_bytes;
  if (l.open_files !== undefined) out.openFiles = l.open_files;
  if (l.tmp_mb !== undefined) out.tmpBytes = l.tmp_mb * 1024 * 1024;
  if (l.run_memory_mb !== undefined) out.runMemoryBytes = l.run_memory_mb * 1024 * 1024;
  return out;
}

/** The options of the pool a grader gets: everything that changes how the pool behaves. */
export function sandboxPoolOptions(ctx: GraderContext, unsafeFlag?: boolean): PoolOptions {
  const unsafe = Boolean(unsafeFlag || ctx.services.options.unsafeNoSandbox || process.env.ARBITER_UNSAFE_NO_SANDBOX === '1');
  const c = ctx.services.options.sandboxConcurrency;
  const concurrency = typeof c === 'number' && c > 0 ? c : undefined;
  return { unsafeNoSandbox: unsafe, ...(concurrency ? { concurrency } : {}) };
}

/** The services key of a pool: one pool per distinct set of options, never shared across them. */
export function sandboxPoolKey(opts: PoolOptions): string {
  const o = opts as Record<string, unknown>;
  return (
    'sandbox:' +
    JSON.stringify(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    )
  );
}

/**
 * The shared sandbox pool of this run (created on first use, closed with the services), keyed by
 * all of its options. The unsandboxed pool is separate and only used when the user opted in:
 * `--unsafe-no-sandbox`, the grader's `unsafe_no_sandbox: true`, or ARBITER_UNSAFE_NO_SANDBOX=1.
 */
export function sandboxPool(ctx: GraderContext, unsafeFlag?: boolean): SandboxPool {
  const opts = sandboxPoolOptions(ctx, unsafeFlag);
  return ctx.services.get(
    sandboxPoolKey(opts),
    () => new SandboxPool(opts),
    (p) => p.close(),
  );
}
