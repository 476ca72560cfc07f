// Benchmark of the `arbiter score` line path: lines/s of the real CLI (`dist/cli/main.js score`,
// file to file, start-up included) for a string_check and a math grader over N lines with plain
// integer ids (default 200,000), beside a baseline that only parses and re-serialises each line (no
// grading), all in the same command, rounds interleaved (baseline, string_check, math, again...)
// so that each ratio is of runs on the same machine load. Then peak RSS of scoreFile (the CLI's
// code path) at N and N/5 lines: memory must not grow with input size.
// With --before DIR (the dist/ of an earlier build, e.g. the release before exact ids: see
// docs/server.md#benchmark), that build's CLI runs in the same rounds and the ratios now/before
// are printed per grader. `--json` prints one JSON object (for `npm run bench`).
// Usage: node bench/score.mjs [lines] [--rounds 3] [--before DIR] [--json]   (npm run build first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, statSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const self = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const GRADERS = {
  string_check: { type: 'string_check', input: '{{sample.output_text}}', reference: 'The answer is {{item.answer}}', operation: 'eq' },
  math: { type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' },
};

async function makeInput(file, n) {
  const ws = createWriteStream(file);
  let buf = '';
  for (let i = 0; i < n; i++) {
    buf += `{"id":${i},"item":{"answer":"${i % 10}"},"sample":{"output_text":"The answer is ${i % 7}"}}\n`;
    if (buf.length > 1 << 16) {
      if (!ws.write(buf)) await once(ws, 'drain');
      buf = '';
    }
  }
  ws.end(buf);
  await once(ws, 'finish');
}

// ---- child modes ---------------------------------------------------------------------------------
if (argv[0] === '--child') {
  const [, mode, input, output, dist] = argv;
  const t0 = performance.now();
  let count = 0;
  if (mode === 'rss') {
    // scoreFile, the CLI's code path, in this process: its peak RSS
    const { loadGrader, scoreFile, Services } = await import(pathToFileURL(join(dist, 'index.js')).href);
    const s = await scoreFile({ grader: loadGrader(GRADERS.string_check), input, output, progress: false, services: new Services() });
    count = s.count;
  } else {
    // baseline: read lines, JSON.parse, JSON.stringify, write — the I/O floor without grading
    const { readLines } = await import(pathToFileURL(join(dist, 'index.js')).href);
    const { createReadStream } = await import('node:fs');
    const ws = createWriteStream(output);
    let buf = '';
    for await (const l of readLines(createReadStream(input, { highWaterMark: 1 << 20 }))) {
      if (!l.text) continue;
      const o = JSON.parse(l.text);
      buf += JSON.stringify({ id: o.id, score: 0, valid: true }) + '\n';
      count++;
      if (buf.length > 256 * 1024) {
        if (!ws.write(buf)) await once(ws, 'drain');
        buf = '';
      }
    }
    ws.end(buf);
    await once(ws, 'finish');
  }
  const s = (performance.now() - t0) / 1000;
  process.stdout.write(JSON.stringify({ count, seconds: s, maxRssMB: process.resourceUsage().maxRSS / 1024 }) + '\n');
  process.exit(0);
}

const n = Number(argv.find((a, i) => /^\d+$/.test(a) && !/^--/.test(argv[i - 1] ?? '')) ?? 200_000);
const ROUNDS = Number(opt('rounds') ?? 3);
const JSON_OUT = argv.includes('--json');
const BEFORE_OPT = opt('before');
const BEFORE = BEFORE_OPT ? resolve(BEFORE_OPT) : undefined;
const NOW = fileURLToPath(new URL('../dist', import.meta.url));
const log = (s) => {
  if (!JSON_OUT) console.log(s);
};
const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-score-'));
const out = join(dir, 'out.jsonl');

/** One run of a dist's CLI `score` over `input`: lines/s, start-up included. */
function cli(dist, grader, input) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [join(dist, 'cli/main.js'), 'score', '--grader', join(dir, `${grader}.json`), input, '-o', out, '--no-progress'], {
    encoding: 'utf8',
  });
  const seconds = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`arbiter score (${dist}) failed: ${r.stderr}`);
  return n / seconds;
}
function child(mode, input) {
  const r = spawnSync(process.execPath, [self, '--child', mode, input, out, NOW], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (x) => Math.round(x).toLocaleString('en');

try {
  for (const [name, g] of Object.entries(GRADERS)) writeFileSync(join(dir, `${name}.json`), JSON.stringify(g));
  const big = join(dir, 'big.jsonl');
  const small = join(dir, 'small.jsonl');
  await makeInput(big, n);
  await makeInput(small, Math.round(n / 5));
  // the machine's load beside the figures: only ratios of runs under the same load mean anything
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(' ');
  log(
    `arbiter score line path: ${n} lines (${(statSync(big).size / 1e6).toFixed(1)} MB, plain integer ids), ${ROUNDS} interleaved round(s)${BEFORE ? `, before = ${BEFORE}` : ''}; load average ${load()}`,
  );
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    const b = child('baseline', big);
    const r = { baseline: b.count / b.seconds };
    for (const g of Object.keys(GRADERS)) {
      r[g] = cli(NOW, g, big);
      if (BEFORE) r[`before_${g}`] = cli(BEFORE, g, big);
    }
    rounds.push(r);
    log(
      `  round ${i + 1}: baseline ${fmt(r.baseline)} lines/s; ${Object.keys(GRADERS)
        .map((g) => `${g} ${fmt(r[g])}${BEFORE ? ` (before ${fmt(r[`before_${g}`])})` : ''}`)
        .join('; ')} lines/s`,
    );
  }
  const report = { lines: n, rounds: ROUNDS, graders: {} };
  for (const g of Object.keys(GRADERS)) {
    const e = { linesPerS: median(rounds.map((r) => r[g])), ratioToBaseline: median(rounds.map((r) => r[g] / r.baseline)) };
    if (BEFORE) {
      e.beforeLinesPerS = median(rounds.map((r) => r[`before_${g}`]));
      e.nowOverBefore = median(rounds.map((r) => r[g] / r[`before_${g}`]));
    }
    report.graders[g] = e;
    log(
      `arbiter score, ${g}: ${fmt(e.linesPerS)} lines/s (start-up included), ${e.ratioToBaseline.toFixed(2)} of parse+serialise${BEFORE ? `; now/before ${e.nowOverBefore.toFixed(2)} (median of the rounds' ratios)` : ''}`,
    );
  }
  log(`load average at the end: ${load()}`);
  // back-compat line read by `npm run bench`
  log(`throughput ratio score/baseline: ${report.graders.string_check.ratioToBaseline.toFixed(2)}`);
  const rs = child('rss', small);
  const rb = child('rss', big);
  report.rssRatio = rb.maxRssMB / rs.maxRssMB;
  log(
    `peak RSS of scoreFile: ${rs.maxRssMB.toFixed(0)} MB at N/5, ${rb.maxRssMB.toFixed(0)} MB at N: ratio ${report.rssRatio.toFixed(2)} (1.0 = does not grow with input)`,
  );
  if (JSON_OUT) console.log(JSON.stringify(report));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
