// SandboxFusion-compatible endpoints (on only with the `sandboxApi` option / `--sandbox-api`):
// POST /run_code runs one request-supplied program (python, nodejs, typescript, cpp, go, rust, java,
// bash: every language arbiter runs that SandboxFusion names) in arbiter's sandbox and answers SandboxFusion's
// RunCodeResponse ({status, message, compile_result, run_result, executor_pod_name, files}), with
// its status rules: a command that could not run (`Error`) makes `SandboxError`, a time limit or
// a non-zero exit `Failed`, anything else `Success`; base64 `files` are written into the working
// directory and `fetch_files` come back base64. GET /v1/ping answers "pong". The code only ever
// runs in the sandbox: with the server's sandbox switched off the endpoint answers 403. Timeouts
// and memory from the request are clamped to the operator's maxima (a negative, zero or absurd
// value is a 400 naming the field, never a run with some other limit); the run takes a queue slot
// (429 when full) and the request deadline (504, which SandboxFusion clients retry) like grades.
import { randomBytes } from 'node:crypto';
import { constants } from 'node:os';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Grader, GraderContext } from '../../core/grader.js';
import type { Result } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { sandboxPool, sandboxPoolOptions } from '../../graders/code/config.js';
import { runtimeFor } from '../../sandbox/host.js';
import { compileProgram, LANGUAGES, type LanguageName } from '../../sandbox/languages.js';
import type { SandboxLimits } from '../../sandbox/limits.js';
import type { RunResult, SandboxFile, SandboxPool } from '../../sandbox/pool.js';
import { checkFileName } from '../../sandbox/bwrap-args.js';
import { openScope, type ServerContext, type WireFormat } from '../context.js';
import { errorBody, HttpError } from '../http-error.js';
import type { SandboxApiLimits } from '../options.js';

/** SandboxFusion's `Language` literal (sandbox/runners/types.py): other names are a 422. */
export const FUSION_LANGUAGES = [
  'python',
  'cpp',
  'nodejs',
  'go',
  'go_test',
  'java',
  'php',
  'csharp',
  'bash',
  'typescript',
  'sql',
  'rust',
  'cuda',
  'lua',
  'R',
  'perl',
  'D_ut',
  'ruby',
  'scala',
  'julia',
  'pytest',
  'junit',
  'kotlin_script',
  'jest',
  'verilog',
  'python_gpu',
  'lean',
  'swift',
  'racket',
] as const;

/**
 * How arbiter runs each SandboxFusion language it supports: an arbiter language (compiled or
 * resolved by compileProgram), or a command over a source file. SandboxFusion's commands are kept
 * (sandbox/runners/major.py): `python FILE` (the script's folder on sys.path, site-packages on),
 * `node FILE`, `g++ -std=c++17 FILE` then the binary, `go build -o out FILE` then the binary,
 * `rustc FILE -o test` (no flags: edition 2015, unoptimised) then the binary, `javac -cp .:JARS
 * Main.java` then `java -cp .:JARS -ea Main`, `tsx FILE` (types stripped, not checked: a syntax
 * error is the run's failure, there is no compile step), `/bin/bash FILE`.
 */
type Recipe =
  | { kind: 'language'; language: LanguageName; cppFlags?: string[]; flags?: string[]; javaClass?: string; transpileOnly?: boolean }
  | { kind: 'python' };

const RECIPES: Partial<Record<(typeof FUSION_LANGUAGES)[number], Recipe>> = {
  python: { kind: 'python' },
  nodejs: { kind: 'language', language: 'javascript' },
  typescript: { kind: 'language', language: 'typescript', transpileOnly: true },
  cpp: { kind: 'language', language: 'cpp', cppFlags: ['-std=c++17'] },
  go: { kind: 'language', language: 'go', flags: [] },
  rust: { kind: 'language', language: 'rust', flags: [] },
  java: { kind: 'language', language: 'java', javaClass: 'Main', flags: [] },
  bash: { kind: 'language', language: 'bash' },
};

/** Whether this host has the toolchain of each SandboxFusion language arbiter runs (resolved once). */
let available: Promise<string[]> | undefined;

/** The SandboxFusion languages this server runs: those whose toolchain is installed here. */
export function supportedFusionLanguages(): Promise<string[]> {
  return (available ??= (async () => {
    // (resolved together: each may run its toolchain once to learn its version or paths)
    const entries = Object.entries(RECIPES);
    const found = await Promise.all(entries.map(([, r]) => runtimeFor(r.kind === 'python' ? 'python' : r.language)));
    return entries.filter((_, i) => typeof found[i] !== 'string').map(([name]) => name);
  })());
}

