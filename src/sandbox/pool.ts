// The sandbox pool: runs programs under bubblewrap with at most `concurrency` live process trees
// (default: the number of cores); further requests wait in a FIFO queue. Each live run holds a
// slot. When arbiter runs as root each slot runs as its own unprivileged uid, leased host-wide
// (uid-lease.ts), so that the per-user process limit (RLIMIT_NPROC) bounds exactly one run in
// the whole machine; where a memory cgroup is available each slot has its own (cgroup.ts), which
// bounds the run's total memory. A slot is reused only once everything of its last run is gone.
import { mkdtemp, mkdir, rm, writeFile, chmod } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { threadId } from 'node:worker_threads';
import { bwrapArgs, checkFileName, RUN_DIR, type SandboxFile } from './bwrap-args.js';
import { closeQuietly, findCgroupParent, removeStale, RunCgroup } from './cgroup.js';
import { hostTools, which, type HostTools } from './host.js';
import { checkLimits, DEFAULT_LIMITS, mergeLimits, prlimitArgs, runMemoryBytes, type SandboxLimits } from './limits.js';
import { runProcess, type SpawnResult, type SpawnSpec } from './process.js';
import { hostSeccompProgram } from './seccomp.js';
import { DEFAULT_UID_BASE, leaseUids, type UidLease } from './uid-lease.js';
import {
  JS_SPARE_PATH,
  JS_SPARE_SCRIPT,
  nodeWarmForm,
  pythonWarmForm,
  spareInput,
  warmKey,
  Zygote,
  ZYGOTE_INIT_PATH,
  ZYGOTE_LIB_PATH,
  ZYGOTE_PATH,
  ZYGOTE_SCRIPT,
  zygoteInit,
  zygoteLib,
  type WarmForm,
  type WarmOutcome,
} from './zygote.js';

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
  /** The run may be served by a warm interpreter (languages.ts sets it for recipes that allow it). */
  warm?: WarmRun;
  /**
   * The program may create processes (fork, vfork, clone without CLONE_THREAD). Default false:
   * the seccomp filter refuses them with EPERM (seccomp.ts). A grading harness that forks the
   * solution's process itself sets it and stacks hostSpawnFilter() on that process.
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
}

export interface PoolOptions {
  concurrency?: number;
  /** Run without bubblewrap (no isolation besides rlimits and process groups). Explicit opt-in. */
  unsafeNoSandbox?: boolean;
  /** Start of the host-wide range the per-slot uids are leased from, when running as root. */
  uidBase?: number;
  /** Path of the bwrap executable (default: found on PATH). */
  bwrap?: string;
  /** Memory cgroup parent: `auto` (default, ARBITER_SANDBOX_CGROUP), `off`, or a directory. */
  cgroup?: string;
  /**
   * Serve eligible runs (Python) from a warm interpreter per slot (default true where it works;
   * ARBITER_SANDBOX_WARM=0 turns it off). `pool.warmMode` says which mode is active.
   */
  warm?: boolean;
}

/** A pre-started JavaScript sandbox (zygote/js-spare.cjs) waiting for its one run. */
interface Spare {
  key: string;
  side: number;
  s: Started;
  /** Hands it its run (stdin, abort signal), or lets it go (undefined: it is killed). */
  open: (g: { stdin?: string | Buffer; signal?: AbortSignal } | undefined) => void;
  dead: boolean;
}

