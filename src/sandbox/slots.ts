// The pool's slots: which are free and who waits for one (FIFO, abortable, refused when the pool
// closes), what each slot holds on the host (its leased uid when arbiter runs as root, its memory
// cgroups: one for cold runs, one for its warm interpreters, one per JavaScript spare side), and
// the state the ways of running a program (cold.ts, warm-python.ts, spares.ts) share with the pool.
import { threadId } from 'node:worker_threads';
import { findCgroupParent, removeStale, RunCgroup } from './cgroup.js';
import type { HostTools } from './host.js';
import { NOT_PROBED } from './self-test.js';
import type { UidLease } from './uid-lease.js';

const CGROUP_PREFIX = 'arbiter-sb-';

/** Free slots and the requests waiting for one. */
export class SlotQueue {
  private readonly free: number[];
  private readonly waiters: { take: (slot: number) => void; refuse: () => void }[] = [];

  constructor(private readonly size: number) {
    this.free = Array.from({ length: size }, (_, i) => size - 1 - i);
  }

  /** Every slot is free (none is running or handed out). */
  get allFree(): boolean {
    return this.free.length >= this.size;
  }

  /** A free slot, at once or when one is released; rejects with `aborted` or `closed`. */
  acquire(signal?: AbortSignal): Promise<number> {
    if (signal?.aborted) return Promise.reject(new Error('aborted'));
    const s = this.free.pop();
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

  /** Hands the slot to the longest waiter, or marks it free. */
  release(slot: number): void {
    const w = this.waiters.shift();
    if (w) w.take(slot);
    else this.free.push(slot);
  }

  /** Every waiting request fails with `closed`. */
  refuseAll(): void {
    for (const w of this.waiters.splice(0)) w.refuse();
  }
}

/** What the slots hold on the host: the uid lease and the memory cgroups, per slot. */
export class SlotResources {
  /** The slots' uids, leased host-wide by the sandbox check when root. */
  lease: UidLease | undefined;
  /** Per slot, the cgroup of its cold runs. */
  cold: RunCgroup[] = [];
  /** Per slot, the cgroup its warm interpreters live in (apart from the cold runs' one). */
  warm: RunCgroup[] = [];
  /** Per slot and side (two each), the cgroup of a JavaScript spare. */
  spare: RunCgroup[] = [];
  /** How a run's total memory is bounded: `cgroup v1 <dir>`, `cgroup v2 <dir>`, or `rlimits only: <why>`. */
  memoryControl = NOT_PROBED;

  constructor(
    private readonly concurrency: number,
    private readonly cgroupSetting: string,
    private readonly withWarm: boolean,
    /** Tells this pool's cgroups from other pools' and processes'. */
    private readonly seq: number,
  ) {}

  setUpCgroups(): void {
    const parent = findCgroupParent(this.cgroupSetting);
    if (typeof parent === 'string') {
      this.memoryControl = `rlimits only: ${parent}`;
      return;
    }
    removeStale(parent, CGROUP_PREFIX);
    try {
      for (let i = 0; i < this.concurrency; i++) {
        const c = new RunCgroup(parent, `${CGROUP_PREFIX}${process.pid}-${threadId}-${this.seq}-${i}`);
        this.cold.push(c);
        c.create();
        if (this.withWarm) {
          const w = new RunCgroup(parent, `${CGROUP_PREFIX}${process.pid}-${threadId}-${this.seq}-${i}-warm`);
          this.warm.push(w);
          w.create();
          for (const side of [0, 1]) {
            const j = new RunCgroup(parent, `${CGROUP_PREFIX}${process.pid}-${threadId}-${this.seq}-${i}-js${side}`);
            this.spare.push(j);
            j.create();
          }
        }
      }
      this.memoryControl = `cgroup v${parent.version} ${parent.dir}`;
    } catch (e) {
      this.dropCgroups(`rlimits only: could not create cgroups under ${parent.dir}: ${(e as Error).message}`);
    }
  }

  dropCgroups(why: string): void {
    for (const c of [...this.cold, ...this.warm, ...this.spare]) c.remove();
    this.cold = [];
    this.warm = [];
    this.spare = [];
    this.memoryControl = why;
  }
}

/** Runs started and finished (for diagnostics and tests). */
export interface PoolStats {
  started: number;
  finished: number;
  maxLive: number;
  live: number;
  warm: number;
  warmStarts: number;
  coldFallbacks: number;
  warmCpuMs: number;
  spareRuns: number;
  spareStarts: number;
}

/** What the pool shares with the ways of running a program. */
export interface PoolContext {
  readonly tools: HostTools;
  readonly concurrency: number;
  /** Start of the host-wide uid range (spares lease their own uids from it). */
  readonly uidBase: number;
  readonly slots: SlotResources;
  readonly stats: PoolStats;
  /** The pool was closed: start nothing new. */
  readonly closed: boolean;
}
