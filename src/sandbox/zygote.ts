// Warm interpreters (zygotes) for the sandbox pool: one long-lived bubblewrap sandbox per slot and
// interpreter that has started Python once (zygote/zygote.py) and forks a fresh, fully confined
// child per program. This module starts a zygote, talks its framed protocol over two dedicated
// fds, and turns its answers into what the cold path reports; the pool (pool.ts, warm-python.ts)
// decides which runs go warm and falls back to the cold path when a zygote cannot serve.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { SandboxFile } from './bwrap-args.js';
import { prlimitArgs, type SandboxLimits } from './limits.js';

/** Where zygote.py is (dist/sandbox/zygote/zygote.py after the build). */
export const ZYGOTE_SCRIPT = fileURLToPath(new URL('./zygote/zygote.py', import.meta.url));
/** Where it is bound inside the sandbox. */
export const ZYGOTE_PATH = '/.arbiter-zygote.py';
/** The zygote's fork helper (dist/native/zygote-fork.so, when built) and where it is bound. */
export const ZYGOTE_LIB_PATH = '/.arbiter-zygote-fork.so';
export function zygoteLib(): string | undefined {
  if (process.env.ARBITER_SANDBOX_NO_HELPER) return undefined;
  const p = fileURLToPath(new URL('../native/zygote-fork.so', import.meta.url));
  return existsSync(p) ? p : undefined;
}
/** The warm run's pid 1 after its fork (dist/native/zygote-init, when built) and where it is bound. */
export const ZYGOTE_INIT_PATH = '/.arbiter-zygote-init';
export function zygoteInit(): string | undefined {
  // (ARBITER_SANDBOX_NO_INIT: as where it cannot be built, e.g. not x86_64; for tests)
  if (process.env.ARBITER_SANDBOX_NO_HELPER || process.env.ARBITER_SANDBOX_NO_INIT) return undefined;
  // (ARBITER_SANDBOX_INIT: another build of it, for tests)
  const p = process.env.ARBITER_SANDBOX_INIT || fileURLToPath(new URL('../native/zygote-init', import.meta.url));
  return existsSync(p) ? p : undefined;
}
/** The JavaScript spare's loader (zygote/js-spare.cjs) and where it is bound. */
export const JS_SPARE_SCRIPT = fileURLToPath(new URL('./zygote/js-spare.cjs', import.meta.url));
export const JS_SPARE_PATH = '/.arbiter-js-spare.cjs';
/** The zygote's control fds (fixed in zygote.py): commands in, frames out. */
export const CTL_IN_FD = 5;
export const CTL_OUT_FD = 6;

/** Python flags a warm run may use (the zygote starts with the same ones). -I is required. */
const PY_FLAGS = new Set(['-I', '-S', '-B']);
/** Environment variables that change how Python starts: a run setting them other than the zygote's goes cold. */
const STARTUP_ENV = /^(LANG|LANGUAGE|LC_[A-Z]+|PYTHON\w*)$/;

export interface WarmForm {
  /** Interpreter and flags: the zygote's command line minus the script. */
  prefix: string[];
  /** Index of the script in argv, and of its file in `files`. */
  script: number;
  main: number;
}

/**
 * Whether a Python run can be served warm: `exe -I [-S] [-B] main.py args...` with main.py one of
 * the run's files, and no start-up-relevant environment variable differing from the zygote's.
 */
export function pythonWarmForm(argv: string[], files: SandboxFile[], env: Record<string, string>, base: Record<string, string>): WarmForm | undefined {
  let i = 1;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    if (!PY_FLAGS.has(argv[i]!)) return undefined;
    i++;
  }
  if (i >= argv.length || !argv.slice(1, i).includes('-I')) return undefined;
  const main = files.findIndex((f) => f.name === argv[i]);
  if (main < 0) return undefined;
  for (const [k, v] of Object.entries(env)) if (STARTUP_ENV.test(k) && base[k] !== v) return undefined;
  return { prefix: argv.slice(0, i), script: i, main };
}

/** Whether a node run can use a pre-started spare: `exe [--flag...] main.js args...`, main.js one of the files. */
export function nodeWarmForm(argv: string[], files: SandboxFile[]): WarmForm | undefined {
  let i = 1;
  while (i < argv.length && argv[i]!.startsWith('--')) i++;
  if (i >= argv.length) return undefined;
  const main = files.findIndex((f) => f.name === argv[i]);
  if (main < 0) return undefined;
  return { prefix: argv.slice(0, i), script: i, main };
}