interface RunCodeArgs {
  code: string;
  language: string;
  compile_timeout: number;
  run_timeout: number;
  memory_limit_MB: number;
  stdin: string | null;
  files: Record<string, string | null>;
  fetch_files: string[];
}

interface CommandRunResult {
  status: 'Finished' | 'Error' | 'TimeLimitExceeded';
  execution_time: number | null;
  return_code: number | null;
  stdout: string | null;
  stderr: string | null;
}

interface RunCodeResponse {
  status: 'Success' | 'Failed' | 'SandboxError';
  message: string;
  compile_result: CommandRunResult | null;
  run_result: CommandRunResult | null;
  executor_pod_name: string | null;
  files: Record<string, string>;
}

interface Detail {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

/** Validates the body as SandboxFusion's pydantic RunCodeRequest does; errors in FastAPI's 422 shape. */
export function parseRunCode(body: unknown): { args: RunCodeArgs } | { detail: Detail[] } {
  const detail: Detail[] = [];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      detail: [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: body }],
    };
  }
  const b = body as Record<string, unknown>;
  const bad = (type: string, field: (string | number)[], msg: string, input: unknown) => detail.push({ type, loc: ['body', ...field], msg, input });
  const num = (k: string, dflt: number, int: boolean): number => {
    const v = b[k];
    if (v === undefined) return dflt;
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      bad(int ? 'int_type' : 'float_type', [k], int ? 'Input should be a valid integer' : 'Input should be a valid number', v);
      return dflt;
    }
    if (int && !Number.isInteger(v)) bad('int_from_float', [k], 'Input should be a valid integer, got a number with a fractional part', v);
    return v;
  };
  if (b.code === undefined) bad('missing', ['code'], 'Field required', b);
  else if (typeof b.code !== 'string') bad('string_type', ['code'], 'Input should be a valid string', b.code);
  if (b.language === undefined) bad('missing', ['language'], 'Field required', b);
  else if (typeof b.language !== 'string' || !(FUSION_LANGUAGES as readonly string[]).includes(b.language)) {
    bad(
      'literal_error',
      ['language'],
      `Input should be ${FUSION_LANGUAGES.map((l) => `'${l}'`)
        .join(', ')
        .replace(/, ([^,]*)$/, ' or $1')}`,
      b.language,
    );
  }
  const compile_timeout = num('compile_timeout', 10, false);
  const run_timeout = num('run_timeout', 10, false);
  const memory_limit_MB = num('memory_limit_MB', -1, true);
  let stdin: string | null = null;
  if (b.stdin !== undefined && b.stdin !== null) {
    if (typeof b.stdin !== 'string') bad('string_type', ['stdin'], 'Input should be a valid string', b.stdin);
    else stdin = b.stdin;
  }
  const files: Record<string, string | null> = {};
  if (b.files !== undefined) {
    if (typeof b.files !== 'object' || b.files === null || Array.isArray(b.files)) bad('dict_type', ['files'], 'Input should be a valid dictionary', b.files);
    else {
      for (const [k, v] of Object.entries(b.files as Record<string, unknown>)) {
        if (v !== null && typeof v !== 'string') bad('string_type', ['files', k], 'Input should be a valid string', v);
        else files[k] = v;
      }
    }
  }
  const fetch_files: string[] = [];
  if (b.fetch_files !== undefined) {
    if (!Array.isArray(b.fetch_files)) bad('list_type', ['fetch_files'], 'Input should be a valid list', b.fetch_files);
    else {
      b.fetch_files.forEach((v, i) => {
        if (typeof v !== 'string') bad('string_type', ['fetch_files', i], 'Input should be a valid string', v);
        else fetch_files.push(v);
      });
    }
  }
  if (detail.length) return { detail };
  return { args: { code: b.code as string, language: b.language as string, compile_timeout, run_timeout, memory_limit_MB, stdin, files, fetch_files } };
}

/** SandboxFusion's parse_run_status: an `Error` wins (its stderr is the message), then a time limit or a non-zero exit. */
export function runStatus(compile: CommandRunResult | null, run: CommandRunResult | null): { status: RunCodeResponse['status']; message: string } {
  const done = [compile, run].filter((r): r is CommandRunResult => r !== null);
  for (const r of done) if (r.status === 'Error') return { status: 'SandboxError', message: r.stderr ?? '' };
  if (done.some((r) => r.status === 'TimeLimitExceeded')) return { status: 'Failed', message: '' };
  if (done.some((r) => r.return_code !== null && r.return_code !== 0)) return { status: 'Failed', message: '' };
  return { status: 'Success', message: '' };
}

