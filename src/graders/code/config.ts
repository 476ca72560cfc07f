// Config pieces shared by the `code` and `python` grader types: the limits object (snake_case in
// configs, mapped to the sandbox's limits) and access to the shared sandbox pool.
import { z } from 'zod';
import type { GraderContext } from '../../core/grader.js';
import type { SandboxLimits } from '../../sandbox/limits.js';
import { SandboxPool } from '../../sandbox/pool.js';

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
  return out;
}

/**
 * The shared sandbox pool of this run (created on first use, closed with the services). The
 * unsandboxed pool is separate and only used when the user opted in: `--unsafe-no-sandbox`,
 * the grader's `unsafe_no_sandbox: true`, or ARBITER_UNSAFE_NO_SANDBOX=1.
 */
export function sandboxPool(ctx: GraderContext, unsafeFlag?: boolean): SandboxPool {
  const unsafe = Boolean(unsafeFlag || ctx.services.options.unsafeNoSandbox || process.env.ARBITER_UNSAFE_NO_SANDBOX === '1');
  const c = ctx.services.options.sandboxConcurrency;
  const concurrency = typeof c === 'number' && c > 0 ? c : undefined;
  return ctx.services.get(
    unsafe ? 'sandbox:unsafe' : 'sandbox',
    () => new SandboxPool({ unsafeNoSandbox: unsafe, ...(concurrency ? { concurrency } : {}) }),
    (p) => p.close(),
  );
}
