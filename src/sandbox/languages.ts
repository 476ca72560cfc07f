// Language recipes: how to compile (C, C++, Go, Rust, Java; TypeScript is transpiled) and run a
// program in each supported language, with the limits that suit each runtime (V8 and the JVM need
// RLIMIT_DATA rather than RLIMIT_AS, compilers fork helpers and threads). Every compile runs in the
// sandbox with the compile limits; what it produced is brought back and run in a fresh sandbox.
// Compile steps may create processes; programs may not (fork oracles) unless their grader allows
// it (CompileOptions.allowSpawn) or the language needs it (bash).
import { runtimeFor } from './host.js';
import type { SandboxLimits } from './limits.js';
import type { RunResult, SandboxFile, SandboxPool, WarmRun } from './pool.js';
import { checkFileName } from './bwrap-args.js';

export type LanguageName = 'python' | 'javascript' | 'typescript' | 'c' | 'cpp' | 'go' | 'rust' | 'java' | 'bash';

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
  /** Runs can be served warm by the pool: a forked Python zygote, or a pre-started node (warm-python.ts, spares.ts). */
  warm?: 'python' | 'javascript';
  /**
   * Whether a program may create processes when its grader does not say (CompileOptions.allowSpawn):
   * only bash, where every external command is a process. Compile steps always may (compilers run
   * their passes, as, ld, go's toolchain as processes).
   */
  spawnByDefault?: boolean;
}

const MiB = 1024 * 1024;

/** Compile limits of the compiled languages: compilers fork helpers and write objects. */
const COMPILE_LIMITS: Partial<SandboxLimits> = {
  wallMs: 30_000,
  cpuSeconds: 30,
  memoryBytes: 2048 * MiB,
  processes: 16,
  fileSizeBytes: 256 * MiB,
  tmpBytes: 512 * MiB,
};

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
  typescript: {
    name: 'typescript',
    tags: ['typescript', 'ts', 'mts', 'cts'],
    source: 'main.ts',
    limits: { memoryKind: 'data', processes: 64 },
    // node loading the typescript package (about 9 MB of JavaScript) to transpile one file
    compileLimits: { wallMs: 30_000, cpuSeconds: 30, memoryBytes: 2048 * MiB, memoryKind: 'data', processes: 64 },
  },
  c: {
    name: 'c',
    tags: ['c'],
    source: 'main.c',
    limits: { memoryBytes: 1024 * MiB },
    compileLimits: COMPILE_LIMITS,
  },
  cpp: {
    name: 'cpp',
    tags: ['cpp', 'c++', 'cc', 'cxx', 'hpp'],
    source: 'main.cpp',
    limits: { memoryBytes: 1024 * MiB },
    compileLimits: COMPILE_LIMITS,
  },
  go: {
    name: 'go',
    tags: ['go', 'golang'],
    source: 'main.go',
    // the Go runtime reserves some 600 MiB of address space at start (page summaries, arena
    // hints): bound private memory instead; it starts a thread per busy P plus its own helpers
    limits: { memoryBytes: 1024 * MiB, memoryKind: 'data', processes: 64 },
    // `go build` runs compile/asm/link (Go programs too) as separate processes, several at a time
    compileLimits: { ...COMPILE_LIMITS, memoryKind: 'data', processes: 128 },
  },
  rust: {
    name: 'rust',
    tags: ['rust', 'rs'],
    source: 'main.rs',
    limits: { memoryBytes: 1024 * MiB },
    // rustc runs LLVM on several threads and links with cc
    compileLimits: { ...COMPILE_LIMITS, processes: 64 },
  },
  java: {
    name: 'java',
    tags: ['java'],
    source: 'Main.java',
    // the JVM reserves its heap, class space and code cache up front: bound private memory, and
    // size the heap (-Xmx) from the limit; it runs a dozen threads of its own
    limits: { memoryKind: 'data', processes: 64 },
    compileLimits: { ...COMPILE_LIMITS, memoryKind: 'data', processes: 64 },
  },
  // a bash program runs external commands (each a fork): processes allowed unless the grader says not
  bash: { name: 'bash', tags: ['bash', 'sh', 'shell'], source: 'main.sh', limits: {}, spawnByDefault: true },
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
  /** Environment variables of each run (besides the sandbox's own). */
  env?: Record<string, string>;
  /** How a warm interpreter may serve it (absent: always a cold run). */
  warm?: WarmRun;
  /** Each run may create processes (RunRequest.allowSpawn); else fork and friends fail with EPERM. */
  allowSpawn: boolean;
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
  /**
   * The program may create processes when it runs (RunRequest.allowSpawn; the compile step always
   * may). Default: the language's (`spawnByDefault`: bash yes, every other language no).
   */
  allowSpawn?: boolean;
  /** Python: import site-packages (slower start-up; needed for third-party packages). Default false. */
  pythonSite?: boolean;
  /** C++: compiler flags (default -std=c++17 -O2). */
  cppFlags?: string[];
  /** C, Rust, Go, Java: compiler flags replacing the defaults (see DEFAULT_FLAGS). */
  flags?: string[];
  /** Java: the class to run (default: the source's public class, else Main); the source is CLASS.java. */
  javaClass?: string;
  /**
   * C++: a build script run by /bin/sh with the compiler as $0 and the flags as $@, which prints
   * the binary on stdout (default: compile main.cpp). Exit status 97 means `tests_error`.
   */
  cppScript?: string;
  signal?: AbortSignal;
}