/** A bwrap run started by startSandboxed, to be finished by finishSandboxed. */
interface Started {
  pending: Promise<SpawnResult>;
  cg: RunCgroup | undefined;
  oomBefore: number;
  statusFd: number;
  readyFd: number;
  helper: boolean;
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

let poolSeq = 0;
/** The most files one run may be given (bubblewrap itself takes at most 9000 arguments, several per file). */
export const MAX_FILES = 1000;
const CGROUP_PREFIX = 'arbiter-sb-';

/** What the modes say until the first run has checked them. */
const NOT_PROBED = 'not probed yet';

/** Why a warm mode's self-test probe failed (it prints exactly "ok" when confined as it should be). */
function selfTestFailure(r: Omit<RunResult, 'queueMs'>): string | undefined {
  if (r.status === 'ok' && r.stdout.trim() === 'ok') return undefined;
  return `the self-test failed: ${r.status} ${(r.message ?? '').slice(0, 300)} ${r.stdout.trim().slice(0, 200)} ${r.stderr.trim().slice(-300)}`;
}

export class SandboxPool {
  readonly concurrency: number;
  readonly unsafe: boolean;
  private readonly tools: HostTools;
  private readonly uidBase: number;
  private readonly cgroupSetting: string;
  private readonly freeSlots: number[];
  private readonly waiters: { take: (slot: number) => void; refuse: () => void }[] = [];
  private probeP: Promise<string | undefined> | undefined;
  private closed = false;
  private lease: UidLease | undefined;
  private cgroups: RunCgroup[] = [];
  /** Per slot, the cgroup its warm interpreters live in (apart from the cold runs' one). */
  private warmCgroups: RunCgroup[] = [];
  /** Per slot, its warm interpreters by interpreter key. */
  private readonly zygotes: Map<string, Zygote>[];
  /** Zygotes being started, by slot and key: concurrent requests for one share its start. */
  private readonly zygoteStarts: Map<string, Promise<Zygote | string>>[];
  private readonly warmSetting: boolean;
  private warmProbeP: Promise<string | undefined> | undefined;
  /** JavaScript: per slot, the pre-started node waiting for the slot's next run (see runSpare). */
  private readonly spares: (Spare | undefined)[];
  /** Per slot, the spare being started for the slot's next run. */
  private readonly pendingSpares: (Promise<Spare | undefined> | undefined)[];
  /** Per slot and side (two each), when the last run on that side's uid and cgroup is gone. */
  private readonly sideFree: Promise<void>[];
  private spareLeaseP: Promise<UidLease | string> | undefined;
  private spareLease: UidLease | undefined;
  private spareCgroups: RunCgroup[] = [];
  private jsProbeP: Promise<string | undefined> | undefined;
  /** Whether JavaScript runs use pre-started spares: `on`, `off: <why>` or `not probed yet`. */
  jsWarmMode = NOT_PROBED;
  private readonly seq = ++poolSeq;
  /**
   * Whether runs are served warm: `on: ...`, `off: <why>` (disabled, not root, or the self-test
   * at the first eligible run failed), or `not probed yet`.
   */
  warmMode = NOT_PROBED;
  /** How a run's total memory is bounded: `cgroup v1 <dir>`, `cgroup v2 <dir>`, or `rlimits only: <why>`. */
  memoryControl = NOT_PROBED;
  /** Runs started and finished (for diagnostics and tests). */
  readonly stats = { started: 0, finished: 0, maxLive: 0, live: 0, warm: 0, warmStarts: 0, coldFallbacks: 0, warmCpuMs: 0, spareRuns: 0, spareStarts: 0 };

  constructor(opts: PoolOptions = {}) {
    const n = opts.concurrency ?? Number(process.env.ARBITER_SANDBOX_CONCURRENCY || 0) ?? 0;
    this.concurrency = Math.max(1, Math.floor(n || availableParallelism()));
    this.unsafe = Boolean(opts.unsafeNoSandbox);
    this.tools = hostTools();
    if (opts.bwrap !== undefined) this.tools.bwrap = which(opts.bwrap);
    this.uidBase = opts.uidBase ?? Number(process.env.ARBITER_SANDBOX_UID_BASE || DEFAULT_UID_BASE);
    this.cgroupSetting = opts.cgroup ?? (process.env.ARBITER_SANDBOX_CGROUP || 'auto');
    this.freeSlots = Array.from({ length: this.concurrency }, (_, i) => this.concurrency - 1 - i);
    this.zygotes = Array.from({ length: this.concurrency }, () => new Map());
    this.zygoteStarts = Array.from({ length: this.concurrency }, () => new Map());
    this.spares = Array.from({ length: this.concurrency }, () => undefined);
    this.pendingSpares = Array.from({ length: this.concurrency }, () => undefined);
    this.sideFree = Array.from({ length: this.concurrency * 2 }, () => Promise.resolve());
    this.warmSetting = opts.warm ?? process.env.ARBITER_SANDBOX_WARM !== '0';
    if (!this.warmSetting) this.jsWarmMode = this.warmMode = `off: disabled (${opts.warm === false ? 'pool option warm: false' : 'ARBITER_SANDBOX_WARM=0'})`;
  }

  /** The uids this pool's slots run as (leased host-wide at the first run; empty when not root). */
  get uids(): readonly number[] {
    return [...(this.lease?.uids ?? []), ...(this.spareLease?.uids ?? [])];
  }

  /**
   * The uids of idle JavaScript spares: their processes are the spares themselves (a side's spare
   * starts only once everything of the side's previous run is gone).
   */
  get idleSpareUids(): readonly number[] {
    const l = this.spareLease;
    if (!l) return [];
    return this.spares.flatMap((sp, slot) => (sp && !sp.dead ? [l.uids[slot * 2 + sp.side]!] : []));
  }

  /** Undefined when the sandbox works, else why not (checked once, by running a trivial program). */
  unavailable(): Promise<string | undefined> {
    // (never rejects: run() awaits it, and compileProgram starts it without waiting)
    return (this.probeP ??= this.probe()
      .catch((e: unknown) => `the sandbox check failed: ${(e as Error)?.message ?? String(e)}`)
      .finally(() => this.maybeFree()));
  }

