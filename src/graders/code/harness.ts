// Driver programs that run a solution inside the sandbox and report per-test verdicts on stdout
// as lines `<nonce> <verdict...>`. The nonce and the spec (tests included) arrive on stdin, which
// the driver reads to the end before any solution code runs: they are in no file, argument or
// environment variable the solution could read. Each driver binds everything it uses later
// (builtins, write and exit functions, the JSON encoder) before loading the solution, writes its
// lines from those bindings only, and ends the process itself once the last test has run, so a
// solution that exits early, prints look-alike lines, rebinds builtins or prototypes, or installs
// exit hooks cannot pass tests it did not pass. Both drivers run the solution in a process of its
// own (Python: forked before stdin is read; JavaScript: a fresh node through the sandbox's helper,
// in a Landlock domain of its own), confined by the spec's `spawn_filter`, call it over a pipe with
// plain values only, and keep the tests and the verdicts in the driver's process (docs/code.md).
// The drivers are real programs in ./drivers/ (linted by `npm run lint:drivers`, shipped in
// dist/); this module loads them and parses their output.
import { stringifyExact } from '../../core/json.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function makeNonce(): string {
  return 'ARB' + randomBytes(12).toString('hex');
}

/** What a driver reads from stdin: the nonce line, then the spec as JSON. */
export function driverInput(nonce: string, spec: Record<string, unknown>): string {
  return nonce + '\n' + stringifyExact(spec); // integers past 2^53 (BigInt) as their digits: Python's json reads them exactly
}

/** Names a Python test text calls as plain functions (`f(`, not `x.f(`), in order of first use. */
export function pythonCalls(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(/(?<![\w.])([A-Za-z_]\w*)\s*\(/g)) out.add(m[1]!);
  return [...out];
}

/** Module names a Python test text imports (`import a.b, c` and `from x import y`). */
export function pythonImports(...texts: string[]): string[] {
  const out = new Set<string>();
  for (const t of texts) {
    for (const m of t.matchAll(/^[ \t]*(?:import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)|from[ \t]+([\w.]+)[ \t]+import\b)/gm)) {
      for (const n of (m[1] ?? m[2] ?? '').split(',')) if (n.trim() && !n.trim().startsWith('.')) out.add(n.trim());
    }
  }
  return [...out];
}

/**
 * Reads a driver program shipped beside this module (src/graders/code/drivers/, copied to
 * dist/graders/code/drivers/ by the build); the text is delivered to the sandbox as it is.
 */
export function driverSource(url: URL): string {
  try {
    return readFileSync(url, 'utf8');
  } catch (e) {
    throw new Error(
      `arbiter: the code driver ${fileURLToPath(url)} cannot be read (${(e as Error).message}); \`npm run build\` copies src/graders/code/drivers/ into dist`,
    );
  }
}

/**
 * Python driver (drivers/driver.py): the solution in a child process, the tests calling it through
 * proxies. Modes: `humaneval` (the prompt, then the test code, in the driver's own namespace, then
 * `check(entry_point)`), `asserts` (setup, then each assert with its own alarm), `function` (call
 * entry_point per case and report the JSON of the return value), `grade` (the `python` grader:
 * grade(sample, item), in the driver's process).
 */
export const PYTHON_DRIVER = driverSource(new URL('./drivers/driver.py', import.meta.url));

/**
 * JavaScript (node) driver (drivers/driver.cjs, run as the CommonJS script main.js) with the same
 * modes (except `grade`); per-test limits use vm timeouts.
 */
export const JS_DRIVER = driverSource(new URL('./drivers/driver.cjs', import.meta.url));

export interface Verdicts {
  done: boolean;
  load?: string;
  /** The solution raised SystemExit (Python) while loading or during the tests. */
  exit?: string;
  tests: Map<number, { verdict: 'pass' | 'fail' | 'timeout' | 'ret'; detail?: string }>;
  error?: string;
  score?: string;
}

/** Parses the driver's verdict lines out of stdout (other output is ignored). */
export function parseVerdicts(stdout: string, nonce: string): Verdicts {
  const v: Verdicts = { done: false, tests: new Map() };
  const prefix = nonce + ' ';
  for (const line of stdout.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const rest = line.slice(prefix.length);
    const sp = rest.indexOf(' ');
    const head = sp < 0 ? rest : rest.slice(0, sp);
    const tail = sp < 0 ? '' : rest.slice(sp + 1);
    if (head === 'done') v.done = true;
    else if (head === 'load') v.load = parseJsonText(tail);
    else if (head === 'exit') v.exit = parseJsonText(tail);
    else if (head === 'error') v.error = parseJsonText(tail);
    else if (head === 'score') v.score = tail;
    else if (/^\d+$/.test(head)) {
      const sp2 = tail.indexOf(' ');
      const verdict = (sp2 < 0 ? tail : tail.slice(0, sp2)) as 'pass' | 'fail' | 'timeout' | 'ret';
      const detail = sp2 < 0 ? undefined : tail.slice(sp2 + 1);
      const i = Number(head);
      if (!v.tests.has(i)) v.tests.set(i, detail === undefined ? { verdict } : { verdict, detail: verdict === 'ret' ? detail : parseJsonText(detail) });
    }
  }
  return v;
}

function parseJsonText(s: string): string {
  try {
    const x: unknown = JSON.parse(s);
    return typeof x === 'string' ? x : JSON.stringify(x);
  } catch {
    return s;
  }
}
