// The sandbox pool: runs programs under bubblewrap with at most `concurrency` live process trees
// (default: the number of cores); further requests wait in a FIFO queue. Each live run holds a
// slot, and when arbiter runs as root each slot runs as its own unprivileged uid so that the
// per-user process limit (RLIMIT_NPROC) bounds exactly one run.
import { mkdtemp, mkdir, rm, writeFile, chmod } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bwrapArgs, checkFileName, RUN_DIR, type SandboxFile } from './bwrap-args.js';
import { hostTools, which, type HostTools } from './host.js';
import { checkLimits, DEFAULT_LIMITS, mergeLimits, prlimitArgs, type SandboxLimits } from './limits.js';
import { runProcess, type SpawnResult } from './process.js';

export type { SandboxFile } from './bwrap-args.js';

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
}

export interface PoolOptions {
  concurrency?: number;
  /** Run without bubblewrap (no isolation besides rlimits and process groups). Explicit opt-in. */
  unsafeNoSandbox?: boolean;
  /** First uid of the per-slot unprivileged users when running as root. */
  uidBase?: number;
  /** Path of the bwrap executable (default: found on PATH). */
  bwrap?: string;
}

const SIGNALS: Record<number, string> = { 6: 'SIGABRT', 8: 'SIGFPE', 9: 'SIGKILL', 11: 'SIGSEGV', 15: 'SIGTERM', 24: 'SIGXCPU', 25: 'SIGXFSZ' };

const BASE_ENV: Record<string, string> = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: RUN_DIR,
  TMPDIR: RUN_DIR,
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  PYTHONDONTWRITEBYTECODE: '1',
  PYTHONIOENCODING: 'utf-8',
};

export const SANDBOX_HINT = 'install bubblewrap (scripts/setup.sh) or, for trusted code only, pass --unsafe-no-sandbox (config: "unsafe_no_sandbox": true)';

export class SandboxPool {
  readonly concurrency: number;
  readonly unsafe: boolean;
  private readonly tools: HostTools;
  private readonly uidBase: number;
  private readonly freeSlots: number[];
  private readonly waiters: ((slot: number) => void)[] = [];
  private probeP: Promise<string | undefined> | undefined;
  private closed = false;
  /** Runs started and finished (for diagnostics and tests). */
  readonly stats = { started: 0, finished: 0, maxLive: 0, live: 0 };

  constructor(opts: PoolOptions = {}) {
    const n = opts.concurrency ?? Number(process.env.ARBITER_SANDBOX_CONCURRENCY || 0) ?? 0;
    this.concurrency = Math.max(1, Math.floor(n || availableParallelism()));
    this.unsafe = Boolean(opts.unsafeNoSandbox);
    this.tools = hostTools();
    if (opts.bwrap !== undefined) this.tools.bwrap = which(opts.bwrap);
    this.uidBase = opts.uidBase ?? Number(process.env.ARBITER_SANDBOX_UID_BASE || 1_990_000_000);
    this.freeSlots = Array.from({ length: this.concurrency }, (_, i) => this.concurrency - 1 - i);
  }

  /** Undefined when the sandbox works, else why not (checked once, by running a trivial program). */
  unavailable(): Promise<string | undefined> {
    return (this.probeP ??= this.probe());
  }

  private async probe(): Promise<string | undefined> {
    const t = this.tools;
    if (!t.prlimit && !t.sandboxExec) return 'prlimit (util-linux) not found on PATH';
    if (this.unsafe) return undefined;
    if (!t.bwrap) return `bubblewrap (bwrap) not found on PATH; ${SANDBOX_HINT}`;
    if (t.isRoot && !t.setpriv && !t.sandboxExec) return `setpriv (util-linux) not found; it is needed to drop root inside the sandbox`;
    const r = await this.runInSlot(this.concurrency, { argv: ['/bin/true'], limits: { wallMs: 15_000 } }, 0);
    if (r.status !== 'ok') return `bubblewrap is not usable here: ${r.message ?? r.stderr.trim().slice(0, 300)}; ${SANDBOX_HINT}`;
    return undefined;
  }

  /** Runs one program in the sandbox once a slot is free. Never rejects. */
  async run(req: RunRequest): Promise<RunResult> {
    if (this.closed) return fail('sandbox_error', 'the sandbox pool is closed');
    const bad = await this.unavailable();
    if (bad) return fail('sandbox_error', bad);
    const t0 = performance.now();
    let slot: number;
    try {
      slot = await this.acquire(req.signal);
    } catch {
      return fail('aborted', 'aborted while waiting for a sandbox slot', performance.now() - t0);
    }
    try {
      return await this.runInSlot(slot, req, performance.now() - t0);
    } finally {
      this.release(slot);
    }
  }