  private async probe(): Promise<string | undefined> {
    const t = this.tools;
    if (!t.prlimit && !t.sandboxExec) return 'prlimit (util-linux) not found on PATH';
    if (this.unsafe) {
      this.memoryControl = 'rlimits only: unsandboxed';
      return undefined;
    }
    if (!t.bwrap) return `bubblewrap (bwrap) not found on PATH; ${SANDBOX_HINT}`;
    if (t.isRoot && !t.setpriv && !t.sandboxExec) return `setpriv (util-linux) not found; it is needed to drop root inside the sandbox`;
    if (t.isRoot) {
      const l = await leaseUids(this.concurrency, this.uidBase);
      if (typeof l === 'string') return l;
      this.lease = l;
      if (this.closed) {
        this.lease.release();
        return 'the sandbox pool is closed';
      }
    }
    this.setUpCgroups();
    let r = await this.runInSlot(0, { argv: ['/bin/true'], limits: { wallMs: 15_000 } }, 0);
    if (r.status !== 'ok' && this.cgroups.length) {
      // the cgroup exists but this kernel or setup may refuse to let the sandbox join it: try without
      this.dropCgroups(`rlimits only: a run could not join the cgroup: ${(r.message ?? '') + ' ' + r.stderr.trim().slice(0, 200)}`);
      r = await this.runInSlot(0, { argv: ['/bin/true'], limits: { wallMs: 15_000 } }, 0);
    }
    if (r.status !== 'ok') return `bubblewrap is not usable here: ${r.message ?? r.stderr.trim().slice(0, 300)}; ${SANDBOX_HINT}`;
    return undefined;
  }

  private setUpCgroups(): void {
    const parent = findCgroupParent(this.cgroupSetting);
    if (typeof parent === 'string') {
      this.memoryControl = `rlimits only: ${parent}`;
      return;
    }
    removeStale(parent, CGROUP_PREFIX);
    try {
      for (let i = 0; i < this.concurrency; i++) {
        const c = new RunCgroup(parent, `${CGROUP_PREFIX}${process.pid}-${threadId}-${this.seq}-${i}`);
        this.cgroups.push(c);
        c.create();
        if (this.warmSetting) {
          const w = new RunCgroup(parent, `${CGROUP_PREFIX}${process.pid}-${threadId}-${this.seq}-${i}-warm`);
          this.warmCgroups.push(w);
          w.create();
          for (const side of [0, 1]) {
            const j = new RunCgroup(parent, `${CGROUP_PREFIX}${process.pid}-${threadId}-${this.seq}-${i}-js${side}`);
            this.spareCgroups.push(j);
            j.create();
          }
        }
      }
      this.memoryControl = `cgroup v${parent.version} ${parent.dir}`;
    } catch (e) {
      this.dropCgroups(`rlimits only: could not create cgroups under ${parent.dir}: ${(e as Error).message}`);
    }
  }

  private dropCgroups(why: string): void {
    for (const c of [...this.cgroups, ...this.warmCgroups, ...this.spareCgroups]) c.remove();
    this.cgroups = [];
    this.warmCgroups = [];
    this.spareCgroups = [];
    this.memoryControl = why;
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
    } catch (e) {
      if ((e as Error).message === 'closed')
        return fail('sandbox_error', 'the sandbox pool was closed while this run waited for a slot', 0, performance.now() - t0);
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
      const w = {
        take: (slot: number) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(slot);
        },
        refuse: () => {
          signal?.removeEventListener('abort', onAbort);
          reject(new Error('closed'));
        },
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
    if (w) w.take(slot);
    else this.freeSlots.push(slot);
    this.maybeFree();
  }

  /** Once closed and idle, gives the uids back and removes the cgroups. */
  private maybeFree(): void {
    if (!this.closed || this.stats.live > 0 || this.freeSlots.length < this.concurrency) return;
    const zs = this.zygotes.flatMap((m) => [...m.values()]);
    for (const m of this.zygotes) m.clear();
    for (const z of zs) z.kill('the pool was closed');
    const spares = this.spares.splice(0).filter((x): x is Spare => x !== undefined);
    for (const sp of spares) sp.open(undefined);
    this.lease?.release();
    for (const c of this.cgroups) c.remove();
    const warm = [...this.warmCgroups, ...this.spareCgroups];
    const spareLease = this.spareLease;
    void Promise.all([...zs.map((z) => z.exited), ...spares.map((sp) => sp.s.pending), ...this.sideFree]).then(() => {
      spareLease?.release();
      for (const c of warm) c.remove();
    });
  }

