// Benchmark: `arbiter advantages` (grpo, group_size 16) over N lines (default 1,000,000) in groups
// of 16, file to file, through the command's own code path (advantageFile), plus the real CLI's wall
// time. Prints lines/s, peak RSS and live heap at N/5 and N (memory must stay flat), against a baseline that
// reads the same lines, JSON.parses and re-serialises each one (no advantages) in the same command,
// with the ratio. Then the grouped HTTP path: the same group of 16 samples posted to /v1/score and
// to /v1/groups (grading + group stage + advantages), one request at a time, alternating; the
// difference of the medians is what grouping adds to a group's grading time.
// Usage: node bench/advantages.mjs [lines] [--requests 2000]   (npm run build first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const dist = new URL('../dist/index.js', import.meta.url).href;
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));

async function makeInput(file, n) {
  const ws = createWriteStream(file);
  let buf = '';
  for (let i = 0; i < n; i++) {
    const g = Math.floor(i / 16);
    const k = (i * 2654435761) >>> 0;
    // about 1% invalid grades; scores in {0, 0.5, 1}
    buf +=
      k % 100 === 0
        ? `{"id":${i},"uid":"p${g}","score":null,"valid":false,"response_length":${100 + (k % 900)}}\n`
        : `{"id":${i},"uid":"p${g}","score":${(k % 3) / 2},"valid":true,"response_length":${100 + (k % 900)}}\n`;
    if (buf.length > 1 << 20) {
      if (!ws.write(buf)) await once(ws, 'drain');
      buf = '';
    }
  }
  ws.end(buf);
  await once(ws, 'finish');
}

async function child(mode, input, output, config) {
  config = config ?? '{}';
  // modules load before the clock starts (start-up is measured by the CLI run below)
  const { advantageFile } = await import(dist);
  const { readLineBatches } = await import(new URL('../dist/io/jsonl-reader.js', import.meta.url).href);
  const { createReadStream } = await import('node:fs');
  // with --sample-heap: live heap sampled after a forced GC every 250 ms (peak RSS also counts garbage
  // not yet collected); these runs are for memory only, the forced GCs slow them down
  let live = 0;
  const sampler = process.argv.includes('--sample-heap')
    ? setInterval(() => {
        global.gc?.(); // defined under node --expose-gc (the --sample-heap run)
        live = Math.max(live, process.memoryUsage().heapUsed);
      }, 250)
    : undefined;
  const t0 = performance.now();
  let count = 0;
  if (mode === 'advantages') {
    const s = await advantageFile({ config: JSON.parse(config), input, output });
    count = s.lines;
  } else {
    // baseline: the same batched reader, JSON.parse and JSON.stringify of every line, buffered writes
    const ws = createWriteStream(output, { highWaterMark: 1 << 20 });
    for await (const b of readLineBatches(createReadStream(input, { highWaterMark: 1 << 16 }))) {
      const out = [];
      for (const t of b.texts) {
        if (!t) continue;
        const o = JSON.parse(t);
        o.advantage = 0;
        out.push(JSON.stringify(o));
        count++;
      }
      if (!ws.write(out.join('\n') + '\n')) await once(ws, 'drain');
    }
    ws.end();
    await once(ws, 'finish');
  }
  const s = (performance.now() - t0) / 1000;
  if (sampler) clearInterval(sampler);
  process.stdout.write(JSON.stringify({ count, seconds: s, maxRssMB: process.resourceUsage().maxRSS / 1024, liveMB: live / 1e6 }) + '\n');
}

