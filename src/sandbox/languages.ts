// Language recipes: how to compile (C++) and run a program in each supported language, with the
// limits that suit each runtime (V8 needs RLIMIT_DATA rather than RLIMIT_AS, g++ forks helpers).
import { runtimeFor } from './host.js';
import type { SandboxLimits } from './limits.js';
import type { RunResult, SandboxFile, SandboxPool, WarmRun } from './pool.js';

export type LanguageName = 'python' | 'javascript' | 'cpp';

export interface Language {
  name: LanguageName;
  /** Fence tags that denote this language (lower case). */
  tags: string[];
  /** File name of the main source. */
  source: string;
  /** Run limits that differ from the sandbox defaults. */
  limits: Partial<SandboxLimits>;
  /** Limits of the compile step (compiled languages only). */
  compileLimits?: Partial<SandboxLimits>;
  /** Runs can be served warm by the pool: a forked Python zygote, or a pre-started node (pool.ts). */
  warm?: 'python' | 'javascript';
}

const MiB = 1024 * 1024;

export const LANGUAGES: Record<LanguageName, Language> = {
  python: { name: 'python', tags: ['python', 'py', 'python3', 'py3'], source: 'main.py', limits: {}, warm: 'python' },
  javascript: {
    name: 'javascript',
    tags: ['javascript', 'js', 'node', 'nodejs', 'mjs', 'cjs'],
    source: 'main.js',
    // V8 reserves gigabytes of address space at start-up; bound the heap and private memory instead.
    limits: { memoryKind: 'data', processes: 64 },
    warm: 'javascript',
  },
  cpp: {
    name: 'cpp',
    tags: ['cpp', 'c++', 'cc', 'cxx', 'hpp'],
    source: 'main.cpp',
    limits: { memoryBytes: 1024 * MiB },
    compileLimits: { wallMs: 30_000, cpuSeconds: 30, memoryBytes: 2048 * MiB, processes: 16, fileSizeBytes: 256 * MiB, tmpBytes: 512 * MiB },
  },
};

export function languageByName(name: string): Language | undefined {
  const n = name.toLowerCase();
  return Object.values(LANGUAGES).find((l) => l.name === n || l.tags.includes(n));
}

/** A program ready to run any number of times (sources, or the compiled binary). */
export interface CompiledProgram {
  language: LanguageName;
  argv: string[];
  files: SandboxFile[];
  binds: string[];
  limits: Partial<SandboxLimits>;
  /** How a warm interpreter may serve it (absent: always a cold run). */
  warm?: WarmRun;
}

export type CompileOutcome =
  | { ok: true; program: CompiledProgram; compile?: RunResult }
  /**
   * `compile_error`: the compiler rejected the program (or hit its limits); `tests_error`: a
   * build script's own step for the tests failed (the tests, not the program, are at fault);
   * `sandbox_error`: could not run at all.
   */
  | { ok: false; kind: 'compile_error' | 'tests_error' | 'sandbox_error' | 'aborted'; message: string; compile?: RunResult };

export interface CompileOptions {
  /** Extra files placed next to the main source. */
  files?: SandboxFile[];
  /** Name of the file to run (default: the language's main source name). */
  main?: string;
  /** Run limits (merged over the language's). */
  limits?: Partial<SandboxLimits>;
  compileLimits?: Partial<SandboxLimits>;
  /** The main source is arbiter's own program (a driver), which a warm interpreter may compile once and keep. */
  trustedMain?: boolean;
  /** Python: import site-packages (slower start-up; needed for third-party packages). Default false. */
  pythonSite?: boolean;
  /** C++: compiler flags (default -std=c++17 -O2). */
  cppFlags?: string[];
  /**
   * C++: a build script run by /bin/sh with the compiler as $0 and the flags as $@, which prints
   * the binary on stdout (default: compile main.cpp). Exit status 97 means `tests_error`.
   */
  cppScript?: string;
  signal?: AbortSignal;
}

/**
 * Prepares `source` for running: for Python and JavaScript this only resolves the runtime; for C++
 * it compiles inside the sandbox and keeps the binary.
 */