/** The stdin a spare reads: its job (header length, JSON header, the files), then the program's stdin. */
export function spareInput(argv: string[], form: WarmForm, files: SandboxFile[], stdin: string | Buffer | undefined): Buffer {
  const blobs = files.map((f) => toBuf(f.data));
  const h = Buffer.from(
    JSON.stringify({ argv, script: form.script, files: files.map((f, i) => ({ name: f.name, size: blobs[i]!.length, exec: Boolean(f.executable) })) }),
  );
  const pre = Buffer.alloc(4);
  pre.writeUInt32BE(h.length, 0);
  return Buffer.concat([pre, h, ...blobs, ...(stdin === undefined ? [] : [toBuf(stdin)])]);
}

export function warmKey(form: WarmForm, binds: string[]): string {
  return JSON.stringify([form.prefix, [...binds].sort()]);
}

export interface WarmJob {
  argv: string[];
  form: WarmForm;
  files: SandboxFile[];
  stdin?: string | Buffer;
  env: Record<string, string>;
  limits: SandboxLimits;
  /** The main file is arbiter's own program (a driver): the zygote may compile it once and keep it. */
  trustedMain: boolean;
  /** The program may create processes: it gets the spawn filter, else (default) the no-spawn one (seccomp.ts). */
  allowSpawn?: boolean;
}

export type WarmOutcome =
  | {
      kind: 'result';
      /** Exit status as bwrap reports it (128 + N for a program killed by signal N), or null. */
      code: number | null;
      /** Signal that ended the run's init (the monitor's kill at a limit). */
      signal: number | null;
      timedOut: boolean;
      outputLimit: boolean;
      durationMs: number;
      /** CPU time of the run's processes (diagnostics). */
      cpuMs: number;
      /** The program's process reported "ok" before running, or "error: ..." when a step failed. */
      ready: string;
      stdout: Buffer;
      stderr: Buffer;
    }
  /** The zygote failed in its own part of the run (it then exits). */
  | { kind: 'error'; message: string; started: boolean }
  /**
   * The zygote died, stopped answering or sent a malformed frame; it has been killed. `started`:
   * the program's process had reported that it was about to run the program.
   */
  | { kind: 'died'; message: string; started: boolean }
  | { kind: 'aborted'; durationMs: number };

export interface ZygoteSpawn {
  bwrap: string;
  args: string[];
  /** Open fd of the slot's warm cgroup.procs (the zygote joins it and closes it). */
  procsFd?: number;
  uid?: number;
  /** The filter of a run that may create processes (WarmJob.allowSpawn), and of one that may not. */
  seccomp: Buffer | null;
  seccompNoSpawn?: Buffer | null;
  /**
   * The stackable no-process-creation filter (seccomp.ts hostSpawnFilter()), prepared once in the
   * zygote for arbiter's driver to stack on the solution's process with one prctl (zygote.py:
   * _ready_modules); absent, the driver builds it from the spec's bytes in each run.
   */
  spawnFilter?: Buffer | null;
  /** The fork helper is bound at ZYGOTE_LIB_PATH. */
  native: boolean;
  /** zygote-init is bound at ZYGOTE_INIT_PATH (used with the fork helper only). */
  init?: boolean;
  /** Grace beyond a run's wall-clock limit before an unanswering zygote is killed (default 5 s). */
  backstopMs?: number;
}

interface Frame {
  header: Record<string, unknown>;
  body: Buffer;
}

/** Frames: u32 total length (after itself), u32 header length, JSON header, raw bytes. */
function encode(header: unknown, ...blobs: Buffer[]): Buffer {
  const h = Buffer.from(JSON.stringify(header));
  const pre = Buffer.alloc(8);
  const total = 4 + h.length + blobs.reduce((a, b) => a + b.length, 0);
  pre.writeUInt32BE(total, 0);
  pre.writeUInt32BE(h.length, 4);
  return Buffer.concat([pre, h, ...blobs]);
}

const codeKeys = new Map<string, string>();
function cacheKey(data: string | Buffer): string {
  const s = typeof data === 'string' ? data : undefined;
  if (s !== undefined) {
    const k = codeKeys.get(s);
    if (k) return k;
  }
  const k = createHash('sha256').update(data).digest('hex');
  if (s !== undefined && codeKeys.size < 64) codeKeys.set(s, k);
  return k;
}

const toBuf = (d: string | Buffer) => (typeof d === 'string' ? Buffer.from(d, 'utf8') : d);

/** Grace beyond the run's wall-clock limit before an unanswering zygote is killed. */
const BACKSTOP_MS = 5000;

/** One zygote: a bwrap sandbox running zygote.py. Serves one run at a time. */
export class Zygote {
  private child: ChildProcess | undefined;
  private ctlIn: Writable | undefined;
  private buf: Buffer[] = [];
  private bufLen = 0;
  private waiting: ((f: Frame | string) => void) | undefined;
  private queue: (Frame | string)[] = [];
  private stderrText = '';
  private statusText = '';
  dead = false;
  /** Resolves once the sandbox has exited. */
  readonly exited: Promise<void>;
  private markExited!: () => void;
  /** Runs served (diagnostics, tests). */
  runs = 0;

