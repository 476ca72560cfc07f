// Load benchmark of `arbiter serve` against a bare Node `http` server doing no work, on loopback,
// each server in its own child process:
//  1. POST /get_reward and POST /v1/score with one small sample per request (a GSM8K solution,
//     string_check grader) at 16 connections. The bare server reads each body and answers a fixed
//     JSON reply. Rounds are interleaved (bare, arbiter, bare, arbiter, ...) so both see the same
//     machine load; each round's ratio is arbiter req/s / bare req/s, and the median ratio and the
//     worst p99 of arbiter's rounds are reported.
//  2. (--batch) Batch POST /v1/score throughput vs `arbiter score` (the CLI) on the same grader and data.
// The load generator is wrk (a C client; scripts/setup.sh installs it) driven by a Lua script that
// cycles through the request bodies, else autocannon in this process (`--load autocannon`). Where
// taskset exists and there are 2 CPUs or more, the servers run on the last CPU and the load
// generator on the first (`--no-pin` lets the scheduler place them): on 2 cores a client that
// shares the server's core, or that the scheduler moves onto it now and then, makes the server's
// cost per request vary by 2x from round to round (caches shared with the client), and a
// JavaScript client on one core cannot saturate the bare server, which turns the ratio into the
// client's speed. Pinned with wrk, each server's core is saturated (its CPU per request is printed).
// `--json` prints one JSON object (for `arbiter bench`) instead of the text lines.
// `--profile DIR` runs the arbiter server under `node --cpu-prof --cpu-prof-dir DIR`.
// `--fastify` adds a third server, a trivial fastify route answering the same fixed reply (the framework's own cost).
// `--before DIR` adds the arbiter server of another build (DIR is its dist/, e.g. the previous release's) to
// every round, and prints now/before per endpoint: what a change bought, under the same load.
// DIR's imports must resolve where it sits: build the other commit in a git worktree under node_modules/.cache/.
// Each arbiter server runs under the node flags its build's `arbiter serve` adds (SERVE_NODE_FLAGS in
// src/cli/node-flags.ts: a larger young generation), as `arbiter serve` would run it.
// `--node-options "..."` passes more V8/node flags to this build's arbiter server, not to --before's (with --before dist,
// now/before is what the flags buy).
// Usage: node bench/server.mjs [--connections 16] [--seconds 3] [--rounds 5] [--quick] [--batch] [--fastify]
//                              [--before DIR] [--load wrk|autocannon] [--no-pin] [--node-options FLAGS]
//                              [--samples 100000] [--batch-size 1000] [--parallel 4] [--json]
// (run `npm run build` first; only the ratios mean something on a shared machine)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawn, spawnSync } from 'node:child_process';
import { createServer as createHttpServer } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
// the servers' child processes do not load autocannon
const flag = (name) => argv.includes(`--${name}`);
const str = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const num = (name, dflt) => Number(str(name, dflt));
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const GRADER = { type: 'string_check', name: 'answer_check', input: '{{sample.output_text}}$$', reference: 'A: {{item.label}}$$', operation: 'like' };

// ---- child mode: run one server and print its URL ------------------------------------------------
if (argv[0] === '--child') {
  const kind = argv[1];
  if (kind === 'bare') {
    // no parsing, no routing: read the body, answer a fixed reply of /get_reward's shape
    const reply = Buffer.from('{"rewards":[1.0],"scores":[1.0],"extra_logs":{"arbiter_invalid":[0.0]}}');
    const server = createHttpServer((req, res) => {
      req.on('data', () => {});
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': reply.length });
        res.end(reply);
      });
    });
    server.listen(0, '127.0.0.1', () =>
      process.stdout.write(`URL http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}\n`),
    );
    process.on('SIGTERM', () => process.exit(0));
  } else if (kind === 'fastify') {
    // fastify with its JSON body parser and one route answering the same fixed reply: the framework's own cost
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ logger: false });
    const reply = '{"rewards":[1.0],"scores":[1.0],"extra_logs":{"arbiter_invalid":[0.0]}}';
    for (const path of ['/get_reward', '/v1/score']) app.post(path, async (_req, res) => res.type('application/json; charset=utf-8').send(reply));
    await app.listen({ host: '127.0.0.1', port: 0 });
    process.stdout.write(`URL http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (app.server.address()).port}\n`);
    process.on('SIGTERM', () => process.exit(0));
  } else {
    // argv[2]: another build's dist/ (--before), else this one's
    const dist = argv[2] ? pathToFileURL(`${resolve(argv[2])}/`).href : new URL('../dist/', import.meta.url).href;
    const { loadGrader } = await import(`${dist}index.js`);
    const { createServer } = await import(`${dist}server/index.js`);
    const server = createServer({ graders: { answer_check: loadGrader(GRADER) }, maxQueue: 200_000, maxBatch: 100_000, bodyLimit: 256 * 1024 * 1024 });
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    process.stdout.write(`URL ${url}\n`);
    // exit through process.exit so that --cpu-prof writes its profile
    process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
  }
  await new Promise(() => {});
}

