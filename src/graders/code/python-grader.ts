// `python` grader type (OpenAI grader schema): runs `def grade(sample, item) -> float` from the
// config in the sandbox. An exception or a non-numeric return is an invalid result (python_error)
// showing the error; a time-out is `timeout`; a broken sandbox is `sandbox_error`.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../core/registry.js';
import { renamed } from '../../extract/options.js';
import { codeCapabilities, PYTHON_CAPS } from './capabilities.js';
import { GradeFailure } from '../../core/result.js';
import { compileProgram, runProgram, tail } from '../../sandbox/languages.js';
import { hostSpawnFilter } from '../../sandbox/seccomp.js';
import { limitsSchema, sandboxPool, toSandboxLimits } from './config.js';
import { driverInput, makeNonce, parseVerdicts, PYTHON_DRIVER } from './harness.js';

const schema = graderSchema({
  source: z.string().min(1),
  /** OpenAI field; accepted and recorded in each result's metadata (the local interpreter is used). */
  image_tag: z.string().optional(),
  limits: limitsSchema,
  /** Import site-packages (numpy, scipy... when installed). Default true, as graders often need them. */
  python_site: z.boolean().default(true),
  /** Largest JSON payload (sample + item) passed to grade(), in bytes. */
  /** Largest sample + item accepted, in bytes of JSON. Deprecated name: max_input_bytes. */
  max_bytes: z.number().int().positive().default(PYTHON_CAPS.max_bytes),
  /** grade() may create processes (subprocess, os.fork). Default false: they fail with EPERM. */
  allow_processes: z.boolean().default(false),
  unsafe_no_sandbox: z.boolean().default(false),
});

type Config = z.infer<typeof schema>;

export const pythonGrader: GraderType<Config> = {
  type: 'python',
  summary: 'run a Python `grade(sample, item) -> float` function in the sandbox',
  schema: schema as unknown as z.ZodType<Config>,
  aliases: [renamed('max_input_bytes', 'max_bytes')],
  capabilities: (cfg) => codeCapabilities(cfg, PYTHON_CAPS),
  build(cfg, b) {
    if (!/\bdef\s+grade\s*\(/.test(cfg.source)) b.fail('source', 'must define a function grade(sample, item)');
    const limits = toSandboxLimits(cfg.limits);
    return async (s, ctx) => {
      const pool = sandboxPool(ctx, cfg.unsafe_no_sandbox);
      // the driver forks its (here idle) solution process first, so its run may create processes;
      // grade() itself runs under the no-process filter the driver stacks on itself, unless allow_processes
      const filter = cfg.allow_processes ? null : hostSpawnFilter();
      const spec = { mode: 'grade', solution: 'grader.py', sample: s.sample, item: s.item, spawn_filter: filter ? filter.toString('base64') : null };
      const nonce = makeNonce();
      // the spec (sample and item) goes on stdin with the nonce, read before the source loads
      const input = driverInput(nonce, spec);
      // the bytes of sample + item alone (what max_bytes bounds): the input less the nonce line and the spec's other fields
      const size = Buffer.byteLength(input) - nonce.length - 1 - (Buffer.byteLength(JSON.stringify({ ...spec, sample: null, item: null })) - 8);
      if (size > cfg.max_bytes) throw new GradeFailure('limit_exceeded', `sample + item are ${size} bytes of JSON, over max_bytes ${cfg.max_bytes}`);
      const c = await compileProgram(pool, 'python', PYTHON_DRIVER, {
        files: [{ name: 'grader.py', data: cfg.source }],
        limits,
        pythonSite: cfg.python_site,
        trustedMain: true,
        allowSpawn: true,
      });
      if (!c.ok) throw new GradeFailure('sandbox_error', c.message);
      const r = await runProgram(pool, c.program, { stdin: input, ...(ctx.signal ? { signal: ctx.signal } : {}) });
      if (r.status === 'sandbox_error') throw new GradeFailure('sandbox_error', r.message ?? 'the sandbox failed');
      if (r.status === 'aborted') throw new GradeFailure('timeout', 'grading was aborted (grader deadline) before grade() returned');
      if (r.status === 'timeout') throw new GradeFailure('timeout', `grade() did not finish: ${r.message}`);
      if (r.status === 'output_limit') throw new GradeFailure('python_error', 'grade() printed more than the output limit');
      if (r.exitCode === 71 && /^arbiter driver: sandbox: /m.test(r.stderr)) throw new GradeFailure('sandbox_error', tail(r.stderr, 4));
      const v = parseVerdicts(r.stdout, nonce);
      if (v.error !== undefined) throw new GradeFailure('python_error', v.error.trim(), { stderr: tail(r.stderr, 10) });
      if (v.load !== undefined) throw new GradeFailure('python_error', `the grader source failed to load: ${v.load}`);
      if (v.score === undefined) {
        const why = r.status === 'ok' ? 'the grader exited without returning a score' : `the grader process failed (${r.message}): ${tail(r.stderr, 8)}`;
        throw new GradeFailure('python_error', why);
      }
      const score = Number(v.score);
      if (!Number.isFinite(score)) throw new GradeFailure('python_error', `grade() returned ${v.score}, not a finite number`);
      return {
        score,
        reason: `grade() returned ${score}`,
        metadata: { python_ms: Math.round(r.durationMs), ...(cfg.image_tag !== undefined ? { image_tag: cfg.image_tag } : {}) },
      };
    };
  },
};
