// Runs a solution against its tests in each format (humaneval, asserts, stdio, function) and
// turns the sandbox's run results into per-test verdicts, a score and a reason. Failing tests are
// valid low scores; only a broken sandbox (or an aborted grade) is thrown as an error.
import { parseJsonExact, stringifyExact } from '../../core/json.js';
import { GradeFailure, type Outcome } from '../../core/result.js';
import { buildCpp, compileProgram, runProgram, transpileTypeScript, type CompiledProgram, type LanguageName } from '../../sandbox/languages.js';
import { SPAWN_EXEC_PATH, type SandboxFile } from '../../sandbox/bwrap-args.js';
import { hostSpawnFilter } from '../../sandbox/seccomp.js';
import type { SandboxLimits } from '../../sandbox/limits.js';
import type { RunResult, SandboxPool } from '../../sandbox/pool.js';
import { randomBytes } from 'node:crypto';
import { outputsMatch, preview, valuesEqual, type CompareMode } from './compare.js';
import {
  buildCppTestUnit,
  CPP_ASSERT_H,
  cppEvidence,
  cppLinkScript,
  cppTestObjectScript,
  testObjectKey,
  TestObjectCache,
  type CppTestObject,
} from './cpp-tests.js';
import { driverInput, driverSource, JS_DRIVER, makeNonce, parseVerdicts, PYTHON_DRIVER, pythonCalls, pythonImports, type Verdicts } from './harness.js';
import { assertTests, callCases, ioCases } from './tests.js';

export type Format = 'humaneval' | 'asserts' | 'stdio' | 'function';

/**
 * The languages each format runs: stdio needs only a program, the others a driver (Python and
 * JavaScript) or, for C++ humaneval, arbiter's own test harness.
 */
export const FORMAT_LANGUAGES: Record<Format, readonly LanguageName[]> = {
  humaneval: ['python', 'javascript', 'typescript', 'cpp'],
  asserts: ['python', 'javascript', 'typescript'],
  function: ['python', 'javascript', 'typescript'],
  stdio: ['python', 'javascript', 'typescript', 'c', 'cpp', 'go', 'rust', 'java', 'bash'],
};

/** Why a format cannot run a language, or undefined when it can. */
export function formatRefusal(format: Format, language: LanguageName): string | undefined {
  const ok = FORMAT_LANGUAGES[format];
  return ok.includes(language) ? undefined : `format "${format}" supports ${ok.join(', ')}; not ${language} (stdio supports every language)`;
}

/** How one test went; `pass` or the kind of failure. */
export type TestStatus =
  | 'pass'
  | 'assertion'
  | 'wrong_output'
  | 'runtime_error'
  | 'timeout'
  | 'output_limit'
  | 'compile_error'
  | 'load_error'
  | 'early_exit'
  | 'no_code';

export interface TestVerdict {
  status: TestStatus;
  detail?: string;
}

export interface RunSettings {
  pool: SandboxPool;
  language: LanguageName;
  limits: Partial<SandboxLimits>;
  compileLimits: Partial<SandboxLimits>;
  /** Per-test limit inside one process (asserts, function), seconds. */
  perTestSeconds: number;
  pythonSite: boolean;
  cppFlags?: string[];
  compare: CompareMode;
  tolerance: number;
  signal?: AbortSignal;
  /**
   * The graded program may create processes (the `code` grader's allow_processes). Undefined:
   * the language's default (bash yes, every other language no; languages.ts). For a driven run
   * (python/javascript) the driver may always fork the solution's process; true means that it
   * does not stack the no-process filter on it (the spec's `spawn_filter` is left out).
   */
  allowProcesses?: boolean;
  /** C++ humaneval: compiled test objects of this run, by item (created when absent). */
  testObjects?: TestObjectCache;
  /** Filled in while running: sandbox time of all runs and time spent queued for a slot. */
  usage: { runs: number; runMs: number; queueMs: number };
}

export interface Parts {
  code: string;
  /** HumanEval: the prompt to prepend; `joinNewline` when the code came from a fenced block. */
  prompt?: string;
  joinNewline?: boolean;
  tests: unknown;
  setup?: string;
  entryPoint?: string;
}

/** The drivers' exit status for a failure to confine the solution (e.g. the spawn filter refused). */
const DRIVER_SANDBOX_EXIT = 71;
const JS_HOST = driverSource(new URL('./drivers/host.cjs', import.meta.url));

const PY_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const JS_PATH = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