const QUICK = flag('quick');
const JSON_OUT = flag('json');
const CONNECTIONS = num('connections', 16);
const SECONDS = num('seconds', QUICK ? 1 : 3);
const ROUNDS = num('rounds', QUICK ? 1 : 5);
const PROFILE = str('profile', undefined);
const NODE_OPTIONS = str('node-options', '').split(' ').filter(Boolean);
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
const LOAD = str('load', has('wrk') ? 'wrk' : 'autocannon');
if (LOAD !== 'wrk' && LOAD !== 'autocannon') throw new Error(`--load: wrk or autocannon, got ${LOAD}`);
const CPUS = availableParallelism();
const PIN = !flag('no-pin') && CPUS >= 2 && has('taskset');
const SERVER_CPU = String(CPUS - 1);
const LOAD_CPU = '0';
// the servers' child processes do not load autocannon
const autocannon = LOAD === 'autocannon' ? (await import('autocannon')).default : undefined;
// autocannon runs in this process: pin it (all its threads) to the load generator's CPU
if (PIN && LOAD === 'autocannon') spawnSync('taskset', ['-a', '-p', '-c', LOAD_CPU, String(process.pid)], { stdio: 'ignore' });
const BEFORE = str('before', undefined);
const log = (s) => {
  if (!JSON_OUT) console.log(s);
};

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

/** Every server child started; killed when this process exits however it ends (a failed start included), so none outlives it. */
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/** The node flags `arbiter serve` of the build in `dist` runs under (src/cli/node-flags.ts; none for a build without them). */
async function serveFlags(dist) {
  try {
    return [...(await import(pathToFileURL(join(resolve(dist), 'cli/node-flags.js')).href)).SERVE_NODE_FLAGS];
  } catch {
    return [];
  }
}

async function startChild(kind, dist) {
  // an arbiter server runs as `arbiter serve` would: under its build's node flags (then --node-options, for this build)
  const nodeArgs =
    kind !== 'arbiter'
      ? []
      : dist
        ? await serveFlags(dist)
        : [...(await serveFlags(here('../dist'))), ...NODE_OPTIONS, ...(PROFILE ? ['--cpu-prof', '--cpu-prof-dir', PROFILE] : [])];
  const args = [...nodeArgs, here('./server.mjs'), '--child', kind, ...(dist ? [dist] : [])];
  return new Promise((resolve, reject) => {
    if (kind === 'arbiter') log(`  ${dist ? `before (${dist})` : 'arbiter'} server: node ${nodeArgs.join(' ') || '(no flags)'}`);
    // taskset execs node: the child's pid is the server's (its CPU time is read from /proc)
    const child = PIN
      ? spawn('taskset', ['-c', SERVER_CPU, process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      out += d;
      const m = /URL (\S+)/.exec(out);
      if (m)
        resolve({
          url: m[1],
          pid: child.pid,
          stop: () =>
            new Promise((r) => {
              child.removeAllListeners('exit');
              child.on('exit', r);
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5000).unref();
            }),
        });
    });
    child.on('exit', (c) => {
      children.delete(child);
      reject(new Error(`${kind} server exited with ${c}`));
    });
  });
}

const chatml = (q) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
const headers = { 'content-type': 'application/json' };
const ENDPOINTS = {
  '/get_reward': data.slice(0, 256).map((d) => ({
    method: 'POST',
    path: '/get_reward',
    headers,
    body: JSON.stringify({ query: [chatml(d.question) + d.solution + '<|im_end|>'], prompts: [chatml(d.question)], labels: [d.label] }),
  })),
  '/v1/score': data.slice(0, 256).map((d, i) => ({
    method: 'POST',
    path: '/v1/score',
    headers,
    body: JSON.stringify({ samples: [{ id: i, item: { label: d.label }, sample: { output_text: d.solution } }] }),
  })),
};

