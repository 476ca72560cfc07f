// `code` grader type: extracts the program from the model output and runs it in the sandbox
// against the item's tests (humaneval, asserts, stdio or function format); the score is the
// fraction of tests passed and the reason names the first failure.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../core/registry.js';
import { CODE_CAPS, codeCapabilities } from './capabilities.js';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { renderCompiled, renderString, type Template } from '../../core/template.js';
import type { LanguageName } from '../../sandbox/languages.js';
import { limitsSchema, sandboxPool, toSandboxLimits } from './config.js';
import { TestObjectCache } from './cpp-tests.js';
import { applyThink, CODE_EXTRACT_ALIAS, extractSchema, neverCloses, renamed, resolveExtract } from '../../extract/index.js';
import { extractCode } from './extract.js';
import { FORMATS, formatRefusal, summarise, type Parts, type RunSettings } from './formats.js';

const schema = graderSchema({
  language: z.enum(['python', 'javascript', 'typescript', 'c', 'cpp', 'go', 'rust', 'java', 'bash']).default('python'),
  format: z.enum(['humaneval', 'asserts', 'stdio', 'function']),
  /** The model output holding the code. */
  input: z.string().default('{{sample.output_text}}'),
  /** from `fenced` (default): the last fenced block (see docs), else the whole input; `whole`: the input as is. think: `keep` (default) or `strip`. */
  extract: extractSchema(['fenced', 'whole'] as const),
  /** humaneval: code placed before the completion (the function signature and docstring). */
  prompt: z.string().optional(),
  /** Test code (humaneval), assert list (asserts), or {input, output} cases (stdio, function). */
  tests: z.unknown(),
  /** asserts/function: code run after the solution and before the tests (MBPP test_setup_code). */
  setup: z.string().optional(),
  entry_point: z.string().optional(),
  /** stdio and function: how outputs are compared. */
  compare: z.enum(['whitespace', 'exact', 'float']).default('whitespace'),
  float_tolerance: z.number().nonnegative().default(1e-6),
  limits: limitsSchema,
  compile_limits: limitsSchema,
  /** asserts/function: limit per assert or call, ms (inside the program's overall limit). */
  test_time_ms: z.number().positive().default(3000),
  /** A program that hits a time limit fails the test (`fail`), or makes the result invalid with kind timeout (`invalid`). */
  on_timeout: z.enum(['fail', 'invalid']).default('fail'),
  /** Python: import site-packages (numpy etc.); costs interpreter start-up time. */
  python_site: z.boolean().default(false),
  cpp_flags: z.array(z.string()).optional(),
  /** Longest accepted program, in bytes (larger: limit_exceeded). Deprecated name: max_code_bytes. */
  max_bytes: z.number().int().positive().default(CODE_CAPS.max_bytes),
  max_tests: z.number().int().positive().default(CODE_CAPS.max_tests),
  /**
   * The program may create processes (fork, subprocess, child_process). Default: no (the sandbox
   * refuses them with EPERM: a child per candidate answer is a fork oracle); bash: yes (every
   * external command is a process), unless set to false.
   */
  allow_processes: z.boolean().optional(),
  /** Run without bubblewrap. Only for trusted code. */
  unsafe_no_sandbox: z.boolean().default(false),
});

type Config = z.infer<typeof schema>;

function optTemplate(b: Parameters<GraderType['build']>[1], field: string, v: string | undefined): Template | undefined {
  return v === undefined ? undefined : b.template(field, v);
}

