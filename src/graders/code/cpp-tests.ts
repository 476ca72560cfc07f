// C++ `humaneval`: the tests are compiled in their own translation unit, apart from the solution,
// and the program proves that they ran to the end.
// - The test unit holds the prompt's declarations (the prompt with its final opening brace made a
//   `;`), arbiter's own assert (counts passing assertions; a failing one reports like glibc and
//   traps, calling nothing the solution could replace) and the tests, whose `main` is renamed.
//   No macro, overload or `#line` of the solution reaches it.
// - At link time every global symbol the solution defines is made local except those the tests
//   need from it (the function under test), so it cannot replace `memcmp`, `__assert_fail`,
//   `main` or anything else the tests call.
// - arbiter's `main` calls the tests' one and, only when it returns 0, prints a line with a
//   secret compiled into the test unit (masked, never as plain text in the binary) and the number
//   of assertions that passed, and its own pid. A static initialiser calling exit(0), a signal
//   handler calling _Exit(0), pthread_exit or a printed look-alike line cannot produce it; a
//   child process (allow_processes: true; otherwise the program cannot fork at all) prints a pid
//   that is not the program's (RunResult.programPid), so its line does not count.
// The test object depends only on the item (prompt, tests) and the flags, so it is compiled once
// per item and kept (with its secret) in a cache of the run's services. arbiter's assert header
// is drivers/cpp_assert.h.
import { createHash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { driverSource } from './harness.js';

/**
 * A copy of C++ source with comments, string and character literals replaced by spaces (newlines
 * kept), so that positions of code found in it are positions in the original. For trusted text
 * (prompts and tests from the data set), not an adversarial lexer.
 */
export function blankCpp(src: string): string {
  const out = src.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    const d = src[i + 1];
    if (c === '/' && d === '/') {
      let j = i + 2;
      while (j < n && !(src[j] === '\n' && src[j - 1] !== '\\')) j++;
      blank(i, j);
      i = j;
    } else if (c === '/' && d === '*') {
      const e = src.indexOf('*/', i + 2);
      const j = e < 0 ? n : e + 2;
      blank(i, j);
      i = j;
    } else if (c === 'R' && d === '"' && !/[\w]/.test(src[i - 1] ?? '')) {
      const open = src.indexOf('(', i + 2);
      const delim = open < 0 ? '' : src.slice(i + 2, open);
      const e = open < 0 ? -1 : src.indexOf(')' + delim + '"', open);
      const j = e < 0 ? n : e + delim.length + 2;
      blank(i, j);
      i = j;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < n && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      blank(i, Math.min(n, j + 1));
      i = j + 1;
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(d ?? ''))) {
      // a pp-number, which may hold digit separators (1'000'000)
      let j = i + 1;
      while (j < n && (/[\w.']/.test(src[j]!) || (/[+-]/.test(src[j]!) && /[eEpP]/.test(src[j - 1]!)))) j++;
      i = j;
    } else if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /\w/.test(src[j]!)) j++;
      i = j;
    } else i++;
  }
  return out.join('');
}

/** The index of the brace closing the one at `open` in blanked source, or -1. */
function closingBrace(blanked: string, open: number): number {
  let depth = 0;
  for (let k = open; k < blanked.length; k++) {
    if (blanked[k] === '{') depth++;
    else if (blanked[k] === '}' && --depth === 0) return k;
  }
  return -1;
}

export interface CppTestUnit {
  /** The test translation unit. */
  source: string;
  /** The tests began with the brace closing the function (MultiPL-E): it belongs to the solution. */
  closesFunction: boolean;
  /** The evidence line the program prints after the last test: `<secret> done <asserts> <pid>`. */
  secret: string;
  /** Whether the tests use assert (then at least one must have passed). */
  usesAssert: boolean;
}

/** arbiter's assert.h / cassert for the test unit (drivers/cpp_assert.h; found before the system's on the include path). */
export const CPP_ASSERT_H = driverSource(new URL('./drivers/cpp_assert.h', import.meta.url));

const hexBytes = (b: Buffer) => [...b].map((x) => '0x' + x.toString(16).padStart(2, '0')).join(', ');