/** One sandbox run as a CommandRunResult: killed by a signal is Python's negative return code. */
function commandResult(r: RunResult, stdout: string = r.stdout): CommandRunResult {
  const seconds = r.durationMs / 1000;
  switch (r.status) {
    case 'timeout':
      return { status: 'TimeLimitExceeded', execution_time: seconds, return_code: null, stdout, stderr: r.stderr };
    case 'ok':
    case 'runtime_error': {
      const signo = r.signal ? (constants.signals as Record<string, number>)[r.signal] : undefined;
      const code = signo !== undefined ? -signo : r.exitCode;
      return { status: 'Finished', execution_time: seconds, return_code: code, stdout, stderr: r.stderr };
    }
    case 'output_limit':
      return {
        status: 'Error',
        execution_time: seconds,
        return_code: null,
        stdout,
        stderr: `arbiter sandbox: ${r.message ?? 'output exceeded its limit'} (the run's stdout and stderr are capped)`,
      };
    default:
      return { status: 'Error', execution_time: null, return_code: null, stdout: null, stderr: `arbiter sandbox: ${r.message ?? r.status}` };
  }
}

const errorAnswer = (message: string): RunCodeResponse => ({
  status: 'SandboxError',
  message,
  compile_result: null,
  run_result: null,
  executor_pod_name: null,
  files: {},
});

/** Largest timeout a request may name, in seconds (a day): past it the value is absurd, not clamped. */
const MAX_TIMEOUT_S = 86_400;
/** Largest memory_limit_MB a request may name (1 TiB): past it the value is absurd, not clamped. */
const MAX_MEMORY_MB = 1024 * 1024;

/**
 * Refuses limits that are not limits (400 naming the field): a timeout must be above 0 s and at
 * most a day, memory_limit_MB -1 (unset) or 1..1 TiB. Within those, values above the operator's
 * maxima are clamped (requestLimits); a request can lower a limit, never raise it.
 */
function checkLimitValues(args: RunCodeArgs): void {
  const bad: { field: string; value: number; message: string }[] = [];
  for (const field of ['run_timeout', 'compile_timeout'] as const) {
    const v = args[field];
    if (!(v > 0 && v <= MAX_TIMEOUT_S))
      bad.push({ field, value: v, message: `${field} must be a number of seconds above 0 and at most ${MAX_TIMEOUT_S}, got ${v}` });
  }
  const mb = args.memory_limit_MB;
  if (!(mb === -1 || (mb >= 1 && mb <= MAX_MEMORY_MB)))
    bad.push({ field: 'memory_limit_MB', value: mb, message: `memory_limit_MB must be -1 (the server's limit) or 1 to ${MAX_MEMORY_MB} MiB, got ${mb}` });
  if (bad.length)
    throw new HttpError(400, 'invalid_request', `request body field ${bad.map((d) => `"${d.field}": ${d.message}`).join('; ')}`, { details: bad });
}

/** The sandbox limits of one request: its own, clamped to the operator's maxima. */
function requestLimits(args: RunCodeArgs, max: SandboxApiLimits): { run: Partial<SandboxLimits>; compile: Partial<SandboxLimits>; clamped: string[] } {
  const clamped: string[] = [];
  const clamp = (name: string, v: number, hi: number) => {
    if (v > hi) clamped.push(`${name}=${hi}`);
    return Math.min(v, hi);
  };
  const runS = clamp('run_timeout', args.run_timeout, max.maxRunTimeoutS);
  const compileS = clamp('compile_timeout', args.compile_timeout, max.maxCompileTimeoutS);
  const mb = args.memory_limit_MB !== -1 ? clamp('memory_limit_MB', args.memory_limit_MB, max.maxMemoryMb) : max.maxMemoryMb;
  const MiB = 1024 * 1024;
  // the wall clock is the time limit (SandboxFusion's only one); the CPU limit is a backstop above it
  const time = (s: number) => ({ wallMs: Math.max(1, Math.round(s * 1000)), cpuSeconds: Math.max(1, Math.ceil(s)) + 1 });
  return {
    run: { ...time(runS), memoryBytes: mb * MiB, outputBytes: max.maxOutputBytes },
    compile: { ...time(compileS) },
    clamped,
  };
}

/**
 * After the program, the wrapper prints a line with a random marker and then one line per fetched
 * file that exists: its name and its content, both base64. The program's own stdout is what
 * precedes the last marker; it could forge lines after it only about its own files.
 */
