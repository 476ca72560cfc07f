// `npm run bench`: runs the benchmark scripts one after the other, each in its own process, and
// prints ONE table of the ratios they measured side by side (each ratio is two things timed in
// the same command, so it means something on a shared machine; absolute rates do not):
//   math        verifyMath vs a naive last-number check (bench/math.mjs)
//   code        HumanEval through `arbiter score` vs a cold `python3 FILE` per program (bench/humaneval.mjs)
//   server      `arbiter serve` vs a bare node http server, /get_reward and /v1/score (bench/server.mjs)
//   score       `arbiter score` string_check lines/s vs parse + serialise only (bench/score.mjs)
//   advantages  `arbiter advantages` lines/s vs parse + serialise only (bench/advantages.mjs)
//   queue       /v1/score through the Redis queue, 1 and 2 workers, vs in-process (bench/queue.mjs; needs redis-server)
// A benchmark that cannot run here (no redis-server, no sandbox) or fails gets a row saying so, and
// the exit status is 1. --quick runs each in a short form (for a smoke test; its figures are rough).
// Usage: npm run bench [-- --quick] [-- --only server,math] [-- --json]   (npm run build first)
import { spawn } from 'node:child_process';
import { loadavg, availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const HELP = `Usage: npm run bench [-- --quick] [-- --only NAME,...] [-- --json]

Runs the benchmark scripts under bench/ and prints one table of the ratios each
measured side by side in one command (absolute rates depend on the machine).

  --quick         a short run of each (rough figures; what the test runs)
  --only NAMES    run only these (comma-separated): math, code, server, score, advantages, queue
  --json          print the rows as one JSON array instead of the table
  -h, --help      this text

Run \`npm run build\` first. queue needs redis-server (scripts/setup.sh); code needs python3 and the sandbox.`;
if (argv.includes('--help') || argv.includes('-h')) {
  console.log(HELP);
  process.exit(0);
}
const known = new Set(['--quick', '--only', '--json']);
for (let i = 0; i < argv.length; i++) {
  if (!known.has(argv[i])) {
    console.error(`unknown option ${argv[i]}; see \`npm run bench -- --help\``);
    process.exit(2);
  }
  if (argv[i] === '--only') i++;
}
const QUICK = argv.includes('--quick');
const JSON_OUT = argv.includes('--json');
const oi = argv.indexOf('--only');
const ONLY = oi >= 0 ? new Set(String(argv[oi + 1] ?? '').split(',')) : undefined;

/** Each benchmark: its script, arguments (full and quick), and how its output becomes rows. */
const BENCHES = [
  {
    name: 'math',
    script: 'math.mjs',
    args: [],
    quick: ['--seconds', '0.5'],
    rows: (out) => [{ measure: 'verifyMath / last-number check, GSM8K (calls/s)', ratio: num(/ratio verifyMath\/baseline on GSM8K: ([\d.]+)/, out) }],
  },
  {
    name: 'code',
    script: 'humaneval.mjs',
    args: [],
    quick: ['--rounds', '1', '--repeat', '1', '--no-cold'],
    rows: (out) => [
      {
        measure: 'HumanEval via arbiter score / cold python3 FILE (programs/s, end to end)',
        ratio: num(/ratio vs the issue's baseline \(python3 FILE\): end to end median ([\d.]+)x/, out),
      },
    ],
  },
  {
    name: 'server',
    script: 'server.mjs',
    args: ['--json'],
    quick: ['--json', '--quick'],
    rows: (out) => {
      const r = JSON.parse(out.trim().split('\n').pop());
      return Object.entries(r.endpoints).map(([path, e]) => ({
        measure: `arbiter serve / bare node http, POST ${path}, 1 sample, ${r.connections} connections (req/s; p99 ${e.arbiterP99} ms)`,
        ratio: e.ratio,
      }));
    },
  },
  {
    name: 'score',
    script: 'score.mjs',
    args: [],
    quick: ['20000'],
    rows: (out) => [
      { measure: 'arbiter score string_check / parse + serialise only (lines/s)', ratio: num(/throughput ratio score\/baseline: ([\d.]+)/, out) },
    ],
  },
  {
    name: 'advantages',
    script: 'advantages.mjs',
    args: [],
    quick: ['20000', '--requests', '50'],
    rows: (out) => [
      { measure: 'arbiter advantages grpo / parse + serialise only (lines/s)', ratio: num(/throughput ratio advantages\/baseline: ([\d.]+)/, out) },
    ],
  },
  {
    name: 'queue',
    script: 'queue.mjs',
    args: [],
    quick: ['--cheap', '2000', '--code', '20', '--batch', '500'],
    rows: (out) => {
      const rows = [];
      for (const m of out.matchAll(/^\| (\w+) \| ([^|]*?) \| [\d.]+ \| ([\d.]+)x \|/gm)) {
        if (/worker/.test(m[2]))
          rows.push({ measure: `${m[1]} grader via the Redis queue, ${m[2].replace(/^queue,\s*/, '').trim()} / in-process (samples/s)`, ratio: Number(m[3]) });
      }
      if (!rows.length) throw new Error('no queue rows in its output');
      return rows;
    },
  },
];

function num(re, out) {
  const m = re.exec(out);
  if (!m) throw new Error(`its output has no line matching ${re}`);
  return Number(m[1]);
}

function run(script, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL(script, import.meta.url)), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('close', (code, signal) => resolve({ code, signal, out, err }));
  });
}

const rows = [];
let failed = 0;
const started = performance.now();
for (const b of BENCHES) {
  if (ONLY && !ONLY.has(b.name)) continue;
  if (!JSON_OUT) process.stderr.write(`bench: ${b.name} (${b.script} ${(QUICK ? b.quick : b.args).join(' ')})...\n`);
  const t0 = performance.now();
  const r = await run(b.script, QUICK ? b.quick : b.args);
  const seconds = (performance.now() - t0) / 1000;
  let got;
  try {
    if (r.code !== 0) throw new Error(`exited with ${r.code ?? r.signal}: ${(r.err.trim().split('\n').pop() ?? '').slice(0, 200)}`);
    got = b.rows(r.out).map((x) => ({ bench: b.name, ...x, seconds }));
    for (const x of got) if (!Number.isFinite(x.ratio)) throw new Error(`no ratio for ${x.measure}`);
  } catch (e) {
    failed++;
    got = [{ bench: b.name, measure: `did not run: ${e instanceof Error ? e.message : String(e)}`, ratio: null, seconds }];
  }
  rows.push(...got);
}

if (JSON_OUT) console.log(JSON.stringify(rows));
else {
  const [l1, l5] = loadavg();
  console.log(
    `arbiter benchmarks${QUICK ? ' (--quick: short runs, rough figures)' : ''}: ${availableParallelism()} cores, load average ${l1.toFixed(2)} / ${l5.toFixed(2)} (1 / 5 min), ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const w = Math.max(7, ...rows.map((r) => r.measure.length));
  const nw = Math.max(5, ...rows.map((r) => r.bench.length));
  console.log(`| ${'bench'.padEnd(nw)} | ${'measure'.padEnd(w)} | ratio |`);
  console.log(`| ${'-'.repeat(nw)} | ${'-'.repeat(w)} | ----: |`);
  for (const r of rows) console.log(`| ${r.bench.padEnd(nw)} | ${r.measure.padEnd(w)} | ${r.ratio === null ? '  n/a' : r.ratio.toFixed(2).padStart(5)} |`);
}
if (failed) process.exitCode = 1;
