// The sandbox's hostile suite in C, Go, Rust, Java, TypeScript and Bash: each language's probe
// program (language-programs.ts) is compiled once in the sandbox and run in every mode: a
// hello/stdin echo and a non-zero exit work as they should; an infinite loop is a timeout; a fork
// bomb is bounded; a memory hog, a file past the file-size limit, a network connect and writes
// outside /tmp fail; 100 MB of output is output_limit; a compile error is compile_error (not a
// run failure). Then the `code` grader grades each language in the stdio format.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../dist/sandbox/index.js';
import { compileProgram, parseBundle, runProgram, type CompiledProgram } from '../../dist/sandbox/languages.js';
import { runtimeFor } from '../../dist/sandbox/host.js';
import type { RunResult } from '../../dist/sandbox/pool.js';
import { loadGrader, PROJECT, sandboxUidProcesses, Services } from '../code/helpers.js';
import { ESCAPE_NAME } from './hostile-programs.js';
import { BROKEN, PROBES, type ProbeLanguage } from './language-programs.js';

const LANGS: ProbeLanguage[] = ['c', 'go', 'rust', 'java', 'typescript', 'bash'];
const ESCAPES = [`/etc/${ESCAPE_NAME}`, `${PROJECT}/${ESCAPE_NAME}`, `/usr/${ESCAPE_NAME}`];
const MiB = 1024 * 1024;

const pool = new SandboxPool({ concurrency: 2 });
const services = new Services();
afterAll(() => {
  pool.close();
  services.close();
});

interface Mode {
  args: string[];
  stdin?: string;
  limits?: Record<string, number>;
}
const MODES: Record<string, Mode> = {
  echo: { args: [], stdin: 'world\n' },
  exit: { args: ['exit'] },
  loop: { args: ['loop'], limits: { wallMs: 2000, cpuSeconds: 2 } },
  fork: { args: ['fork'], limits: { wallMs: 3000 } },
  // the JVM and V8 bound private memory (RLIMIT_DATA), which their runtimes need more of to start
  mem: { args: ['mem'], limits: { memoryBytes: 128 * MiB, wallMs: 15_000 } },
  // a small memory limit, under which every runtime still starts
  small: { args: [], stdin: 'small\n', limits: { memoryBytes: 128 * MiB } },
  out: { args: ['out'] },
  bigfile: { args: ['bigfile'], limits: { fileSizeBytes: 1 * MiB } },
  net: { args: ['net'] },
  escape: { args: ['escape', ...ESCAPES] },
};

const programs = new Map<ProbeLanguage, CompiledProgram | string>();
const runs = new Map<string, RunResult>();
const broken = new Map<ProbeLanguage, Awaited<ReturnType<typeof compileProgram>>>();

beforeAll(async () => {
  await Promise.all(
    LANGS.map(async (lang) => {
      const c = await compileProgram(pool, lang, PROBES[lang]);
      if (!c.ok) {
        programs.set(lang, `${c.kind}: ${c.message}`);
        return;
      }
      programs.set(lang, c.program);
      // the JVM's -Xmx and V8's heap size follow the memory limit given when the program is built
      const small = lang === 'java' || lang === 'typescript' ? await compileProgram(pool, lang, PROBES[lang], { limits: MODES.mem!.limits! }) : c;
      if (!small.ok) throw new Error(small.message);
      await Promise.all(
        Object.entries(MODES).map(async ([name, m]) => {
          const base = name === 'mem' || name === 'small' ? small.program : c.program;
          // (the fork mode checks the process limit: it runs where processes are allowed)
          const p = { ...base, argv: [...base.argv, ...m.args], ...(name === 'fork' ? { allowSpawn: true } : {}) };
          runs.set(
            `${lang}:${name}`,
            await runProgram(pool, p, { ...(m.stdin !== undefined ? { stdin: m.stdin } : {}), ...(m.limits ? { limits: m.limits } : {}) }),
          );
        }),
      );
      if (lang !== 'bash') broken.set(lang, await compileProgram(pool, lang, BROKEN[lang]));
    }),
  );
}, 300_000);

const run = (lang: ProbeLanguage, mode: string): RunResult => {
  const r = runs.get(`${lang}:${mode}`);
  if (!r) throw new Error(`no ${mode} run for ${lang}: ${String(programs.get(lang))}`);
  return r;
};
const show = (r: RunResult) => JSON.stringify({ ...r, stdout: r.stdout.slice(0, 300), stderr: r.stderr.slice(0, 600) });