  private async runInSlot(slot: number, req: RunRequest, queueMs: number): Promise<RunResult> {
    const limits = mergeLimits(DEFAULT_LIMITS, req.limits);
    const badLimit = checkLimits(limits);
    if (badLimit) return fail('sandbox_error', badLimit, 0, queueMs);
    const files = req.files ?? [];
    // a clear refusal before bubblewrap's own argument cap; each file is also a pipe (two fds) of
    // the arbiter process while the run starts
    if (files.length > MAX_FILES) return fail('sandbox_error', `a run takes at most ${MAX_FILES} files, got ${files.length}`, 0, queueMs);
    const names = new Set<string>();
    for (const f of files) {
      const m = checkFileName(f.name) ?? (names.has(f.name) ? `sandbox file "${f.name}" is given twice` : undefined);
      if (m) return fail('sandbox_error', m, 0, queueMs);
      names.add(f.name);
    }
    const env = { ...BASE_ENV, ...req.env };
    if (limits.runMemoryBytes !== undefined && (!this.cgroups[slot] || this.unsafe)) {
      return fail(
        'sandbox_error',
        `a run memory limit (run_memory_mb) needs a memory cgroup, and this pool has none (${this.memoryControl}); remove the limit to rely on the per-process limits`,
        0,
        queueMs,
      );
    }
    this.stats.started++;
    this.stats.live++;
    this.stats.maxLive = Math.max(this.stats.maxLive, this.stats.live);
    try {
      const r = this.unsafe
        ? await this.spawnUnsafe(req, files, limits, env)
        : ((await this.tryWarm(slot, req, files, limits, env)) ?? (await this.spawnSandboxed(slot, req, files, limits, env)));
      return { ...r, queueMs };
    } finally {
      this.stats.live--;
      this.stats.finished++;
    }
  }

