// Memory cgroups for sandbox runs: the bound on a run's total memory (all its processes, their
// /tmp files and kernel memory together), which rlimits cannot give because they count per
// process. Each pool slot gets its own cgroup under a parent arbiter may write to:
// - ARBITER_SANDBOX_CGROUP=<dir>: a cgroup v2 directory with `memory` in cgroup.subtree_control
//   (delegated to arbiter's user), or a cgroup v1 memory-controller directory;
// - by default (`auto`): arbiter's own cgroup when the host delegates it (v2: memory enabled for
//   its children; v1: the memory hierarchy is writable, e.g. as root);
// - ARBITER_SANDBOX_CGROUP=off, or nothing usable: no cgroup; runs are bounded by rlimits only.
// The helper inside the sandbox joins the slot's cgroup through an inherited cgroup.procs fd
// before anything of the program runs; every descendant stays in it. After a run the pool waits
// for the cgroup to be empty before the slot (and its uid) is used again.
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface CgroupParent {
  version: 1 | 2;
  dir: string;
}

/** `id:controllers:path` lines of /proc/<pid>/cgroup. */
export function parseProcCgroup(text: string): { id: string; controllers: string[]; path: string }[] {
  const out: { id: string; controllers: string[]; path: string }[] = [];
  for (const line of text.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (m) out.push({ id: m[1]!, controllers: m[2] ? m[2].split(',') : [], path: m[3]! });
  }
  return out;
}

/** Mount points of cgroup file systems from /proc/self/mountinfo: root, mount point, type, options. */
export function parseCgroupMounts(text: string): { root: string; mount: string; type: string; options: string[] }[] {
  const out: { root: string; mount: string; type: string; options: string[] }[] = [];
  for (const line of text.split('\n')) {
    const sep = line.indexOf(' - ');
    if (sep < 0) continue;
    const left = line.slice(0, sep).split(' ');
    const right = line.slice(sep + 3).split(' ');
    const type = right[0] ?? '';
    if (type !== 'cgroup' && type !== 'cgroup2') continue;
    const unescapeOctal = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
    out.push({ root: unescapeOctal(left[3] ?? '/'), mount: unescapeOctal(left[4] ?? ''), type, options: (right[2] ?? '').split(',') });
  }
  return out;
}

const read = (p: string) => readFileSync(p, 'utf8');
const writable = (p: string) => {
  try {
    accessSync(p, constants.W_OK);
    return true;
  } catch {
    return false;
  }
};

function within(mount: { root: string; mount: string }, path: string): string | undefined {
  const root = mount.root === '/' ? '' : mount.root;
  if (root && path !== root && !path.startsWith(root + '/')) return undefined;
  return join(mount.mount, path.slice(root.length));
}

/** Checks an explicitly configured parent directory. */
function explicitParent(dir: string): CgroupParent | string {
  if (existsSync(join(dir, 'cgroup.controllers'))) {
    let sub = '';
    try {
      sub = read(join(dir, 'cgroup.subtree_control'));
    } catch {
      // unreadable
    }
    if (!sub.split(/\s+/).includes('memory'))
      return `ARBITER_SANDBOX_CGROUP=${dir}: the memory controller is not enabled for its children (write "+memory" to ${dir}/cgroup.subtree_control)`;
    if (!writable(dir)) return `ARBITER_SANDBOX_CGROUP=${dir}: not writable by this user`;
    return { version: 2, dir };
  }
  if (existsSync(join(dir, 'memory.limit_in_bytes'))) {
    if (!writable(dir)) return `ARBITER_SANDBOX_CGROUP=${dir}: not writable by this user`;
    return { version: 1, dir };
  }
  return `ARBITER_SANDBOX_CGROUP=${dir}: not a cgroup v2 directory nor a cgroup v1 memory directory`;
}

/**
 * Where per-slot cgroups can be created, or why there is no such place. `setting` is the value
 * of ARBITER_SANDBOX_CGROUP (`auto` when unset).
 */
export function findCgroupParent(setting = process.env.ARBITER_SANDBOX_CGROUP || 'auto'): CgroupParent | string {
  if (setting === 'off') return 'disabled (ARBITER_SANDBOX_CGROUP=off)';
  if (setting !== 'auto') return explicitParent(setting);
  let own: ReturnType<typeof parseProcCgroup>;
  let mounts: ReturnType<typeof parseCgroupMounts>;
  try {
    own = parseProcCgroup(read('/proc/self/cgroup'));
    mounts = parseCgroupMounts(read('/proc/self/mountinfo'));
  } catch {
    return 'no /proc/self/cgroup';
  }
  const v2 = own.find((c) => c.id === '0' && c.controllers.length === 0);
  const v2mount = mounts.find((m) => m.type === 'cgroup2');
  if (v2 && v2mount) {
    const dir = within(v2mount, v2.path);
    if (dir) {
      try {
        if (read(join(dir, 'cgroup.subtree_control')).split(/\s+/).includes('memory') && writable(dir)) return { version: 2, dir };
      } catch {
        // not delegated
      }
    }
  }
  const v1 = own.find((c) => c.controllers.includes('memory'));
  const v1mount = mounts.find((m) => m.type === 'cgroup' && m.options.includes('memory'));
  if (v1 && v1mount) {
    const dir = within(v1mount, v1.path);
    if (dir && existsSync(join(dir, 'memory.limit_in_bytes')) && writable(dir)) return { version: 1, dir };
  }
  return 'no delegated memory cgroup (cgroup v2: give arbiter a directory with the memory controller enabled for its children and set ARBITER_SANDBOX_CGROUP to it)';
}

