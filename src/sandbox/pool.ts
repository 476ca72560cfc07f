// The sandbox pool: runs programs under bubblewrap with at most `concurrency` live process trees
// (default: the number of cores); further requests wait in a FIFO queue. Each live run holds a
// slot. When arbiter runs as root each slot runs as its own unprivileged uid, leased host-wide
// (uid-lease.ts), so that the per-user process limit (RLIMIT_NPROC) bounds exactly one run in
// the whole machine; where a memory cgroup is available each slot has its own (cgroup.ts), which
// bounds the run's total memory. A slot is reused only once everything of its last run is gone.
// This class admits a run and picks its way: slots.ts (the slots and what they hold),
// self-test.ts (the checks before a mode is trusted), cold.ts (a bwrap run from nothing, or
// unsandboxed), warm-python.ts (Python zygotes), spares.ts (pre-started JavaScript), run.ts (the
// request and result shapes).
import { availableParallelism } from 'node:os';
import { checkFileName, type SandboxFile } from './bwrap-args.js';
import { spawnSandboxed, spawnUnsafe } from './cold.js';
import { hostTools, which, type HostTools } from './host.js';
import { checkLimits, DEFAULT_LIMITS, mergeLimits, type SandboxLimits } from './limits.js';
import { BASE_ENV, fail, SANDBOX_PROGRAM_PID, type RunOutcome, type RunRequest, type RunResult } from './run.js';
import { checkSandbox } from './self-test.js';
import { SlotQueue, SlotResources, type PoolContext, type PoolStats } from './slots.js';
import { JsSpares } from './spares.js';
import { DEFAULT_UID_BASE } from './uid-lease.js';
import { WarmPython } from './warm-python.js';

export type { SandboxFile } from './bwrap-args.js';
export type { RunRequest, RunResult, RunStatus, WarmRun } from './run.js';
export { SANDBOX_PROGRAM_PID } from './run.js';
export { SANDBOX_HINT } from './self-test.js';

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

let poolSeq = 0;
/** The most files one run may be given (bubblewrap itself takes at most 9000 arguments, several per file). */
export const MAX_FILES = 1000;

export class SandboxPool {
  readonly concurrency: number;
  readonly unsafe: boolean;
  private readonly tools: HostTools;
  private readonly queue: SlotQueue;
  private readonly slots: SlotResources;
  private readonly ctx: PoolContext;
  private readonly python: WarmPython;
  private readonly spares: JsSpares;
  private readonly warmSetting: boolean;
  private probeP: Promise<string | undefined> | undefined;
  private closed = false;
  private readonly seq = ++poolSeq;
  /** Runs started and finished (for diagnostics and tests). */
  readonly stats: PoolStats = {
    started: 0,
    finished: 0,
    maxLive: 0,
    live: 0,
    warm: 0,
    warmStarts: 0,
    coldFallbacks: 0,
    warmCpuMs: 0,
    spareRuns: 0,
    spareStarts: 0,
  };

  constructor(opts: PoolOptions = {}) {
    const n = opts.concurrency ?? Number(process.env.ARBITER_SANDBOX_CONCURRENCY || 0) ?? 0;
    this.concurrency = Math.max(1, Math.floor(n || availableParallelism()));
    this.unsafe = Boolean(opts.unsafeNoSandbox);
    this.tools = hostTools();
    if (opts.bwrap !== undefined) this.tools.bwrap = which(opts.bwrap);
    const uidBase = opts.uidBase ?? Number(process.env.ARBITER_SANDBOX_UID_BASE || DEFAULT_UID_BASE);
    this.warmSetting = opts.warm ?? process.env.ARBITER_SANDBOX_WARM !== '0';
    this.queue = new SlotQueue(this.concurrency);
    this.slots = new SlotResources(this.concurrency, opts.cgroup ?? (process.env.ARBITER_SANDBOX_CGROUP || 'auto'), this.warmSetting, this.seq);
    const pool = this;
    this.ctx = {
      tools: this.tools,
      concurrency: this.concurrency,
      uidBase,
      slots: this.slots,
      stats: this.stats,
      get closed() {
        return pool.closed;
      },
    };
    this.python = new WarmPython(this.ctx);
    this.spares = new JsSpares(this.ctx);
    if (!this.warmSetting)
      this.spares.mode = this.python.mode = `off: disabled (${opts.warm === false ? 'pool option warm: false' : 'ARBITER_SANDBOX_WARM=0'})`;
  }