function runFailure(r: RunResult): TestVerdict | undefined {
  if (r.status === 'sandbox_error') throw new GradeFailure('sandbox_error', r.message ?? 'the sandbox failed');
  if (r.status === 'aborted') throw new GradeFailure('timeout', 'grading was aborted (grader deadline) before the program finished');
  if (r.status === 'timeout') return { status: 'timeout', detail: r.message ?? 'time limit reached' };
  if (r.status === 'output_limit') return { status: 'output_limit', detail: 'output exceeded the size limit' };
  return undefined;
}

const EXC_LINE = /^[\w.]*(Error|Exception|Interrupt|Exit)\b|^\w+ \[ERR_|Assertion .* failed|terminate called/;

/** The informative part of a stderr: the exception line with a little context, no stack frames. */
export function errorSummary(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() !== '' && !/^\s+at\s/.test(l) && !/^Node\.js v\d/.test(l));
  let idx = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (EXC_LINE.test(lines[i]!.trim())) {
      idx = i;
      break;
    }
  }
  const pick = idx < 0 ? lines.slice(-4) : lines.slice(Math.max(0, idx - 2), idx + 3);
  return pick.join('\n').slice(0, 800);
}

function crashDetail(r: RunResult): string {
  const t = errorSummary(r.stderr);
  const head = r.signal ? `killed by ${r.signal}` : `exit status ${r.exitCode}`;
  return t ? `${head}: ${t}` : head;
}

function fromStderr(r: RunResult): TestVerdict {
  if (/AssertionError|Assertion .* failed|ERR_ASSERTION/.test(r.stderr)) return { status: 'assertion', detail: errorSummary(r.stderr) || 'assertion failed' };
  return { status: 'runtime_error', detail: crashDetail(r) };
}

function track(s: RunSettings, r: RunResult | undefined): RunResult | undefined {
  if (r) {
    s.usage.runs++;
    s.usage.runMs += r.durationMs;
    s.usage.queueMs += r.queueMs;
  }
  return r;
}

async function run(s: RunSettings, p: CompiledProgram, stdin?: string, allowSpawn = false): Promise<RunResult> {
  return track(
    s,
    await runProgram(s.pool, p, {
      ...(stdin !== undefined ? { stdin } : {}),
      ...(s.signal ? { signal: s.signal } : {}),
      ...(allowSpawn ? { allowSpawn } : {}),
    }),
  )!;
}

/**
 * `trustedMain`: the source is arbiter's own driver (see CompileOptions); `cppScript`: a C++ build
 * script of its own; `allowSpawn`: whether the program's runs may create processes (default: the
 * grader's allow_processes, else the language's default).
 */
async function prepare(
  s: RunSettings,
  source: string,
  extra: SandboxFile[],
  opts: { cppScript?: string; trustedMain?: boolean; allowSpawn?: boolean } = {},
): Promise<CompiledProgram | TestVerdict> {
  const { cppScript, trustedMain = false } = opts;
  const allowSpawn = opts.allowSpawn ?? s.allowProcesses;
  const c = await compileProgram(s.pool, s.language, source, {
    trustedMain,
    ...(allowSpawn !== undefined ? { allowSpawn } : {}),
    files: extra,
    limits: s.limits,
    compileLimits: s.compileLimits,
    pythonSite: s.pythonSite,
    ...(s.cppFlags ? { cppFlags: s.cppFlags } : {}),
    ...(cppScript ? { cppScript } : {}),
    ...(s.signal ? { signal: s.signal } : {}),
  });
  track(s, c.compile);
  if (c.ok) return c.program;
  if (c.kind === 'sandbox_error') throw new GradeFailure('sandbox_error', c.message);
  if (c.kind === 'aborted') throw new GradeFailure('timeout', 'grading was aborted (grader deadline) during compilation');
  if (c.kind === 'tests_error')
    throw new GradeFailure(
      'bad_input',
      `the tests do not compile in their own translation unit (with the prompt's declarations and arbiter's assert): ${c.message}`,
    );
  return { status: 'compile_error', detail: c.message };
}

/**
 * Runs a solution through the python/js driver and returns its verdicts. The nonce and the spec
 * (the tests) go on stdin; only the solution is a file in the sandbox. The driver forks the
 * solution's process itself (so the run may create processes) and stacks `spawn_filter` (base64
 * of the BPF program, hostSpawnFilter()) on that process; null where the host has no filter.
 * Exit status 71 with `arbiter driver: sandbox:` on stderr is the driver's own sandbox failure.
 */
