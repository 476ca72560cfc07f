// Load benchmark of `arbiter serve` on loopback, server in a child process, load from autocannon:
//  1. POST /get_reward (one GSM8K solution per request, string_check grader) at 64 connections,
//     against a trivial fastify handler (same framework, same JSON body parsing) as the baseline:
//     requests/s, p50/p99 latency, and the ratio arbiter / baseline.
//  2. Batch POST /v1/score throughput vs `arbiter score` (the CLI) on the same grader and data.
// Every run is bounded by a request count and a duration.
// Usage: node bench/server.mjs [--connections 64] [--seconds 10] [--amount 300000]
//                              [--samples 100000] [--batch 1000] [--parallel 4]
// (run `npx tsc -p .` first; the figures depend on how busy the machine's cores are)
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const GRADER = { type: 'string_check', name: 'answer_check', input: '{{sample.output_text}}$$', reference: 'A: {{item.label}}$$', operation: 'like' };

// ---- child mode: run one server and print its URL ------------------------------------------------
if (process.argv[2] === '--child') {
  const kind = process.argv[3];
  if (kind === 'baseline') {
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ logger: false });
    app.post('/get_reward', async (req) => {
      const body = /** @type {{ query?: unknown }} */ (req.body);
      const n = Array.isArray(body?.query) ? body.query.length : 0;
      const r = new Array(n).fill(1);
      return { rewards: r, scores: r, extra_logs: {} };
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    process.stdout.write(`URL http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (app.server.address()).port}\n`);
  } else {
    const { loadGrader } = await import('../dist/index.js');
    const { createServer } = await import('../dist/server/index.js');
    const server = createServer({ graders: { answer_check: loadGrader(GRADER) }, maxQueue: 200_000, maxBatch: 100_000, bodyLimit: 256 * 1024 * 1024 });
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    process.stdout.write(`URL ${url}\n`);
    process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
  }
  await new Promise(() => {});
}

const CONNECTIONS = arg('connections', 64);
const SECONDS = arg('seconds', 10);
const AMOUNT = arg('amount', 300_000);
const SAMPLES = arg('samples', 100_000);
const BATCH = arg('batch', 1000);
const PARALLEL = arg('parallel', 4);

// GSM8K model solutions (4 models x 1,319 problems) with their gold answers
const rows = readFileSync(here('../../shared/data/gsm8k/example_model_solutions.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const data = [];
for (const r of rows) {
  const label = String(/A: (.*)$/.exec(r.ground_truth.trim())?.[1]).trim();
  for (const f of ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'])
    data.push({ question: r.question, label, solution: r[f].solution });
}

function startChild(kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [here('./server.mjs'), '--child', kind], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /URL (\S+)/.exec(out);
      if (m)
        resolve({
          url: m[1],
          stop: () =>
            new Promise((r) => {
              child.on('exit', r);
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        });
    });
    child.on('exit', (c) => reject(new Error(`${kind} server exited with ${c}`)));
  });
}

const chatml = (q) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
const requests = data.slice(0, 256).map((d) => ({
  method: 'POST',
  path: '/get_reward',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ query: [chatml(d.question) + d.solution + '<|im_end|>'], prompts: [chatml(d.question)], labels: [d.label] }),
}));

async function load(url) {
  // duration bounds the time; maxOverallRequests bounds the count (autocannon's `amount` would
  // override the duration)
  const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, maxOverallRequests: AMOUNT, requests });
  const bad = r.non2xx + r.errors + r.timeouts;
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, total: r.requests.total, bad };
}

const fmt = (x) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });
console.log(`arbiter serve benchmark: ${CONNECTIONS} connections, <= ${SECONDS} s and <= ${fmt(AMOUNT)} requests per run`);

// ---- 1. /get_reward vs trivial handler -------------------------------------------------------------
const results = {};
for (const kind of ['baseline', 'arbiter']) {
  const s = await startChild(kind);
  await autocannon({ url: s.url, connections: CONNECTIONS, duration: 5, maxOverallRequests: 3000, requests }); // warm-up
  results[kind] = await load(s.url);
  await s.stop();
  const r = results[kind];
  console.log(
    `${kind === 'baseline' ? 'trivial fastify handler' : 'arbiter /get_reward     '}: ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms (${fmt(r.total)} requests, ${r.bad} failed)`,
  );
}
console.log(`ratio arbiter / trivial handler: ${(results.arbiter.rps / results.baseline.rps).toFixed(2)} (req/s)`);

// ---- 2. batch /v1/score vs the CLI -------------------------------------------------------------------
const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-'));
const samples = Array.from({ length: SAMPLES }, (_, i) => {
  const d = data[i % data.length];
  return { id: i, item: { label: d.label }, sample: { output_text: d.solution } };
});
writeFileSync(join(dir, 'grader.json'), JSON.stringify(GRADER));
writeFileSync(join(dir, 'in.jsonl'), samples.map((s) => JSON.stringify(s)).join('\n') + '\n');

const t0 = performance.now();
const cli = spawnSync(
  process.execPath,
  [here('../dist/cli/main.js'), 'score', '--grader', join(dir, 'grader.json'), join(dir, 'in.jsonl'), '-o', join(dir, 'out.jsonl'), '--no-progress'],
  { encoding: 'utf8' },
);
const cliS = (performance.now() - t0) / 1000;
if (cli.status !== 0) throw new Error(`arbiter score failed: ${cli.stderr}`);
const cliLines = readFileSync(join(dir, 'out.jsonl'), 'utf8').trim().split('\n').length;

const srv = await startChild('arbiter');
const bodies = [];
for (let i = 0; i < SAMPLES; i += BATCH) bodies.push(JSON.stringify({ samples: samples.slice(i, i + BATCH) }));
let next = 0;
let graded = 0;
const t1 = performance.now();
await Promise.all(
  Array.from({ length: PARALLEL }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const res = await fetch(`${srv.url}/v1/score`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const out = /** @type {{ results: unknown[] }} */ (await res.json());
      if (res.status !== 200) throw new Error(`/v1/score: ${res.status} ${JSON.stringify(out).slice(0, 200)}`);
      graded += out.results.length;
    }
  }),
);
const srvS = (performance.now() - t1) / 1000;
await srv.stop();
rmSync(dir, { recursive: true, force: true });

const cliRate = cliLines / cliS;
const srvRate = graded / srvS;
console.log(`arbiter score (CLI)   : ${fmt(cliRate)} samples/s (${fmt(cliLines)} samples in ${cliS.toFixed(2)} s, process start included)`);
console.log(`/v1/score batches     : ${fmt(srvRate)} samples/s (${fmt(graded)} samples in ${srvS.toFixed(2)} s; batches of ${BATCH}, ${PARALLEL} in flight)`);
console.log(`ratio /v1/score / CLI : ${(srvRate / cliRate).toFixed(2)}`);
