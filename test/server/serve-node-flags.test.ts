// `arbiter serve` runs its server in a node process with SERVE_NODE_FLAGS (src/cli/node-flags.ts):
// the flags are added only when node lacks their setting, signals reach the server, its exit is
// the command's, and the server stops by itself when the command's process is killed.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { missingNodeFlags, SERVE_NODE_FLAGS } from '../../src/cli/node-flags.js';
import { serve } from './serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-node-flags-'));
const grader = join(dir, 'g.json');
writeFileSync(grader, JSON.stringify({ type: 'string_check', name: 'g', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The pids whose parent is `pid` and that are not zombies (from /proc). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const f = readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1]!.split(' ');
      if (Number(f[1]) === pid && f[0] !== 'Z') out.push(Number(e));
    } catch {
      // gone while listing
    }
  }
  return out;
}

/** True while `pid` runs (a zombie no longer does). */
function running(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

const cmdline = (pid: number): string[] => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

describe('missingNodeFlags', () => {
  it('leaves out a flag whose setting node was given, in either spelling, on its command line or in NODE_OPTIONS', () => {
    expect(missingNodeFlags(['--max-semi-space-size=64'], [], '')).toEqual(['--max-semi-space-size=64']);
    expect(missingNodeFlags(['--max-semi-space-size=64'], ['--max-semi-space-size=8'], '')).toEqual([]);
    expect(missingNodeFlags(['--max-semi-space-size=64'], [], '--max_semi_space_size=32 --no-warnings')).toEqual([]);
    expect(missingNodeFlags(['--max-semi-space-size=64'], ['--max-old-space-size=64'], '--no-warnings')).toEqual(['--max-semi-space-size=64']);
  });
});

describe('arbiter serve under its node flags', () => {
  it('serves from a node process with SERVE_NODE_FLAGS; SIGTERM stops it and the exit code is the server’s', async () => {
    const s = await serve(['--grader', grader]);
    const kids = childrenOf(s.child.pid!);
    expect(kids).toHaveLength(1);
    const args = cmdline(kids[0]!);
    for (const f of SERVE_NODE_FLAGS) expect(args).toContain(f);
    expect(args).toContain('serve');
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    expect(await s.stop('SIGTERM')).toBe(0);
    expect(s.stderr()).toContain('SIGTERM received');
    expect(running(kids[0]!)).toBe(false);
  });

  it('the server stops by itself when the command’s process is killed', async () => {
    const s = await serve(['--grader', grader]);
    const [kid] = childrenOf(s.child.pid!);
    expect(kid).toBeDefined();
    await s.stop('SIGKILL');
    await vi.waitFor(() => expect(running(kid!)).toBe(false), { timeout: 20_000, interval: 50 });
  });

  it('when the server is killed by a signal, the command ends by that signal', async () => {
    const s = await serve(['--grader', grader]);
    const [kid] = childrenOf(s.child.pid!);
    expect(kid).toBeDefined();
    const ended = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => s.child.once('exit', (code, signal) => resolve([code, signal])));
    process.kill(kid!, 'SIGKILL');
    expect(await ended).toEqual([null, 'SIGKILL']);
  });

  it('with the setting already given to node (NODE_OPTIONS), serves in the same process', async () => {
    const s = await serve(['--grader', grader], { NODE_OPTIONS: '--max-semi-space-size=32' });
    try {
      expect(childrenOf(s.child.pid!)).toEqual([]);
      expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
    } finally {
      expect(await s.stop('SIGTERM')).toBe(0);
    }
  });
});