export const code: GraderType<Config> = {
  type: 'code',
  summary: 'run the extracted program in a sandbox against tests (humaneval, asserts, stdio, function); score = fraction passed',
  schema: schema as unknown as z.ZodType<Config>,
  aliases: [CODE_EXTRACT_ALIAS, renamed('max_code_bytes', 'max_bytes')],
  capabilities: (cfg) => codeCapabilities(cfg, CODE_CAPS),
  build(cfg, b) {
    const lang = cfg.language as LanguageName;
    const refused = formatRefusal(cfg.format, lang);
    if (refused) b.fail('format', refused);
    if (cfg.cpp_flags !== undefined && lang !== 'cpp') b.fail('cpp_flags', `g++ flags apply to language cpp only, not ${lang}`);
    if (cfg.tests === undefined) b.fail('tests', 'required field is missing (test code, assert list or cases)');
    if (cfg.format === 'humaneval' && lang === 'python' && cfg.entry_point === undefined) b.fail('entry_point', 'humaneval with python needs entry_point');
    if (cfg.format === 'function' && cfg.entry_point === undefined) b.fail('entry_point', 'the function format needs entry_point');
    const input = b.template('input', cfg.input);
    const prompt = optTemplate(b, 'prompt', cfg.prompt);
    const setup = optTemplate(b, 'setup', cfg.setup);
    const entry = optTemplate(b, 'entry_point', cfg.entry_point);
    const tests = b.value('tests', cfg.tests);
    const limits = toSandboxLimits(cfg.limits);
    const compileLimits = toSandboxLimits(cfg.compile_limits);
    const run = FORMATS[cfg.format];
    const extract = resolveExtract(cfg.extract, { think: 'keep', from: 'fenced' });

    return async (s, ctx) => {
      const rendered = renderString(input, s);
      const text = applyThink(rendered, extract.think);
      if (text === undefined)
        return summarise([{ status: 'no_code', detail: neverCloses('the output holds no code') }], {
          language: lang,
          format: cfg.format,
          code_from: 'whole',
        });
      const ex = extract.from === 'fenced' ? extractCode(text, lang) : { code: text, from: 'whole' as const };
      const meta = { language: lang, format: cfg.format, code_from: ex.from };
      if (Buffer.byteLength(ex.code) > cfg.max_bytes)
        throw new ResponseFault('limit_exceeded', `the program is ${Buffer.byteLength(ex.code)} bytes, over max_bytes ${cfg.max_bytes}`, { metadata: meta });
      const parts: Parts = { code: ex.code, tests: renderCompiled(tests, s), joinNewline: ex.from === 'fence' };
      if (prompt) parts.prompt = renderString(prompt, s);
      if (setup) parts.setup = renderString(setup, s);
      if (entry) parts.entryPoint = renderString(entry, s).trim();
      if (Array.isArray(parts.tests) && parts.tests.length > cfg.max_tests)
        throw new GradeFailure('limit_exceeded', `${parts.tests.length} tests, over max_tests ${cfg.max_tests}`, meta);
      if (ex.code.trim() === '') return summarise([{ status: 'no_code', detail: 'the output holds no code' }], meta);
      const settings: RunSettings = {
        pool: sandboxPool(ctx, cfg.unsafe_no_sandbox),
        language: lang,
        limits,
        compileLimits,
        perTestSeconds: cfg.test_time_ms / 1000,
        pythonSite: cfg.python_site,
        compare: cfg.compare,
        tolerance: cfg.float_tolerance,
        ...(cfg.cpp_flags ? { cppFlags: cfg.cpp_flags } : {}),
        ...(cfg.allow_processes !== undefined ? { allowProcesses: cfg.allow_processes } : {}),
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(lang === 'cpp' && cfg.format === 'humaneval' ? { testObjects: ctx.services.get('code:cpp-test-objects', () => new TestObjectCache()) } : {}),
        usage: { runs: 0, runMs: 0, queueMs: 0 },
      };
      const verdicts = await run(settings, parts);
      const u = settings.usage;
      const out = summarise(verdicts, { ...meta, runs: u.runs, run_ms: Math.round(u.runMs), queue_ms: Math.round(u.queueMs) });
      if (cfg.on_timeout === 'invalid' && verdicts.some((v) => v.status === 'timeout')) {
        throw new GradeFailure('timeout', `a test hit its time limit (on_timeout: invalid): ${out.reason}`, out.metadata);
      }
      return out;
    };
  },
};
