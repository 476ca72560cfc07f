// Throughput through the Redis queue vs in-process grading, in one run, all real processes on
// loopback: a redis-server (no persistence), `arbiter serve` with and without --queue, and 1, 2, …
// `arbiter worker` processes. Two graders:
//  1. cheap: string_check on GSM8K model solutions (the queue's own overhead per sample dominates);
//  2. code: a sandboxed python `code` grader (asserts), where grading dominates and workers add cores.
// Samples go as /v1/score batches, several requests at once; figures: samples/s, the ratio to
// in-process, and the queue's added cost per sample. Every run is bounded by its sample count.
// Usage: node bench/queue.mjs [--workers 1,2] [--cheap 100000] [--code 600] [--batch 2000] [--parallel 4]
// (run `npm run build` first; needs redis-server (scripts/setup.sh) and, for the code grader, bubblewrap)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const CLI = here('../dist/cli/main.js');
const WORKERS = String(arg('workers', '1,2')).split(',').map(Number);
const CHEAP = Number(arg('cheap', 100_000));
const CODE = Number(arg('code', 600));
const BATCH = Number(arg('batch', 2000));
const PARALLEL = Number(arg('parallel', 4));

const dir = mkdtempSync(join(tmpdir(), 'arbiter-bench-queue-'));
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const freePort = () =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = /** @type {import('node:net').AddressInfo} */ (s.address()).port;
      s.close(() => resolve(p));
    });
  });

/** Spawns a process and resolves once `re` shows on the stream. */
function start(cmd, args, stream, re) {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(c);
    let buf = '';
    c[stream].setEncoding('utf8').on('data', (d) => {
      buf += d;
      const m = re.exec(buf);
      if (m) resolve({ child: c, match: m });
    });
    c[stream === 'stdout' ? 'stderr' : 'stdout'].resume();
    c.on('exit', (code) => reject(new Error(`${cmd} ${args.slice(0, 2).join(' ')} exited ${code}: ${buf.slice(-500)}`)));
  });
}

async function stop(p) {
  if (!p || p.child.exitCode !== null) return;
  const done = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await done;
  children.delete(p.child);
}

// ---- data -----------------------------------------------------------------------------------------
const rows = readFileSync(here('../../shared/data/gsm8k/example_model_solutions.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const gsm = [];
for (const r of rows) {
  const label = String(/A: (.*)$/.exec(r.ground_truth.trim())?.[1]).trim();
  for (const f of ['6b_finetuning', '175b_finetuning']) gsm.push({ label, solution: r[f].solution });
}
const cheapSample = (i) => {
  const d = gsm[i % gsm.length];
  return { id: i, item: { label: d.label }, sample: { output_text: d.solution } };
};
const codeSample = (i) => ({
  id: i,
  item: { tests: [`assert f(${i}) == ${i * 2}`, 'assert f(0) == 0'] },
  sample: { output_text: '```python\ndef f(x):\n    return x * 2\n```' },
});

const graders = {
  cheap: { type: 'string_check', name: 'cheap', input: '{{sample.output_text}}$$', reference: 'A: {{item.label}}$$', operation: 'like' },
  code: { type: 'code', name: 'code', language: 'python', format: 'asserts', tests: '{{item.tests}}' },
};
const files = {};
for (const [k, v] of Object.entries(graders)) {
  files[k] = join(dir, `${k}.json`);
  writeFileSync(files[k], JSON.stringify(v));
}

/** Sends n samples in batches, PARALLEL requests at once; returns samples/s and checks every result. */
async function drive(url, grader, make, n, batch) {
  const bodies = [];
  for (let from = 0; from < n; from += batch)
    bodies.push(JSON.stringify({ grader, samples: Array.from({ length: Math.min(batch, n - from) }, (_, i) => make(from + i)) }));
  let next = 0;
  let invalid = 0;
  let got = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      while (next < bodies.length) {
        const b = bodies[next++];
        const res = await fetch(url + '/v1/score', { method: 'POST', headers: { 'content-type': 'application/json' }, body: b });
        const j = /** @type {{ results: { valid: boolean }[] }} */ (await res.json());
        if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${JSON.stringify(j).slice(0, 300)}`);
        for (const r of j.results) if (!r.valid) invalid++;
        got += j.results.length;
      }
    }),
  );
  const s = (performance.now() - t0) / 1000;
  if (got !== n) throw new Error(`got ${got} results for ${n} samples`);
  return { rate: n / s, invalid };
}

// ---- run ------------------------------------------------------------------------------------------
const port = await freePort();
const redis = await start(
  'redis-server',
  ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
  'stdout',
  /Ready to accept connections/,
);
const url = `redis://127.0.0.1:${port}`;
const serveArgs = [
  '--grader',
  files.cheap,
  '--grader',
  files.code,
  '--port',
  '0',
  '--deadline-ms',
  '600000',
  '--max-batch',
  String(Math.max(BATCH, 4096)),
  '--body-limit',
  String(256 * 1024 * 1024),
];

console.log(
  `arbiter queue benchmark: ${availableParallelism()} cores, ${CHEAP} cheap samples, ${CODE} code samples, batches of ${BATCH} (code: 50), ${PARALLEL} requests at once`,
);
const table = [];
for (const [grader, make, n, batch] of /** @type {[string, (i: number) => object, number, number][]} */ ([
  ['cheap', cheapSample, CHEAP, BATCH],
  ['code', codeSample, CODE, 50],
])) {
  if (n <= 0) continue;
  // in-process baseline
  const local = await start(process.execPath, [CLI, 'serve', ...serveArgs], 'stderr', /listening on (http:\/\/\S+)/);
  await drive(local.match[1], grader, make, Math.min(n, batch), batch); // warm-up
  const base = await drive(local.match[1], grader, make, n, batch);
  await stop(local);
  table.push({ grader, setup: 'in-process', rate: base.rate, invalid: base.invalid, ratio: 1 });
  for (const w of WORKERS) {
    const srv = await start(process.execPath, [CLI, 'serve', ...serveArgs, '--queue', url], 'stderr', /listening on (http:\/\/\S+)/);
    const ws = [];
    for (let i = 0; i < w; i++)
      ws.push(await start(process.execPath, [CLI, 'worker', '--queue', url, '--grader', files.cheap, '--grader', files.code], 'stderr', / serving /));
    await drive(srv.match[1], grader, make, Math.min(n, batch), batch); // warm-up: graders built, batch size learnt
    const r = await drive(srv.match[1], grader, make, n, batch);
    await Promise.all(ws.map(stop));
    await stop(srv);
    table.push({
      grader,
      setup: `queue, ${w} worker${w > 1 ? 's' : ''}`,
      rate: r.rate,
      invalid: r.invalid,
      ratio: r.rate / base.rate,
      overheadUs: (1 / r.rate - 1 / base.rate) * 1e6,
    });
  }
}
await stop(redis);

console.log('\n| grader | setup | samples/s | vs in-process | added per sample | invalid |');
console.log('|---|---|---|---|---|---|');
for (const t of table) {
  const over = t.overheadUs === undefined ? '' : `${t.overheadUs >= 0 ? '+' : ''}${t.overheadUs.toFixed(1)} µs`;
  console.log(`| ${t.grader} | ${t.setup} | ${t.rate.toFixed(0)} | ${t.ratio.toFixed(2)}x | ${over} | ${t.invalid} |`);
}
process.exit(0);