describe.each(LANGS)('%s in the sandbox', (lang) => {
  it('compiles (or resolves its runtime) and echoes stdin', () => {
    const p = programs.get(lang);
    expect(typeof p, String(p)).toBe('object');
    const r = run(lang, 'echo');
    expect(r.status, show(r)).toBe('ok');
    expect(r.stdout).toBe('hello world\n');
  });

  it('starts and runs under a 128 MiB memory limit', () => {
    const r = run(lang, 'small');
    expect(r.status, show(r)).toBe('ok');
    expect(r.stdout).toBe('hello small\n');
  });

  it('reports a non-zero exit status as it is', () => {
    const r = run(lang, 'exit');
    expect(r.status, show(r)).toBe('runtime_error');
    expect(r.exitCode).toBe(7);
  });

  it('an infinite loop is a timeout', () => {
    const r = run(lang, 'loop');
    expect(r.status, show(r)).toBe('timeout');
  });

  it('a fork bomb is bounded (killed at its time limit or failing at the process limit)', () => {
    const r = run(lang, 'fork');
    expect(['timeout', 'runtime_error'], show(r)).toContain(r.status);
  });

  it('a memory hog fails at its memory limit', () => {
    const r = run(lang, 'mem');
    // failing on allocation well before the generous time limit, each runtime in its own words
    expect(r.status, show(r)).toBe('runtime_error');
    const said: Record<ProbeLanguage, RegExp> = {
      c: /out of memory/,
      go: /fatal error: runtime: out of memory/,
      rust: /memory allocation of \d+ bytes failed/,
      java: /java.lang.OutOfMemoryError: Java heap space/,
      typescript: /heap out of memory/,
      bash: /cannot allocate/,
    };
    expect(r.stderr).toMatch(said[lang]);
  });

  it('100 MB of output is output_limit', () => {
    const r = run(lang, 'out');
    expect(r.status, show(r)).toBe('output_limit');
  });

  it('a file past the file-size limit fails (SIGXFSZ or EFBIG)', () => {
    const r = run(lang, 'bigfile');
    expect(r.status, show(r)).toBe('runtime_error');
    expect(r.stdout).not.toContain('WROTE');
    expect(`${r.signal} ${r.stderr}`).toMatch(/SIGXFSZ|File too large|file size|EFBIG/i);
  });

  it('cannot reach the network', () => {
    const r = run(lang, 'net');
    expect(r.status, show(r)).toBe('runtime_error');
    expect(r.stdout).not.toContain('CONNECTED');
    if (lang !== 'bash') expect(r.exitCode).toBe(3);
  });

  it('cannot write outside /tmp (the project, /etc, /usr)', () => {
    const r = run(lang, 'escape');
    expect(r.status, show(r)).toBe('runtime_error');
    expect(r.exitCode).toBe(3);
    expect(r.stdout).not.toContain('ESCAPED');
    for (const p of ESCAPES) expect(existsSync(p), p).toBe(false);
  });

  it.skipIf(lang === 'bash')('a compile error is compile_error, with the compiler message', () => {
    const c = broken.get(lang)!;
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.kind).toBe('compile_error');
    expect(c.message).toMatch(lang === 'go' ? /undefined: undefinedThing/ : /error/i);
    expect(c.compile?.status).toBe('runtime_error');
  });
});

describe('the host afterwards', () => {
  it('has no process left running as a sandbox user of this pool', () => {
    if (process.getuid?.() === 0) expect(pool.uids.length).toBeGreaterThan(0);
    expect(sandboxUidProcesses(pool.uids)).toEqual([]);
  });
});

