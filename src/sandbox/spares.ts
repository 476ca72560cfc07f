// Pre-started JavaScript sandboxes for the pool: per slot two sides, each with its own leased uid
// and cgroup, of which one holds a node process (zygote/js-spare.cjs) already started under
// bubblewrap and waiting for the slot's next run while the other side's run ends; the self-test
// at the first eligible run, which turns the mode on or off; and one run on a spare.
import type { SandboxFile } from './bwrap-args.js';
import { finishSandboxed, startSandboxed, type Started } from './cold.js';
import { DEFAULT_LIMITS, mergeLimits, type SandboxLimits } from './limits.js';
import { fail, type RunOutcome, type RunRequest } from './run.js';
import { JS_PROBE, NOT_PROBED, selfTestFailure } from './self-test.js';
import type { PoolContext } from './slots.js';
import { leaseUids, type UidLease } from './uid-lease.js';
import { JS_SPARE_PATH, JS_SPARE_SCRIPT, nodeWarmForm, spareInput, type WarmForm } from './zygote.js';

/** A pre-started JavaScript sandbox (zygote/js-spare.cjs) waiting for its one run. */
interface Spare {
  key: string;
  side: number;
  s: Started;
  /** Hands it its run (stdin, abort signal), or lets it go (undefined: it is killed). */
  open: (g: { stdin?: string | Buffer; signal?: AbortSignal } | undefined) => void;
  dead: boolean;
}

export class JsSpares {
  /** Per slot, the pre-started node waiting for the slot's next run (see run). */
  private readonly spares: (Spare | undefined)[];
  /** Per slot, the spare being started for the slot's next run. */
  private readonly pendingSpares: (Promise<Spare | undefined> | undefined)[];
  /** Per slot and side (two each), when the last run on that side's uid and cgroup is gone. */
  private readonly sideFree: Promise<void>[];
  private leaseP: Promise<UidLease | string> | undefined;
  /** The sides' uids (two a slot), leased at the self-test. */
  lease: UidLease | undefined;
  private probeP: Promise<string | undefined> | undefined;
  /** Whether JavaScript runs use pre-started spares: `on`, `off: <why>` or `not probed yet`. */
  mode = NOT_PROBED;

  constructor(private readonly ctx: PoolContext) {
    this.spares = Array.from({ length: ctx.concurrency }, () => undefined);
    this.pendingSpares = Array.from({ length: ctx.concurrency }, () => undefined);
    this.sideFree = Array.from({ length: ctx.concurrency * 2 }, () => Promise.resolve());
  }

  /**
   * The uids of idle spares: their processes are the spares themselves (a side's spare starts
   * only once everything of the side's previous run is gone).
   */
  get idleUids(): readonly number[] {
    const l = this.lease;
    if (!l) return [];
    return this.spares.flatMap((sp, slot) => (sp && !sp.dead ? [l.uids[slot * 2 + sp.side]!] : []));
  }

  /** Runs on the slot's pre-started spare when its probe passed; undefined means cold. */
  async tryRun(slot: number, req: RunRequest, files: SandboxFile[], limits: SandboxLimits, env: Record<string, string>): Promise<RunOutcome | undefined> {
    const form = nodeWarmForm(req.argv, files);
    if (!form) return undefined;
    const bad = await (this.probeP ??= this.selfTest(slot, form, req.binds ?? []));
    if (bad) return undefined;
    const r = await this.run(slot, form, req, files, limits, env);
    this.ctx.stats.spareRuns++;
    return r;
  }

  /** The pool is closing: lets every idle spare go; what to wait for before the sides' uids and cgroups go. */
  closeAll(): Promise<unknown>[] {
    const spares = this.spares.splice(0).filter((x): x is Spare => x !== undefined);
    for (const sp of spares) sp.open(undefined);
    return [...spares.map((sp) => sp.s.pending), ...this.sideFree];
  }