async function driven(s: RunSettings, solution: string, spec: Record<string, unknown>) {
  const nonce = makeNonce();
  const ext = s.language === 'python' ? 'py' : 'js';
  const driver = s.language === 'python' ? PYTHON_DRIVER : JS_DRIVER;
  if (s.language === 'typescript') {
    // transpiled in the sandbox (the solution and the tests' TypeScript: test code, setup, each
    // assert), then run by the JavaScript driver like any JavaScript solution
    const t = await typescriptToJs(s, solution, spec);
    if ('verdict' in t) return t;
    solution = t.solution;
    spec = t.spec;
    s = { ...s, language: 'javascript' };
  }
  // JavaScript: host.js runs the solution in a process of its own (drivers/host.cjs)
  const files = ext === 'js' ? [{ name: 'host.js', data: JS_HOST }] : [];
  const p = await prepare(s, driver, [{ name: `solution.${ext}`, data: solution }, ...files], { trustedMain: true });
  if (!('argv' in p)) return { verdict: p } as const;
  // the solution's process gets the no-process filter (Python: stacked by the driver itself;
  // JavaScript: through the sandbox's helper), unless allow_processes
  const filter = s.allowProcesses ? null : hostSpawnFilter();
  const confine = { spawn_filter: filter ? filter.toString('base64') : null, ...(ext === 'js' && filter ? { seccomp_helper: SPAWN_EXEC_PATH } : {}) };
  const r = await run(s, p, driverInput(nonce, { ...spec, ...confine, solution: `solution.${ext}` }), true);
  if (s.language === 'python' && r.exitCode === DRIVER_SANDBOX_EXIT && /^arbiter driver: sandbox: /m.test(r.stderr))
    throw new GradeFailure('sandbox_error', errorSummary(r.stderr) || 'the driver could not confine the solution');
  const verdicts = parseVerdicts(r.stdout, nonce);
  // the JavaScript driver could not set up the solution's process (the line carries the nonce)
  if (ext === 'js' && verdicts.error !== undefined) throw new GradeFailure('sandbox_error', verdicts.error);
  return { run: r, verdicts } as const;
}

/** The TypeScript of a driven run as JavaScript: the solution failing is its compile_error, the tests failing bad_input. */
async function typescriptToJs(
  s: RunSettings,
  solution: string,
  spec: Record<string, unknown>,
): Promise<{ verdict: TestVerdict } | { solution: string; spec: Record<string, unknown> }> {
  const keys = (['tests', 'setup'] as const).filter((k) => typeof spec[k] === 'string' || Array.isArray(spec[k]));
  const texts: string[] = [solution];
  for (const k of keys) texts.push(...(Array.isArray(spec[k]) ? (spec[k] as string[]) : [spec[k] as string]));
  const t = await transpileTypeScript(s.pool, texts, { compileLimits: s.compileLimits, ...(s.signal ? { signal: s.signal } : {}) });
  track(s, 'compile' in t ? t.compile : undefined);
  if (!t.ok) {
    if (t.kind === 'sandbox_error') throw new GradeFailure('sandbox_error', t.message);
    if (t.kind === 'aborted') throw new GradeFailure('timeout', 'grading was aborted (grader deadline) during the TypeScript transpile');
    if (t.index === undefined || t.index === 0) return { verdict: { status: 'compile_error', detail: t.message } };
    throw new GradeFailure('bad_input', `the tests are not valid TypeScript: ${t.message}`);
  }
  const out: Record<string, unknown> = { ...spec };
  let i = 1;
  for (const k of keys) {
    if (Array.isArray(spec[k])) {
      const n = (spec[k] as string[]).length;
      out[k] = t.js.slice(i, i + n);
      i += n;
    } else out[k] = t.js[i++];
  }
  return { solution: t.js[0]!, spec: out };
}

const EARLY_EXIT = 'the program exited before the tests finished (an exit, a signal handler or an exit hook in the solution?)';

/** A failing test reported by a driver: an assertion or another error. */
function failedTest(detail: string | undefined, what = ''): TestVerdict {
  const d = `${detail ?? 'error'}${what}`;
  return { status: /AssertionError|ERR_ASSERTION/.test(d) ? 'assertion' : 'runtime_error', detail: d };
}