describe('language specifics', () => {
  it('TypeScript types are stripped, not checked (as tsx runs it): a type error still runs', async () => {
    const c = await compileProgram(
      pool,
      'typescript',
      'const n: number = "text" as any as string as unknown as number;\nconst s: string = 5 as unknown as string;\nconsole.log(typeof n, typeof s);\n',
    );
    expect(c.ok, c.ok ? '' : c.message).toBe(true);
    if (!c.ok) return;
    const r = await runProgram(pool, c.program);
    expect(r.stdout).toBe('string number\n');
  });

  it('TypeScript: .ts files among the program files are transpiled too (imports find them); the typescript package is not in the run', async () => {
    const c = await compileProgram(
      pool,
      'typescript',
      "import { twice } from './lib/twice';\nconsole.log(twice(21), require('fs').existsSync(process.argv[2]));\n",
      {
        files: [{ name: 'lib/twice.ts', data: 'export const twice = (n: number): number => 2 * n;\n' }],
      },
    );
    expect(c.ok, c.ok ? '' : c.message).toBe(true);
    if (!c.ok) return;
    // the sources stay too (a SandboxFusion request may fetch its files back)
    expect(c.program.files.map((f) => f.name).sort()).toEqual(['lib/twice.js', 'lib/twice.ts', 'main.js']);
    const tsDir = (await runtimeFor('typescript')) as unknown as { aux: { typescript: string } };
    const r = await runProgram(pool, { ...c.program, argv: [...c.program.argv, tsDir.aux.typescript] });
    expect(r.stdout, r.stderr).toBe('42 false\n');
    const bad = await compileProgram(pool, 'typescript', "import './lib/bad';\n", { files: [{ name: 'lib/bad.ts', data: 'const = 1;\n' }] });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message).toMatch(/^lib\/bad.ts\(1,7\): error TS/m);
  });

  it('Java runs the public class of the source (file and class named after it), else Main', async () => {
    const c = await compileProgram(pool, 'java', 'public class Solution { public static void main(String[] a) { System.out.println("solution"); } }\n');
    expect(c.ok, c.ok ? '' : c.message).toBe(true);
    if (!c.ok) return;
    expect(c.program.argv.at(-1)).toBe('Solution');
    expect((await runProgram(pool, c.program)).stdout).toBe('solution\n');
  });

  it('Java sizes its heap from the memory limit (-Xmx half of it)', async () => {
    const c = await compileProgram(
      pool,
      'java',
      'class Main { public static void main(String[] a) { System.out.println(Runtime.getRuntime().maxMemory() >> 20); } }\n',
      {
        limits: { memoryBytes: 512 * MiB },
      },
    );
    expect(c.ok, c.ok ? '' : c.message).toBe(true);
    if (!c.ok) return;
    const mb = Number((await runProgram(pool, c.program)).stdout.trim());
    expect(mb).toBeGreaterThan(200);
    expect(mb).toBeLessThanOrEqual(256);
  });

  it("the compile's bundle of class files is checked like any sandbox file name (it comes from the sandbox)", () => {
    const entry = (name: string, data: string) => Buffer.concat([Buffer.from(`${name}\n${Buffer.byteLength(data)}\n`), Buffer.from(data)]);
    expect(parseBundle(Buffer.concat([entry('Main.class', 'ab'), entry('Main$1.class', '')]))).toEqual([
      { name: 'Main.class', data: Buffer.from('ab') },
      { name: 'Main$1.class', data: Buffer.alloc(0) },
    ]);
    expect(parseBundle(entry('../escape', 'x'))).toMatch(/invalid sandbox file name/);
    expect(parseBundle(entry('/etc/x', 'x'))).toMatch(/invalid sandbox file name/);
    expect(parseBundle(Buffer.from('Main.class\n99\nab'))).toMatch(/bad size/);
    expect(parseBundle(Buffer.from('Main.class'))).toMatch(/truncated/);
  });

  it('Rust uses the real toolchain binary, not a rustup shim', async () => {
    const rt = await runtimeFor('rust');
    expect(typeof rt, String(rt)).toBe('object');
    if (typeof rt === 'string') return;
    expect(rt.exe).toMatch(/\/bin\/rustc$/);
    expect(rt.exe).not.toMatch(/\.cargo\/bin/);
  });
});