/** Compiler flags of each compiled language when none are given (C++: CompileOptions.cppFlags). */
export const DEFAULT_FLAGS: Record<'c' | 'cpp' | 'go' | 'rust' | 'java', string[]> = {
  c: ['-std=gnu11', '-O2'],
  cpp: ['-std=c++17', '-O2'],
  go: [],
  rust: ['--edition=2021', '-O'],
  java: [],
};

/** Go writes its build cache and module path under the sandbox's /tmp and never reaches the network. */
export const GO_ENV: Record<string, string> = {
  GOCACHE: '/tmp/.cache/go-build',
  GOPATH: '/tmp/go',
  GOPROXY: 'off',
  GOFLAGS: '-mod=mod',
  GOSUMDB: 'off',
  GOTOOLCHAIN: 'local',
  GOTELEMETRY: 'off',
  CGO_ENABLED: '0',
};

/** The public class of a Java source (as SandboxFusion finds it), or undefined. */
export function javaPublicClass(source: string): string | undefined {
  return /\bpublic\s+(?:abstract\s+|final\s+)?class\s+(\w+)/.exec(source)?.[1];
}

const JAVA_IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** JVM options of a run or a compile with this memory limit: the heap gets half of it. */
export function jvmOptions(limits: Partial<SandboxLimits>): string[] {
  const heapMb = Math.max(32, Math.floor(((limits.memoryBytes ?? 1024 * MiB) / MiB) * 0.5));
  return [`-Xmx${heapMb}m`, '-XX:+UseSerialGC', '-XX:-UsePerfData', '-Xshare:auto', '-XX:ErrorFile=/dev/null'];
}

/**
 * The build script's bundle on stdout: for each file, its name, a newline, its size in bytes, a
 * newline, and the bytes (Java's class files, one per class).
 */
const BUNDLE = 'find . -type f | sed "s|^\\./||" | while read -r f; do printf "%s\\n%s\\n" "$f" "$(wc -c < "$f")"; cat "$f"; done';

/** Splits a bundle into files, or says why it is unusable. */
export function parseBundle(b: Buffer): SandboxFile[] | string {
  const out: SandboxFile[] = [];
  let at = 0;
  while (at < b.length) {
    const nl1 = b.indexOf(10, at);
    const nl2 = nl1 < 0 ? -1 : b.indexOf(10, nl1 + 1);
    if (nl2 < 0) return 'truncated file list';
    const name = b.subarray(at, nl1).toString('utf8');
    const size = Number(
      b
        .subarray(nl1 + 1, nl2)
        .toString('utf8')
        .trim(),
    );
    if (!Number.isInteger(size) || size < 0 || nl2 + 1 + size > b.length) return `bad size for ${JSON.stringify(name)}`;
    const bad = checkFileName(name);
    if (bad) return bad;
    out.push({ name, data: b.subarray(nl2 + 1, nl2 + 1 + size) });
    at = nl2 + 1 + size;
  }
  return out;
}