async function serverChild() {
  const { loadGrader } = await import(dist);
  const { createServer } = await import(new URL('../dist/server/index.js', import.meta.url).href);
  const grader = loadGrader({ type: 'string_check', name: 'exact', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' });
  const server = createServer({ graders: { exact: grader } });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  process.stdout.write(`URL ${url}\n`);
  process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
  await new Promise(() => {});
}

async function http(requests) {
  const srv = spawn(process.execPath, [self, '--server'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    srv.stdout.on('data', (d) => {
      out += d;
      const m = /URL (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    srv.on('exit', (c) => reject(new Error(`server exited ${c}`)));
  });
  const samples = Array.from({ length: 16 }, (_, i) => ({ id: i, uid: 'p', item: { label: String(i % 3) }, output_text: String(i % 2) }));
  const score = JSON.stringify({ grader: 'exact', samples });
  const groups = JSON.stringify({ grader: 'exact', samples, advantages: { estimator: 'grpo' } });
  const time = async (path, body) => {
    const t0 = performance.now();
    const r = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < 300; i++) {
    await time('/v1/score', score);
    await time('/v1/groups', groups);
  }
  const a = [];
  const b = [];
  for (let i = 0; i < requests; i++) {
    a.push(await time('/v1/score', score));
    b.push(await time('/v1/groups', groups));
  }
  srv.kill('SIGTERM');
  const q = (xs, p) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
  return { score: { p50: q(a, 0.5), p99: q(a, 0.99) }, groups: { p50: q(b, 0.5), p99: q(b, 0.99) } };
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5], process.argv[6]);
} else if (process.argv[2] === '--server') {
  await serverChild();
} else {
  const n = Number(process.argv[2] && !process.argv[2].startsWith('--') ? process.argv[2] : 1_000_000);
  const ri = process.argv.indexOf('--requests');
  const requests = ri > 0 ? Number(process.argv[ri + 1]) : 2000;
  const dir = join(tmpdir(), 'arbiter-bench-advantages');
  mkdirSync(dir, { recursive: true });
  const streaming = JSON.stringify({ estimator: 'grpo', group_size: 16 });
  const run = (mode, input, config = streaming, heap = false) => {
    const r = spawnSync(
      process.execPath,
      ['--expose-gc', self, '--child', mode, input, join(dir, `${mode}.out.jsonl`), config, ...(heap ? ['--sample-heap'] : [])],
      { encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout);
  };
  const small = join(dir, 'small.jsonl');
  const big = join(dir, 'big.jsonl');
  await makeInput(small, Math.round(n / 5));
  await makeInput(big, n);
  console.log(`input: ${n} lines in groups of 16, ${(statSync(big).size / 1e6).toFixed(1)} MB`);
  const base = run('baseline', big);
  const smallRun = run('advantages', small);
  const bigRun = run('advantages', big);
  const whole = run('advantages', big, JSON.stringify({ estimator: 'grpo' }));
  const heapSmall = run('advantages', small, streaming, true);
  const heapBig = run('advantages', big, streaming, true);
  const fmt = (x) =>
    `${x.count} lines in ${x.seconds.toFixed(2)} s = ${Math.round(x.count / x.seconds).toLocaleString('en')} lines/s, peak RSS ${x.maxRssMB.toFixed(0)} MB`;
  console.log(`baseline (parse+serialise only):          ${fmt(base)}`);
  console.log(`advantages grpo, group_size 16, N/5:     ${fmt(smallRun)}`);
  console.log(`advantages grpo, group_size 16, N:       ${fmt(bigRun)}`);
  console.log(`advantages grpo, no group_size (whole input held), N: ${fmt(whole)}`);
  console.log(
    `throughput ratio advantages/baseline: ${(base.seconds / bigRun.seconds).toFixed(2)}; peak RSS N vs N/5: ${(bigRun.maxRssMB / smallRun.maxRssMB).toFixed(2)}, live heap (sampled after GC) ${heapSmall.liveMB.toFixed(1)} MB at N/5, ${heapBig.liveMB.toFixed(1)} MB at N`,
  );
  // the real command, start-up included
  const cfg = join(dir, 'grpo.json');
  writeFileSync(cfg, streaming);
  const t0 = performance.now();
  const c = spawnSync(process.execPath, [cli, 'advantages', '--config', cfg, big, '-o', join(dir, 'cli.out.jsonl')], { encoding: 'utf8' });
  if (c.status !== 0) throw new Error(c.stderr);
  const wall = (performance.now() - t0) / 1000;
  console.log(`arbiter advantages CLI wall time (start-up included): ${wall.toFixed(2)} s = ${Math.round(n / wall).toLocaleString('en')} lines/s`);
  const h = await http(requests);
  console.log(`HTTP, a group of 16 (string_check), ${requests} sequential requests each, alternating:`);
  console.log(`  /v1/score  p50 ${h.score.p50.toFixed(3)} ms, p99 ${h.score.p99.toFixed(3)} ms`);
  console.log(`  /v1/groups p50 ${h.groups.p50.toFixed(3)} ms, p99 ${h.groups.p99.toFixed(3)} ms (grading + group stage + grpo advantages)`);
  console.log(`  grouping adds ${(h.groups.p50 - h.score.p50).toFixed(3)} ms at the median (aim < 1 ms)`);
}
