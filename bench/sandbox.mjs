// Benchmark of the code sandbox: the 164 HumanEval canonical solutions graded by the `code`
// grader through the default pool (bubblewrap), against the same driver programs run as plain
// `python3` processes with the same concurrency (no sandbox, no rlimits). Prints executions per
// second, p50/p99 per execution, the per-execution overhead and the ratio.
//   node bench/sandbox.mjs [--rounds 2] [--concurrency N] [--problems 164]
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { getGraderType, loadGrader, registerGraderType } from '../dist/core/registry.js';
import { Services } from '../dist/core/services.js';
import { code } from '../dist/graders/code/code.js';
import { PYTHON_DRIVER, driverInput, makeNonce, pythonImports } from '../dist/graders/code/harness.js';
import { runtimeFor } from '../dist/sandbox/host.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg('rounds', 2);
const concurrency = arg('concurrency', availableParallelism());
const nProblems = arg('problems', 164);

if (!getGraderType('code')) registerGraderType(code);
const data = fileURLToPath(new URL('../../shared/data/humaneval/HumanEval.jsonl.gz', import.meta.url));
const items = gunzipSync(readFileSync(data))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l))
  .slice(0, nProblems);

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};

async function pooled(n, fn) {
  let next = 0;
  const workers = Array.from({ length: n }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  });
  await Promise.all(workers);
}

// --- sandboxed: the grader, default pool -------------------------------------------------------
async function sandboxed() {
  const services = new Services({ sandboxConcurrency: concurrency });
  const g = loadGrader({ type: 'code', format: 'humaneval', prompt: '{{item.prompt}}', tests: '{{item.test}}', entry_point: '{{item.entry_point}}' });
  const lat = [];
  let failed = 0;
  // warm-up: resolves the interpreter and probes bwrap once
  await g.grade({ item: items[0], sample: { output_text: items[0].canonical_solution } }, { services });
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    await Promise.all(
      items.map(async (it) => {
        const res = await g.grade({ item: it, sample: { output_text: it.canonical_solution } }, { services });
        if (res.score !== 1) failed++;
        lat.push(res.metadata.run_ms);
      }),
    );
  }
  const wall = performance.now() - t0;
  await services.close();
  return { lat, wall, failed };
}

// --- baseline: the same driver and solution files, plain python3 processes ----------------------
async function bare() {
  const rt = await runtimeFor('python');
  if (typeof rt === 'string') throw new Error(rt);
  const root = await mkdtemp(join(tmpdir(), 'arbiter-bench-'));
  const dirs = [];
  const specs = [];
  for (const [i, it] of items.entries()) {
    const d = join(root, String(i));
    await mkdir(d);
    await writeFile(join(d, 'main.py'), PYTHON_DRIVER);
    await writeFile(join(d, 'solution.py'), it.prompt + it.canonical_solution);
    specs.push({ mode: 'humaneval', solution: 'solution.py', tests: it.test, entry_point: it.entry_point, imports: pythonImports(it.test) });
    dirs.push(d);
  }
  const runOne = (d, spec) =>
    new Promise((resolve) => {
      const t = performance.now();
      const c = spawn(rt.exe, ['-I', '-S', '-B', 'main.py'], { cwd: d, stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
      let out = '';
      c.stdout.on('data', (b) => (out += b));
      c.stderr.resume();
      c.stdin.end(driverInput(makeNonce(), spec));
      c.on('close', (code) => resolve({ ms: performance.now() - t, ok: code === 0 && out.includes(' done') }));
    });
  await runOne(dirs[0], specs[0]);
  const lat = [];
  let failed = 0;
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    await pooled(concurrency, async (_it, i) => {
      const x = await runOne(dirs[i], specs[i]);
      lat.push(x.ms);
      if (!x.ok) failed++;
    });
  }
  const wall = performance.now() - t0;
  await rm(root, { recursive: true, force: true });
  return { lat, wall, failed };
}

// Sample CPU use across the run to show whether the pool keeps the cores busy.
function cpuMeter() {
  const snap = () =>
    cpus().reduce((a, c) => ({ idle: a.idle + c.times.idle, total: a.total + Object.values(c.times).reduce((x, y) => x + y, 0) }), { idle: 0, total: 0 });
  const s0 = snap();
  return () => {
    const s1 = snap();
    return 1 - (s1.idle - s0.idle) / (s1.total - s0.total);
  };
}

console.log(`HumanEval canonical solutions: ${items.length} problems x ${rounds} rounds, concurrency ${concurrency}, ${cpus().length} cores`);
let m = cpuMeter();
const b = await bare();
const bareBusy = m();
m = cpuMeter();
const s = await sandboxed();
const sbBusy = m();
const line = (name, x, busy) =>
  `${name.padEnd(10)} ${(x.lat.length / (x.wall / 1000)).toFixed(1).padStart(7)} exec/s   p50 ${pct(x.lat, 50).toFixed(1).padStart(7)} ms   p99 ${pct(x.lat, 99).toFixed(1).padStart(7)} ms   cpu busy ${(busy * 100).toFixed(0)}%   failed ${x.failed}`;
console.log(line('no sandbox', b, bareBusy));
console.log(line('sandbox', s, sbBusy));
const p50b = pct(b.lat, 50);
const p50s = pct(s.lat, 50);
console.log(
  `overhead per execution at the median: ${(p50s - p50b).toFixed(1)} ms (ratio ${(p50s / p50b).toFixed(2)}x); throughput ratio ${(s.lat.length / s.wall / (b.lat.length / b.wall)).toFixed(2)}`,
);
