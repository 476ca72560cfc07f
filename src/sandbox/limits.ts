// Resource limits for one sandboxed execution: the shape, defaults, merging, and the prlimit
// arguments that apply them inside the sandbox (rlimits are set after the namespaces exist).

export interface SandboxLimits {
  /** Wall-clock limit for the whole process tree, in milliseconds. */
  wallMs: number;
  /** RLIMIT_CPU in seconds (SIGXCPU/SIGKILL when exceeded). */
  cpuSeconds: number;
  /** Memory limit in bytes (RLIMIT_AS, or RLIMIT_DATA when `memoryKind` is `data`). */
  memoryBytes: number;
  /**
   * Which rlimit bounds memory: `as` (address space) suits Python and native programs; `data`
   * (heap and private writable mappings) suits V8, which reserves large address ranges up front.
   */
  memoryKind: 'as' | 'data';
  /** RLIMIT_NPROC: processes and threads of the run's user. */
  processes: number;
  /** RLIMIT_FSIZE: largest file the program may write, in bytes. */
  fileSizeBytes: number;
  /** RLIMIT_NOFILE: open file descriptors. */
  openFiles: number;
  /** Cap on captured stdout and on captured stderr, each, in bytes; exceeding it kills the run. */
  outputBytes: number;
  /** Size of the private writable /tmp (tmpfs) of the run, in bytes. */
  tmpBytes: number;
  /**
   * Memory of the whole run (all its processes and its /tmp files together), in bytes, enforced
   * by a memory cgroup. Unset: `memoryBytes + tmpBytes` where a cgroup is available, and no
   * cgroup bound otherwise (see runMemoryBound). Set explicitly, a run on a host without a usable
   * memory cgroup is refused.
   */
  runMemoryBytes?: number;
}

const MiB = 1024 * 1024;

export const DEFAULT_LIMITS: SandboxLimits = {
  wallMs: 10_000,
  cpuSeconds: 10,
  memoryBytes: 1024 * MiB,
  memoryKind: 'as',
  processes: 32,
  fileSizeBytes: 16 * MiB,
  openFiles: 64,
  outputBytes: 1 * MiB,
  tmpBytes: 64 * MiB,
};

/** Merges overrides into a base, ignoring undefined fields. */
export function mergeLimits(base: SandboxLimits, ...over: (Partial<SandboxLimits> | undefined)[]): SandboxLimits {
  const out = { ...base };
  for (const o of over) {
    if (!o) continue;
    for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

/** Checks that every limit is a positive finite number; returns a message or undefined. */
export function checkLimits(l: SandboxLimits): string | undefined {
  for (const [k, v] of Object.entries(l)) {
    if (v === undefined && k === 'runMemoryBytes') continue;
    if (k === 'memoryKind') {
      if (v !== 'as' && v !== 'data') return `limit memoryKind must be "as" or "data", got ${String(v)}`;
      continue;
    }
    if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) return `limit ${k} must be a positive number, got ${String(v)}`;
  }
  return undefined;
}

/**
 * `prlimit` options for these limits (soft = hard, except CPU: the soft limit sends SIGXCPU,
 * which identifies a CPU-time kill, and the hard limit one second later sends SIGKILL).
 */
export function prlimitArgs(l: SandboxLimits): string[] {
  const cpu = Math.max(1, Math.ceil(l.cpuSeconds));
  return [
    `--cpu=${cpu}:${cpu + 1}`,
    l.memoryKind === 'data' ? `--data=${Math.floor(l.memoryBytes)}` : `--as=${Math.floor(l.memoryBytes)}`,
    `--nproc=${Math.floor(l.processes)}`,
    `--fsize=${Math.floor(l.fileSizeBytes)}`,
    `--nofile=${Math.floor(l.openFiles)}`,
    '--core=0',
  ];
}

/** The cgroup memory bound of a run: `runMemoryBytes`, else the process limit plus /tmp. */
export function runMemoryBytes(l: SandboxLimits): number {
  return Math.floor(l.runMemoryBytes ?? l.memoryBytes + l.tmpBytes);
}

/**
 * Without a memory cgroup, the most a run can hold: every process at its memory limit, /tmp full,
 * and each process's open files (memfd or deleted /tmp files count once via /tmp) at the file
 * size limit. Kernel buffers (pipes, sockets) are bounded by per-user kernel limits instead.
 */
export function rlimitMemoryBound(l: SandboxLimits): number {
  return l.processes * (l.memoryBytes + l.openFiles * l.fileSizeBytes) + l.tmpBytes;
}
