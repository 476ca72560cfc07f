// Test-time search on real data: GSM8K's recorded model solutions (4 per problem: GPT-3 6B/175B,
// fine-tuned and verifier-selected, from ../shared/data/gsm8k/example_model_solutions.jsonl) are
// replayed by a local OpenAI-compatible chat server (real HTTP, in its own process), and
// `runSearch` does majority voting over N = 1, 2, 4 of them. It prints the accuracy table, writes
// the SVG plot to bench/out/, and checks the accuracies against majority voting computed directly
// from the same solutions without the engine (the baseline, also timed: the ratio is the cost of
// generation over HTTP, answer extraction and grading).
// Usage: node bench/search-replay.mjs [--limit 1319] [--concurrency 32]   (needs `npm run build` first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const LIMIT = arg('limit', 1319);
const ORDER = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];
const dataFile = join(root, '../shared/data/gsm8k/example_model_solutions.jsonl');
const rows = readFileSync(dataFile, 'utf8')
  .trim()
  .split('\n')
  .slice(0, LIMIT)
  .map((l) => JSON.parse(l));

// the replay server: the k-th request for a question answers with its next recorded solutions
const serverSrc = `
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
const ORDER = ${JSON.stringify(ORDER)};
const sols = new Map();
for (const l of readFileSync(${JSON.stringify(dataFile)}, 'utf8').trim().split('\\n')) {
  const d = JSON.parse(l);
  sols.set(d.question, ORDER.map((k) => d[k].solution));
}
const handed = new Map();
const srv = createServer(async (req, res) => {
  let b = '';
  for await (const c of req) b += c;
  const body = JSON.parse(b);
  const q = body.messages.find((m) => m.role === 'user').content;
  const list = sols.get(q) ?? [];
  const from = handed.get(q) ?? 0;
  const n = body.n ?? 1;
  handed.set(q, from + n);
  const choices = Array.from({ length: n }, (_, i) => ({ index: i, message: { role: 'assistant', content: list[(from + i) % list.length] ?? '' }, finish_reason: 'stop' }));
  const text = JSON.stringify({ id: 'r', object: 'chat.completion', created: 0, model: body.model, choices, usage: { prompt_tokens: 50, completion_tokens: 60 * n, total_tokens: 50 + 60 * n } });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
});
srv.listen(0, '127.0.0.1', () => console.log('http://127.0.0.1:' + srv.address().port + '/v1'));
`;
const child = spawn(process.execPath, ['--input-type=module', '-e', serverSrc], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));

const { prepareSearch, runSearch, searchTable, searchPlotSvg, majorityVote, verifyMath } = await import(join(root, 'dist/index.js'));

const p = prepareSearch({
  generator: { model: 'replay', base_url: url, api_key: 'EMPTY', max_retries: 0 },
  reference: '{{item.ground_truth}}',
  methods: ['majority'],
  n: [1, 2, 4],
  concurrency: arg('concurrency', 32),
});
const t0 = performance.now();
const { report } = await runSearch(p, rows);
const engineMs = performance.now() - t0;

// baseline: the same votes computed straight from the recorded solutions, no HTTP, no engine
const t1 = performance.now();
const direct = {};
for (const n of [1, 2, 4]) {
  let ok = 0;
  for (const r of rows) {
    const cands = ORDER.slice(0, n).map((k) => ({ text: r[k].solution }));
    const v = majorityVote(cands, false);
    if (v.index >= 0 && verifyMath(cands[v.index].text, r.ground_truth).score === 1) ok++;
  }
  direct[n] = ok / rows.length;
}
const baseMs = performance.now() - t1;
child.kill();

console.log(searchTable(report));
mkdirSync(join(root, 'bench/out'), { recursive: true });
const svg = join(root, 'bench/out/search-gsm8k-majority.svg');
writeFileSync(svg, searchPlotSvg(report, 'GSM8K: majority voting over recorded GPT-3 solutions'));
console.log(`\nplot: ${svg}`);
const same = [1, 2, 4].every((n) => report.accuracy.majority[n] === direct[n]);
console.log(
  `direct votes (baseline): ${[1, 2, 4].map((n) => `N=${n} ${(100 * direct[n]).toFixed(1)}%`).join(', ')} — ${same ? 'identical to the engine' : 'DIFFERENT from the engine'}`,
);
console.log(
  `engine: ${rows.length} problems in ${(engineMs / 1000).toFixed(2)} s (${((rows.length * 3) / (engineMs / 1000)).toFixed(0)} requests/s, 3 per problem); baseline ${(baseMs / 1000).toFixed(2)} s; ratio ${(engineMs / baseMs).toFixed(2)}x`,
);
if (!same) process.exit(1);