/**
 * Transpiles each TypeScript file named in its arguments (main.ts and the .ts files among the
 * program's files) with the typescript package's transpileModule (types are stripped, not checked:
 * as tsx and ts-node --transpile-only run TypeScript) and prints the JavaScript as a bundle
 * (NAME.js for NAME.ts, so `import './helper'` finds helper.js); syntax errors are printed as
 * `FILE(line,col): error TSnnnn: message` with exit status 1.
 */
const TS_TRANSPILE = `const ts = require(process.argv[1]);
const fs = require('fs');
const out = [];
let failed = false;
for (const name of process.argv.slice(2)) {
  const r = ts.transpileModule(fs.readFileSync(name, 'utf8'), { fileName: name, reportDiagnostics: true, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
  for (const d of r.diagnostics || []) {
    if (d.category !== ts.DiagnosticCategory.Error) continue;
    failed = true;
    const m = ts.flattenDiagnosticMessageText(d.messageText, '\\n');
    if (d.file && d.start !== undefined) { const p = d.file.getLineAndCharacterOfPosition(d.start); process.stderr.write(name + '(' + (p.line + 1) + ',' + (p.character + 1) + '): error TS' + d.code + ': ' + m + '\\n'); }
    else process.stderr.write(name + ': error TS' + d.code + ': ' + m + '\\n');
  }
  const js = Buffer.from(r.outputText);
  out.push(Buffer.from(name.replace(/\\.[cm]?ts$/, '.js') + '\\n' + js.length + '\\n'), js);
}
if (failed) process.exitCode = 1;
else process.stdout.write(Buffer.concat(out));
`;

/**
 * Prepares `source` for running: for Python, JavaScript and Bash this only resolves the runtime;
 * TypeScript is transpiled to JavaScript in the sandbox; C, C++, Go, Rust and Java are compiled in
 * the sandbox (with the compile limits) and what the compiler produced is kept.
 */
