// Spawns one child process in its own process group and supervises it: feeds stdin and extra
// input fds, passes inherited fds, captures stdout/stderr and extra output fds up to a cap
// (killing the run when exceeded), enforces the wall-clock limit and abort signals by killing
// the process tree, and reports what happened.
import { spawn, type StdioOptions } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

export interface SpawnSpec {
  /** argv[0] is the executable. */
  argv: string[];
  env: Record<string, string>;
  cwd?: string;
  stdin?: string | Buffer;
  /** Data written to fds inputFdBase, inputFdBase+1, ... and then closed (bwrap reads `--file` contents from them). */
  inputFds?: (string | Buffer)[];
  /** First fd of `inputFds` (default 3). */
  inputFdBase?: number;
  /** Fd numbers (>= 3, not used by the input fds) whose output is captured (e.g. bwrap's status fd). */
  outputFds?: number[];
  /** Open fds of this process handed to the child at the given fd numbers (child fd -> parent fd). */
  passFds?: Record<number, number>;
  /**
   * When the run must be killed: a pid to SIGKILL instead of the child's process group (the
   * sandbox's init, whose death makes the kernel empty its pid namespace before bwrap exits),
   * given the output of `outputFds` so far. The group is still killed if the child has not
   * exited within a few seconds, or when this returns undefined.
   */
  killTarget?: (fds: Record<number, string>) => number | undefined;
  wallMs: number;
  outputBytes: number;
  signal?: AbortSignal;
  /**
   * A pre-started run (a warm spare): the process starts now, but its stdin, wall-clock limit,
   * abort signal and duration wait for the gate. Resolving it with undefined kills the process.
   */
  gate?: Promise<{ stdin?: string | Buffer; signal?: AbortSignal } | undefined>;
}

export interface SpawnResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Captured output of each `outputFds` entry, by fd number. */
  fds: Record<number, string>;
  timedOut: boolean;
  outputLimit: boolean;
  aborted: boolean;
  /** Set when the process could not be started at all. */
  spawnError?: string;
  durationMs: number;
  /** The child's pid (when it started). */
  pid?: number;
}

