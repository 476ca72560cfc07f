// Benchmark of each sandbox language: a stdin-echo program compiled (or transpiled) and run in the
// sandbox (compileProgram + runProgram, one at a time), against the same toolchain commands run as
// plain processes in a temporary directory (no sandbox, no rlimits) in the same command. Prints,
// per language, the median compile and run times of both and the ratios.
//   node bench/languages.mjs [--rounds 3] [--languages c,go,...]
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeFor } from '../dist/sandbox/host.js';
import { SandboxPool } from '../dist/sandbox/index.js';
import { compileProgram, GO_ENV, runProgram } from '../dist/sandbox/languages.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const rounds = Number(arg('rounds', 3));
const only = arg('languages', '');

const HELLO = {
  python: ['main.py', 'print(input())\n'],
  javascript: ['main.js', "console.log(require('fs').readFileSync(0, 'utf8').trim());\n"],
  typescript: ['main.ts', "const s: string = require('fs').readFileSync(0, 'utf8').trim();\nconsole.log(s);\n"],
  c: ['main.c', '#include <stdio.h>\nint main(void) { char b[64]; if (!fgets(b, sizeof b, stdin)) return 1; fputs(b, stdout); return 0; }\n'],
  cpp: ['main.cpp', '#include <iostream>\n#include <string>\nint main() { std::string s; std::getline(std::cin, s); std::cout << s << "\\n"; }\n'],
  go: [
    'main.go',
    'package main\n\nimport (\n\t"bufio"\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\ts, _ := bufio.NewReader(os.Stdin).ReadString(10)\n\tfmt.Print(s)\n}\n',
  ],
  rust: ['main.rs', 'fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap(); print!("{}", s); }\n'],
  java: [
    'Main.java',
    'public class Main { public static void main(String[] a) throws Exception { System.out.println(new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine()); } }\n',
  ],
  bash: ['main.sh', 'read -r s; echo "$s"\n'],
};

const TRANSPILE =
  "const ts = require(process.argv[1]); const fs = require('fs'); fs.writeFileSync('main.js', ts.transpileModule(fs.readFileSync('main.ts', 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 } }).outputText);";

/** The same commands as the recipes, unsandboxed: [compile argv | null, run argv]. */
/** @returns {[string[] | null, string[]]} the compile argv (null for interpreted languages) and the run argv */
function plain(lang, rt) {
  switch (lang) {
    case 'python':
      return [null, [rt.exe, '-I', '-S', '-B', 'main.py']];
    case 'javascript':
      return [null, [rt.exe, 'main.js']];
    case 'bash':
      return [null, [rt.exe, 'main.sh']];
    case 'typescript':
      return [
        [rt.exe, '-e', TRANSPILE, rt.aux.typescript],
        [rt.exe, 'main.js'],
      ];
    case 'c':
      return [[rt.exe, '-std=gnu11', '-O2', '-pipe', '-o', 'prog', 'main.c', '-lm'], ['./prog']];
    case 'cpp':
      return [[rt.exe, '-std=c++17', '-O2', '-pipe', '-o', 'prog', 'main.cpp'], ['./prog']];
    case 'go':
      return [[rt.exe, 'build', '-o', 'prog', 'main.go'], ['./prog']];
    case 'rust':
      return [[rt.exe, '--edition=2021', '-O', '-o', 'prog', 'main.rs'], ['./prog']];
    case 'java':
      return [
        [rt.exe, '-J-Xmx1024m', '-J-XX:+UseSerialGC', '-encoding', 'UTF-8', '-d', '.', 'Main.java'],
        [rt.aux.java, '-Xmx512m', '-XX:+UseSerialGC', '-XX:-UsePerfData', '-Xshare:auto', '-ea', '-cp', '.', 'Main'],
      ];
  }
  throw new Error(`no plain baseline for ${lang}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (t) => `${Math.round(t)} ms`.padStart(8);

const pool = new SandboxPool({ concurrency: 1 });
const langs = only ? only.split(',') : Object.keys(HELLO);
console.log(`per language, median of ${rounds} rounds, one at a time: compile (or transpile) and one run of a stdin echo`);
console.log(
  `${'language'.padEnd(11)} ${'sandbox compile'.padStart(15)} ${'run'.padStart(8)}   ${'plain compile'.padStart(13)} ${'run'.padStart(8)}   compile ratio  run ratio`,
);
for (const lang of langs) {
  const rt = await runtimeFor(lang);
  if (typeof rt === 'string') {
    console.log(`${lang.padEnd(11)} missing: ${rt}`);
    continue;
  }
  const [file, src] = HELLO[lang];
  const sc = [];
  const sr = [];
  const pc = [];
  const pr = [];
  for (let i = 0; i < rounds; i++) {
    let t = performance.now();
    const c = await compileProgram(pool, lang, src);
    sc.push(performance.now() - t);
    if (!c.ok) throw new Error(`${lang}: ${c.message}`);
    t = performance.now();
    const r = await runProgram(pool, c.program, { stdin: 'x\n' });
    sr.push(performance.now() - t);
    if (r.stdout !== 'x\n') throw new Error(`${lang}: ${r.status} ${r.stderr}`);
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-lang-'));
    try {
      writeFileSync(join(dir, file), src);
      const env = { PATH: process.env.PATH, HOME: dir, ...(lang === 'go' ? { ...GO_ENV, GOCACHE: join(dir, '.cache'), GOPATH: join(dir, 'go') } : {}) };
      const [compile, runArgv] = plain(lang, rt);
      t = performance.now();
      if (compile) execFileSync(compile[0], compile.slice(1), { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] });
      pc.push(performance.now() - t);
      t = performance.now();
      const out = execFileSync(runArgv[0], runArgv.slice(1), { cwd: dir, env, input: 'x\n' }).toString();
      pr.push(performance.now() - t);
      if (out !== 'x\n') throw new Error(`${lang} plain: ${out}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const ratio = (a, b) => (b > 1 ? `${(a / b).toFixed(2)}x` : 'n/a').padStart(13);
  console.log(
    `${lang.padEnd(11)} ${ms(median(sc)).padStart(15)} ${ms(median(sr))}   ${ms(median(pc)).padStart(13)} ${ms(median(pr))}   ${ratio(median(sc), median(pc))} ${ratio(median(sr), median(pr)).padStart(10)}`,
  );
}
pool.close();