export async function compileProgram(pool: SandboxPool, language: LanguageName, source: string, opts: CompileOptions = {}): Promise<CompileOutcome> {
  const lang = LANGUAGES[language];
  // the pool's one-time check of the sandbox runs while the runtime is resolved (both are cached)
  void pool.unavailable();
  const rt = await runtimeFor(language);
  if (typeof rt === 'string') return { ok: false, kind: 'sandbox_error', message: rt };
  const limits = { ...lang.limits, ...opts.limits };
  const files: SandboxFile[] = [{ name: lang.source, data: source }, ...(opts.files ?? [])];
  const extra = opts.files ?? [];
  const main = opts.main ?? lang.source;
  const allowSpawn = opts.allowSpawn ?? Boolean(lang.spawnByDefault);
  const built = (compile: RunResult, program: Omit<CompiledProgram, 'language' | 'limits' | 'allowSpawn'>): CompileOutcome => ({
    ok: true,
    compile,
    program: { language, limits, allowSpawn, ...program },
  });
  switch (language) {
    case 'python': {
      const flags = opts.pythonSite ? ['-I', '-B'] : ['-I', '-S', '-B'];
      const warm = { language: 'python' as const, trustedMain: Boolean(opts.trustedMain) && main === lang.source };
      return { ok: true, program: { language, argv: [rt.exe, ...flags, main], files, binds: rt.binds, limits, allowSpawn, ...(lang.warm ? { warm } : {}) } };
    }
    case 'javascript': {
      const warm = { language: 'javascript' as const };
      return {
        ok: true,
        program: {
          language,
          argv: [rt.exe, `--max-old-space-size=${v8Heap(limits)}`, main],
          files,
          binds: rt.binds,
          limits,
          allowSpawn,
          ...(lang.warm ? { warm } : {}),
        },
      };
    }
    case 'bash':
      return { ok: true, program: { language, argv: [rt.exe, main], files, binds: rt.binds, limits, allowSpawn } };
    case 'typescript': {
      const ts = files.filter((f) => /\.[cm]?ts$/.test(f.name) && !f.name.endsWith('.d.ts')).map((f) => f.name);
      const b = await buildProgram(pool, language, files, [rt.exe, '-e', TS_TRANSPILE, rt.aux!.typescript!, ...ts], rt.binds, opts);
      if (!b.ok) return b;
      const js = parseBundle(b.output);
      if (typeof js === 'string')
        return { ok: false, kind: 'compile_error', message: `the transpiled files could not be collected: ${js}`, compile: b.compile };
      const names = new Set(js.map((f) => f.name));
      return built(b.compile, {
        argv: [rt.exe, `--max-old-space-size=${v8Heap(limits)}`, 'main.js'],
        files: [...js, ...extra.filter((f) => !names.has(f.name))],
        // the typescript package is needed to transpile, not to run
        binds: rt.binds.filter((d) => d !== rt.aux!.typescript),
      });
    }
    case 'cpp':
    case 'c': {
      const script =
        opts.cppScript ??
        (language === 'c' ? '"$0" "$@" -pipe -o prog main.c -lm 1>&2 && exec cat prog' : '"$0" "$@" -pipe -o prog main.cpp 1>&2 && exec cat prog');
      const flags = language === 'cpp' ? (opts.cppFlags ?? DEFAULT_FLAGS.cpp) : (opts.flags ?? DEFAULT_FLAGS.c);
      const b = await buildProgram(pool, language, files, ['/bin/sh', '-c', script, rt.exe, ...flags], rt.binds, opts);
      if (!b.ok) return b;
      return built(b.compile, { argv: ['./prog'], files: [{ name: 'prog', data: b.output, executable: true }, ...extra], binds: [] });
    }
    case 'go': {
      const script = '"$0" build "$@" -o prog main.go 1>&2 && exec cat prog';
      const b = await buildProgram(pool, language, files, ['/bin/sh', '-c', script, rt.exe, ...(opts.flags ?? DEFAULT_FLAGS.go)], rt.binds, opts, GO_ENV);
      if (!b.ok) return b;
      return built(b.compile, { argv: ['./prog'], files: [{ name: 'prog', data: b.output, executable: true }, ...extra], binds: [] });
    }
    case 'rust': {
      const script = '"$0" "$@" -o prog main.rs 1>&2 && exec cat prog';
      const b = await buildProgram(pool, language, files, ['/bin/sh', '-c', script, rt.exe, ...(opts.flags ?? DEFAULT_FLAGS.rust)], rt.binds, opts);
      if (!b.ok) return b;
      return built(b.compile, { argv: ['./prog'], files: [{ name: 'prog', data: b.output, executable: true }, ...extra], binds: [] });
    }
    case 'java': {
      const cls = opts.javaClass ?? javaPublicClass(source) ?? 'Main';
      if (!JAVA_IDENT.test(cls)) return { ok: false, kind: 'compile_error', message: `"${cls}" is not a Java class name` };
      const jars = extra.filter((f) => f.name.endsWith('.jar')).map((f) => f.name);
      const cp = ['.', ...jars].join(':');
      const compileLimits = { ...lang.compileLimits, ...opts.compileLimits };
      const javacOpts = jvmOptions(compileLimits).map((o) => `-J${o}`);
      // classes are compiled into out/ and come back as a bundle: the run's directory holds them
      const script = `mkdir out && "$0" "$@" -d out -cp ${shellQuote(cp)} ${shellQuote(`${cls}.java`)} 1>&2 && cd out && ${BUNDLE}`;
      const srcFiles = [{ name: `${cls}.java`, data: source }, ...extra];
      const b = await buildProgram(
        pool,
        language,
        srcFiles,
        ['/bin/sh', '-c', script, rt.exe, ...javacOpts, '-encoding', 'UTF-8', ...(opts.flags ?? DEFAULT_FLAGS.java)],
        rt.binds,
        opts,
      );
      if (!b.ok) return b;
      const classes = parseBundle(b.output);
      if (typeof classes === 'string')
        return { ok: false, kind: 'compile_error', message: `the compiled classes could not be collected: ${classes}`, compile: b.compile };
      const java = rt.aux!.java!;
      // the compiled classes win over request files of the same name, as the compiler's output would
      const compiled = new Set(classes.map((f) => f.name));
      return built(b.compile, {
        argv: [java, ...jvmOptions(limits), '-ea', '-cp', cp, cls],
        files: [...classes, ...extra.filter((f) => !compiled.has(f.name))],
        binds: rt.binds,
      });
    }
  }
}

function v8Heap(limits: Partial<SandboxLimits>): number {
  return Math.max(32, Math.floor(((limits.memoryBytes ?? 1024 * MiB) / MiB) * 0.75));
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, "'\\''")}'`;
}