export async function humaneval(s: RunSettings, parts: Parts): Promise<TestVerdict[]> {
  if (typeof parts.tests !== 'string') throw new GradeFailure('bad_input', `humaneval tests must be a string of test code, got ${typeof parts.tests}`);
  const refused = formatRefusal('humaneval', s.language);
  if (refused) throw new GradeFailure('config_error', refused);
  const body = parts.prompt ? parts.prompt + (parts.joinNewline ? '\n' : '') + parts.code : parts.code;
  if (s.language === 'cpp') return cppHumaneval(s, parts, body);
  let solution = body;
  let tests = parts.tests;
  // the prompt alone, for the harness's own namespace (trusted helpers such as HumanEval/32's poly)
  const spec: Record<string, unknown> = { mode: 'humaneval', ...(parts.prompt ? { prompt: parts.prompt } : {}) };
  if (s.language === 'python') {
    if (!parts.entryPoint || !PY_IDENT.test(parts.entryPoint))
      throw new GradeFailure('bad_input', `humaneval needs entry_point, a Python identifier; got ${JSON.stringify(parts.entryPoint)}`);
    spec.entry_point = parts.entryPoint;
    spec.imports = pythonImports(tests);
  } else if (/^\s*\}/.test(tests)) {
    // MultiPL-E layout: the tests begin by closing the function's body
    solution += '\n}\n';
    tests = tests.replace(/^(\s*)\}/, '$1');
  }
  spec.tests = tests;
  const d = await driven(s, solution, spec);
  if ('verdict' in d) return [d.verdict!];
  const v = d.verdicts;
  const t = v.tests.get(0);
  if (t?.verdict === 'pass' && v.done && d.run.status === 'ok') return [{ status: 'pass' }];
  if (v.load !== undefined) return [{ status: 'load_error', detail: v.load }];
  if (v.exit !== undefined) return [{ status: 'early_exit', detail: v.exit }];
  if (t?.verdict === 'fail') return [failedTest(t.detail)];
  const f = runFailure(d.run);
  if (f) return [f];
  if (d.run.status === 'ok') return [{ status: 'early_exit', detail: EARLY_EXIT }];
  return [fromStderr(d.run)];
}

/** C++ humaneval: tests in their own translation unit, evidence line after the last one (cpp-tests.ts). */
async function cppHumaneval(s: RunSettings, parts: Parts, body: string): Promise<TestVerdict[]> {
  if (s.cppFlags?.some((f) => /^-flto/.test(f)))
    throw new GradeFailure('config_error', 'cpp_flags: -flto is not supported for humaneval (the tests and the solution are linked as separate objects)');
  const t = await cppTestObject(s, parts.prompt, parts.tests as string);
  // random file names: the solution cannot name the test object (e.g. to .incbin it)
  const tag = randomBytes(6).toString('hex');
  const solution = t.unit.closesFunction ? body + '\n}\n' : body;
  const p = await prepare(s, solution, [{ name: `t${tag}.o`, data: t.object }], { cppScript: cppLinkScript(`t${tag}.o`, tag) });
  if (!('argv' in p)) return [p];
  const r = await run(s, p);
  const f = runFailure(r);
  if (f) return [f];
  if (r.status !== 'ok') return [fromStderr(r)];
  // (only the program's own process can print it: a child's line has another pid)
  const asserts = cppEvidence(r.stdout, t.unit.secret, r.programPid);
  if (asserts === undefined) return [{ status: 'early_exit', detail: EARLY_EXIT }];
  if (t.unit.usesAssert && asserts === 0) return [{ status: 'early_exit', detail: 'the tests finished without any assertion having run' }];
  return [{ status: 'pass' }];
}

