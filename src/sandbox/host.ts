// Discovers the host tools the sandbox needs (bwrap, prlimit, setpriv, the language runtimes)
// once per process, and the extra read-only paths each runtime needs inside the sandbox.
import { execFile } from 'node:child_process';
import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Finds an executable on PATH (or checks an absolute path); undefined when missing. */
export function which(cmd: string, pathEnv = process.env.PATH ?? '/usr/bin:/bin'): string | undefined {
  const candidates = cmd.includes('/')
    ? [cmd]
    : pathEnv
        .split(delimiter)
        .filter(Boolean)
        .map((d) => join(d, cmd));
  for (const c of candidates) {
    try {
      accessSync(c, constants.X_OK);
      if (statSync(c).isFile()) return c;
    } catch {
      // not here
    }
  }
  return undefined;
}

function run(file: string, args: string[], timeoutMs = 15_000): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } }, (err, stdout, stderr) => {
      resolve({ ok: !err, stdout: String(stdout), stderr: String(stderr || (err ? err.message : '')) });
    });
  });
}

export interface Runtime {
  /** Absolute path of the executable to run. */
  exe: string;
  /** Directories outside the standard system paths to bind read-only (e.g. a pyenv prefix). */
  binds: string[];
}

const SYSTEM_PREFIXES = ['/usr/', '/bin/', '/lib/', '/lib64/', '/sbin/', '/etc/'];

function outsideSystem(p: string): boolean {
  return !SYSTEM_PREFIXES.some((s) => p.startsWith(s));
}

/**
 * Resolves the Python interpreter: `ARBITER_PYTHON` or `python3` on PATH, through shims
 * (pyenv) to the real binary, plus its installation prefix when that lies outside /usr.
 */
async function resolvePython(): Promise<Runtime | string> {
  const cmd = process.env.ARBITER_PYTHON || 'python3';
  const found = which(cmd);
  if (!found) return `python interpreter "${cmd}" not found on PATH (set ARBITER_PYTHON)`;
  const r = await run(found, ['-I', '-S', '-c', 'import sys, json; print(json.dumps([sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix]))']);
  if (!r.ok) return `python interpreter "${found}" failed to start: ${r.stderr.trim().slice(0, 300)}`;
  let info: string[];
  try {
    info = JSON.parse(r.stdout.trim()) as string[];
  } catch {
    return `python interpreter "${found}" printed unexpected output: ${r.stdout.slice(0, 200)}`;
  }
  const exe = info[0]!;
  const binds = new Set<string>();
  for (const p of [...info.slice(1), dirname(exe)]) {
    let rp: string;
    try {
      rp = realpathSync(p);
    } catch {
      continue;
    }
    if (outsideSystem(rp + '/')) binds.add(rp);
    if (rp !== p && outsideSystem(p + '/')) binds.add(p);
  }
  return { exe, binds: [...binds] };
}

function resolveNode(): Runtime | string {
  const exe = process.env.ARBITER_NODE || process.execPath;
  if (!which(exe)) return `node executable "${exe}" not found`;
  const real = realpathSync(exe);
  const binds = outsideSystem(real) ? [dirname(dirname(real))] : [];
  return { exe: real, binds };
}

function resolveGxx(): Runtime | string {
  const exe = which(process.env.ARBITER_CXX || 'g++');
  if (!exe) return 'g++ not found on PATH (install g++, e.g. with scripts/setup.sh, or set ARBITER_CXX)';
  const real = realpathSync(exe);
  if (outsideSystem(real)) return `g++ at ${real} is outside /usr; only a system compiler is supported in the sandbox`;
  return { exe, binds: [] };
}

export interface HostTools {
  bwrap?: string;
  /** The static helper built from native/sandbox-exec.c (rlimits + uid drop in one exec), if built. */
  sandboxExec?: string;
  prlimit?: string;
  setpriv?: string;
  sh?: string;
  isRoot: boolean;
}

export function hostTools(): HostTools {
  return {
    bwrap: which('bwrap'),
    sandboxExec: nativeHelper(),
    prlimit: which('prlimit'),
    setpriv: which('setpriv'),
    sh: which('/bin/sh'),
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
  };
}

/** dist/native/sandbox-exec when scripts/build-native.mjs built it (and it is executable). */
function nativeHelper(): string | undefined {
  if (process.env.ARBITER_SANDBOX_NO_HELPER) return undefined;
  const p = fileURLToPath(new URL('../native/sandbox-exec', import.meta.url));
  try {
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    return undefined;
  }
}

let pythonP: Promise<Runtime | string> | undefined;
let nodeR: Runtime | string | undefined;
let gxxR: Runtime | string | undefined;

/** The runtime for a language, or a message saying why it is unavailable (cached). */
export async function runtimeFor(language: 'python' | 'javascript' | 'cpp'): Promise<Runtime | string> {
  switch (language) {
    case 'python':
      return (pythonP ??= resolvePython());
    case 'javascript':
      return (nodeR ??= resolveNode());
    case 'cpp':
      return (gxxR ??= resolveGxx());
  }
}