/**
 * Builds the test unit from the prompt (optional; it must end with the opening brace of the
 * function to complete) and the tests (which must define `int main()`). Returns a message (the
 * item's fault: bad_input) when either does not have that shape.
 */
export function buildCppTestUnit(prompt: string | undefined, tests: string): CppTestUnit | string {
  let decls = '';
  if (prompt !== undefined && prompt.trim() !== '') {
    const b = blankCpp(prompt);
    const last = b.trimEnd().length - 1;
    if (last < 0 || b[last] !== '{')
      return 'the prompt must end with the opening brace of the function to complete (HumanEval-X layout): the tests are compiled with its declarations only';
    decls = prompt.slice(0, last) + ';' + prompt.slice(last + 1);
  }
  let t = tests;
  const bt = blankCpp(t);
  const lead = bt.search(/\S/);
  const closesFunction = lead >= 0 && bt[lead] === '}';
  // MultiPL-E layout: the tests begin by closing the function's body
  if (closesFunction) t = t.slice(0, lead) + ' ' + t.slice(lead + 1);
  const blanked = blankCpp(t);
  const m = /(^|[^\w])int\s+main\s*\(([^)]*)\)\s*\{/.exec(blanked);
  if (!m) return "the tests must define int main() (they are compiled in their own translation unit and run by arbiter's main)";
  const params = t.slice(m.index + m[1]!.length + blanked.slice(m.index + m[1]!.length).indexOf('(') + 1, m.index + m[0].lastIndexOf(')'));
  const nParams = params.trim() === '' || params.trim() === 'void' ? 0 : params.split(',').length;
  if (nParams !== 0 && nParams !== 2) return "the tests' main must take no parameters or (argc, argv)";
  const open = m.index + m[0].length - 1;
  const close = closingBrace(blanked, open);
  if (close < 0) return "the tests' main has no closing brace";
  const head = t.slice(0, m.index + m[1]!.length);
  const renamed = `${head}static int __arbiter_test_main(${params}) {${t.slice(open + 1, close)} return 0; }${t.slice(close + 1)}`;
  const secretBytes = randomBytes(16);
  const mask = randomBytes(16);
  const masked = Buffer.from(secretBytes.map((x, i) => x ^ mask[i]!));
  const secret = 'ARB' + secretBytes.toString('hex');
  const source = [
    '#line 1 "prompt"',
    decls,
    '#line 1 "arbiter-harness"',
    '#include <assert.h>',
    '#include <unistd.h>',
    '#line 1 "tests"',
    renamed,
    '#line 1 "arbiter-harness"',
    `static const volatile unsigned char __arbiter_k[16] = {${hexBytes(masked)}};`,
    `static const unsigned char __arbiter_m[16] = {${hexBytes(mask)}};`,
    'int main(int argc, char **argv) {',
    '  (void)argc; (void)argv;',
    `  int r = __arbiter_test_main(${nParams ? 'argc, argv' : ''});`,
    '  if (r != 0) return r;',
    '  char line[96];',
    '  int n = 0;',
    '  const char *hex = "0123456789abcdef";',
    "  line[n++] = '\\n'; line[n++] = 'A'; line[n++] = 'R'; line[n++] = 'B';",
    '  for (int i = 0; i < 16; i++) { unsigned b = (unsigned)(__arbiter_k[i] ^ __arbiter_m[i]); line[n++] = hex[b >> 4]; line[n++] = hex[b & 15]; }',
    '  const char *d = " done "; while (*d) line[n++] = *d++;',
    '  char num[24]; int k = 23; unsigned long c = (unsigned long)__arbiter_asserts;',
    "  do { num[--k] = (char)('0' + c % 10); c /= 10; } while (c && k > 0);",
    '  while (k < 23) line[n++] = num[k++];',
    "  line[n++] = ' ';",
    '  k = 23; c = (unsigned long)getpid();',
    "  do { num[--k] = (char)('0' + c % 10); c /= 10; } while (c && k > 0);",
    '  while (k < 23) line[n++] = num[k++];',
    "  line[n++] = '\\n';",
    '  for (int off = 0; off < n;) { long w = write(1, line + off, (unsigned long)(n - off)); if (w <= 0) return 70; off += (int)w; }',
    '  return 0;',
    '}',
    '',
  ].join('\n');
  return { source, closesFunction, secret, usesAssert: /\bassert\b/.test(blanked) };
}

