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
//   node bench/humaneval.mjs --profile
// (--profile prints instead where a warm program's page faults and CPU go, per process and phase:
// each canonical solution once through a one-slot pool, with a copy of the Python driver that
// reports getrusage at each phase of the harness H and of the solution's process S)
// (--no-cold skips the reference run of `arbiter score` with ARBITER_SANDBOX_WARM=0; --other-cli
// runs another build's dist/cli/main.js, e.g. the previous release's, in each repetition too, for a
// before/after under the same load)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { compileProgram, runProgram, SandboxPool } from '../dist/sandbox/index.js';
import { runtimeFor } from '../dist/sandbox/host.js';
import { hostSpawnFilter } from '../dist/sandbox/seccomp.js';
import { pythonImports } from '../dist/graders/code/harness.js';

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

// --- --profile: page faults and CPU per process and phase of a warm run -------------------------
// The driver's text with checkpoints spliced in (each anchor must exist: a changed driver fails
// loudly here rather than profiling something else). H writes `PROF <phase> <faults> <cpu ms>` lines
// (cumulative) on its stdout; S writes `PROFS ...` on a copy of H's stdout (fd 60) that it keeps.
function profiledDriver(text) {
  const cp = (fd, tag) => `__import__('os').write(${fd}, ('\\nPROF${tag} %s %d %.3f\\n' % (t, r.ru_minflt, (r.ru_utime + r.ru_stime) * 1000)).encode())`;
  /** @type {[anchor: string, add: string, after?: boolean, replace?: string][]} */
  const patches = [
    [
      "    ready = globals().pop('__arbiter_modules__', None)\n",
      `    import resource as _res\n\n    def CP(t):\n        r = _res.getrusage(_res.RUSAGE_SELF)\n        ${cp(1, '')}\n\n    def CS(t):\n        r = _res.getrusage(_res.RUSAGE_SELF)\n        ${cp(60, 'S')}\n\n    CP('start (the zygote\\'s set-up of the process)')\n`,
      true,
    ],
    ['    spid = os.fork()\n', "    CP('the driver\\'s definitions')\n"],
    ['    spec = _loads(text)\n    del text\n', "    CP('fork of S, reading the spec')\n", true],
    ['    try:\n        loaded = receive(reply_r)\n', "    CP('the load request, the tests\\' imports, the prompt')\n"],
    ['    def finish(code):\n', "        CP('the tests')\n", true],
    ["        nul = os.open('/dev/null', os.O_RDWR)\n", "        os.dup2(1, 60)\n        CS('start (fork from H)')\n"],
    ['        os.closerange(hi + 1, 1 << 20)\n', '', false, '        os.closerange(hi + 1, 60)\n        os.closerange(61, 1 << 20)\n'],
    ['        ns = None\n        while True:\n', "        CS('set-up (fds, codecs, alarm)')\n"],
    ['                why = install_spawn_filter(', "                CS('the load request')\n"],
    ["                reply(['loaded', names, modules])\n", "                CS('the spawn filter, compile and exec of the solution')\n"],
    [
      '            _kill(spid, 9)\n            _waitpid(spid, 0)\n        except _BaseException:\n            pass\n        _exit(code)\n',
      '',
      false,
      "            _kill(spid, 9)\n            _, _, r = os.wait4(spid, 0)\n            t = 'the calls (the tests)'\n            " +
        cp(1, 'S').replace('__import__', '(lambda m: __import__(m))') +
        "\n        except _BaseException:\n            pass\n        CP('ending S')\n        _exit(code)\n",
    ],
  ];
  for (const [anchor, add, after, replace] of patches) {
    if (!text.includes(anchor)) throw new Error(`--profile: the driver changed (no ${JSON.stringify(anchor.trim())}); update profiledDriver`);
    text = text.replace(anchor, replace ?? (after ? anchor + add : add + anchor));
  }
  return text;
}

async function profile() {
  const driver = profiledDriver(readFileSync(fileURLToPath(new URL('../dist/graders/code/drivers/driver.py', import.meta.url)), 'utf8'));
  const pool = new SandboxPool({ concurrency: 1 });
  const filter = hostSpawnFilter();
  const sums = new Map();
  let passedN = 0;
  for (const it of items) {
    const c = await compileProgram(pool, 'python', driver, {
      trustedMain: true,
      allowSpawn: true,
      files: [{ name: 'solution.py', data: it.prompt + it.canonical_solution }],
    });
    if (!c.ok) throw new Error(`--profile: ${c.message}`);
    const spec = { mode: 'humaneval', prompt: it.prompt, entry_point: it.entry_point, imports: pythonImports(it.test), tests: it.test };
    const input = `ARBPROF\n${JSON.stringify({ ...spec, spawn_filter: filter ? filter.toString('base64') : null, solution: 'solution.py' })}`;
    const r = await runProgram(pool, c.program, { stdin: input });
    if (/^ARBPROF 0 pass$/m.test(r.stdout)) passedN++;
    for (const who of ['', 'S']) {
      let prev = [0, 0];
      for (const m of r.stdout.matchAll(new RegExp(`^PROF${who} (.+) (\\d+) ([\\d.]+)$`, 'gm'))) {
        const now = [Number(m[2]), Number(m[3])];
        const key = `${who || 'H'}: ${m[1]}`;
        const t = sums.get(key) ?? [0, 0];
        sums.set(key, [t[0] + now[0] - prev[0], t[1] + now[1] - prev[1]]);
        prev = now;
      }
    }
  }
  const mode = pool.warmMode;
  pool.close();
  console.log(
    `where a warm HumanEval program's page faults and CPU go (${items.length} canonical solutions, one slot, ${mode}; load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; passed ${passedN}/${items.length}):`,
  );
  for (const [k, [f, ms]] of sums)
    console.log(`  ${k.padEnd(64)} ${(f / items.length).toFixed(0).padStart(5)} faults ${(ms / items.length).toFixed(2).padStart(7)} ms CPU`);
  if (passedN !== items.length) process.exitCode = 1;
}
if (process.argv.includes('--profile')) {
  await profile();
  process.exit();
}

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