  /**
   * Whether runs are served warm: `on: ...`, `off: <why>` (disabled, not root, or the self-test
   * at the first eligible run failed), or `not probed yet`.
   */
  get warmMode(): string {
    return this.python.mode;
  }

  /** Whether JavaScript runs use pre-started spares: `on`, `off: <why>` or `not probed yet`. */
  get jsWarmMode(): string {
    return this.spares.mode;
  }

  /** How a run's total memory is bounded: `cgroup v1 <dir>`, `cgroup v2 <dir>`, or `rlimits only: <why>`. */
  get memoryControl(): string {
    return this.slots.memoryControl;
  }

  /** The uids this pool's slots run as (leased host-wide at the first run; empty when not root). */
  get uids(): readonly number[] {
    return [...(this.slots.lease?.uids ?? []), ...(this.spares.lease?.uids ?? [])];
  }

  /**
   * The uids of idle JavaScript spares: their processes are the spares themselves (a side's spare
   * starts only once everything of the side's previous run is gone).
   */
  get idleSpareUids(): readonly number[] {
    return this.spares.idleUids;
  }

  /** Undefined when the sandbox works, else why not (checked once, by running a trivial program). */
  unavailable(): Promise<string | undefined> {
    // (never rejects: run() awaits it, and compileProgram starts it without waiting)
    return (this.probeP ??= checkSandbox(this.ctx, this.unsafe, (req) => this.runInSlot(0, req, 0))
      .catch((e: unknown) => `the sandbox check failed: ${(e as Error)?.message ?? String(e)}`)
      .finally(() => this.maybeFree()));
  }

  /** Runs one program in the sandbox once a slot is free. Never rejects. */
  async run(req: RunRequest): Promise<RunResult> {
    if (this.closed) return fail('sandbox_error', 'the sandbox pool is closed');
    const bad = await this.unavailable();
    if (bad) return fail('sandbox_error', bad);
    const t0 = performance.now();
    let slot: number;
    try {
      slot = await this.queue.acquire(req.signal);
    } catch (e) {
      if ((e as Error).message === 'closed')
        return fail('sandbox_error', 'the sandbox pool was closed while this run waited for a slot', 0, performance.now() - t0);
      return fail('aborted', 'aborted while waiting for a sandbox slot', performance.now() - t0);
    }
    try {
      return await this.runInSlot(slot, req, performance.now() - t0);
    } finally {
      this.queue.release(slot);
      this.maybeFree();
    }
  }

  /** Once closed and idle, gives the uids back and removes the cgroups. */
  private maybeFree(): void {
    if (!this.closed || this.stats.live > 0 || !this.queue.allFree) return;
    const zygotesGone = this.python.closeAll();
    const sparesGone = this.spares.closeAll();
    this.slots.lease?.release();
    for (const c of this.slots.cold) c.remove();
    const warm = [...this.slots.warm, ...this.slots.spare];
    const spareLease = this.spares.lease;
    void Promise.all([...zygotesGone, ...sparesGone]).then(() => {
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
    if (limits.runMemoryBytes !== undefined && (!this.slots.cold[slot] || this.unsafe)) {
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
        ? await spawnUnsafe(this.tools, req, files, limits, env)
        : {
            ...((await this.tryWarm(slot, req, files, limits, env)) ??
              (await spawnSandboxed(this.tools, { uid: this.slots.lease?.uids[slot], cg: this.slots.cold[slot] }, req, files, limits, env))),
            programPid: SANDBOX_PROGRAM_PID,
          };
      return { ...r, queueMs };
    } finally {
      this.stats.live--;
      this.stats.finished++;
    }
  }

  /**
   * Serves the run warm (a Python zygote, a JavaScript spare) when it is eligible and that mode
   * works; undefined means "run it cold".
   */
  private async tryWarm(
    slot: number,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<RunOutcome | undefined> {
    if (!req.warm || !this.warmSetting || req.binaryStdout || this.closed) return undefined;
    if (req.warm.language === 'javascript') return this.spares.tryRun(slot, req, files, limits, env);
    return this.python.tryRun(slot, req, files, limits, env);
  }

  /**
   * Stops accepting work; waiting requests fail. Running programs finish or time out; then the
   * leased uids are given back and the cgroups removed.
   */
  close(): void {
    this.closed = true;
    this.queue.refuseAll();
    this.maybeFree();
  }
}