/** CPU seconds (user + system) a process has used, from /proc (undefined where there is none). */
function cpuSeconds(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

// wrk: the request bodies of an endpoint, one per line (JSON text has no raw newline), cycled through by
// a Lua script that prints the run's figures as one JSON line
const WRK_DIR = LOAD === 'wrk' ? mkdtempSync(join(tmpdir(), 'arbiter-bench-wrk-')) : undefined;
const WRK_LUA = `local reqs = {}
init = function(args)
  local headers = {}
  for k, v in pairs(wrk.headers) do headers[k] = v end
  headers["Content-Type"] = "application/json"
  for line in io.lines(os.getenv("ARBITER_BENCH_BODIES")) do
    reqs[#reqs + 1] = wrk.format("POST", os.getenv("ARBITER_BENCH_PATH"), headers, line)
  end
end
local i = 0
request = function()
  i = i % #reqs + 1
  return reqs[i]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('ARBITER_BENCH {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"errors":%d,"non2xx":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.timeout, e.status))
end
`;

/** Runs wrk (on the load generator's CPU when pinned) against `url` for `seconds`; resolves with its figures. */
function runWrk(url, path, bodiesFile, seconds) {
  const script = join(/** @type {string} */ (WRK_DIR), 'bodies.lua');
  writeFileSync(script, WRK_LUA);
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${Math.max(1, Math.round(seconds))}s`, '-s', script, `${url}${path}`];
  return new Promise((resolve, reject) => {
    const child = spawn(PIN ? 'taskset' : 'wrk', PIN ? ['-c', LOAD_CPU, 'wrk', ...args] : args, {
      env: { ...process.env, ARBITER_BENCH_BODIES: bodiesFile, ARBITER_BENCH_PATH: path },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('exit', (code) => {
      const m = /ARBITER_BENCH (\{.*\})/.exec(out);
      if (code !== 0 || !m) reject(new Error(`wrk exited with ${code}: ${out.slice(-500)}`));
      else resolve(JSON.parse(m[1]));
    });
  });
}

async function load(server, path, requests, seconds) {
  const c0 = cpuSeconds(server.pid);
  let r;
  if (LOAD === 'wrk') {
    const file = join(/** @type {string} */ (WRK_DIR), `${path.replace(/\W/g, '_')}.txt`);
    writeFileSync(file, requests.map((q) => q.body).join('\n') + '\n');
    const w = await runWrk(server.url, path, file, seconds);
    r = {
      rps: w.requests / (w.duration_us / 1e6),
      p50: Math.round(w.p50_us / 100) / 10,
      p99: Math.round(w.p99_us / 100) / 10,
      total: w.requests,
      bad: w.errors + w.non2xx,
    };
  } else {
    const a = await /** @type {NonNullable<typeof autocannon>} */ (autocannon)({ url: server.url, connections: CONNECTIONS, duration: seconds, requests });
    r = { rps: a.requests.average, p50: a.latency.p50, p99: a.latency.p99, total: a.requests.total, bad: a.non2xx + a.errors + a.timeouts };
  }
  const c1 = cpuSeconds(server.pid);
  return {
    ...r,
    // the server's CPU time per request, microseconds
    cpuUs: c0 === undefined || c1 === undefined || !r.total ? undefined : ((c1 - c0) * 1e6) / r.total,
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const us = (x) => (x === undefined ? 'cpu n/a' : `${x.toFixed(0)} us cpu/req`);
const fmt = (x) => x.toLocaleString('en-US', { maximumFractionDigits: 0 });

// ---- 1. arbiter vs bare node, interleaved rounds ---------------------------------------------------
log(`arbiter serve vs bare node http: ${CONNECTIONS} connections, ${ROUNDS} interleaved round(s) of ${SECONDS} s per server and endpoint`);
log(
  `load from ${LOAD}${LOAD === 'autocannon' ? ' (in this process)' : ''}; ${PIN ? `servers pinned to CPU ${SERVER_CPU}, load generator to CPU ${LOAD_CPU}` : 'not pinned (the scheduler places servers and load generator)'}${NODE_OPTIONS.length ? `; arbiter node options: ${NODE_OPTIONS.join(' ')}` : ''}`,
);
const servers = { bare: await startChild('bare'), arbiter: await startChild('arbiter') };
if (flag('fastify')) servers.fastify = await startChild('fastify');
if (BEFORE) servers.before = await startChild('arbiter', BEFORE);
const report = { connections: CONNECTIONS, rounds: ROUNDS, seconds: SECONDS, load: LOAD, pinned: PIN, nodeOptions: NODE_OPTIONS, endpoints: {} };
let failed = 0;
try {
  for (const [path, requests] of Object.entries(ENDPOINTS)) {
    // warm-up: JIT both servers on this endpoint
    for (const s of Object.values(servers)) await load(s, path, requests, QUICK ? 0.5 : 1);
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) {
      const bare = await load(servers.bare, path, requests, SECONDS);
      const arb = await load(servers.arbiter, path, requests, SECONDS);
      const fst = servers.fastify ? await load(servers.fastify, path, requests, SECONDS) : undefined;
      const bef = servers.before ? await load(servers.before, path, requests, SECONDS) : undefined;
      failed += bare.bad + arb.bad + (fst?.bad ?? 0) + (bef?.bad ?? 0);
      rounds.push({ bare, arbiter: arb, ratio: arb.rps / bare.rps, fastify: fst, before: bef });
      if (bef)
        log(
          `  ${path} round ${i + 1}: before (${BEFORE}) ${fmt(bef.rps)} req/s (p99 ${bef.p99} ms, ${us(bef.cpuUs)}), ratio to bare ${(bef.rps / bare.rps).toFixed(2)}, now/before ${(arb.rps / bef.rps).toFixed(2)}`,
        );
      if (fst)
        log(
          `  ${path} round ${i + 1}: trivial fastify route ${fmt(fst.rps)} req/s (p99 ${fst.p99} ms, ${us(fst.cpuUs)}), ratio to bare ${(fst.rps / bare.rps).toFixed(2)}`,
        );
      log(
        `  ${path} round ${i + 1}: bare ${fmt(bare.rps)} req/s (p99 ${bare.p99} ms, ${us(bare.cpuUs)}), arbiter ${fmt(arb.rps)} req/s (p50 ${arb.p50} ms, p99 ${arb.p99} ms, ${us(arb.cpuUs)}), ratio ${(arb.rps / bare.rps).toFixed(2)}`,
      );
    }
    const e = {
      ratio: median(rounds.map((r) => r.ratio)),
      bareRps: median(rounds.map((r) => r.bare.rps)),
      arbiterRps: median(rounds.map((r) => r.arbiter.rps)),
      arbiterP99: Math.max(...rounds.map((r) => r.arbiter.p99)),
      ratios: rounds.map((r) => Number(r.ratio.toFixed(3))),
      bareCpuUs: median(rounds.map((r) => r.bare.cpuUs ?? Number.NaN)),
      arbiterCpuUs: median(rounds.map((r) => r.arbiter.cpuUs ?? Number.NaN)),
    };
    if (BEFORE) {
      const bef = rounds.map((r) => /** @type {NonNullable<typeof r.before>} */ (r.before));
      e.beforeRatio = median(bef.map((b, i) => b.rps / rounds[i].bare.rps));
      e.nowOverBefore = median(bef.map((b, i) => rounds[i].arbiter.rps / b.rps));
      e.beforeCpuUs = median(bef.map((b) => b.cpuUs ?? Number.NaN));
    }
    report.endpoints[path] = e;
    log(
      `${path}: median ratio arbiter / bare node ${e.ratio.toFixed(2)} (${fmt(e.arbiterRps)} vs ${fmt(e.bareRps)} req/s), arbiter p99 <= ${e.arbiterP99} ms; server cpu per request ${us(e.arbiterCpuUs)} vs ${us(e.bareCpuUs)}`,
    );
    if (BEFORE) log(`${path}: before ${e.beforeRatio.toFixed(2)} of bare node (${us(e.beforeCpuUs)}); median now/before ${e.nowOverBefore.toFixed(2)}`);
  }
} finally {
  for (const srv of Object.values(servers)) await srv.stop();
  if (WRK_DIR) rmSync(WRK_DIR, { recursive: true, force: true });
}
report.failedRequests = failed;
if (failed) log(`WARNING: ${failed} request(s) failed (non-2xx, errors or timeouts)`);

// ---- 2. batch /v1/score vs the CLI -------------------------------------------------------------------
if (flag('batch')) {
  const SAMPLES = num('samples', 100_000);
  const BATCH = num('batch-size', 1000);
  const PARALLEL = num('parallel', 4);
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
        const res = await fetch(`${srv.url}/v1/score`, { method: 'POST', headers, body });
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
  report.batch = { cliRate, srvRate, ratio: srvRate / cliRate };
  log(`arbiter score (CLI)   : ${fmt(cliRate)} samples/s (${fmt(cliLines)} samples in ${cliS.toFixed(2)} s, process start included)`);
  log(`/v1/score batches     : ${fmt(srvRate)} samples/s (${fmt(graded)} samples in ${srvS.toFixed(2)} s; batches of ${BATCH}, ${PARALLEL} in flight)`);
  log(`ratio /v1/score / CLI : ${(srvRate / cliRate).toFixed(2)}`);
}
if (JSON_OUT) console.log(JSON.stringify(report));
