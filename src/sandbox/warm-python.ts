// Warm Python for the pool: per slot, its warm interpreters (zygotes, zygote.ts: at most two a
// slot, by interpreter key, in the slot's warm cgroup, as the slot's uid), whose start concurrent
// requests share; the self-test at the first eligible run, which turns the mode on or off; and
// one run served by a slot's zygote. Undefined from a run means "run it cold" (pool.ts does).
import { RUN_DIR, bwrapArgs, type SandboxFile } from './bwrap-args.js';
import { closeQuietly } from './cgroup.js';
import { DEFAULT_LIMITS, mergeLimits, runMemoryBytes, type SandboxLimits } from './limits.js';
import type { SpawnResult } from './process.js';
import { BASE_ENV, classify, fail, memoryMessage, SIGNALS, startFailure, withMemoryExceeded, type RunOutcome, type RunRequest } from './run.js';
import { hostSeccompProgram, hostSpawnFilter } from './seccomp.js';
import { NOT_PROBED, PYTHON_PROBE, selfTestFailure } from './self-test.js';
import type { PoolContext } from './slots.js';
import {
  pythonWarmForm,
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

export class WarmPython {
  /** Per slot, its warm interpreters by interpreter key. */
  private readonly zygotes: Map<string, Zygote>[];
  /** Zygotes being started, by slot and key: concurrent requests for one share its start. */
  private readonly zygoteStarts: Map<string, Promise<Zygote | string>>[];
  private probeP: Promise<string | undefined> | undefined;
  /**
   * Whether runs are served warm: `on: ...`, `off: <why>` (disabled, not root, or the self-test
   * at the first eligible run failed), or `not probed yet`.
   */
  mode = NOT_PROBED;

  constructor(private readonly ctx: PoolContext) {
    this.zygotes = Array.from({ length: ctx.concurrency }, () => new Map());
    this.zygoteStarts = Array.from({ length: ctx.concurrency }, () => new Map());
  }

  /**
   * Serves the run from the slot's zygote when it is eligible and warm mode works; undefined means
   * "run it cold" (not eligible, warm off, or the zygote failed before the program could have
   * started: the cold path then runs it, once).
   */
  async tryRun(slot: number, req: RunRequest, files: SandboxFile[], limits: SandboxLimits, env: Record<string, string>): Promise<RunOutcome | undefined> {
    const form = pythonWarmForm(req.argv, files, env, BASE_ENV);
    if (!form) return undefined;
    let early: Promise<Zygote | string> | undefined;
    if (!this.probeP) this.probeP = this.selfTest(slot, form, req.binds ?? []);
    // while the first slot runs the self-test, every other slot starts its own zygote
    else if (this.mode === NOT_PROBED) early = this.zygoteFor(slot, form, req.binds ?? []);
    const bad = await this.probeP;
    if (bad) {
      void early?.then((z) => typeof z !== 'string' && z.kill('warm mode is off'));
      return undefined;
    }
    const out = await this.run(slot, form, req, files, limits, env);
    if (out) this.ctx.stats.warm++;
    else this.ctx.stats.coldFallbacks++;
    return out;
  }

  /** The pool is closing: kills every zygote; what to wait for before their cgroups go. */
  closeAll(): Promise<void>[] {
    const zs = this.zygotes.flatMap((m) => [...m.values()]);
    for (const m of this.zygotes) m.clear();
    for (const z of zs) z.kill('the pool was closed');
    return zs.map((z) => z.exited);
  }

  /** At the first eligible run: runs a probe program warm and checks its confinement. */
  private async selfTest(slot: number, form: WarmForm, binds: string[]): Promise<string | undefined> {
    let why: string | undefined;
    if (!this.ctx.tools.isRoot) why = 'warm interpreters need arbiter to run as root (each program drops to its slot uid)';
    else if (!this.ctx.slots.lease) why = 'no sandbox uids leased';
    else {
      const p = PYTHON_PROBE;
      const argv = [...form.prefix, p.file];
      const r = await this.run(
        slot,
        { ...form, script: argv.length - 1, main: 0 },
        { argv, binds, stdin: p.stdin, warm: { language: 'python' } },
        [{ name: p.file, data: p.source }],
        mergeLimits(DEFAULT_LIMITS, p.limits),
        p.env,
      );
      why = r ? selfTestFailure(r) : 'the warm interpreter did not start';
    }
    if (why) {
      this.mode = `off: ${why}`;
      for (const m of this.zygotes) {
        for (const z of m.values()) z.kill('warm mode is off');
        m.clear();
      }
      return why;
    }
    this.mode = 'on: python (a zygote per slot forks each program)';
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
    const cg = this.ctx.slots.warm[slot];
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
        bwrap: this.ctx.tools.bwrap!,
        prlimit: this.ctx.tools.prlimit ?? '',
        // (bound at SPAWN_EXEC_PATH for the programs' own use: a harness's launcher)
        ...(this.ctx.tools.sandboxExec ? { exec: this.ctx.tools.sandboxExec } : {}),
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
      bwrap: this.ctx.tools.bwrap!,
      args,
      ...(procsFd !== undefined ? { procsFd } : {}),
      uid: this.ctx.slots.lease!.uids[slot]!,
      seccomp: hostSeccompProgram({ spawn: true }),
      seccompNoSpawn: hostSeccompProgram({ spawn: false }),
      spawnFilter: hostSpawnFilter(),
      native: lib !== undefined,
      init: init !== undefined,
    });
    this.ctx.stats.warmStarts++;
    const bad = await z.start();
    closeQuietly(procsFd);
    if (bad) {
      z.kill(bad);
      return bad;
    }
    if (this.ctx.closed) {
      z.kill('the pool was closed');
      return 'the sandbox pool is closed';
    }
    if (this.mode.startsWith('off')) {
      // the self-test failed while this one was starting
      z.kill('warm mode is off');
      return this.mode;
    }
    m.set(key, z);
    return z;
  }

  /** Runs on the slot's zygote (started when missing or dead); undefined: run it cold. */
  private async run(
    slot: number,
    form: WarmForm,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<RunOutcome | undefined> {
    const z = await this.zygoteFor(slot, form, req.binds ?? []);
    if (typeof z === 'string') return undefined;
    const cg = this.ctx.slots.warm[slot];
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
        allowSpawn: Boolean(req.allowSpawn),
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
        this.ctx.stats.warmCpuMs += o.cpuMs;
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
}
