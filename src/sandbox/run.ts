// One sandboxed run's contract: what a caller asks (RunRequest), what it gets back (RunResult and
// its statuses), the environment every run starts from, and how a finished process (or a step
// that failed before the program ran) becomes a RunResult. The pool (pool.ts) re-exports the types.
import { RUN_DIR, type SandboxFile } from './bwrap-args.js';
import { runMemoryBytes, type SandboxLimits } from './limits.js';
import type { SpawnResult } from './process.js';

export interface RunRequest {
  /** The command; argv[0] should be an absolute path (runtimes resolve theirs). */
  argv: string[];
  files?: SandboxFile[];
  stdin?: string | Buffer;
  limits?: Partial<SandboxLimits>;
  /** Extra environment variables (the environment is otherwise cleared). */
  env?: Record<string, string>;
  /** Extra host paths to bind read-only at the same place (e.g. an interpreter prefix). */
  binds?: string[];
  /** Keep stdout as bytes in `stdoutBytes` (e.g. a compiled binary). */
  binaryStdout?: boolean;
  signal?: AbortSignal;
  /** The run may be served by a warm interpreter (languages.ts sets it for recipes that allow it). */
  warm?: WarmRun;
  /**
   * The program may create processes (fork, vfork, clone without CLONE_THREAD). Default false:
   * the seccomp filter refuses them with EPERM (seccomp.ts), in cold runs, warm Python runs,
   * JavaScript spares and unsandboxed runs alike (there with the stackable filter, through the
   * native helper; without the helper such a run is refused). Compile steps set it (compilers
   * fork their passes). A grading harness that starts the solution's process itself sets it and
   * stacks hostSpawnFilter() on that process (SPAWN_EXEC_PATH --seccomp-fd).
   */
  allowSpawn?: boolean;
}

export interface WarmRun {
  language: 'python' | 'javascript';
  /** The main file is arbiter's own program (a driver): the zygote may compile it once and keep it. */
  trustedMain?: boolean;
}

/**
 * - `ok`: exited with status 0; `runtime_error`: non-zero exit or killed by a signal;
 * - `timeout`: wall-clock or CPU limit reached (the whole tree was killed);
 * - `output_limit`: stdout or stderr exceeded the cap (killed);
 * - `aborted`: the caller's signal fired; `sandbox_error`: the sandbox itself failed.
 */
export type RunStatus = 'ok' | 'runtime_error' | 'timeout' | 'output_limit' | 'aborted' | 'sandbox_error';

export interface RunResult {
  status: RunStatus;
  exitCode: number | null;
  /** Signal that ended the program, when known. */
  signal: string | null;
  stdout: string;
  stderr: string;
  stdoutBytes?: Buffer;
  durationMs: number;
  /** Time spent waiting for a free slot. */
  queueMs: number;
  /** Human-readable explanation for non-ok statuses. */
  message?: string;
  /** The run's memory cgroup killed a process because the run exceeded its total memory. */
  memoryExceeded?: boolean;
  /**
   * The pid of the program's own process as the program sees it (getpid()), when known: always
   * 2 in the sandbox (cold: pid 1 is bwrap's init; warm: P), the child's pid unsandboxed. A
   * verdict the program prints with its pid tells the program from a child it forked (a child
   * never has this pid: the run ends when the program does).
   */
  programPid?: number;
}

/** A run's result before the pool adds the time it waited for its slot. */
export type RunOutcome = Omit<RunResult, 'queueMs'>;

/** The pid the program's process has inside its sandbox (see RunResult.programPid). */
export const SANDBOX_PROGRAM_PID = 2;

export const SIGNALS: Record<number, string> = { 6: 'SIGABRT', 8: 'SIGFPE', 9: 'SIGKILL', 11: 'SIGSEGV', 15: 'SIGTERM', 24: 'SIGXCPU', 25: 'SIGXFSZ' };

/** The environment every run starts from (a request's `env` is laid over it). */
export const BASE_ENV: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: RUN_DIR,
  TMPDIR: RUN_DIR,
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONIOENCODING: 'utf-8',
};

export function fail(status: RunStatus, message: string, durationMs = 0, queueMs = 0): RunResult {
  return { status, exitCode: null, signal: null, stdout: '', stderr: '', durationMs, queueMs, message };
}

/** The sandbox helper's "error: ..." note (a step before the program failed) as a message. */
export function startFailure(ready: string): string {
  return `sandbox failed to start the program: ${ready
    .slice(ready.indexOf('error:') + 7)
    .trim()
    .slice(0, 500)}`;
}

export function memoryMessage(limits: SandboxLimits): string {
  return `the run exceeded its total memory limit of ${Math.round(runMemoryBytes(limits) / 1048576)} MiB (all processes together)`;
}

/** A runtime error while the run's cgroup OOM-killed a process is `memoryExceeded`, and says so. */
export function withMemoryExceeded(out: RunOutcome, memoryExceeded: boolean, limits: SandboxLimits): RunOutcome {
  if (memoryExceeded && out.status === 'runtime_error') {
    out.memoryExceeded = true;
    out.message = `${out.message}: ${memoryMessage(limits)}`;
  }
  return out;
}

export function classify(r: SpawnResult, code: number | null, binary?: boolean): RunOutcome {
  const stderr = r.stderr.toString('utf8');
  const base = {
    exitCode: code,
    signal: r.signal as string | null,
    stdout: binary ? '' : r.stdout.toString('utf8'),
    stderr,
    durationMs: r.durationMs,
    ...(binary ? { stdoutBytes: r.stdout } : {}),
  };
  // bwrap reports a program killed by signal N as exit code 128 + N.
  const sig = code !== null && code > 128 && code < 160 ? (SIGNALS[code - 128] ?? `signal ${code - 128}`) : r.signal;
  if (sig) base.signal = sig;
  if (r.aborted) return { ...base, status: 'aborted', message: 'aborted by the caller' };
  if (r.timedOut) return { ...base, status: 'timeout', message: `wall-clock limit reached; the process tree was killed` };
  if (r.outputLimit) return { ...base, status: 'output_limit', message: 'output exceeded the size limit; the process tree was killed' };
  if (sig === 'SIGXCPU') return { ...base, status: 'timeout', message: 'CPU time limit reached (SIGXCPU)' };
  if (code === 0) return { ...base, status: 'ok' };
  return { ...base, status: 'runtime_error', message: sig ? `killed by ${sig}` : `exited with status ${code}` };
}
