// Benchmark: `string_check` over N lines (default 1,000,000) from a file to a file through the same
// code path as `arbiter score` (scoreFile). Prints lines/s and peak RSS, for N and N/5 lines (memory
// must not grow with input size), and a baseline that only parses and re-serialises each line
// (no grading) in the same command, with the ratio.
// Usage: node bench/score.mjs [lines]
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, statSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const dist = new URL('../dist/index.js', import.meta.url).href;

async function makeInput(file, n) {
  const ws = createWriteStream(file);
  for (let i = 0; i < n; i++) {
    const line = `{"id":${i},"item":{"answer":"${i % 10}"},"sample":{"output_text":"The answer is ${i % 7}"}}\n`;
    if (!ws.write(line)) await once(ws, 'drain');
  }
  ws.end();
  await once(ws, 'finish');
}

async function child(mode, input, output) {
  const t0 = performance.now();
  let count = 0;
  if (mode === 'score') {
    const { loadGrader, scoreFile, Services } = await import(dist);
    const grader = loadGrader({ type: 'string_check', input: '{{sample.output_text}}', reference: 'The answer is {{item.answer}}', operation: 'eq' });
    const s = await scoreFile({ grader, input, output, progress: false, services: new Services() });
    count = s.count;
  } else {
    // baseline: read lines, JSON.parse, JSON.stringify, write — the I/O floor without grading
    const { readLines } = await import(dist);
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
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  const n = Number(process.argv[2] ?? 1_000_000);
  const dir = join(tmpdir(), 'arbiter-bench-score');
  mkdirSync(dir, { recursive: true });
  const run = (mode, input) => {
    const r = spawnSync(process.execPath, [self, '--child', mode, input, join(dir, `${mode}.out.jsonl`)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout);
  };
  const small = join(dir, 'small.jsonl');
  const big = join(dir, 'big.jsonl');
  await makeInput(small, Math.round(n / 5));
  await makeInput(big, n);
  console.log(`input: ${n} lines, ${(statSync(big).size / 1e6).toFixed(1)} MB`);
  const base = run('baseline', big);
  const smallRun = run('score', small);
  const bigRun = run('score', big);
  const fmt = (x) =>
    `${x.count} lines in ${x.seconds.toFixed(2)} s = ${Math.round(x.count / x.seconds).toLocaleString('en')} lines/s, peak RSS ${x.maxRssMB.toFixed(0)} MB`;
  console.log(`baseline (parse+serialise only): ${fmt(base)}`);
  console.log(`arbiter score, string_check, N/5: ${fmt(smallRun)}`);
  console.log(`arbiter score, string_check, N:   ${fmt(bigRun)}`);
  console.log(`throughput ratio score/baseline: ${(base.seconds / bigRun.seconds).toFixed(2)}`);
  console.log(`peak memory ratio N vs N/5: ${(bigRun.maxRssMB / smallRun.maxRssMB).toFixed(2)} (1.0 = does not grow with input)`);
  rmSync(dir, { recursive: true, force: true });
}
