// Public entry of the sandbox: a shared default pool and `runInSandbox` for one-off runs.
import { SandboxPool, type PoolOptions, type RunRequest, type RunResult } from './pool.js';

export { SandboxPool, SANDBOX_HINT } from './pool.js';
export type { PoolOptions, RunRequest, RunResult, RunStatus, SandboxFile } from './pool.js';
export { DEFAULT_LIMITS } from './limits.js';
export type { SandboxLimits } from './limits.js';
export { LANGUAGES, runProgram, compileProgram } from './languages.js';
export type { Language, LanguageName, CompiledProgram, ProgramRun } from './languages.js';

let shared: SandboxPool | undefined;

/**
 * Runs one command in the sandbox through a process-wide default pool (created on first use,
 * concurrency = number of cores). Pass `pool` to use your own.
 */
export function runInSandbox(req: RunRequest, opts: { pool?: SandboxPool } & PoolOptions = {}): Promise<RunResult> {
  const pool = opts.pool ?? (shared ??= new SandboxPool(opts));
  return pool.run(req);
}