/** The item's compiled test object, from the run's cache or compiled now (once per item). */
async function cppTestObject(s: RunSettings, prompt: string | undefined, tests: string): Promise<CppTestObject> {
  const flags = s.cppFlags ?? ['-std=c++17', '-O2'];
  const cache = (s.testObjects ??= new TestObjectCache());
  // shared by every sample of the item, so compiled without any one grade's abort signal; each
  // grade still stops waiting when its own signal fires
  const shared = cache.get(testObjectKey(prompt, tests, flags, process.env.ARBITER_CXX || 'g++'), async () => {
    const unit = buildCppTestUnit(prompt, tests);
    if (typeof unit === 'string') return { error: unit, transient: false };
    const testFile = `t${randomBytes(6).toString('hex')}.cpp`;
    const files = [
      { name: testFile, data: unit.source },
      { name: 'harness/assert.h', data: CPP_ASSERT_H },
      { name: 'harness/cassert', data: CPP_ASSERT_H },
    ];
    const b = await buildCpp(s.pool, files, cppTestObjectScript(testFile), { ...(s.cppFlags ? { cppFlags: s.cppFlags } : {}), compileLimits: s.compileLimits });
    track(s, b.compile);
    if (b.ok) return { unit, object: b.output };
    if (b.kind === 'tests_error')
      return {
        error: `the tests do not compile in their own translation unit (with the prompt's declarations and arbiter's assert): ${b.message}`,
        transient: false,
      };
    return { error: `the tests could not be compiled (${b.kind}): ${b.message}`, transient: true };
  });
  const got = await abortable(shared, s.signal);
  if (got === undefined) throw new GradeFailure('timeout', 'grading was aborted (grader deadline) while the tests compiled');
  if ('error' in got) throw new GradeFailure(got.transient ? 'sandbox_error' : 'bad_input', got.error);
  return got;
}

