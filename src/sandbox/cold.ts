// The cold path: one bubblewrap run started from nothing as a slot's uid in its cgroup
// (startSandboxed; with a gate, a pre-started JavaScript spare that gets its run later) and read
// back once it ends (finishSandboxed), and the unsandboxed run behind --unsafe-no-sandbox
// (spawnUnsafe). The pool (pool.ts) chooses the slot; the warm paths fall back to this one.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { bwrapArgs, type SandboxFile } from './bwrap-args.js';
import { closeQuietly, type RunCgroup } from './cgroup.js';
import type { HostTools } from './host.js';
import { prlimitArgs, runMemoryBytes, type SandboxLimits } from './limits.js';
import { runProcess, type SpawnResult, type SpawnSpec } from './process.js';
import { classify, fail, startFailure, withMemoryExceeded, type RunOutcome, type RunRequest } from './run.js';
import { hostSeccompProgram, hostSpawnFilter } from './seccomp.js';

/** A bwrap run started by startSandboxed, to be finished by finishSandboxed. */
export interface Started {
  pending: Promise<SpawnResult>;
  cg: RunCgroup | undefined;
  oomBefore: number;
  statusFd: number;
  readyFd: number;
  helper: boolean;
}

/** Whose the run is: the uid it drops to (when root) and the memory cgroup it joins. */
export interface RunTarget {
  uid: number | undefined;
  cg: RunCgroup | undefined;
}

/**
 * Starts one bwrap run as `target`'s uid in its cgroup. With `gate`, the process starts now but
 * gets its stdin, wall clock and abort signal when the gate resolves (a pre-started spare).
 */
export function startSandboxed(
  tools: HostTools,
  target: RunTarget,
  req: Pick<RunRequest, 'argv' | 'binds' | 'stdin' | 'signal' | 'binaryStdout' | 'allowSpawn'>,
  files: SandboxFile[],
  limits: SandboxLimits,
  env: Record<string, string>,
  extra: { gate?: SpawnSpec['gate']; roFiles?: { src: string; dest: string }[] } = {},
): RunOutcome | Started {
  // fd 3: bwrap's JSON status (proof that the sandbox started, and the sandbox init's pid);
  // fd 4: the slot cgroup's cgroup.procs; fd 5: the helper's "ok" before it execs the program;
  // fd 6: the seccomp program; the run's files from fd 7 on.
  const statusFd = 3;
  const cgroupFd = 4;
  const readyFd = 5;
  const seccompFd = 6;
  const firstFileFd = 7;
  // (without allowSpawn the program cannot create processes: fork oracles, seccomp.ts)
  const seccomp = hostSeccompProgram({ spawn: Boolean(req.allowSpawn) });
  const { cg, uid } = target;
  const helper = tools.sandboxExec;
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
      bwrap: tools.bwrap!,
      prlimit: tools.prlimit!,
      ...(helper ? { exec: helper, readyFd } : {}),
      ...(tools.isRoot && uid !== undefined ? { setpriv: { path: tools.setpriv!, uid } } : {}),
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
  if (tools.isRoot && uid === undefined) {
    closeQuietly(procsFd);
    return fail('sandbox_error', 'no sandbox uid leased for this slot');
  }
  const pending = runProcess({
    argv: [tools.bwrap!, ...args],
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

/** One cold run from start to end. */
export async function spawnSandboxed(
  tools: HostTools,
  target: RunTarget,
  req: RunRequest,
  files: SandboxFile[],
  limits: SandboxLimits,
  env: Record<string, string>,
): Promise<RunOutcome> {
  const s = startSandboxed(tools, target, req, files, limits, env);
  if ('status' in s) return s;
  return finishSandboxed(s, await s.pending, req, limits);
}

/** Waits out the run's processes and reads what bwrap and the helper reported into a result. */
export async function finishSandboxed(s: Started, r: SpawnResult, req: Pick<RunRequest, 'binaryStdout'>, limits: SandboxLimits): Promise<RunOutcome> {
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

/** Runs the program without bubblewrap: rlimits, a process group, a temporary directory. */
export async function spawnUnsafe(
  tools: HostTools,
  req: RunRequest,
  files: SandboxFile[],
  limits: SandboxLimits,
  env: Record<string, string>,
): Promise<RunOutcome> {
  // no sandbox, but still no process creation unless allowed: the stackable filter, through the
  // native helper (prlimit cannot install one: refused then)
  const filter = req.allowSpawn ? undefined : hostSpawnFilter();
  if (!req.allowSpawn && filter && !tools.sandboxExec)
    return fail('sandbox_error', 'an unsandboxed run that may not create processes needs the native helper (npm run build with a C compiler); none is built');
  const dir = await mkdtemp(join(tmpdir(), 'arbiter-run-'));
  try {
    for (const f of files) {
      const p = join(dir, f.name);
      await mkdir(dirname(p), { recursive: true });
      await writeFile(p, f.data);
      if (f.executable) await chmod(p, 0o755);
    }
    const r = await runProcess({
      argv: [tools.sandboxExec ?? tools.prlimit!, ...prlimitArgs(limits), ...(filter ? ['--seccomp-fd=3'] : []), '--', ...req.argv],
      ...(filter ? { inputFds: [filter], inputFdBase: 3 } : {}),
      env: { ...env, HOME: dir, TMPDIR: dir },
      cwd: dir,
      stdin: req.stdin,
      wallMs: limits.wallMs,
      outputBytes: req.binaryStdout ? Math.max(limits.outputBytes, 256 * 1024 * 1024) : limits.outputBytes,
      signal: req.signal,
    });
    if (r.spawnError) return fail('sandbox_error', `could not start the program: ${r.spawnError}`, r.durationMs);
    if (filter && r.exitCode === 127 && /^sandbox-exec: --seccomp-fd/m.test(r.stderr.toString('utf8')))
      return { ...fail('sandbox_error', `sandbox failed to start the program: ${r.stderr.toString('utf8').trim().slice(0, 500)}`, r.durationMs) };
    return { ...classify(r, r.exitCode, req.binaryStdout), ...(r.pid !== undefined ? { programPid: r.pid } : {}) };
  } finally {
    await rm(dir, { recursive: true, force: true }).catch(() => {});
  }
}
