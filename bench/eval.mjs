// Benchmark: `arbiter eval` over 100,000 synthetic pairs, as a child process (peak RSS is the
// child's): (1) preference with a live pointwise grader (string_check, 200,000 grades) writing a
// records file; (2) judgebench re-scoring 100,000 recorded JudgeBench-format judgments. Memory
// must stay flat: each is also run on 20,000 pairs and the peak RSS ratio printed. Baseline in the
// same command: reading and JSON-parsing every line of the same file.
// Run: npm run build && node bench/eval.mjs
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawnSync } from 'node:child_process';
import { createReadStream, mkdirSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

if (process.argv[2] === 'child') {
  // run the CLI in this process and report its peak RSS on exit
  process.on('exit', () => process.stderr.write(`\nPEAK_RSS_KB=${process.resourceUsage().maxRSS}\n`));
  process.argv = [process.argv[0], cli, ...process.argv.slice(3)];
  await import(cli);
} else {
  const out = `${here}out`;
  mkdirSync(out, { recursive: true });
  const words = 'the a reward model judge answer because therefore value result step check'.split(' ');
  const text = (i, n) => Array.from({ length: n }, (_, k) => words[(i * 7 + k * 3) % words.length]).join(' ');
  const make = (n) => {
    const pref = `${out}/pairs-${n}.jsonl`;
    const jb = `${out}/judgebench-${n}.jsonl`;
    const cats = ['mmlu-pro-law', 'livebench-reasoning', 'livebench-math', 'livecodebench'];
    let a = '';
    let b = '';
    const pa = [];
    const pb = [];
    for (let i = 0; i < n; i++) {
      a +=
        JSON.stringify({
          question: `question ${i}: ${text(i, 20)}`,
          chosen: `${text(i, 60)} ${i % 3 ? 'ANSWER_OK' : ''}`,
          rejected: `${text(i + 1, 60)} ${i % 5 ? '' : 'ANSWER_OK'}`,
        }) + '\n';
      const d1 = i % 4 ? 'A>B' : 'B>A';
      b +=
        JSON.stringify({
          pair_id: `p${i}`,
          source: cats[i % 4],
          label: 'A>B',
          judgments: [
            { judgment: { judge_model: 'synthetic', response: `reasoning ${text(i, 40)}\n[[${d1}]]` }, decision: d1 },
            { judgment: { judge_model: 'synthetic', response: `reasoning\n[[B>A]]` }, decision: 'B>A' },
          ],
        }) + '\n';
      if (a.length > 1 << 22) {
        pa.push(a);
        a = '';
      }
      if (b.length > 1 << 22) {
        pb.push(b);
        b = '';
      }
    }
    writeFileSync(pref, pa.join('') + a);
    writeFileSync(jb, pb.join('') + b);
    return { pref, jb };
  };
  const grader = `${out}/contains.json`;
  writeFileSync(grader, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: 'ANSWER_OK', operation: 'like' }));
  const run = (args, nodeFlags = []) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), 'child', ...args], { encoding: 'utf8', maxBuffer: 1 << 26 });
    const secs = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`eval failed (${r.status}): ${r.stderr.slice(-2000)}`);
    return { secs, rssMb: Number(/PEAK_RSS_KB=(\d+)/.exec(r.stderr)?.[1]) / 1024, stdout: r.stdout };
  };
  const baseline = async (file) => {
    const t0 = performance.now();
    let n = 0;
    for await (const l of createInterface({ input: createReadStream(file) })) {
      if (!l) continue;
      JSON.parse(l);
      n++;
    }
    return n / ((performance.now() - t0) / 1000);
  };
  const small = make(20_000);
  const big = make(100_000);
  const rows = [];
  for (const [name, args] of /** @type {[string, (f: Record<string, string>) => string[]][]} */ ([
    [
      'preference, live string_check (2 grades a pair), --records',
      (f) => ['eval', 'preference', f.pref, '--grader', grader, '--records', `${out}/records.jsonl`, '--concurrency', '64', '--no-progress'],
    ],
    ['judgebench, re-score recorded judgments (parse both)', (f) => ['eval', 'judgebench', f.jb, '--no-progress']],
  ])) {
    const s = run(args(small));
    const b = run(args(big));
    rows.push({ name, s, b });
    console.log(
      `${name}:\n  100,000 pairs in ${b.secs.toFixed(1)} s = ${Math.round(100_000 / b.secs).toLocaleString('en-US')} pairs/s; peak RSS ${b.rssMb.toFixed(0)} MB (20,000 pairs: ${s.rssMb.toFixed(0)} MB; ratio ${(b.rssMb / s.rssMb).toFixed(2)})`,
    );
  }
  // bounded memory: the same 100k live run with the V8 heap capped at 48 MB must still complete
  const capped = run(['eval', 'preference', big.pref, '--grader', grader, '--records', `${out}/records.jsonl`, '--no-progress'], ['--max-old-space-size=48']);
  console.log(
    `100,000-pair preference run with the heap capped at 48 MB: completed in ${capped.secs.toFixed(1)} s, peak RSS ${capped.rssMb.toFixed(0)} MB (${/Accuracy: [\d.]+%/.exec(capped.stdout)?.[0]})`,
  );
  const base = await baseline(big.jb);
  console.log(
    `baseline: read + JSON.parse the judgebench file in this process: ${Math.round(base).toLocaleString('en-US')} lines/s (re-score ratio ${(100_000 / rows[1].b.secs / base).toFixed(2)}; includes CLI start-up)`,
  );
}
