// Sandbox identities are unique per host, not per pool: pools in one process and in separate
// processes run as disjoint uids, so a fork bomb holding one pool's process limits never makes a
// program in another pool fail to fork; and within a pool a slot is reused only once everything
// of its previous run is gone.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../dist/sandbox/index.js';
import { runtimeFor } from '../../dist/sandbox/host.js';

const isRoot = process.getuid?.() === 0;
const FIXTURE = fileURLToPath(new URL('./pool-process.mjs', import.meta.url));
// a range of its own, so that no other pool on this machine (other test files) interferes
const BASE = 1_980_000_000;
const SPAN = 65_536;
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** Number of processes whose real uid is in [BASE, BASE + SPAN), by uid. */
function processesByUid(): Map<number, number> {
  const m = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1]);
      if (uid >= BASE && uid < BASE + SPAN) m.set(uid, (m.get(uid) ?? 0) + 1);
    } catch {
      // exited meanwhile
    }
  }
  return m;
}

/** Starts the fixture in a process of its own; resolves each JSON line it prints, in order. */
function poolProcess(role: string, opts: { leakFd?: boolean } = {}) {
  const env = { ...process.env, ARBITER_SANDBOX_UID_BASE: String(BASE) };
  const stdio: ['ignore', 'pipe', 'inherit'] = ['ignore', 'pipe', 'inherit'];
  // leakFd: the shell opens fd 200 without close-on-exec, as a trainer might leave one open
  const c = opts.leakFd
    ? spawn('/bin/bash', ['-c', 'exec 200</dev/null; exec "$0" "$@"', process.execPath, FIXTURE, role, '2'], { env, stdio })
    : spawn(process.execPath, [FIXTURE, role, '2'], { env, stdio });
  children.push(c);
  const lines = createInterface({ input: c.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<Record<string, unknown>> => {
    const l = await lines.next();
    if (l.done) throw new Error(`${role} process ended`);
    return JSON.parse(l.value) as Record<string, unknown>;
  };
  return { child: c, next };
}

/** Resolves once `cond` holds, checking every 50 ms (an event wait: nothing about time is asserted). */
async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 50));
}

describe('uids are leased host-wide (needs root)', () => {
  beforeEach((ctx) => {
    if (!isRoot) ctx.skip('not running as root: uids cannot be leased');
  });
  it('two pools in one process get disjoint uids, and give them back when closed', async () => {
    const a = new SandboxPool({ concurrency: 3, uidBase: BASE });
    const b = new SandboxPool({ concurrency: 3, uidBase: BASE });
    expect(await a.unavailable()).toBeUndefined();
    expect(await b.unavailable()).toBeUndefined();
    expect(a.uids).toHaveLength(3);
    expect(b.uids).toHaveLength(3);
    expect(a.uids.filter((u) => b.uids.includes(u))).toEqual([]);
    const ra = await a.run({ argv: ['/bin/sh', '-c', 'id -u'], allowSpawn: true });
    expect(a.uids).toContain(Number(ra.stdout.trim()));
    a.close();
    b.close();
  });

  it("a fork bomb filling every slot of a pool in another process does not make this pool's programs fail to fork", async () => {
    const bomb = poolProcess('bomb');
    const ready = await bomb.next();
    expect(ready.event).toBe('ready');
    // wait until the bombs hold their process limit (16 processes in each of the 2 slots)
    await until(() => [...processesByUid().values()].filter((n) => n >= 16).length >= 2);
    const innocent = poolProcess('innocent');
    expect((await innocent.next()).event).toBe('ready');
    const done = await innocent.next();
    const results = done.results as { status: string; stdout: string; stderr: string }[];
    expect(results).toHaveLength(12);
    for (const r of results) expect(r, JSON.stringify(r)).toMatchObject({ status: 'ok', stdout: 'ok\n' });
    // and the bombs were still holding their processes all along
    expect([...processesByUid().values()].filter((n) => n >= 16).length).toBeGreaterThanOrEqual(2);
    bomb.child.kill('SIGKILL');
  }, 120_000);
});

describe('a slot is reused only once its previous run is gone', () => {
  it('a program forks normally right after a fork bomb in the same slot was killed', async () => {
    const pool = new SandboxPool({ concurrency: 1, uidBase: BASE + 1000 });
    const py = await runtimeFor('python');
    if (typeof py === 'string') throw new Error(py);
    const bomb =
      'import os, time\nwhile True:\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n    if pid == 0:\n        time.sleep(1000)\n        os._exit(0)\nprint("full", flush=True)\ntime.sleep(1000)\n';
    for (let round = 0; round < 3; round++) {
      const b = await pool.run({ argv: [py.exe, '-I', '-S', '-c', bomb], binds: py.binds, allowSpawn: true, limits: { processes: 16, wallMs: 1500 } });
      expect(b.status).toBe('timeout');
      expect(b.stdout).toBe('full\n');
      const r = await pool.run({
        argv: ['/bin/sh', '-c', 'for i in 1 2 3 4 5 6 7 8 9 10 11 12; do /bin/true & done; wait; echo ok'],
        allowSpawn: true,
        limits: { processes: 16 },
      });
      expect(r, r.stderr).toMatchObject({ status: 'ok', stdout: 'ok\n' });
    }
    pool.close();
  }, 60_000);
});

describe('nothing the arbiter process inherited reaches the program', () => {
  it('an fd open in the arbiter process (not close-on-exec) is closed in the sandbox', async () => {
    const p = poolProcess('fds', { leakFd: true });
    expect((await p.next()).event).toBe('ready');
    const r = await p.next();
    expect(r.status).toBe('ok');
    // 0-2 and the directory fd ls itself opens
    expect((r.stdout as string).trim().split('\n').map(Number)).toEqual([0, 1, 2, 3]);
  }, 60_000);
});