  private acquire(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(new Error('aborted'));
    const s = this.freeSlots.pop();
    if (s !== undefined) return Promise.resolve(s);
    return new Promise<number>((resolve, reject) => {
      const w = (slot: number) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(slot);
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(new Error('aborted'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiters.push(w);
    });
  }

  private release(slot: number): void {
    const w = this.waiters.shift();
    if (w) w(slot);
    else this.freeSlots.push(slot);
  }

  private async runInSlot(slot: number, req: RunRequest, queueMs: number): Promise<RunResult> {
    const limits = mergeLimits(DEFAULT_LIMITS, req.limits);
    const badLimit = checkLimits(limits);
    if (badLimit) return fail('sandbox_error', badLimit, 0, queueMs);
    const files = req.files ?? [];
    for (const f of files) {
      const m = checkFileName(f.name);
      if (m) return fail('sandbox_error', m, 0, queueMs);
    }
    const env = { ...BASE_ENV, ...req.env };
    this.stats.started++;
    this.stats.live++;
    this.stats.maxLive = Math.max(this.stats.maxLive, this.stats.live);
    try {
      const r = this.unsafe ? await this.spawnUnsafe(req, files, limits, env) : await this.spawnSandboxed(slot, req, files, limits, env);
      return { ...r, queueMs };
    } finally {
      this.stats.live--;
      this.stats.finished++;
    }
  }

  private async spawnSandboxed(slot: number, req: RunRequest, files: SandboxFile[], limits: SandboxLimits, env: Record<string, string>): Promise<Omit<RunResult, 'queueMs'>> {
    const statusFd = 3;
    const firstFileFd = 4;
    const args = bwrapArgs({
      bwrap: this.tools.bwrap!,
      prlimit: this.tools.prlimit!,
      ...(this.tools.sandboxExec ? { exec: this.tools.sandboxExec } : {}),
      ...(this.tools.isRoot ? { setpriv: { path: this.tools.setpriv!, uid: this.uidBase + slot } } : {}),
      binds: req.binds ?? [],
      files,
      limits,
      env,
      argv: req.argv,
      statusFd,
      firstFileFd,
    });
    // fd 3 carries bwrap's JSON status (proof that the sandbox started); files go on fds 4...
    const r = await runProcess({
      argv: [this.tools.bwrap!, ...args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdin: req.stdin,
      inputFds: files.map((f) => f.data),
      inputFdBase: firstFileFd,
      outputFds: [statusFd],
      wallMs: limits.wallMs,
      outputBytes: req.binaryStdout ? Math.max(limits.outputBytes, 256 * 1024 * 1024) : limits.outputBytes,
      signal: req.signal,
    });
    const started = /"child-pid"/.test(r.fds[statusFd] ?? '');
    const m = /"exit-code"\s*:\s*(-?\d+)/.exec(r.fds[statusFd] ?? '');
    if (!started && !r.timedOut && !r.aborted) {
      const why = r.spawnError ?? (r.stderr.toString('utf8').trim().slice(0, 500) || `bwrap exited with ${r.exitCode ?? r.signal}`);
      return { ...fail('sandbox_error', `sandbox failed to start: ${why}`, r.durationMs), stderr: r.stderr.toString('utf8') };
    }
    const code = m ? Number(m[1]) : r.exitCode;
    return classify(r, code, req.binaryStdout);
  }

  private async spawnUnsafe(req: RunRequest, files: SandboxFile[], limits: SandboxLimits, env: Record<string, string>): Promise<Omit<RunResult, 'queueMs'>> {
    const dir = await mkdtemp(join(tmpdir(), 'arbiter-run-'));
    try {
      for (const f of files) {
        const p = join(dir, f.name);
        await mkdir(dirname(p), { recursive: true });
        await writeFile(p, f.data);
        if (f.executable) await chmod(p, 0o755);
      }
      const r = await runProcess({
        argv: [this.tools.sandboxExec ?? this.tools.prlimit!, ...prlimitArgs(limits), '--', ...req.argv],
        env: { ...env, HOME: dir, TMPDIR: dir },
        cwd: dir,
        stdin: req.stdin,
        wallMs: limits.wallMs,
        outputBytes: req.binaryStdout ? Math.max(limits.outputBytes, 256 * 1024 * 1024) : limits.outputBytes,
        signal: req.signal,
      });
      if (r.spawnError) return fail('sandbox_error', `could not start the program: ${r.spawnError}`, r.durationMs);
      return classify(r, r.exitCode, req.binaryStdout);
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => {});
    }
  }

  /** Stops accepting work; waiting requests fail. Running programs finish or time out. */
  close(): void {
    this.closed = true;
  }
}

function fail(status: RunStatus, message: string, durationMs = 0, queueMs = 0): RunResult {
  return { status, exitCode: null, signal: null, stdout: '', stderr: '', durationMs, queueMs, message };
}

function classify(r: SpawnResult, code: number | null, binary?: boolean): Omit<RunResult, 'queueMs'> {
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
