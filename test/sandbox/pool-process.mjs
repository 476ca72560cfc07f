// A process of its own with its own sandbox pool, for tests that need pools in separate
// processes (uid allocation across processes) or an arbiter process with an inherited fd.
//   node pool-process.mjs bomb|innocent|fds [concurrency]
// Prints one JSON line per event on stdout: {"event":"ready","uids":[...]}, then for `innocent`
// {"event":"done","results":[{status, stdout, stderr}]} and for `fds` {"event":"fds","stdout":...}.
// `bomb` fills each slot's process limit with a program that holds its processes until killed.
import { SandboxPool } from '../../dist/sandbox/index.js';
import { runtimeFor } from '../../dist/sandbox/host.js';

const [role, conc] = process.argv.slice(2);
const concurrency = Number(conc || 2);
const pool = new SandboxPool({ concurrency });
const say = (x) => process.stdout.write(JSON.stringify(x) + '\n');
const bad = await pool.unavailable();
if (bad) {
  say({ event: 'error', message: bad });
  process.exit(1);
}
say({ event: 'ready', uids: pool.uids ?? [] });

const PROCESSES = 16;

if (role === 'bomb') {
  const py = await runtimeFor('python');
  if (typeof py === 'string') throw new Error(py);
  const bomb =
    'import os, time\nwhile True:\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n    if pid == 0:\n        time.sleep(1000)\n        os._exit(0)\ntime.sleep(1000)\n';
  for (let i = 0; i < concurrency; i++)
    void pool.run({
      argv: [py.exe, '-I', '-S', '-c', bomb],
      binds: py.binds,
      allowSpawn: true,
      limits: { processes: PROCESSES, wallMs: 300_000, cpuSeconds: 300 },
    });
} else if (role === 'innocent') {
  const prog = 'for i in 1 2 3 4 5 6 7 8; do /bin/true & done; wait; echo ok';
  const results = await Promise.all(
    Array.from({ length: 12 }, () => pool.run({ argv: ['/bin/sh', '-c', prog], allowSpawn: true, limits: { processes: PROCESSES } })),
  );
  say({ event: 'done', results: results.map((r) => ({ status: r.status, stdout: r.stdout, stderr: r.stderr })) });
  pool.close();
} else if (role === 'fds') {
  const r = await pool.run({ argv: ['/bin/sh', '-c', 'ls /proc/self/fd'], allowSpawn: true });
  say({ event: 'fds', status: r.status, stdout: r.stdout });
  pool.close();
}