  constructor(private readonly spec: ZygoteSpawn) {
    this.exited = new Promise((r) => (this.markExited = r));
  }

  /** Starts the sandbox and waits for the zygote's ready frame. Undefined when ready, else why not. */
  async start(): Promise<string | undefined> {
    if (!this.spec.seccomp !== !this.spec.seccompNoSpawn) {
      this.dead = true;
      this.markExited();
      return 'the warm interpreter needs both seccomp filters or neither';
    }
    const passFd = this.spec.procsFd;
    // stdin, stdout and stderr are stream sockets, as a cold run's: the interpreter sets its std
    // streams up from them (seekable or not, buffering) before any program replaces the fds
    const stdio: ('pipe' | 'ignore' | number)[] = ['pipe', 'pipe', 'pipe', 'pipe', passFd ?? 'ignore', 'pipe', 'pipe'];
    let child: ChildProcess;
    try {
      child = spawn(this.spec.bwrap, this.spec.args, { stdio, detached: true, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    } catch (e) {
      this.dead = true;
      this.markExited();
      return `could not start the warm interpreter: ${(e as Error).message}`;
    }
    this.child = child;
    child.unref();
    (child.stdin as Writable).end();
    (child.stdout as Readable).resume();
    const err = child.stderr as Readable;
    err.setEncoding('utf8');
    err.on('data', (t: string) => {
      if (this.stderrText.length < 8192) this.stderrText += t;
    });
    const st = child.stdio[3] as Readable;
    st.setEncoding('utf8');
    st.on('data', (t: string) => {
      if (this.statusText.length < 8192) this.statusText += t;
    });
    this.ctlIn = (child.stdio as unknown as Writable[])[CTL_IN_FD]!;
    this.ctlIn.on('error', () => {});
    const out = (child.stdio as unknown as Readable[])[CTL_OUT_FD]!;
    out.on('data', (b: Buffer) => this.onData(b));
    out.on('error', () => {});
    for (const s of [child.stdout, err, st, out, this.ctlIn]) (s as unknown as { unref?: () => void }).unref?.();
    child.on('error', (e) => this.onGone(`the warm interpreter failed: ${e.message}`));
    child.on('exit', (code, sig) => {
      this.onGone(`the warm interpreter exited (${sig ?? `status ${code}`})${this.stderrText ? `: ${this.stderrText.trim().slice(-500)}` : ''}`);
      this.markExited();
    });
    // both filters, one after the other (each program installs the one its job names), then the
    // driver's stackable spawn filter
    const seccomp = this.spec.seccomp ?? Buffer.alloc(0);
    const noSpawn = this.spec.seccompNoSpawn ?? Buffer.alloc(0);
    const spawnFilter = this.spec.spawnFilter ?? Buffer.alloc(0);
    const init = {
      uid: this.spec.uid ?? null,
      seccomp: seccomp.length,
      seccomp_nospawn: noSpawn.length,
      spawn_filter: spawnFilter.length,
      cgroup_fd: passFd !== undefined ? 4 : null,
      native: this.spec.native ? ZYGOTE_LIB_PATH : null,
      init: this.spec.native && this.spec.init ? ZYGOTE_INIT_PATH : null,
    };
    this.ctlIn.write(encode(init, seccomp, noSpawn, spawnFilter));
    const timer = setTimeout(() => this.kill('the warm interpreter did not start within 20 s'), 20_000);
    const f = await this.next();
    clearTimeout(timer);
    if (typeof f === 'string') return f;
    if (f.header.t !== 'ready') {
      this.kill('unexpected first frame');
      return `the warm interpreter sent ${JSON.stringify(f.header).slice(0, 200)} instead of its ready frame`;
    }
    return undefined;
  }

  /** The sandbox's init pid (bwrap's status), whose death empties the whole sandbox. */
  private initPid(): number | undefined {
    const m = /"child-pid"\s*:\s*(\d+)/.exec(this.statusText);
    return m ? Number(m[1]) : undefined;
  }

  private onData(b: Buffer): void {
    this.buf.push(b);
    this.bufLen += b.length;
    for (;;) {
      if (this.bufLen < 8) return;
      const all = this.buf.length === 1 ? this.buf[0]! : Buffer.concat(this.buf);
      this.buf = [all];
      const total = all.readUInt32BE(0);
      const hlen = all.readUInt32BE(4);
      if (total < 4 || hlen > total - 4 || total > 512 * 1024 * 1024) {
        this.kill('the warm interpreter sent a malformed frame');
        return;
      }
      if (this.bufLen < 4 + total) return;
      let header: Record<string, unknown>;
      try {
        header = JSON.parse(all.subarray(8, 8 + hlen).toString('utf8')) as Record<string, unknown>;
      } catch {
        this.kill('the warm interpreter sent a malformed frame header');
        return;
      }
      const body = Buffer.from(all.subarray(8 + hlen, 4 + total));
      const rest = all.subarray(4 + total);
      this.buf = rest.length ? [rest] : [];
      this.bufLen = rest.length;
      this.deliver({ header, body });
    }
  }

  private deliver(f: Frame | string): void {
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w(f);
    } else this.queue.push(f);
  }

  private next(): Promise<Frame | string> {
    const f = this.queue.shift();
    if (f !== undefined) return Promise.resolve(f);
    if (this.dead) return Promise.resolve('the warm interpreter is gone');
    return new Promise((r) => (this.waiting = r));
  }

  private onGone(why: string): void {
    if (this.dead) return;
    this.dead = true;
    this.deliver(why);
  }

  /** Kills the whole sandbox (its init, so the kernel empties its pid namespace). */
  kill(why = 'killed'): void {
    const c = this.child;
    this.onGone(why);
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const pid = this.initPid();
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
    try {
      process.kill(-c.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }

  /** Runs one program. Never rejects; on `died` and `aborted` the zygote has been killed. */
  async run(job: WarmJob, signal?: AbortSignal): Promise<WarmOutcome> {
    const t0 = performance.now();
    if (this.dead || !this.ctlIn) return { kind: 'died', message: 'the warm interpreter is gone', started: false };
    if (signal?.aborted) return { kind: 'aborted', durationMs: 0 };
    const l = job.limits;
    const rlimits: Record<string, [number, number]> = {};
    for (const a of prlimitArgs(l)) {
      const m = /^--(\w+)=(\d+)(?::(\d+))?$/.exec(a)!;
      rlimits[m[1]!] = [Number(m[2]), Number(m[3] ?? m[2])];
    }
    const main = job.files[job.form.main]!;
    const blobs = job.files.map((f) => toBuf(f.data));
    const stdin = job.stdin === undefined ? Buffer.alloc(0) : toBuf(job.stdin);
    const header = {
      argv: job.argv,
      script: job.form.script,
      main: job.form.main,
      files: job.files.map((f, i) => ({ name: f.name, size: blobs[i]!.length, exec: Boolean(f.executable) })),
      stdin: stdin.length,
      env: job.env,
      limits: { rlimits, tmp: Math.floor(l.tmpBytes), wall_ms: l.wallMs, output: Math.floor(l.outputBytes) },
      spawn: Boolean(job.allowSpawn),
      ...(job.trustedMain ? { cache: cacheKey(main.data), trusted: true } : {}),
    };
    this.runs++;
    const grace = this.spec.backstopMs ?? BACKSTOP_MS;
    const onAbort = () => this.kill('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    const backstop = setTimeout(() => this.kill(`the warm interpreter did not answer within the wall-clock limit + ${grace / 1000} s`), l.wallMs + grace);
    let started = false;
    try {
      this.ctlIn.write(encode(header, ...blobs, stdin));
      for (;;) {
        const f = await this.next();
        if (typeof f === 'string') {
          if (signal?.aborted) return { kind: 'aborted', durationMs: performance.now() - t0 };
          return { kind: 'died', message: f, started };
        }
        const t = f.header.t;
        if (t === 'started') {
          started = true;
          continue;
        }
        if (t === 'error') return { kind: 'error', message: String(f.header.message ?? 'unknown error'), started };
        if (t !== 'result') {
          this.kill('unexpected frame');
          return { kind: 'died', message: `the warm interpreter sent an unexpected frame ${String(t)}`, started };
        }
        const h = f.header as {
          code: number | null;
          signal: number | null;
          timed_out: boolean;
          output_limit: boolean;
          ms: number;
          cpu_ms: number;
          ready: string;
          out: number;
          err: number;
        };
        if (h.out + h.err !== f.body.length) {
          this.kill('frame size mismatch');
          return { kind: 'died', message: 'the warm interpreter sent a malformed result frame', started };
        }
        return {
          kind: 'result',
          code: h.code,
          signal: h.signal,
          timedOut: h.timed_out,
          outputLimit: h.output_limit,
          durationMs: h.ms,
          cpuMs: Number(h.cpu_ms) || 0,
          ready: h.ready,
          stdout: f.body.subarray(0, h.out),
          stderr: f.body.subarray(h.out),
        };
      }
    } finally {
      clearTimeout(backstop);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