const FETCH_SCRIPT = [
  'm=$1; c=$2; shift 2',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  'cmd=; i=1; while [ "$i" -le "$c" ]; do cmd="$cmd \\"\\${$i}\\""; i=$((i+1)); done',
  'eval "$cmd"; rc=$?',
  'shift "$c"',
  'printf "\\n%s\\n" "$m"',
  'for f do if [ -f "$f" ]; then printf %s "$f" | base64 -w0; printf " "; base64 -w0 < "$f"; printf "\\n"; fi; done',
  'exit "$rc"',
].join('\n');

function withFetch(argv: string[], fetch: string[]): { argv: string[]; marker: string } {
  const marker = `arbiter-fetch-${randomBytes(12).toString('hex')}`;
  return { argv: ['/bin/sh', '-c', FETCH_SCRIPT, 'sh', marker, String(argv.length), ...argv, ...fetch], marker };
}

function splitFetch(stdout: string, marker: string, wanted: string[]): { stdout: string; files: Record<string, string> } {
  const at = stdout.lastIndexOf(`\n${marker}\n`);
  if (at < 0) return { stdout, files: {} };
  const files: Record<string, string> = {};
  for (const line of stdout.slice(at + marker.length + 2).split('\n')) {
    const sp = line.indexOf(' ');
    if (sp < 0) continue;
    const name = Buffer.from(line.slice(0, sp), 'base64').toString('utf8');
    if (wanted.includes(name)) files[name] = line.slice(sp + 1);
  }
  return { stdout: stdout.slice(0, at), files };
}

/** Runs one request in the sandbox; never throws (what SandboxFusion cannot do is a SandboxError answer). */
async function runCode(pool: SandboxPool, args: RunCodeArgs, limits: ReturnType<typeof requestLimits>, signal: AbortSignal): Promise<RunCodeResponse> {
  const supported = await supportedFusionLanguages();
  const recipe = supported.includes(args.language) ? RECIPES[args.language as keyof typeof RECIPES]! : undefined;
  if (!recipe) {
    const why = args.language in RECIPES ? 'its toolchain is not installed on this arbiter server' : 'it is not supported by this arbiter server';
    return errorAnswer(`exception on running code: language "${args.language}": ${why} (supported here: ${supported.join(', ')})`);
  }
  const files: SandboxFile[] = [];
  for (const [name, content] of Object.entries(args.files)) {
    // SandboxFusion's restore_files skips null contents and names containing IGNORE_THIS_FILE
    if (content === null || name.includes('IGNORE_THIS_FILE')) continue;
    const bad = checkFileName(name);
    if (bad)
      return errorAnswer(`exception on running code: files: ${bad}: the files are written inside the working directory (a relative path without "." or "..")`);
    files.push({ name, data: Buffer.from(content, 'base64') });
  }
  let program: { argv: string[]; files: SandboxFile[]; binds: string[]; limits: Partial<SandboxLimits>; env?: Record<string, string> };
  let compile: CommandRunResult | null = null;
  const taken = (source: string) => files.some((f) => f.name === source);
  if (recipe.kind === 'language') {
    const source = LANGUAGES[recipe.language].source;
    if (taken(source)) return errorAnswer(`exception on running code: files: "${source}" is the name of the program's own source file here; rename that file`);
    const c = await compileProgram(pool, recipe.language, args.code, {
      files,
      limits: limits.run,
      compileLimits: recipe.transpileOnly ? limits.run : limits.compile,
      ...(recipe.cppFlags ? { cppFlags: recipe.cppFlags } : {}),
      ...(recipe.flags ? { flags: recipe.flags } : {}),
      ...(recipe.javaClass ? { javaClass: recipe.javaClass } : {}),
      allowSpawn: true,
      signal,
    });
    // the compiler's stdout is the program (or the class files) itself: only a failed compile shows it
    if (c.compile) compile = commandResult(c.compile, c.compile.status === 'ok' ? '' : c.compile.stdout);
    if (!c.ok) {
      if (!c.compile) return errorAnswer(`exception on running code: ${c.message}`);
      // SandboxFusion runs TypeScript with tsx in one command: a syntax error is the run's failure
      if (recipe.transpileOnly) return respond(null, compile, {});
      return respond(compile, null, {});
    }
    if (recipe.transpileOnly) compile = null;
    program = c.program;
  } else {
    const rt = await runtimeFor('python');
    if (typeof rt === 'string') return errorAnswer(`exception on running code: ${rt}`);
    if (taken('main.py'))
      return errorAnswer('exception on running code: files: "main.py" is the name of the program\'s own source file here; rename that file');
    program = { argv: [rt.exe, 'main.py'], files: [{ name: 'main.py', data: args.code }, ...files], binds: rt.binds, limits: limits.run };
  }
  const fetch = args.fetch_files.length ? withFetch(program.argv, args.fetch_files) : undefined;
  // Processes stay allowed here, as in SandboxFusion: /run_code runs any program, which may use
  // subprocess, and fetch_files wraps it in a shell. (So a client that grades by /run_code's
  // status, verl's sandbox_fusion reward, gets no protection from fork oracles: graded code
  // belongs in a `code` grader, whose programs cannot create processes.)
  const r = await pool.run({
    argv: fetch ? fetch.argv : program.argv,
    allowSpawn: true,
    files: program.files,
    binds: program.binds,
    limits: { ...program.limits, ...limits.run },
    ...(program.env ? { env: program.env } : {}),
    ...(args.stdin !== null ? { stdin: args.stdin } : {}),
    signal,
  });
  const split =
    fetch && (r.status === 'ok' || r.status === 'runtime_error') ? splitFetch(r.stdout, fetch.marker, args.fetch_files) : { stdout: r.stdout, files: {} };
  return respond(compile, commandResult(r, split.stdout), split.files);
}