describe('the code grader, stdio format', () => {
  const EXPECT_TS = 'hello';
  it.each(LANGS)('%s: right output passes, wrong output fails, a compile error is compile_error', async (lang) => {
    const tests = [
      { input: 'world\n', output: 'hello world' },
      { input: 'there\n', output: 'bye there' },
    ];
    const g = loadGrader({ type: 'code', language: lang, format: 'stdio', tests });
    const fence = '```' + lang + '\n' + PROBES[lang] + '```\n';
    const r = await g.grade({ item: {}, sample: { output_text: `Here it is:\n${fence}` } }, { services });
    expect(r.valid, JSON.stringify(r)).toBe(true);
    expect(r.score, r.reason).toBe(0.5);
    expect(r.metadata.tests).toEqual(['pass', 'wrong_output']);
    expect(r.reason).toContain(EXPECT_TS);
    if (lang === 'bash') return;
    const bad = await g.grade({ item: {}, sample: { output_text: '```' + lang + '\n' + BROKEN[lang] + '```\n' } }, { services });
    expect(bad.valid).toBe(true);
    expect(bad.score).toBe(0);
    expect(bad.metadata.failure, bad.reason).toBe('compile_error');
  });

  it('refuses a format that does not run the language, and cpp_flags for another language', () => {
    expect(() => loadGrader({ type: 'code', language: 'java', format: 'function', tests: [], entry_point: 'f' })).toThrow(/not java/);
    expect(() => loadGrader({ type: 'code', language: 'go', format: 'humaneval', tests: 'x' })).toThrow(
      /format "humaneval" supports python, javascript, typescript, cpp; not go/,
    );
    expect(() => loadGrader({ type: 'code', language: 'rust', format: 'asserts', tests: ['x'] })).toThrow(/not rust/);
    expect(() => loadGrader({ type: 'code', language: 'c', format: 'stdio', tests: [], cpp_flags: ['-O3'] })).toThrow(/cpp_flags/);
  });
});

describe('the code grader, TypeScript through the JavaScript driver (transpiled in the sandbox)', () => {
  // MultiPL-E's TypeScript layout: the prompt opens the function, the tests begin by closing it
  const prompt = '//Add two numbers\nfunction add(x: number, y: number): number {\n';
  const tests =
    "}\n\ndeclare var require: any;\nconst assert = require('node:assert');\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(1, 2), 3);\n  assert.deepEqual(candidate(-1, 1), 0);\n}\n\ntest();\n";
  const grade = (cfg: Record<string, unknown>, output: string) =>
    loadGrader({ type: 'code', language: 'typescript', ...cfg }).grade({ item: {}, sample: { output_text: output } }, { services });

  it('humaneval: a right completion passes, a wrong one fails its assertion, an early exit is early_exit', async () => {
    const cfg = { format: 'humaneval', prompt, tests };
    const ok = await grade(cfg, '  const s: number = x + y;\n  return s;\n');
    expect(ok.score, ok.reason).toBe(1);
    const wrong = await grade(cfg, '  return x - y;\n');
    expect(wrong.score).toBe(0);
    expect(wrong.metadata.failure, wrong.reason).toBe('assertion');
    const exit = await grade(cfg, '  process.exit(0);\n  return 0;\n');
    expect(exit.score).toBe(0);
    expect(exit.metadata.failure, exit.reason).toBe('early_exit');
  });

  it('asserts and function formats; TypeScript in the asserts and setup is transpiled too', async () => {
    const code = '```ts\nfunction mul(a: number, b: number): number { return a * b; }\n```';
    const a = await grade(
      { format: 'asserts', setup: 'const k: number = 2;', tests: ['assert.strictEqual(mul(k, 3) as number, 6)', 'assert.strictEqual(mul(2, 2), 5)'] },
      code,
    );
    expect(a.score, a.reason).toBe(0.5);
    expect(a.metadata.tests).toEqual(['pass', 'assertion']);
    const f = await grade(
      {
        format: 'function',
        entry_point: 'mul',
        tests: [
          { input: [2, 3], output: 6 },
          { input: [2, 2], output: 5 },
        ],
      },
      code,
    );
    expect(f.score, f.reason).toBe(0.5);
    expect(f.metadata.tests).toEqual(['pass', 'wrong_output']);
  });

  it('a solution that does not transpile is compile_error; tests that do not are bad_input', async () => {
    const bad = await grade({ format: 'asserts', tests: ['assert.ok(true)'] }, 'function f( {');
    expect(bad.valid).toBe(true);
    expect(bad.metadata.failure, bad.reason).toBe('compile_error');
    expect(bad.reason).toMatch(/error TS\d+/);
    const badTests = await grade({ format: 'asserts', tests: ['assert.ok(true)', 'const = ;'] }, 'function f() {}');
    expect(badTests.valid).toBe(false);
    expect(badTests.error?.kind).toBe('bad_input');
    expect(badTests.error?.message).toMatch(/the tests are not valid TypeScript/);
  });
});
