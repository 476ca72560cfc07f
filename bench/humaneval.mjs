// HumanEval throughput, end to end: the 164 canonical solutions (each repeated --rounds times)
// graded by `arbiter score` (the CLI, default settings, a `code` humaneval grader config) against
// cold-start baselines measured in the same command, each program (prompt + canonical solution +
// the item's tests + `check(entry_point)`) in a fresh unsandboxed interpreter, two at a time:
//   - the baseline: `python3 FILE` as one runs a program (the real interpreter binary that
//     `python3` resolves to, not a pyenv shim; default flags, so `site` is imported);
//   - a stricter one: `python3 -I -S -B FILE`, the flags of the sandbox's cold path (no site).
// The three are measured --repeat times in turn (baseline, strict, arbiter; again...), so that a
// machine whose speed drifts during the command weighs on both sides of each ratio; the ratios are
// per repetition, with their median. Prints programs/s, p50/p99 per program, the sandbox's own
// cost per run (an empty program, warm and cold), and fails unless every program passed every way.
//   node bench/humaneval.mjs [--rounds 3] [--repeat 3] [--baseline-concurrency 2] [--no-cold] [--other-cli PATH]
// (--no-cold skips the reference run of `arbiter score` with ARBITER_SANDBOX_WARM=0; --other-cli
// runs another build's dist/cli/main.js, e.g. the previous release's, in each repetition too, for a
// before/after under the same load)
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { compileProgram, runProgram, SandboxPool } from '../dist/sandbox/index.js';
import { runtimeFor } from '../dist/sandbox/host.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg('rounds', 3);
const repeat = Math.max(1, arg('repeat', 3));
const baseConc = arg('baseline-concurrency', 2);
const noCold = process.argv.includes('--no-cold');
const otherAt = process.argv.indexOf('--other-cli');
const otherCli = otherAt > 0 ? process.argv[otherAt + 1] : undefined;