class Capture {
  private chunks: Buffer[] = [];
  size = 0;
  overflow = false;
  constructor(private readonly cap: number) {}
  push(b: Buffer): boolean {
    if (this.overflow) return false;
    const room = this.cap - this.size;
    if (b.length > room) {
      if (room > 0) this.chunks.push(b.subarray(0, room));
      this.size = this.cap;
      this.overflow = true;
      return false;
    }
    this.chunks.push(b);
    this.size += b.length;
    return true;
  }
  buffer(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
  }
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** Runs the process to completion. Never rejects. */
export function runProcess(spec: SpawnSpec): Promise<SpawnResult> {
  let t0 = performance.now();
  const nIn = spec.inputFds?.length ?? 0;
  const inBase = spec.inputFdBase ?? 3;
  const outFds = spec.outputFds ?? [];
  const pass = spec.passFds ?? {};
  const maxFd = Math.max(2, inBase + nIn - 1, ...outFds, ...Object.keys(pass).map(Number));
  const stdio: StdioOptions = ['pipe', 'pipe', 'pipe'];
  for (let fd = 3; fd <= maxFd; fd++)
    stdio.push(pass[fd] !== undefined ? pass[fd]! : (fd >= inBase && fd < inBase + nIn) || outFds.includes(fd) ? 'pipe' : 'ignore');

  return new Promise<SpawnResult>((resolve) => {
    const out = new Capture(spec.outputBytes);
    const err = new Capture(spec.outputBytes);
    const fdText: Record<number, string> = {};
    let timedOut = false;
    let outputLimit = false;
    let aborted = false;
    let done = false;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;
    let exited = false;

    if (spec.signal?.aborted) {
      resolve({
        exitCode: null,
        signal: null,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        fds: {},
        timedOut: false,
        outputLimit: false,
        aborted: true,
        durationMs: 0,
      });
      return;
    }

    const spawnFailed = (e: Error) =>
      resolve({
        exitCode: null,
        signal: null,
        stdout: Buffer.alloc(0),
        stderr: Buffer.alloc(0),
        fds: {},
        timedOut: false,
        outputLimit: false,
        aborted: false,
        spawnError: e.message,
        durationMs: performance.now() - t0,
      });
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(spec.argv[0]!, spec.argv.slice(1), { env: spec.env, cwd: spec.cwd, stdio, detached: true, windowsHide: true });
    } catch (e) {
      spawnFailed(e as Error);
      return;
    }
    if (child.pid === undefined) {
      // no process (ENOENT, EMFILE, E2BIG...): node reports why in an 'error' event, and the
      // child may have no pipes at all
      child.once('error', (e) => {
        for (const s of child.stdio ?? []) (s as Readable | Writable | null)?.destroy();
        spawnFailed(e);
      });
      return;
    }
    const pid = child.pid;

    let graceTimer: NodeJS.Timeout | undefined;
    let groupTimer: NodeJS.Timeout | undefined;
    // Kills the run: the sandbox's init when known (the kernel then kills and reaps everything in
    // its pid namespace, and bwrap exits once that is done), else the child's process group.
    const kill = () => {
      if (exited) return;
      const target = spec.killTarget?.(fdText);
      if (target === undefined) return killGroup(pid);
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        return killGroup(pid);
      }
      groupTimer ??= setTimeout(() => killGroup(pid), 3000);
    };
    let signal = spec.signal;
    const finish = (spawnError?: string) => {
      if (done) return;
      done = true;
      clearTimeout(wallTimer);
      clearTimeout(graceTimer);
      clearTimeout(groupTimer);
      signal?.removeEventListener('abort', onAbort);
      if (!exited) killGroup(pid);
      for (const s of child.stdio) (s as Readable | Writable | null)?.destroy();
      const r: SpawnResult = {
        exitCode,
        signal: exitSignal,
        stdout: out.buffer(),
        stderr: err.buffer(),
        fds: fdText,
        timedOut,
        outputLimit,
        aborted,
        durationMs: performance.now() - t0,
        pid,
      };
      if (spawnError) r.spawnError = spawnError;
      resolve(r);
    };

    let wallTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      aborted = true;
      kill();
    };
    const begin = (stdin: string | Buffer | undefined) => {
      t0 = performance.now();
      wallTimer = setTimeout(() => {
        timedOut = true;
        kill();
      }, spec.wallMs);
      if (signal?.aborted) onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      feed(child.stdin, stdin);
    };

    child.on('error', (e) => finish(e.message));
    child.stdout!.on('data', (b: Buffer) => {
      if (!out.push(b)) {
        outputLimit = true;
        kill();
      }
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (!err.push(b)) {
        outputLimit = true;
        kill();
      }
    });
    for (const fd of outFds) {
      const s = child.stdio[fd] as Readable | null;
      if (!s) continue;
      fdText[fd] = '';
      s.setEncoding('utf8');
      s.on('data', (t: string) => {
        if (fdText[fd]!.length < 65536) fdText[fd] += t;
      });
      s.on('error', () => {});
    }
    const feed = (w: Writable | null, data: string | Buffer | undefined) => {
      if (!w) return;
      w.on('error', () => {}); // EPIPE when the program exits without reading: not an error
      if (data !== undefined && data.length > 0) w.end(data);
      else w.end();
    };
    if (spec.gate) {
      child.stdin?.on('error', () => {});
      spec.gate.then(
        (g) => {
          if (done) return;
          if (!g) return kill();
          signal = g.signal;
          begin(g.stdin);
        },
        () => kill(),
      );
    } else begin(spec.stdin);
    for (let i = 0; i < nIn; i++) feed(child.stdio[inBase + i] as Writable | null, spec.inputFds![i]);

    child.on('exit', (code, sig) => {
      exitCode = code;
      exitSignal = sig;
      exited = true;
      // Kill anything left in the group (the unsandboxed path has no pid namespace), then give
      // the pipes a moment to drain before closing them ourselves.
      killGroup(pid);
      graceTimer = setTimeout(() => finish(), 500);
    });
    child.on('close', () => finish());
  });
}
