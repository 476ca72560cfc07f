// Discovers the host tools the sandbox needs (bwrap, prlimit, setpriv, the language runtimes and
// compilers) once per process, and the extra read-only paths each runtime needs inside the sandbox.
import { execFile } from 'node:child_process';
import { accessSync, constants, type Dirent, readdirSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
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

function run(file: string, args: string[], timeoutMs = 15_000, env: Record<string, string> = {}): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: timeoutMs, encoding: 'utf8', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env } }, (err, stdout, stderr) => {
      resolve({ ok: !err, stdout: String(stdout), stderr: String(stderr || (err ? err.message : '')) });
    });
  });
}

export interface Runtime {
  /** Absolute path of the executable to run. */
  exe: string;
  /** Directories outside the standard system paths to bind read-only (e.g. a pyenv prefix). */
  binds: string[];
  /** Further paths of the toolchain (java: the `java` launcher; typescript: the package directory). */
  aux?: Record<string, string>;
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

/** A compiler or interpreter that must be a system one (under /usr): `env` overrides the name. */
function resolveSystem(label: string, cmd: string, env: string | undefined, hint: string): Runtime | string {
  const name = env || cmd;
  const exe = which(name);
  if (!exe) return `${label} "${name}" not found on PATH (${hint})`;
  const real = realpathSync(exe);
  if (outsideSystem(real)) return `${label} at ${real} is outside /usr; only a system ${label} is supported in the sandbox`;
  return { exe, binds: [] };
}

const gxx = () => resolveSystem('g++', 'g++', process.env.ARBITER_CXX, 'install g++, e.g. with scripts/setup.sh, or set ARBITER_CXX');
const gcc = () => resolveSystem('gcc', 'gcc', process.env.ARBITER_CC, 'install gcc, e.g. with scripts/setup.sh, or set ARBITER_CC');
const bash = () => resolveSystem('bash', 'bash', process.env.ARBITER_BASH, 'install bash');

/**
 * Go: the `go` command (Debian's golang-go, a link into /usr/lib/go-N); its GOROOT lies under
 * /usr, which the sandbox binds anyway.
 */
function resolveGo(): Runtime | string {
  const r = resolveSystem('go', 'go', process.env.ARBITER_GO, 'install golang-go, e.g. with scripts/setup.sh, or set ARBITER_GO');
  if (typeof r === 'string') return r;
  return { exe: realpathSync(r.exe), binds: [] };
}

/**
 * Rust: `ARBITER_RUSTC` or `rustc` on PATH. A rustup shim (~/.cargo/bin/rustc) is resolved to the
 * toolchain it selects (`rustc --print sysroot`): the sandbox runs `<sysroot>/bin/rustc` with the
 * sysroot bound read-only (the shim itself would need rustup's home and settings). The linker is
 * the system `cc`.
 */
async function resolveRust(): Promise<Runtime | string> {
  const name = process.env.ARBITER_RUSTC || 'rustc';
  const found = which(name);
  if (!found) return `rustc "${name}" not found on PATH (install rustc, e.g. with scripts/setup.sh, or set ARBITER_RUSTC)`;
  // a rustup shim picks its toolchain from these (and from a rust-toolchain file in the cwd)
  const rustupEnv: Record<string, string> = {};
  for (const k of ['HOME', 'RUSTUP_HOME', 'RUSTUP_TOOLCHAIN', 'CARGO_HOME']) if (process.env[k]) rustupEnv[k] = process.env[k]!;
  const r = await run(found, ['--print', 'sysroot'], 15_000, rustupEnv);
  if (!r.ok) return `rustc "${found}" failed to start: ${r.stderr.trim().slice(0, 300)}`;
  let sysroot: string;
  try {
    sysroot = realpathSync(r.stdout.trim());
  } catch {
    return `rustc "${found}" printed an unusable sysroot: ${r.stdout.slice(0, 200)}`;
  }
  const exe = join(sysroot, 'bin', 'rustc');
  if (!which(exe)) return `rustc's sysroot ${sysroot} has no bin/rustc`;
  if (!which('cc')) return 'rustc needs a C linker (cc) on PATH: install gcc';
  return { exe, binds: outsideSystem(sysroot + '/') ? [sysroot] : [] };
}

/**
 * Java: `javac` (ARBITER_JAVAC) and the `java` next to it in the same JDK. Debian's JDK keeps its
 * configuration in /etc/java-N-openjdk (links from <jdk>/conf): those directories are bound.
 */
function resolveJava(): Runtime | string {
  const name = process.env.ARBITER_JAVAC || 'javac';
  const found = which(name);
  if (!found) return `javac "${name}" not found on PATH (install default-jdk-headless, e.g. with scripts/setup.sh, or set ARBITER_JAVAC)`;
  const javac = realpathSync(found);
  const home = dirname(dirname(javac));
  const java = join(home, 'bin', 'java');
  if (!which(java)) return `the JDK of ${javac} has no bin/java`;
  const binds = new Set<string>();
  if (outsideSystem(home + '/')) binds.add(home);
  const walk = (dir: string, depth: number) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isSymbolicLink()) {
        try {
          const t = realpathSync(p);
          // the JDK's own configuration directory under /etc (e.g. /etc/java-17-openjdk); links
          // elsewhere (cacerts into /etc/ssl) are left out: nothing in the sandbox uses them
          const m = /^\/etc\/java[^/]*/.exec(t);
          if (m) binds.add(m[0]);
        } catch {
          // a dangling link: the JDK does without it
        }
      } else if (e.isDirectory() && depth < 4) walk(p, depth + 1);
    }
  };
  walk(join(home, 'conf'), 0);
  walk(join(home, 'lib'), 2);
  return { exe: javac, binds: [...binds], aux: { java } };
}

