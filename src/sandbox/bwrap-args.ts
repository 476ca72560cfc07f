// Builds the bubblewrap command line for one run: read-only system paths, a fresh private
// tmpfs /tmp holding the run's files (the only writable file system: the sandbox's root and
// /dev are remounted read-only), new pid/net/ipc/uts namespaces, the seccomp filter, a status
// fd, and the chain that joins the run's memory cgroup, drops to an unprivileged uid (when
// arbiter runs as root) and applies rlimits.
import { lstatSync, readlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { prlimitArgs, type SandboxLimits } from './limits.js';

export interface SandboxFile {
  /** File name relative to the run directory (no slashes besides sub-directories, no `..`). */
  name: string;
  data: string | Buffer;
  executable?: boolean;
}

export interface BwrapPlan {
  bwrap: string;
  prlimit: string;
  /**
   * The native helper (sets rlimits and drops the uid in one exec); else prlimit + setpriv. Bound
   * at SPAWN_EXEC_PATH, in a zygote's sandbox too (where it only serves as a launcher).
   */
  exec?: string;
  /** When set (arbiter runs as root), the program runs as this uid/gid (via the helper or setpriv). */
  setpriv?: { path: string; uid: number };
  /** Extra host paths bound read-only at the same place. */
  binds: string[];
  files: SandboxFile[];
  limits: SandboxLimits;
  env: Record<string, string>;
  argv: string[];
  /** The fd bwrap writes its JSON status to. */
  statusFd: number;
  /** The first fd used for `--file` contents (one per file, in order). */
  firstFileFd: number;
  /** An fd carrying the seccomp BPF program (bwrap installs it just before the exec). */
  seccompFd?: number;
  /** An inherited fd open on the run cgroup's cgroup.procs (below 10: the fallback joins with sh). */
  cgroupFd?: number;
  /** The helper reports "ok" (or "error: ...") on this fd just before it execs the program. */
  readyFd?: number;
  /**
   * A warm interpreter (zygote.ts): `script` is bound read-only at `path`, and `argv` runs as it is,
   * as root of the sandbox (arbiter runs as root) without filter or limits: it applies them itself
   * to each program it forks.
   */
  zygote?: { script: string; path: string; lib?: { src: string; dest: string }; init?: { src: string; dest: string } };
  /** Host files bound read-only at a path of the sandbox's root (e.g. the JavaScript spare's loader). */
  roFiles?: { src: string; dest: string }[];
}

/** Inside the sandbox the run directory is always this path (a private tmpfs). */
export const RUN_DIR = '/tmp';
/**
 * Where the native helper (native/sandbox-exec.c) is bound inside every sandbox run that has it
 * (cold runs, the warm Python zygote and its programs, the JavaScript spares). Besides starting
 * the program, it is a launcher a grading harness inside the sandbox can use to stack a seccomp
 * filter on a process it starts: `/.arbiter-exec --seccomp-fd=3 -- /usr/bin/node solution.js`
 * with the filter's bytes (seccomp.ts hostSpawnFilter()) on fd 3. Absent only where the helper
 * could not be built (no C compiler): a harness must then fail closed, not run unfiltered.
 */
export const SPAWN_EXEC_PATH = '/.arbiter-exec';
const EXEC_PATH = SPAWN_EXEC_PATH;

const SYSTEM_DIRS = ['/bin', '/lib', '/lib64', '/lib32', '/libx32', '/sbin'];
const ETC_FILES = ['/etc/ld.so.cache', '/etc/ld.so.conf', '/etc/ld.so.conf.d', '/etc/alternatives'];

let systemMounts: string[] | undefined;

/** `/usr` plus the merged-usr links (or directories) of this host, computed once. */
function systemMountArgs(): string[] {
  if (systemMounts) return systemMounts;
  const a = ['--ro-bind', '/usr', '/usr'];
  for (const d of SYSTEM_DIRS) {
    try {
      const st = lstatSync(d);
      if (st.isSymbolicLink()) a.push('--symlink', readlinkSync(d), d);
      else if (st.isDirectory()) a.push('--ro-bind', d, d);
    } catch {
      // absent on this host
    }
  }
  a.push('--perms', '0755', '--dir', '/etc');
  for (const f of ETC_FILES) a.push('--ro-bind-try', f, f);
  return (systemMounts = a);
}

/** Rejects file names that could escape the run directory. */
export function checkFileName(name: string): string | undefined {
  if (!name || name.startsWith('/') || name.split('/').some((s) => s === '..' || s === '' || s === '.')) return `invalid sandbox file name "${name}"`;
  if (/[\0\n]/.test(name)) return `invalid sandbox file name ${JSON.stringify(name)}`;
  return undefined;
}

export function bwrapArgs(p: BwrapPlan): string[] {
  const a: string[] = ['--unshare-ipc', '--unshare-pid', '--unshare-net', '--unshare-uts', '--unshare-cgroup-try'];
  if (!p.setpriv && !p.zygote) a.push('--unshare-user');
  a.push('--die-with-parent', '--new-session', '--hostname', 'sandbox', '--json-status-fd', String(p.statusFd));
  a.push(...systemMountArgs());
  const made = new Set<string>(['/', '/usr', '/tmp', '/proc', '/dev']);
  const bind = (b: string) => {
    const parents: string[] = [];
    for (let d = dirname(b); !made.has(d); d = dirname(d)) parents.unshift(d);
    for (const d of parents) {
      a.push('--perms', '0755', '--dir', d);
      made.add(d);
    }
    a.push('--ro-bind', b, b);
    made.add(b);
  };
  // a bind under /tmp (arbiter installed there, and so its typescript package) goes in after the
  // run's tmpfs /tmp, which would otherwise hide it
  const underRun = (b: string) => b === RUN_DIR || b.startsWith(RUN_DIR + '/');
  for (const b of p.binds) if (!underRun(b)) bind(b);
  // /dev is a tmpfs of bwrap's (device nodes, /dev/shm, /dev/pts): read-only, so that it holds no
  // data; /tmp is the one writable file system, capped at tmpBytes.
  a.push('--proc', '/proc', '--dev', '/dev', '--remount-ro', '/dev');
  a.push('--perms', '1777', '--size', String(Math.floor(p.limits.tmpBytes)), '--tmpfs', RUN_DIR);
  for (const b of p.binds) if (underRun(b)) bind(b);
  const dirs = new Set<string>();
  p.files.forEach((f, i) => {
    const parts = f.name.split('/');
    for (let k = 1; k < parts.length; k++) {
      const d = `${RUN_DIR}/${parts.slice(0, k).join('/')}`;
      if (!dirs.has(d)) {
        a.push('--perms', '1777', '--dir', d);
        dirs.add(d);
      }
    }
    a.push('--perms', f.executable ? '0755' : '0644', '--file', String(p.firstFileFd + i), `${RUN_DIR}/${f.name}`);
  });
  if (p.exec) a.push('--ro-bind', p.exec, EXEC_PATH);
  if (p.zygote) a.push('--ro-bind', p.zygote.script, p.zygote.path);
  if (p.zygote?.lib) a.push('--ro-bind', p.zygote.lib.src, p.zygote.lib.dest);
  if (p.zygote?.init) a.push('--ro-bind', p.zygote.init.src, p.zygote.init.dest);
  for (const f of p.roFiles ?? []) a.push('--ro-bind', f.src, f.dest);
  // the root (a tmpfs of bwrap's, writable by the sandbox user without a uid drop) holds no data
  a.push('--remount-ro', '/');
  if (p.seccompFd !== undefined && !p.zygote) a.push('--seccomp', String(p.seccompFd));
  a.push('--chdir', RUN_DIR, '--clearenv');
  for (const [k, v] of Object.entries(p.env)) a.push('--setenv', k, v);
  a.push('--');
  if (p.zygote) {
    a.push(...p.argv);
    return a;
  }
  if (p.exec) {
    a.push(EXEC_PATH);
    if (p.readyFd !== undefined) a.push(`--ready-fd=${p.readyFd}`);
    if (p.cgroupFd !== undefined) a.push(`--cgroup-fd=${p.cgroupFd}`);
    a.push(...(p.setpriv ? [`--uid=${p.setpriv.uid}`] : []), ...prlimitArgs(p.limits), '--', ...p.argv);
    return a;
  }
  if (p.cgroupFd !== undefined) {
    if (!Number.isInteger(p.cgroupFd) || p.cgroupFd < 3 || p.cgroupFd > 9) throw new Error(`cgroup fd ${p.cgroupFd} must be 3..9`);
    a.push('/bin/sh', '-c', `echo 0 >&${p.cgroupFd} && exec "$@" ${p.cgroupFd}>&-`, 'sh');
  }
  if (p.setpriv) {
    const id = String(p.setpriv.uid);
    a.push(p.setpriv.path, `--reuid=${id}`, `--regid=${id}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--');
  }
  a.push(p.prlimit, ...prlimitArgs(p.limits), '--', ...p.argv);
  return a;
}