const live = new Set<RunCgroup>();
let exitHook = false;

/** One slot's cgroup. All methods are synchronous file operations on the cgroup file system. */
export class RunCgroup {
  readonly path: string;
  private limit = -1;

  constructor(
    readonly parent: CgroupParent,
    name: string,
  ) {
    this.path = join(parent.dir, name);
  }

  /** Creates the directory (reusing one a crashed holder of the same name left behind). */
  create(): void {
    try {
      mkdirSync(this.path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    if (this.parent.version === 2) {
      if (!existsSync(join(this.path, 'memory.max'))) throw new Error(`${this.path} has no memory.max (memory controller not enabled)`);
      if (existsSync(join(this.path, 'memory.swap.max'))) writeFileSync(join(this.path, 'memory.swap.max'), '0');
    }
    live.add(this);
    if (!exitHook) {
      exitHook = true;
      process.on('exit', () => {
        for (const c of live) c.remove();
      });
    }
  }

  /** Sets the memory bound of the next run (no swap beyond it). */
  setLimit(bytes: number): void {
    if (bytes === this.limit) return;
    const v = String(Math.floor(bytes));
    if (this.parent.version === 2) {
      writeFileSync(join(this.path, 'memory.max'), v);
    } else {
      // v1: memory+swap must stay >= memory, so raise memsw first and lower it last
      const memsw = join(this.path, 'memory.memsw.limit_in_bytes');
      const hasSw = existsSync(memsw);
      const up = this.limit >= 0 && bytes > this.limit; // a new cgroup starts unlimited
      if (hasSw && up) writeFileSync(memsw, v);
      try {
        writeFileSync(join(this.path, 'memory.limit_in_bytes'), v);
      } catch (e) {
        // below what the (reclaimable) page cache left by earlier runs holds: drop it, retry
        if ((e as NodeJS.ErrnoException).code !== 'EBUSY') throw e;
        writeFileSync(join(this.path, 'memory.force_empty'), '0');
        writeFileSync(join(this.path, 'memory.limit_in_bytes'), v);
      }
      if (hasSw && !up) writeFileSync(memsw, v);
    }
    this.limit = bytes;
  }

  /** An fd open for writing on cgroup.procs, for the sandbox helper to join with. */
  openProcs(): number {
    return openSync(join(this.path, 'cgroup.procs'), 'w');
  }

  /** How many processes the kernel's OOM killer has killed in this cgroup so far. */
  oomKills(): number {
    try {
      const text = read(join(this.path, this.parent.version === 2 ? 'memory.events' : 'memory.oom_control'));
      const m = /^oom_kill (\d+)/m.exec(text);
      return m ? Number(m[1]) : 0;
    } catch {
      return 0;
    }
  }

  /** Memory the cgroup holds now, in bytes (0 when unreadable). */
  usage(): number {
    try {
      return Number(read(join(this.path, this.parent.version === 2 ? 'memory.current' : 'memory.usage_in_bytes')).trim()) || 0;
    } catch {
      return 0;
    }
  }

  pids(): number[] {
    try {
      return read(join(this.path, 'cgroup.procs')).split('\n').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  }

  /**
   * Kills whatever is left in the cgroup and waits until it is empty (the processes of a killed
   * run take a moment to exit). Resolves false if it is still populated after `ms`.
   */
  async drain(ms = 5000): Promise<boolean> {
    const t0 = performance.now();
    for (let delay = 1; ; delay = Math.min(delay * 2, 50)) {
      const pids = this.pids();
      if (pids.length === 0) return true;
      if (performance.now() - t0 > ms) return false;
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      await new Promise((r) => setTimeout(r, delay));
    }
  }

  /** Removes the directory (best effort; a cgroup with processes cannot be removed). */
  remove(): void {
    live.delete(this);
    try {
      rmdirSync(this.path);
    } catch {
      // busy or gone
    }
  }
}

/**
 * Removes empty cgroups named `<prefix><pid>-...` under the parent whose process no longer exists
 * (left by pools of processes that were killed before they could clean up).
 */
export function removeStale(parent: CgroupParent, prefix: string): void {
  let names: string[];
  try {
    names = readdirSync(parent.dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(/^(\d+)-/.exec(n.slice(prefix.length))?.[1]);
    if (!pid) continue;
    try {
      process.kill(pid, 0);
      continue; // alive
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EPERM') continue;
    }
    try {
      rmdirSync(join(parent.dir, n));
    } catch {
      // still busy
    }
  }
}

/** Closes an fd, ignoring errors. */
export function closeQuietly(fd: number | undefined): void {
  if (fd === undefined) return;
  try {
    closeSync(fd);
  } catch {
    // already closed
  }
}