export async function compileProgram(pool: SandboxPool, language: LanguageName, source: string, opts: CompileOptions = {}): Promise<CompileOutcome> {
  const lang = LANGUAGES[language];
  const rt = await runtimeFor(language);
  if (typeof rt === 'string') return { ok: false, kind: 'sandbox_error', message: rt };
  const limits = { ...lang.limits, ...opts.limits };
  const files: SandboxFile[] = [{ name: lang.source, data: source }, ...(opts.files ?? [])];
  const main = opts.main ?? lang.source;
  switch (language) {
    case 'python': {
      const flags = opts.pythonSite ? ['-I', '-B'] : ['-I', '-S', '-B'];
      const warm = { language: 'python' as const, trustedMain: Boolean(opts.trustedMain) && main === lang.source };
      return { ok: true, program: { language, argv: [rt.exe, ...flags, main], files, binds: rt.binds, limits, ...(lang.warm ? { warm } : {}) } };
    }
    case 'javascript': {
      const heapMb = Math.max(32, Math.floor(((limits.memoryBytes ?? 1024 * MiB) / MiB) * 0.75));
      const warm = { language: 'javascript' as const };
      return {
        ok: true,
        program: { language, argv: [rt.exe, `--max-old-space-size=${heapMb}`, main], files, binds: rt.binds, limits, ...(lang.warm ? { warm } : {}) },
      };
    }
    case 'cpp': {
      const b = await buildCpp(pool, files, opts.cppScript ?? '"$0" "$@" -pipe -o prog main.cpp 1>&2 && exec cat prog', opts);
      if (!b.ok) return b;
      return {
        ok: true,
        compile: b.compile,
        program: { language, argv: ['./prog'], files: [{ name: 'prog', data: b.output, executable: true }, ...(opts.files ?? [])], binds: [], limits },
      };
    }
  }
}

export type BuildOutcome = { ok: true; output: Buffer; compile: RunResult } | Extract<CompileOutcome, { ok: false }>;

/**
 * Runs a C++ build script in the sandbox with the compile limits (/bin/sh, the compiler as $0, the
 * flags as $@) and returns what it prints on stdout (a binary, an object). Exit status 97 means
 * `tests_error`; any other failure is `compile_error` (or `sandbox_error`, `aborted`).
 */
export async function buildCpp(pool: SandboxPool, files: SandboxFile[], script: string, opts: CompileOptions = {}): Promise<BuildOutcome> {
  const rt = await runtimeFor('cpp');
  if (typeof rt === 'string') return { ok: false, kind: 'sandbox_error', message: rt };
  const flags = opts.cppFlags ?? ['-std=c++17', '-O2'];
  const r = await pool.run({
    argv: ['/bin/sh', '-c', script, rt.exe, ...flags],
    files,
    limits: { ...LANGUAGES.cpp.compileLimits, ...opts.compileLimits },
    binds: rt.binds,
    binaryStdout: true,
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  if (r.status === 'sandbox_error' || r.status === 'aborted') return { ok: false, kind: r.status, message: r.message ?? 'sandbox failed', compile: r };
  if (r.status === 'runtime_error' && r.exitCode === 97)
    return { ok: false, kind: 'tests_error', message: tail(r.stderr, 20) || 'the tests failed to build', compile: r };
  if (r.status !== 'ok' || !r.stdoutBytes?.length) {
    const why =
      r.status === 'timeout'
        ? 'the compiler exceeded its time limit'
        : r.status === 'output_limit'
          ? 'compiler output exceeded its limit'
          : tail(r.stderr, 20) || (r.message ?? 'compilation failed');
    return { ok: false, kind: 'compile_error', message: why, compile: r };
  }
  return { ok: true, output: r.stdoutBytes, compile: r };
}

export interface ProgramRun {
  stdin?: string;
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal;
}

/** Runs a prepared program once. */
export function runProgram(pool: SandboxPool, program: CompiledProgram, run: ProgramRun = {}): Promise<RunResult> {
  return pool.run({
    argv: program.argv,
    files: program.files,
    binds: program.binds,
    limits: { ...program.limits, ...run.limits },
    ...(program.warm ? { warm: program.warm } : {}),
    ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
    ...(run.signal ? { signal: run.signal } : {}),
  });
}

/** The last `n` non-empty lines of a text. */
export function tail(text: string, n: number): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.slice(-n).join('\n');
}