  /** At the first eligible run: runs a probe program on a spare and checks its confinement. */
  private async selfTest(slot: number, form: WarmForm, binds: string[]): Promise<string | undefined> {
    let why: string | undefined;
    if (!this.ctx.tools.isRoot || !this.ctx.slots.lease) why = 'pre-started spares need arbiter to run as root (each runs as a leased uid)';
    else {
      const l = await (this.leaseP ??= leaseUids(2 * this.ctx.concurrency, this.ctx.uidBase));
      if (typeof l === 'string') why = l;
      else {
        this.lease = l;
        const p = JS_PROBE;
        const argv = [...form.prefix, p.file];
        const r = await this.run(
          slot,
          { ...form, script: argv.length - 1, main: 0 },
          { argv, binds, stdin: p.stdin, warm: { language: 'javascript' } },
          [{ name: p.file, data: p.source }],
          mergeLimits(DEFAULT_LIMITS, p.limits),
          p.env,
        );
        why = selfTestFailure(r);
      }
    }
    if (why) {
      this.mode = `off: ${why}`;
      const sp = this.spares[slot];
      this.spares[slot] = undefined;
      sp?.open(undefined);
      return why;
    }
    this.mode = 'on: a pre-started node per slot runs each program';
    return undefined;
  }

  /**
   * Starts a spare on `side` of the slot once everything earlier on that side (a spare, its run)
   * is gone: a side's uid and cgroup hold at most one spare or run at a time.
   */
  private async prepare(
    slot: number,
    side: number,
    key: string,
    form: WarmForm,
    binds: string[],
    limits: SandboxLimits,
    env: Record<string, string>,
    allowSpawn: boolean,
  ): Promise<Spare | undefined> {
    const idx = slot * 2 + side;
    const prev = this.sideFree[idx]!;
    let release!: () => void;
    this.sideFree[idx] = new Promise((r) => (release = r));
    await prev;
    if (this.ctx.closed || !this.lease) {
      release();
      return undefined;
    }
    let open!: Spare['open'];
    const gate = new Promise<{ stdin?: string | Buffer; signal?: AbortSignal } | undefined>((r) => (open = r));
    const cg = this.ctx.slots.spare[idx];
    const s = startSandboxed(this.ctx.tools, { uid: this.lease.uids[idx], cg }, { argv: [...form.prefix, JS_SPARE_PATH], binds, allowSpawn }, [], limits, env, {
      gate,
      roFiles: [{ src: JS_SPARE_SCRIPT, dest: JS_SPARE_PATH }],
    });
    if ('status' in s) {
      release();
      return undefined;
    }
    this.ctx.stats.spareStarts++;
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
  private async run(
    slot: number,
    form: WarmForm,
    req: RunRequest,
    files: SandboxFile[],
    limits: SandboxLimits,
    env: Record<string, string>,
  ): Promise<RunOutcome> {
    const binds = req.binds ?? [];
    // (a spare's seccomp filter is fixed when it starts: spawn or not is part of its key)
    const allowSpawn = Boolean(req.allowSpawn);
    const key = JSON.stringify([form.prefix, [...binds].sort(), limits, env, allowSpawn]);
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
    sp ??= await this.prepare(slot, side, key, form, binds, limits, env, allowSpawn);
    if (!sp) return fail('sandbox_error', this.ctx.closed ? 'the sandbox pool is closed' : 'could not start the JavaScript sandbox');
    const mine = sp;
    if (!this.ctx.closed) {
      const next: Promise<Spare | undefined> = this.prepare(slot, 1 - mine.side, key, form, binds, limits, env, allowSpawn).then((n) => {
        if (this.pendingSpares[slot] === next) this.pendingSpares[slot] = undefined;
        if (!n) return undefined;
        if (this.ctx.closed || this.spares[slot]) {
          n.open(undefined);
          return undefined;
        }
        this.spares[slot] = n;
        return n;
      });
      this.pendingSpares[slot] = next;
    }
    mine.open({ stdin: spareInput(req.argv, form, files, req.stdin), ...(req.signal ? { signal: req.signal } : {}) });
    return finishSandboxed(mine.s, await mine.s.pending, req, limits);
  }
}