/**
 * Transpiles TypeScript texts (a solution, its tests) to JavaScript in the sandbox, in one run:
 * the JavaScript of each, in order, or which text failed (`index`) with the transpiler's messages.
 */
export async function transpileTypeScript(
  pool: SandboxPool,
  sources: string[],
  opts: CompileOptions = {},
): Promise<{ ok: true; js: string[]; compile: RunResult } | (Extract<CompileOutcome, { ok: false }> & { index?: number })> {
  const rt = await runtimeFor('typescript');
  if (typeof rt === 'string') return { ok: false, kind: 'sandbox_error', message: rt };
  const names = sources.map((_, i) => `t${i}.ts`);
  const b = await buildProgram(
    pool,
    'typescript',
    sources.map((data, i) => ({ name: names[i]!, data })),
    [rt.exe, '-e', TS_TRANSPILE, rt.aux!.typescript!, ...names],
    rt.binds,
    opts,
  );
  if (!b.ok) {
    const m = /^t(\d+)\.ts\(/m.exec(b.message);
    return m ? { ...b, index: Number(m[1]), message: b.message.replace(/^t\d+\.ts\(/gm, '(') } : b;
  }
  const files = parseBundle(b.output);
  if (typeof files === 'string' || files.length !== sources.length)
    return { ok: false, kind: 'sandbox_error', message: 'the transpiled files could not be collected' };
  return { ok: true, js: files.map((f) => f.data.toString('utf8')), compile: b.compile };
}

export type BuildOutcome = { ok: true; output: Buffer; compile: RunResult } | Extract<CompileOutcome, { ok: false }>;

/**
 * Runs a build command in the sandbox with the language's compile limits and returns what it
 * prints on stdout (a binary, an object, a bundle of class files, transpiled JavaScript). Exit
 * status 97 means `tests_error`; any other failure is `compile_error` (or `sandbox_error`, `aborted`).
 * The build may create processes (the shell script, cc1plus, as, ld, go's compile/link): it runs
 * arbiter's toolchain on the source, never the program itself.
 */
export async function buildProgram(
  pool: SandboxPool,
  language: LanguageName,
  files: SandboxFile[],
  argv: string[],
  binds: string[],
  opts: CompileOptions = {},
  env?: Record<string, string>,
): Promise<BuildOutcome> {
  const r = await pool.run({
    argv,
    files,
    limits: { ...LANGUAGES[language].compileLimits, ...opts.compileLimits },
    binds,
    binaryStdout: true,
    allowSpawn: true,
    ...(env ? { env } : {}),
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

/**
 * Runs a C++ build script in the sandbox with the compile limits (/bin/sh, the compiler as $0, the
 * flags as $@) and returns what it prints on stdout (a binary, an object).
 */
export async function buildCpp(pool: SandboxPool, files: SandboxFile[], script: string, opts: CompileOptions = {}): Promise<BuildOutcome> {
  const rt = await runtimeFor('cpp');
  if (typeof rt === 'string') return { ok: false, kind: 'sandbox_error', message: rt };
  return buildProgram(pool, 'cpp', files, ['/bin/sh', '-c', script, rt.exe, ...(opts.cppFlags ?? DEFAULT_FLAGS.cpp)], rt.binds, opts);
}

export interface ProgramRun {
  stdin?: string;
  limits?: Partial<SandboxLimits>;
  signal?: AbortSignal;
  /** The program may create processes (RunRequest.allowSpawn): a grading harness that forks the solution's process. */
  allowSpawn?: boolean;
}

/** Runs a prepared program once. */
export function runProgram(pool: SandboxPool, program: CompiledProgram, run: ProgramRun = {}): Promise<RunResult> {
  return pool.run({
    argv: program.argv,
    files: program.files,
    binds: program.binds,
    limits: { ...program.limits, ...run.limits },
    allowSpawn: program.allowSpawn,
    ...(program.env ? { env: program.env } : {}),
    ...(program.warm ? { warm: program.warm } : {}),
    ...(run.stdin !== undefined ? { stdin: run.stdin } : {}),
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.allowSpawn ? { allowSpawn: true } : {}),
  });
}

/** The last `n` non-empty lines of a text. */
export function tail(text: string, n: number): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return lines.slice(-n).join('\n');
}