/** Resolves like `p`, or to undefined as soon as `signal` fires. */
function abortable<T>(p: Promise<T>, signal?: AbortSignal): Promise<T | undefined> {
  if (!signal) return p;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Fills in verdicts for tests the driver did not report (crash, timeout, load error, exit). */
function completeVerdicts<V = TestVerdict>(n: number, d: { run: RunResult; verdicts: Verdicts }, got: (i: number) => V | undefined): (V | TestVerdict)[] {
  const out: (V | TestVerdict)[] = [];
  const f = runFailure(d.run);
  for (let i = 0; i < n; i++) {
    const v = got(i);
    if (v) out.push(v);
    else if (d.verdicts.load !== undefined) out.push({ status: 'load_error', detail: d.verdicts.load });
    else if (d.verdicts.exit !== undefined) out.push({ status: 'early_exit', detail: d.verdicts.exit });
    else if (f) out.push(f);
    else if (d.run.status === 'ok') out.push({ status: 'early_exit', detail: 'the program exited before running this test' });
    else out.push({ status: 'runtime_error', detail: crashDetail(d.run) });
  }
  return out;
}

export async function asserts(s: RunSettings, parts: Parts): Promise<TestVerdict[]> {
  const refused = formatRefusal('asserts', s.language);
  if (refused) throw new GradeFailure('config_error', refused);
  const tests = assertTests(parts.tests);
  if (tests.length === 0) throw new GradeFailure('bad_input', 'no tests to run (tests is empty)');
  const spec: Record<string, unknown> = { mode: 'asserts', tests, setup: parts.setup ?? '', per_test_s: s.perTestSeconds };
  if (s.language === 'python') {
    spec.imports = pythonImports(parts.setup ?? '', ...tests);
    spec.called = pythonCalls(...tests);
  }
  const d = await driven(s, parts.code, spec);
  if ('verdict' in d) return tests.map(() => d.verdict!);
  return completeVerdicts(tests.length, d, (i) => {
    const v = d.verdicts.tests.get(i);
    if (!v) return undefined;
    if (v.verdict === 'pass') return { status: 'pass' };
    if (v.verdict === 'timeout') return { status: 'timeout', detail: `test exceeded ${s.perTestSeconds} s` };
    return failedTest(v.detail, ` in: ${tests[i]!.trim().slice(0, 200)}`);
  });
}

/** One call of the function format: the JSON text of its return value, or how it failed. */
export type CallReturn = { status: 'ret'; json: string } | TestVerdict;

/**
 * Calls `entry` of a solution once per case (positional `args`, Python `kwargs`) in one driven run,
 * each call under `perTestSeconds`: what each returned, as the driver's JSON text, or how it failed.
 */
export async function functionReturns(
  s: RunSettings,
  code: string,
  entry: string,
  cases: readonly { args: unknown[]; kwargs?: Record<string, unknown> }[],
  setup = '',
): Promise<CallReturn[]> {
  const spec: Record<string, unknown> = {
    mode: 'function',
    entry_point: entry,
    setup,
    per_test_s: s.perTestSeconds,
    cases: cases.map((c) => ({ args: c.args, ...(c.kwargs ? { kwargs: c.kwargs } : {}) })),
  };
  if (s.language === 'python') spec.imports = pythonImports(setup);
  const d = await driven(s, code, spec);
  if ('verdict' in d) return cases.map(() => d.verdict!);
  return completeVerdicts<CallReturn>(cases.length, d, (i): CallReturn | undefined => {
    const v = d.verdicts.tests.get(i);
    if (!v) return undefined;
    if (v.verdict === 'timeout') return { status: 'timeout', detail: `call exceeded ${s.perTestSeconds} s` };
    if (v.verdict !== 'ret') return { status: 'runtime_error', detail: v.detail ?? 'error' };
    return { status: 'ret', json: v.detail ?? 'null' };
  });
}

export async function functionCalls(s: RunSettings, parts: Parts): Promise<TestVerdict[]> {
  const refused = formatRefusal('function', s.language);
  if (refused) throw new GradeFailure('config_error', refused);
  const ep = parts.entryPoint;
  if (!ep || !(s.language === 'python' ? PY_IDENT : JS_PATH).test(ep))
    throw new GradeFailure('bad_input', `the function format needs entry_point, an identifier; got ${JSON.stringify(ep)}`);
  const cases = callCases(parts.tests);
  if (cases.length === 0) throw new GradeFailure('bad_input', 'no tests to run (tests is empty)');
  if (s.language !== 'python' && cases.some((c) => c.kwargs)) throw new GradeFailure('bad_input', 'kwargs are only supported for python');
  const rets = await functionReturns(s, parts.code, ep, cases, parts.setup ?? '');
  const tol = s.compare === 'float' ? s.tolerance : undefined;
  return rets.map((r, i): TestVerdict => {
    if (r.status !== 'ret') return r;
    let got: unknown;
    try {
      got = parseJsonExact(r.json); // the driver prints Python ints exactly: keep them so
    } catch {
      return { status: 'runtime_error', detail: 'unreadable return value' };
    }
    const want = cases[i]!.expected;
    return valuesEqual(got, want, tol)
      ? { status: 'pass' }
      : { status: 'wrong_output', detail: `expected ${preview(stringifyExact(want))}, got ${preview(stringifyExact(got))}` };
  });
}

export async function stdio(s: RunSettings, parts: Parts): Promise<TestVerdict[]> {
  const cases = ioCases(parts.tests);
  if (cases.length === 0) throw new GradeFailure('bad_input', 'no tests to run (tests is empty)');
  const p = await prepare(s, parts.code, []);
  if (!('argv' in p)) return cases.map(() => p);
  const runs = await Promise.all(cases.map((c) => run(s, p, c.input)));
  return runs.map((r, i) => {
    const f = runFailure(r);
    if (f) return f;
    if (r.status !== 'ok') return { status: 'runtime_error', detail: crashDetail(r) };
    if (outputsMatch(r.stdout, cases[i]!.output, s.compare, s.tolerance)) return { status: 'pass' };
    return { status: 'wrong_output', detail: `expected ${preview(cases[i]!.output)}, got ${preview(r.stdout)}` };
  });
}

export const FORMATS: Record<Format, (s: RunSettings, p: Parts) => Promise<TestVerdict[]>> = { humaneval, asserts, stdio, function: functionCalls };

/** Score = fraction of tests passed; reason names the first failure. */
export function summarise(verdicts: TestVerdict[], meta: Record<string, unknown>): Outcome {
  const passed = verdicts.filter((v) => v.status === 'pass').length;
  const total = verdicts.length;
  const first = verdicts.findIndex((v) => v.status !== 'pass');
  const metadata: Record<string, unknown> = { ...meta, tests_passed: passed, tests_total: total };
  if (total <= 200) metadata.tests = verdicts.map((v) => v.status);
  if (first < 0) return { score: 1, reason: total === 1 ? 'all tests passed' : `all ${total} tests passed`, metadata };
  const v = verdicts[first]!;
  metadata.failure = v.status;
  const label = LABELS[v.status];
  const which = total === 1 ? 'the test' : `test ${first + 1} of ${total}`;
  return { score: passed / total, reason: `${passed}/${total} passed; ${which} failed: ${label}${v.detail ? `: ${v.detail}` : ''}`.slice(0, 1200), metadata };
}

const LABELS: Record<TestStatus, string> = {
  pass: 'passed',
  assertion: 'assertion failed',
  wrong_output: 'wrong output',
  runtime_error: 'runtime error',
  timeout: 'timeout',
  output_limit: 'output limit exceeded',
  compile_error: 'compile error',
  load_error: 'the solution failed to load',
  early_exit: 'exited before the tests finished',
  no_code: 'no code found',
};