  private async spawnSandboxed(
    slot: number,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<Omit<RunResult, 'queueMs'>> {
    const s = this.startSandboxed({ uid: this.lease?.uids[slot], cg: this.cgroups[slot] }, req, files, limits, env);
    if ('status' in s) return s;
    return this.finishSandboxed(s, await s.pending, req, limits);
  }

  /**
   * Starts one bwrap run as `target`'s uid in its cgroup. With `gate`, the process starts now but
   * gets its stdin, wall clock and abort signal when the gate resolves (a pre-started spare).
   */
  private startSandboxed(
    target: { uid: number | undefined; cg: RunCgroup | undefined },
    req: Pick<RunRequest, 'argv' | 'binds' | 'stdin' | 'signal' | 'binaryStdout'>,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
    extra: { gate?: SpawnSpec['gate']; roFiles?: { src: string; dest: string }[] } = {},
  ): Omit<RunResult, 'queueMs'> | Started {
    // fd 3: bwrap's JSON status (proof that the sandbox started, and the sandbox init's pid);
    // fd 4: the slot cgroup's cgroup.procs; fd 5: the helper's "ok" before it execs the program;
    // fd 6: the seccomp program; the run's files from fd 7 on.
    const statusFd = 3;
    const cgroupFd = 4;
    const readyFd = 5;
    const seccompFd = 6;
    const firstFileFd = 7;
    const seccomp = hostSeccompProgram({ spawn: true });
    const { cg, uid } = target;
    const helper = this.tools.sandboxExec;
    let procsFd: number | undefined;
    let oomBefore = 0;
    if (cg) {
      try {
        cg.setLimit(runMemoryBytes(limits));
        oomBefore = cg.oomKills();
        procsFd = cg.openProcs();
      } catch (e) {
        return fail('sandbox_error', `could not prepare the run's memory cgroup ${cg.path}: ${(e as Error).message}`);
      }
    }
    let args: string[];
    try {
      args = bwrapArgs({
        bwrap: this.tools.bwrap!,
        prlimit: this.tools.prlimit!,
        ...(helper ? { exec: helper, readyFd } : {}),
        ...(this.tools.isRoot && uid !== undefined ? { setpriv: { path: this.tools.setpriv!, uid } } : {}),
        ...(seccomp ? { seccompFd } : {}),
        ...(procsFd !== undefined ? { cgroupFd } : {}),
        ...(extra.roFiles ? { roFiles: extra.roFiles } : {}),
        binds: req.binds ?? [],
        files,
        limits,
        env,
        argv: req.argv,
        statusFd,
        firstFileFd,
      });
    } catch (e) {
      closeQuietly(procsFd);
      return fail('sandbox_error', (e as Error).message);
    }
    if (this.tools.isRoot && uid === undefined) {
      closeQuietly(procsFd);
      return fail('sandbox_error', 'no sandbox uid leased for this slot');
    }
    const pending = runProcess({
      argv: [this.tools.bwrap!, ...args],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdin: req.stdin,
      inputFds: [seccomp ?? Buffer.alloc(0), ...files.map((f) => f.data)],
      inputFdBase: seccompFd,
      outputFds: [statusFd, readyFd],
      passFds: procsFd !== undefined ? { [cgroupFd]: procsFd } : {},
      // kill the sandbox's init: the kernel then empties its pid namespace before bwrap exits
      killTarget: (fds) => {
        const m = /"child-pid"\s*:\s*(\d+)/.exec(fds[statusFd] ?? '');
        return m ? Number(m[1]) : undefined;
      },
      wallMs: limits.wallMs,
      outputBytes: req.binaryStdout ? Math.max(limits.outputBytes, 256 * 1024 * 1024) : limits.outputBytes,
      signal: req.signal,
      ...(extra.gate ? { gate: extra.gate } : {}),
    });
    closeQuietly(procsFd); // the child has its copy (spawn is synchronous)
    return { pending, cg, oomBefore, statusFd, readyFd, helper: Boolean(helper) };
  }

  private async finishSandboxed(s: Started, r: SpawnResult, req: Pick<RunRequest, 'binaryStdout'>, limits: SandboxLimits): Promise<Omit<RunResult, 'queueMs'>> {
    const { cg, oomBefore, statusFd, readyFd, helper } = s;
    const memoryExceeded = cg ? cg.oomKills() > oomBefore : false;
    // the slot is reused only once every process of this run is gone
    if (cg) await cg.drain();
    const started = /"child-pid"/.test(r.fds[statusFd] ?? '');
    const m = /"exit-code"\s*:\s*(-?\d+)/.exec(r.fds[statusFd] ?? '');
    if (!started && !r.timedOut && !r.aborted) {
      const why = r.spawnError ?? (r.stderr.toString('utf8').trim().slice(0, 500) || `bwrap exited with ${r.exitCode ?? r.signal}`);
      return { ...fail('sandbox_error', `sandbox failed to start: ${why}`, r.durationMs), stderr: r.stderr.toString('utf8') };
    }
    const ready = r.fds[readyFd] ?? '';
    if (helper && /error:/.test(ready) && !r.timedOut && !r.aborted) {
      return { ...fail('sandbox_error', startFailure(ready), r.durationMs), stderr: r.stderr.toString('utf8') };
    }
    const code = m ? Number(m[1]) : r.exitCode;
    return withMemoryExceeded(classify(r, code, req.binaryStdout), memoryExceeded, limits);
  }

  /**
   * Serves the run from the slot's warm interpreter when it is eligible and warm mode works;
   * undefined means "run it cold" (not eligible, warm off, or the zygote failed before the program
   * could have started: the cold path then runs it, once).
   */
  private async tryWarm(
    slot: number,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<Omit<RunResult, 'queueMs'> | undefined> {
    if (!req.warm || !this.warmSetting || req.binaryStdout || this.closed) return undefined;
    if (req.warm.language === 'javascript') return this.tryJsSpare(slot, req, files, limits, env);
    const form = pythonWarmForm(req.argv, files, env, BASE_ENV);
    if (!form) return undefined;
    let early: Promise<Zygote | string> | undefined;
    if (!this.warmProbeP) this.warmProbeP = this.warmSelfTest(slot, form, req.binds ?? []);
    // while the first slot runs the self-test, every other slot starts its own zygote
    else if (this.warmMode === NOT_PROBED) early = this.zygoteFor(slot, form, req.binds ?? []);
    const bad = await this.warmProbeP;
    if (bad) {
      void early?.then((z) => typeof z !== 'string' && z.kill('warm mode is off'));
      return undefined;
    }
    const out = await this.runWarm(slot, form, req, files, limits, env);
    if (out) this.stats.warm++;
    else this.stats.coldFallbacks++;
    return out;
  }

  /** JavaScript: runs on the slot's pre-started spare when its probe passed; undefined means cold. */
  private async tryJsSpare(
    slot: number,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<Omit<RunResult, 'queueMs'> | undefined> {
    const form = nodeWarmForm(req.argv, files);
    if (!form) return undefined;
    const bad = await (this.jsProbeP ??= this.jsSelfTest(slot, form, req.binds ?? []));
    if (bad) return undefined;
    const r = await this.runSpare(slot, form, req, files, limits, env);
    this.stats.spareRuns++;
    return r;
  }

  private async jsSelfTest(slot: number, form: WarmForm, binds: string[]): Promise<string | undefined> {
    let why: string | undefined;
    if (!this.tools.isRoot || !this.lease) why = 'pre-started spares need arbiter to run as root (each runs as a leased uid)';
    else {
      const l = await (this.spareLeaseP ??= leaseUids(2 * this.concurrency, this.uidBase));
      if (typeof l === 'string') why = l;
      else {
        this.spareLease = l;
        const probe = [
          "const fs = require('fs');",
          "const st = fs.readFileSync('/proc/self/status', 'utf8');",
          'const ok = process.getuid() !== 0 && /NoNewPrivs:\\s+1/.test(st) && /Seccomp:\\s+2/.test(st) && /CapEff:\\s+0+\\n/.test(st)',
          "  && require.main === module && process.argv[1] === '/tmp/main.js' && fs.readFileSync(0, 'utf8') === 'ping' && fs.readdirSync('/tmp').join() === 'main.js';",
          "console.log(ok ? 'ok' : 'failed ' + process.argv.join(' '));",
        ].join('\n');
        const argv = [...form.prefix, 'main.js'];
        const r = await this.runSpare(
          slot,
          { ...form, script: argv.length - 1, main: 0 },
          { argv, binds, stdin: 'ping', warm: { language: 'javascript' } },
          [{ name: 'main.js', data: probe }],
          mergeLimits(DEFAULT_LIMITS, { wallMs: 15_000, memoryKind: 'data', processes: 64 }),
          BASE_ENV,
        );
        why = selfTestFailure(r);
      }
    }
    if (why) {
      this.jsWarmMode = `off: ${why}`;
      const sp = this.spares[slot];
      this.spares[slot] = undefined;
      sp?.open(undefined);
      return why;
    }
    this.jsWarmMode = 'on: a pre-started node per slot runs each program';
    return undefined;
  }

  /**
   * Starts a spare on `side` of the slot once everything earlier on that side (a spare, its run)
   * is gone: a side's uid and cgroup hold at most one spare or run at a time.
   */
  private async prepareSpare(
    slot: number,
    side: number,
    key: string,
    form: WarmForm,
    binds: string[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<Spare | undefined> {
    const idx = slot * 2 + side;
    const prev = this.sideFree[idx]!;
    let release!: () => void;
    this.sideFree[idx] = new Promise((r) => (release = r));
    await prev;
    if (this.closed || !this.spareLease) {
      release();
      return undefined;
    }
    let open!: Spare['open'];
    const gate = new Promise<{ stdin?: string | Buffer; signal?: AbortSignal } | undefined>((r) => (open = r));
    const cg = this.spareCgroups[idx];
    const s = this.startSandboxed({ uid: this.spareLease.uids[idx], cg }, { argv: [...form.prefix, JS_SPARE_PATH], binds }, [], limits, env, {
      gate,
      roFiles: [{ src: JS_SPARE_SCRIPT, dest: JS_SPARE_PATH }],
    });
    if ('status' in s) {
      release();
      return undefined;
    }
    this.stats.spareStarts++;
    const sp: Spare = { key, side, s, open, dead: false };
    // the side is free once this spare (run or let go) and all its processes are gone
    void s.pending
      .then(async () => {
        sp.dead = true;
        await cg?.drain();
      })
      .finally(release);
    return sp;
  }

  /**
   * Runs on the slot's spare (started now if there is none for this key), and at once starts the
   * next spare on the slot's other side (its own uid and cgroup), which waits for the next run.
   */
  private async runSpare(
    slot: number,
    form: WarmForm,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<Omit<RunResult, 'queueMs'>> {
    const binds = req.binds ?? [];
    const key = JSON.stringify([form.prefix, [...binds].sort(), limits, env]);
    // the slot's spare: ready, or still being prepared (its side only waits for a finished run)
    let sp = this.spares[slot];
    this.spares[slot] = undefined;
    if (!sp && this.pendingSpares[slot]) {
      sp = await this.pendingSpares[slot];
      if (sp && this.spares[slot] === sp) this.spares[slot] = undefined;
    }
    let side = 0;
    if (sp && (sp.key !== key || sp.dead)) {
      side = sp.side;
      sp.open(undefined);
      sp = undefined;
    }
    // (no spare is idle on either side now, so each side waits only for runs that have ended)
    sp ??= await this.prepareSpare(slot, side, key, form, binds, limits, env);
    if (!sp) return fail('sandbox_error', this.closed ? 'the sandbox pool is closed' : 'could not start the JavaScript sandbox');
    const mine = sp;
    if (!this.closed) {
      const next: Promise<Spare | undefined> = this.prepareSpare(slot, 1 - mine.side, key, form, binds, limits, env).then((n) => {
        if (this.pendingSpares[slot] === next) this.pendingSpares[slot] = undefined;
        if (!n) return undefined;
        if (this.closed || this.spares[slot]) {
          n.open(undefined);
          return undefined;
        }
        this.spares[slot] = n;
        return n;
      });
      this.pendingSpares[slot] = next;
    }
    mine.open({ stdin: spareInput(req.argv, form, files, req.stdin), ...(req.signal ? { signal: req.signal } : {}) });
    return this.finishSandboxed(mine.s, await mine.s.pending, req, limits);
  }

  /** At the first eligible run: runs a probe program warm and checks its confinement. */
  private async warmSelfTest(slot: number, form: WarmForm, binds: string[]): Promise<string | undefined> {
    let why: string | undefined;
    if (!this.tools.isRoot) why = 'warm interpreters need arbiter to run as root (each program drops to its slot uid)';
    else if (!this.lease) why = 'no sandbox uids leased';
    else {
      const probe = [
        'import os, sys',
        "f = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)",
        "checks = {'uid': os.getuid() not in (0, 65534), 'nnp': f['NoNewPrivs'].strip() == '1', 'seccomp': f['Seccomp'].strip() == '2',",
        "  'caps': int(f['CapEff'], 16) == 0 and int(f['CapBnd'], 16) == 0, 'pid': os.getpid() == 2, 'tmp': os.listdir('/tmp') == ['main.py'],",
        "  'stdin': sys.stdin.read() == 'ping', 'env': dict(os.environ) == {'A': 'b', 'PWD': '/tmp'}}",
        "print('ok' if all(checks.values()) else 'failed: ' + ' '.join(k for k, v in checks.items() if not v))",
      ].join('\n');
      const argv = [...form.prefix, 'main.py'];
      const r = await this.runWarm(
        slot,
        { ...form, script: argv.length - 1, main: 0 },
        { argv, binds, stdin: 'ping', warm: { language: 'python' } },
        [{ name: 'main.py', data: probe }],
        mergeLimits(DEFAULT_LIMITS, { wallMs: 15_000 }),
        { A: 'b' },
      );
      why = r ? selfTestFailure(r) : 'the warm interpreter did not start';
    }
    if (why) {
      this.warmMode = `off: ${why}`;
      for (const m of this.zygotes) {
        for (const z of m.values()) z.kill('warm mode is off');
        m.clear();
      }
      return why;
    }
    this.warmMode = 'on: python (a zygote per slot forks each program)';
    return undefined;
  }

  /** The slot's zygote for this interpreter, started when missing or dead; a message when it cannot start. */
  private zygoteFor(slot: number, form: WarmForm, binds: string[]): Promise<Zygote | string> {
    const key = warmKey(form, binds);
    const have = this.zygotes[slot]!.get(key);
    if (have && !have.dead) return Promise.resolve(have);
    const starts = this.zygoteStarts[slot]!;
    let p = starts.get(key);
    if (!p) {
      p = this.startZygote(slot, form, binds, key).finally(() => starts.delete(key));
      starts.set(key, p);
    }
    return p;
  }

  private async startZygote(slot: number, form: WarmForm, binds: string[], key: string): Promise<Zygote | string> {
    const m = this.zygotes[slot]!;
    m.delete(key);
    if (m.size >= 2) {
      // at most two interpreters per slot: drop the oldest
      const [k, old] = m.entries().next().value as [string, Zygote];
      old.kill('evicted');
      m.delete(k);
    }
    const cg = this.warmCgroups[slot];
    const lib = zygoteLib();
    const init = lib ? zygoteInit() : undefined;
    let procsFd: number | undefined;
    let args: string[];
    try {
      if (cg) {
        cg.setLimit(runMemoryBytes(DEFAULT_LIMITS));
        procsFd = cg.openProcs();
      }
      args = bwrapArgs({
        bwrap: this.tools.bwrap!,
        prlimit: this.tools.prlimit ?? '',
        // (bound at SPAWN_EXEC_PATH for the programs' own use: a harness's launcher)
        ...(this.tools.sandboxExec ? { exec: this.tools.sandboxExec } : {}),
        binds,
        files: [],
        limits: mergeLimits(DEFAULT_LIMITS, { tmpBytes: 1024 * 1024 }),
        env: BASE_ENV,
        argv: [...form.prefix, ZYGOTE_PATH],
        statusFd: 3,
        firstFileFd: 7,
        zygote: {
          script: ZYGOTE_SCRIPT,
          path: ZYGOTE_PATH,
          ...(lib ? { lib: { src: lib, dest: ZYGOTE_LIB_PATH } } : {}),
          ...(init ? { init: { src: init, dest: ZYGOTE_INIT_PATH } } : {}),
        },
      });
    } catch (e) {
      closeQuietly(procsFd);
      return `could not prepare the warm interpreter: ${(e as Error).message}`;
    }
    const z = new Zygote({
      bwrap: this.tools.bwrap!,
      args,
      ...(procsFd !== undefined ? { procsFd } : {}),
      uid: this.lease!.uids[slot]!,
      seccomp: hostSeccompProgram({ spawn: true }),
      native: lib !== undefined,
      init: init !== undefined,
    });
    this.stats.warmStarts++;
    const bad = await z.start();
    closeQuietly(procsFd);
    if (bad) {
      z.kill(bad);
      return bad;
    }
    if (this.closed) {
      z.kill('the pool was closed');
      return 'the sandbox pool is closed';
    }
    if (this.warmMode.startsWith('off')) {
      // the self-test failed while this one was starting
      z.kill('warm mode is off');
      return this.warmMode;
    }
    m.set(key, z);
    return z;
  }

  private async runWarm(
    slot: number,
    form: WarmForm,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<Omit<RunResult, 'queueMs'> | undefined> {
    const z = await this.zygoteFor(slot, form, req.binds ?? []);
    if (typeof z === 'string') return undefined;
    const cg = this.warmCgroups[slot];
    let oomBefore = 0;
    if (cg) {
      try {
        // the run's bound plus what the slot's idle zygotes (all in this cgroup) hold now: the
        // slot serves one run at a time, so nothing else is in it
        cg.setLimit(runMemoryBytes(limits) + cg.usage());
        oomBefore = cg.oomKills();
      } catch (err) {
        return fail('sandbox_error', `could not prepare the run's memory cgroup ${cg.path}: ${(err as Error).message}`);
      }
    }
    const o: WarmOutcome = await z.run(
      // bwrap's --chdir sets PWD for a cold run
      {
        argv: req.argv,
        form,
        files,
        ...(req.stdin !== undefined ? { stdin: req.stdin } : {}),
        env: { ...env, PWD: RUN_DIR },
        limits,
        trustedMain: Boolean(req.warm?.trustedMain),
      },
      req.signal,
    );
    const memoryExceeded = cg ? cg.oomKills() > oomBefore : false;
    switch (o.kind) {
      case 'aborted':
        return { ...fail('aborted', 'aborted by the caller', o.durationMs) };
      case 'error':
        if (!o.started) return undefined;
        return fail('sandbox_error', `the warm interpreter failed during the run: ${o.message.slice(0, 500)}`);
      case 'died':
        // the program never began: the cold path runs it (once)
        if (!o.started) return undefined;
        if (memoryExceeded) return { ...fail('runtime_error', `killed by SIGKILL: ${memoryMessage(limits)}`), signal: 'SIGKILL', memoryExceeded: true };
        return fail('sandbox_error', `the warm interpreter died during the run: ${o.message.slice(0, 500)}`);
      case 'result': {
        this.stats.warmCpuMs += o.cpuMs;
        if (/error:/.test(o.ready)) return fail('sandbox_error', startFailure(o.ready), o.durationMs);
        const r: SpawnResult = {
          exitCode: o.code,
          signal: o.signal !== null ? ((SIGNALS[o.signal] ?? null) as NodeJS.Signals | null) : null,
          stdout: o.stdout,
          stderr: o.stderr,
          fds: {},
          timedOut: o.timedOut,
          outputLimit: o.outputLimit,
          aborted: false,
          durationMs: o.durationMs,
        };
        return withMemoryExceeded(classify(r, o.code), memoryExceeded, limits);
      }
    }
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

  /**
   * Stops accepting work; waiting requests fail. Running programs finish or time out; then the
   * leased uids are given back and the cgroups removed.
   */
  close(): void {
    this.closed = true;
    for (const w of this.waiters.splice(0)) w.refuse();
    this.maybeFree();
  }
}

function fail(status: RunStatus, message: string, durationMs = 0, queueMs = 0): RunResult {
  return { status, exitCode: null, signal: null, stdout: '', stderr: '', durationMs, queueMs, message };
}

/** The sandbox helper's "error: ..." note (a step before the program failed) as a message. */
function startFailure(ready: string): string {
  return `sandbox failed to start the program: ${ready
    .slice(ready.indexOf('error:') + 7)
    .trim()
    .slice(0, 500)}`;
}

function memoryMessage(limits: SandboxLimits): string {
  return `the run exceeded its total memory limit of ${Math.round(runMemoryBytes(limits) / 1048576)} MiB (all processes together)`;
}

/** A runtime error while the run's cgroup OOM-killed a process is `memoryExceeded`, and says so. */
function withMemoryExceeded(out: Omit<RunResult, 'queueMs'>, memoryExceeded: boolean, limits: SandboxLimits): Omit<RunResult, 'queueMs'> {
  if (memoryExceeded && out.status === 'runtime_error') {
    out.memoryExceeded = true;
    out.message = `${out.message}: ${memoryMessage(limits)}`;
  }
  return out;
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