/**
 * TypeScript: node plus the `typescript` package that arbiter resolves for itself (a dependency
 * of the project; ARBITER_TYPESCRIPT names another package directory). Its directory is bound
 * read-only and `transpileModule` runs inside the sandbox.
 */
function resolveTypeScript(): Runtime | string {
  const node = resolveNode();
  if (typeof node === 'string') return node;
  let dir = process.env.ARBITER_TYPESCRIPT;
  if (!dir) {
    try {
      dir = dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
    } catch {
      return 'the typescript package is not installed next to arbiter (npm install typescript, or set ARBITER_TYPESCRIPT to its directory)';
    }
  }
  let real: string;
  try {
    real = realpathSync(dir);
    statSync(join(real, 'lib', 'typescript.js'));
  } catch {
    return `no typescript package at ${dir} (lib/typescript.js missing)`;
  }
  return { exe: node.exe, binds: [...node.binds, real], aux: { typescript: real } };
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

const cache = new Map<string, Promise<Runtime | string>>();

/** The languages a runtime can be resolved for (LanguageName in languages.ts). */
export type RuntimeLanguage = 'python' | 'javascript' | 'typescript' | 'c' | 'cpp' | 'go' | 'rust' | 'java' | 'bash';

const RESOLVERS: Record<RuntimeLanguage, () => Runtime | string | Promise<Runtime | string>> = {
  python: resolvePython,
  javascript: resolveNode,
  typescript: resolveTypeScript,
  c: gcc,
  cpp: gxx,
  go: resolveGo,
  rust: resolveRust,
  java: resolveJava,
  bash,
};

/** The runtime for a language, or a message saying why it is unavailable (cached). */
export function runtimeFor(language: RuntimeLanguage): Promise<Runtime | string> {
  let p = cache.get(language);
  if (!p) {
    p = Promise.resolve().then(RESOLVERS[language]);
    cache.set(language, p);
  }
  return p;
}

/** The first line a toolchain prints about its version (for the sandbox report), or why not. */
export async function runtimeVersion(language: RuntimeLanguage): Promise<string> {
  const rt = await runtimeFor(language);
  if (typeof rt === 'string') return rt;
  const args: Record<RuntimeLanguage, [string, string[]]> = {
    python: [rt.exe, ['--version']],
    javascript: [rt.exe, ['--version']],
    typescript: [rt.exe, ['-p', `'typescript ' + require(${JSON.stringify(join(rt.aux?.typescript ?? '', 'package.json'))}).version`]],
    c: [rt.exe, ['--version']],
    cpp: [rt.exe, ['--version']],
    go: [rt.exe, ['version']],
    rust: [rt.exe, ['--version']],
    java: [rt.aux?.java ?? rt.exe, ['-version']],
    bash: [rt.exe, ['--version']],
  };
  const [file, a] = args[language];
  const r = await run(file, a);
  const line = (r.stdout.trim() || r.stderr.trim()).split('\n')[0] ?? '';
  return r.ok ? line.trim() : `failed to report its version: ${line.trim().slice(0, 200)}`;
}
