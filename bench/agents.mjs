// Benchmark of the tau_bench grader on one core: grades per second and per-grade latency (p50 /
// p99) over the gold trajectories of all 165 test tasks (50 airline, 115 retail), as OpenAI chat
// messages; the first pass (data loading, gold replays cached) separately; with report_hashes (two
// full sha256 data hashes per grade, what tau-bench itself computes). Baselines in the same
// process: the agent's tool calls replayed alone (no gold, no comparison, no credit), and a
// string_check grader over the same records (the runner's own overhead).
// Usage: node bench/agents.mjs [--seconds 3]   (run `npm run build` first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { grade, loadGrader, Services } from '../dist/index.js';
import { goldMessages } from '../dist/envs/tau_bench/gold.js';
import { loadBase, TauDb } from '../dist/envs/tau_bench/db.js';
import { loadTasks, readTask, runAction, TAU_DOMAINS } from '../dist/envs/tau_bench/domain.js';
import { readMessages } from '../dist/agents/trajectory.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg('seconds', 3);
const services = new Services();

const t0 = performance.now();
const records = [];
for (const domain of /** @type {const} */ (['airline', 'retail'])) {
  for (const task of loadTasks(domain)) {
    records.push({ domain, item: task, sample: { messages: JSON.parse(JSON.stringify(goldMessages(TAU_DOMAINS[domain], readTask(task)))) } });
  }
}
const prepMs = performance.now() - t0;
const graders = {
  plain: Object.fromEntries(['airline', 'retail'].map((d) => [d, loadGrader({ type: 'tau_bench', domain: d })])),
  hashes: Object.fromEntries(['airline', 'retail'].map((d) => [d, loadGrader({ type: 'tau_bench', domain: d, report_hashes: true })])),
};
const sc = loadGrader({ type: 'string_check', input: '{{item.instruction}}', reference: '{{item.user_id}}', operation: 'like' });

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function pass(fn) {
  const lat = [];
  for (const r of records) {
    const a = performance.now();
    await fn(r);
    lat.push(performance.now() - a);
  }
  return lat;
}

async function measure(name, fn) {
  const lats = [];
  const start = performance.now();
  let n = 0;
  while (performance.now() - start < SECONDS * 1000) {
    lats.push(...(await pass(fn)));
    n += records.length;
  }
  const s = (performance.now() - start) / 1000;
  const rate = n / s;
  console.log(`${name.padEnd(34)} ${rate.toFixed(0).padStart(8)} grades/s   p50 ${pct(lats, 50).toFixed(3)} ms   p99 ${pct(lats, 99).toFixed(3)} ms`);
  return rate;
}

const checkOk = async (g) => {
  let ok = 0;
  for (const r of records) if ((await grade(g[r.domain], r, { services })).score === 1) ok++;
  return ok;
};

const c0 = performance.now();
const firstOk = await checkOk(graders.plain);
const coldMs = performance.now() - c0;
console.log(
  `gold trajectories: ${records.length} (built in ${prepMs.toFixed(0)} ms); first pass (loads the databases, replays and caches every gold): ${coldMs.toFixed(0)} ms, ${firstOk}/${records.length} score 1`,
);

const rate = await measure('tau_bench (warm)', (r) => grade(graders.plain[r.domain], r, { services }));
await checkOk(graders.hashes);
const hashRate = await measure('tau_bench, report_hashes', (r) => grade(graders.hashes[r.domain], r, { services }));
const replayRate = await measure('baseline: replay tool calls only', (r) => {
  const db = new TauDb(loadBase(r.domain));
  for (const t of readMessages(r.sample.messages).turns) for (const a of t.actions) if (a.name !== 'respond') runAction(TAU_DOMAINS[r.domain], db, a);
});
const scRate = await measure('baseline: string_check', (r) => grade(sc, r, { services }));
console.log(
  `ratio tau_bench / replay-only: ${(rate / replayRate).toFixed(2)}; tau_bench / string_check: ${(rate / scRate).toFixed(4)}; report_hashes costs ${(rate / hashRate).toFixed(1)}x`,
);
await services.close();