const data = fileURLToPath(new URL('../../shared/data/humaneval/HumanEval.jsonl.gz', import.meta.url));
const items = gunzipSync(readFileSync(data))
  .toString('utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const fmt = (x) => x.toFixed(1).padStart(6);

function spawnTimed(argv, opts) {
  return new Promise((resolve) => {
    const t = performance.now();
    const c = spawn(argv[0], argv.slice(1), { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (b) => (out += b));
    c.stderr.on('data', (b) => (err += b));
    c.on('close', (code) => resolve({ ms: performance.now() - t, code, out, err }));
  });
}

// The machine's own costs, which decide what a warm run costs (docs/code.md, Measured): CPU time
// per page of a first write to fresh memory, of a copy-on-write fault in a forked child, of a
// child's first read of a page it inherited (on a VM with shadow page tables, a trap to the host
// per page), and of a fork + exit of a 16 MiB Python process and of a process start (posix_spawn
// of /bin/true), in CPU time (so that other work on the machine weighs little on them).
const MACHINE_PROBE = String.raw`
import mmap, os, resource, time
N, P = 4096, mmap.PAGESIZE
def cpu_all():
    s, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime
def write(m, v):
    for i in range(0, N * P, P):
        m[i] = v
def read(m):
    s = 0
    for i in range(0, N * P, P):
        s += m[i]
def loop(m):
    for i in range(0, N * P, P):
        pass
def per_page(fn, *a):
    t = time.process_time_ns()
    fn(*a)
    return (time.process_time_ns() - t) / N / 1000
def in_child(fn):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(w, repr(fn()).encode())
        os._exit(0)
    os.close(w)
    b = os.read(r, 100)
    os.waitpid(pid, 0)
    return float(b)
m = mmap.mmap(-1, N * P)
base = per_page(loop, m)
res = {'fresh': per_page(write, m, 1) - base}
res['cow'] = in_child(lambda: per_page(write, m, 2) - base)
res['read'] = in_child(lambda: per_page(read, m) - base)
t = cpu_all()
for _ in range(20):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
res['fork'] = (cpu_all() - t) / 20 * 1000
t = cpu_all()
for _ in range(20):
    os.waitpid(os.posix_spawn('/bin/true', ['true'], {}), 0)
res['spawn'] = (cpu_all() - t) / 20 * 1000
print(repr(res).replace("'", '"'))
`;

const dir = await mkdtemp(join(tmpdir(), 'arbiter-humaneval-'));
try {
  // --- baseline: a fresh python3 per program, two at a time ----------------------------------
  const rt = await runtimeFor('python');
  if (typeof rt === 'string') throw new Error(rt);
  const files = [];
  for (const [i, it] of items.entries()) {
    const f = join(dir, `p${i}.py`);
    await writeFile(f, `${it.prompt}${it.canonical_solution}\n\n${it.test}\n\ncheck(${it.entry_point})\n`);
    files.push(f);
  }
  const jobs = Array.from({ length: rounds }, () => files).flat();
  const probe = await spawnTimed([rt.exe, '-I', '-S', '-B', '-c', MACHINE_PROBE], { cwd: dir });
  if (probe.code !== 0) throw new Error(`machine probe: ${probe.err}`);
  const machine = JSON.parse(probe.out);
  const baseline = async (flags) => {
    await spawnTimed([rt.exe, ...flags, files[0]], { cwd: dir });
    const lat = [];
    let failed = 0;
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: baseConc }, async () => {
        while (next < jobs.length) {
          const f = jobs[next++];
          const r = await spawnTimed([rt.exe, ...flags, f], { cwd: dir, env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8' } });
          lat.push(r.ms);
          if (r.code !== 0) failed++;
        }
      }),
    );
    return { wall: performance.now() - t0, lat, failed, flags };
  };

  // --- arbiter score, default settings ---------------------------------------------------------
  const grader = join(dir, 'grader.json');
  await writeFile(
    grader,
    JSON.stringify({ type: 'code', format: 'humaneval', prompt: '{{item.prompt}}', tests: '{{item.test}}', entry_point: '{{item.entry_point}}' }),
  );
  const samples = join(dir, 'samples.jsonl');
  const lines = [];
  for (let r = 0; r < rounds; r++)
    for (const it of items) lines.push(JSON.stringify({ id: `${it.task_id}#${r}`, item: it, sample: { output_text: it.canonical_solution } }));
  await writeFile(samples, lines.join('\n') + '\n');
  const out = join(dir, 'out.jsonl');
  const summaryFile = join(dir, 'summary.json');
  const env = { ...process.env };
  delete env.ARBITER_SANDBOX_WARM;
  const score = (e, main = cli) =>
    spawnTimed([process.execPath, main, 'score', '--grader', grader, samples, '-o', out, '--summary-json', summaryFile, '--no-progress'], { env: e });
  const readResults = async () =>
    (await readFile(out, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  const passed = (results) => results.filter((r) => r.valid && r.score === 1).length;
  const arbiter = async (main = cli) => {
    const c = await score(env, main);
    if (c.code !== 0) throw new Error(`arbiter score exited with ${c.code}: ${c.err}`);
    const results = await readResults();
    const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
    return {
      ms: c.ms,
      gradeS: summary.duration_s,
      passed: passed(results),
      runMs: results.map((r) => r.metadata.run_ms ?? 0),
      gradeMs: results.map((r) => r.metadata.duration_ms),
    };
  };
  const reps = [];
  for (let i = 0; i < repeat; i++)
    reps.push({
      plain: await baseline([]),
      strict: await baseline(['-I', '-S', '-B']),
      arbiter: await arbiter(),
      ...(otherCli ? { other: await arbiter(otherCli) } : {}),
    });
  // for reference: the same command with warm interpreters off (every program a cold bwrap + python3)
  const off = noCold ? undefined : await score({ ...env, ARBITER_SANDBOX_WARM: '0' });
  if (off && off.code !== 0) throw new Error(`arbiter score (warm off) exited with ${off.code}: ${off.err}`);
  const offPassed = off ? passed(await readResults()) : 0;

  // --- the sandbox's own cost per run: an empty program, warm and cold, one slot ---------------
  const own = async (warm) => {
    const pool = new SandboxPool({ concurrency: 1, warm });
    const p = await compileProgram(pool, 'python', 'pass\n');
    if (!p.ok) throw new Error(`empty program: ${p.message}`);
    const ms = [];
    for (let i = 0; i < 60; i++) {
      const r = await runProgram(pool, p.program);
      if (r.status !== 'ok') throw new Error(`empty program: ${r.status} ${r.message}`);
      if (i >= 10) ms.push(r.durationMs);
    }
    const mode = pool.warmMode;
    pool.close();
    return { p50: pct(ms, 50), p99: pct(ms, 99), mode };
  };
  const ownWarm = await own(true);
  const ownCold = await own(false);

  const n = jobs.length;
  const rate = (b) => n / (b.wall / 1000);
  const cliRate = (a) => n / (a.ms / 1000);
  const gradeRate = (a) => n / a.gradeS;
  const median = (xs) => pct(xs, 50);
  const f2 = (x) => x.toFixed(2);
  console.log(
    `HumanEval canonical solutions: ${items.length} problems x ${rounds} rounds = ${n} programs, ${cpus().length} cores, ${repeat} repetitions, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `machine (CPU time): page fault ${machine.fresh.toFixed(2)} us (first write to fresh memory), copy-on-write fault ${machine.cow.toFixed(2)} us, a fork's first read of an inherited page ${machine.read.toFixed(2)} us; fork + exit of a 16 MiB Python process ${machine.fork.toFixed(2)} ms; process start (posix_spawn /bin/true) ${machine.spawn.toFixed(2)} ms`,
  );
  for (const [i, r] of reps.entries()) {
    console.log(`repetition ${i + 1}:`);
    for (const [label, b] of /** @type {[string, { wall: number, lat: number[], failed: number, flags: string[] }][]} */ ([
      ["baseline, the issue's", r.plain],
      ['baseline, strict', r.strict],
    ]))
      console.log(
        `  ${label} (fresh ${[rt.exe, ...b.flags].join(' ')} FILE per program, ${baseConc} at a time): ${fmt(rate(b))} programs/s   p50 ${fmt(pct(b.lat, 50))} ms   p99 ${fmt(pct(b.lat, 99))} ms   failed ${b.failed}`,
      );
    const a = r.arbiter;
    console.log(
      `  arbiter score (default settings): ${fmt(cliRate(a))} programs/s end to end (${(a.ms / 1000).toFixed(2)} s with start-up), ${fmt(gradeRate(a))}/s grading (${a.gradeS.toFixed(2)} s); sandbox run p50 ${fmt(pct(a.runMs, 50))} ms p99 ${fmt(pct(a.runMs, 99))} ms; passed ${a.passed}/${n}`,
    );
    console.log(
      `  ratio vs the issue's baseline: ${f2(cliRate(a) / rate(r.plain))}x end to end, ${f2(gradeRate(a) / rate(r.plain))}x grading;  vs the strict one: ${f2(cliRate(a) / rate(r.strict))}x end to end, ${f2(gradeRate(a) / rate(r.strict))}x grading`,
    );
    if (r.other)
      console.log(
        `  other build (${otherCli}): ${fmt(cliRate(r.other))} programs/s end to end, passed ${r.other.passed}/${n}; ratio vs the issue's baseline ${f2(cliRate(r.other) / rate(r.plain))}x end to end, ${f2(gradeRate(r.other) / rate(r.plain))}x grading`,
      );
  }
  const ratios = (f) => reps.map(f);
  const show = (xs) => `median ${f2(median(xs))}x (${xs.map(f2).join(', ')})`;
  console.log(
    `sandbox's own cost per run (empty program, one slot, ${ownWarm.mode}): warm p50 ${fmt(ownWarm.p50)} ms p99 ${fmt(ownWarm.p99)} ms;  cold (bwrap) p50 ${fmt(ownCold.p50)} ms p99 ${fmt(ownCold.p99)} ms`,
  );
  if (off) {
    const warmMs = median(reps.map((r) => r.arbiter.ms));
    console.log(
      `arbiter score with ARBITER_SANDBOX_WARM=0 (a cold bwrap + python3 per program): ${fmt(n / (off.ms / 1000))} programs/s end to end, passed ${offPassed}/${n}; warm (median) is ${(off.ms / warmMs).toFixed(2)}x that`,
    );
  }
  console.log(
    `ratio vs the issue's baseline (python3 FILE): end to end ${show(ratios((r) => cliRate(r.arbiter) / rate(r.plain)))}; grading ${show(ratios((r) => gradeRate(r.arbiter) / rate(r.plain)))}`,
  );
  console.log(
    `ratio vs the strict baseline (python3 -I -S -B FILE): end to end ${show(ratios((r) => cliRate(r.arbiter) / rate(r.strict)))}; grading ${show(ratios((r) => gradeRate(r.arbiter) / rate(r.strict)))}`,
  );
  if (otherCli)
    console.log(
      `other build vs the issue's baseline: end to end ${show(ratios((r) => cliRate(r.other) / rate(r.plain)))}; this build is ${show(ratios((r) => cliRate(r.arbiter) / cliRate(r.other)))} as fast`,
    );
  const failedPrograms = reps.reduce((x, r) => x + (n - r.arbiter.passed), 0);
  const baseFailed = reps.reduce((x, r) => x + r.plain.failed + r.strict.failed, 0);
  if (failedPrograms || baseFailed || (off && offPassed !== n)) {
    console.error(`FAILED: ${failedPrograms} programs did not pass through arbiter score, ${baseFailed} in the baselines`);
    process.exitCode = 1;
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