/**
 * The number of passed assertions in the evidence line printed by the process with pid `pid` (the
 * program's own, RunResult.programPid), or undefined when there is no such line (a child's line,
 * with its own pid, does not count; nor does any line when the program's pid is unknown).
 */
export function cppEvidence(stdout: string, secret: string, pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  for (const m of stdout.matchAll(new RegExp(`(?:^|\\n)${secret} done (\\d+) (\\d+)\\n`, 'g'))) if (Number(m[2]) === pid) return Number(m[1]);
  return undefined;
}

/** Compiles the test unit (exit 97 when it fails: the item's fault) and prints the object. */
export function cppTestObjectScript(testFile: string): string {
  return [`"$0" "$@" -pipe -I harness -c ${testFile} -o test.o 1>&2 || exit 97`, 'exec cat test.o'].join('\n');
}

/**
 * The build script (run by /bin/sh in the sandbox with the compiler as $0 and the flags as $@):
 * the solution unit, the symbols the tests need from it (a trial link of the test object alone),
 * then every other global symbol of the solution made local, the link, and the binary on stdout.
 */
export function cppLinkScript(testObject: string, tag: string): string {
  const T = testObject;
  return [
    'set -u',
    `"$0" "$@" -pipe -c main.cpp -o s${tag}.o 1>&2 || exit 1`,
    `"$0" "$@" ${T} -o trial.out -Wl,--no-demangle 2> link.txt`,
    `sed -n "s/.*undefined reference to [\\\`']\\(.*\\)'$/\\1/p" link.txt | sort -u > need.txt`,
    `nm -g --defined-only ${T} | awk '{print $NF}' | sort -u > tdef.txt`,
    `nm -g --defined-only s${tag}.o > sdef.txt || exit 1`,
    `awk 'FILENAME == "need.txt" { keep[$0] = 1; next } FILENAME == "tdef.txt" { tdef[$0] = 1; next } { name = $NF; type = $(NF - 1); if (name in keep) next; if ((type == "W" || type == "V" || type == "u") && (name in tdef)) next; print name }' need.txt tdef.txt sdef.txt > local.txt`,
    // (objcopy fails on an empty symbol list)
    `if [ -s local.txt ]; then objcopy --localize-symbols=local.txt s${tag}.o s${tag}.l.o 1>&2 || exit 1; else cp s${tag}.o s${tag}.l.o || exit 1; fi`,
    `"$0" "$@" -pipe ${T} s${tag}.l.o -o prog 1>&2 || exit 1`,
    'exec cat prog',
  ].join('\n');
}

export interface CppTestObject {
  unit: CppTestUnit;
  object: Buffer;
}

/** The cache key of a test object: everything it is compiled from. */
export function testObjectKey(prompt: string | undefined, tests: string, flags: string[], compiler: string): string {
  return createHash('sha256')
    .update(JSON.stringify([prompt ?? null, tests, flags, compiler, CPP_ASSERT_H]))
    .digest('hex');
}

/**
 * Compiled test objects by key (bounded, least recently used first out). A failure the item causes
 * is kept too; a transient one (sandbox, abort) is not.
 */
export class TestObjectCache {
  private readonly m = new Map<string, Promise<CppTestObject | { error: string; transient: boolean }>>();
  constructor(private readonly max = 256) {}

  get(key: string, make: () => Promise<CppTestObject | { error: string; transient: boolean }>): Promise<CppTestObject | { error: string; transient: boolean }> {
    let p = this.m.get(key);
    if (p) {
      this.m.delete(key);
      this.m.set(key, p);
      return p;
    }
    p = make().then(
      (r) => {
        if ('error' in r && r.transient) this.m.delete(key);
        return r;
      },
      (e: unknown) => {
        this.m.delete(key);
        throw e;
      },
    );
    this.m.set(key, p);
    while (this.m.size > this.max) this.m.delete(this.m.keys().next().value!);
    return p;
  }
}