function respond(compile: CommandRunResult | null, run: CommandRunResult | null, files: Record<string, string>): RunCodeResponse {
  const { status, message } = runStatus(compile, run);
  return { status, message, compile_result: compile, run_result: run, executor_pod_name: null, files };
}

const NO_INPUT = { item: {}, sample: { output_text: '' } } as unknown as GradeInput;

function registerSandboxFusion(app: FastifyInstance, ctx: ServerContext): void {
  const max = ctx.opts.sandboxApi;
  if (!max) return;

  // SandboxFusion answers the JSON string "pong"
  app.get('/v1/ping', async (_request, reply) => reply.type('application/json').send(JSON.stringify('pong')));

  app.post('/run_code', async (request, reply: FastifyReply) => {
    const gctx = { services: ctx.services } as GraderContext;
    // a request never runs outside the sandbox, whatever the server's code graders are allowed
    if (sandboxPoolOptions(gctx).unsafeNoSandbox) {
      throw new HttpError(
        403,
        'sandbox_required',
        'POST /run_code runs request-supplied code and is refused while this server runs code without the sandbox (--unsafe-no-sandbox or ARBITER_UNSAFE_NO_SANDBOX=1); restart it without that switch',
      );
    }
    const parsed = parseRunCode(request.body);
    if ('detail' in parsed) return reply.code(422).send({ detail: parsed.detail });
    const { args } = parsed;
    checkLimitValues(args);
    const limits = requestLimits(args, max);
    if (limits.clamped.length) reply.header('x-arbiter-clamped', limits.clamped.join(', '));
    const pool = sandboxPool(gctx);
    if (pool.unsafe) throw new HttpError(403, 'sandbox_required', 'the sandbox pool of this server runs without bubblewrap; POST /run_code is refused');
    const scope = openScope(ctx, request);
    let answer: RunCodeResponse | undefined;
    // the run goes through the same queue, deadline and disconnect handling as every grade
    const runner: Grader = {
      name: 'run_code',
      type: 'sandbox_fusion',
      config: {},
      capabilities: [],
      async grade(_input, gc): Promise<Result> {
        answer = await runCode(pool, args, limits, gc.signal!);
        return { score: answer.status === 'Success' ? 1 : 0, valid: true, metadata: { grader: 'run_code', type: 'sandbox_fusion' } } as Result;
      },
    };
    try {
      scope.admit(1);
      const r = await scope.grade(runner, 'run_code', NO_INPUT, scope.ctx, false);
      if (!r.valid || !answer) {
        // nothing was judged (the deadline passed, or the client left): a gateway timeout, which
        // SandboxFusion clients such as verl's retry, never a made-up run result
        return reply.code(504).send(errorBody('deadline_exceeded', r.error?.message ?? 'the request deadline passed before the code ran'));
      }
      return answer;
    } finally {
      scope.end();
    }
  });
}

export const format: WireFormat = {
  name: 'sandbox-fusion',
  summary: 'SandboxFusion code runner (verl sandbox_fusion), with --sandbox-api',
  routes: [
    { method: 'GET', path: '/v1/ping' },
    { method: 'POST', path: '/run_code' },
  ],
  when: (opts) => Boolean(opts.sandboxApi),
  register: registerSandboxFusion,
};
