// Hostile programs in Python, JavaScript and C++ are contained: each is reported as a failing
// test with the right failure kind (or, for a stray child, finishes promptly), and the host is
// unaffected afterwards (no stray processes, no files written outside, the sandbox still works).
// The graders allow processes (allow_processes: true): these check the limits that hold when a
// task lets its program fork; by default every fork is refused (spawn.test.ts).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxPool } from '../../dist/sandbox/index.js';
import { sandboxPoolKey } from '../../dist/graders/code/config.js';
import { loadGrader, PROJECT, sandboxUidProcesses, Services } from '../code/helpers.js';
import { ESCAPE_NAME, hostilePrograms, type Hostile } from './hostile-programs.js';

const LANGS = ['python', 'javascript', 'cpp'] as const;
const WALL_MS = 2500;
type R = Awaited<ReturnType<ReturnType<typeof loadGrader>['grade']>>;

const services = new Services();
const results = new Map<string, R>();
const programs = hostilePrograms(PROJECT);
let hasCgroup = false;

beforeAll(async () => {
  const p = new SandboxPool({ concurrency: 1 });
  await p.unavailable();
  hasCgroup = p.memoryControl.startsWith('cgroup');
  p.close();
  const jobs: Promise<void>[] = [];
  for (const lang of LANGS) {
    for (const h of programs) {
      const g = loadGrader({
        type: 'code',
        language: lang,
        format: 'stdio',
        tests: [{ input: '', output: 'ok' }],
        allow_processes: true,
        limits: { time_ms: WALL_MS, ...h.limits },
      });
      jobs.push(g.grade({ item: {}, sample: { output_text: '```\n' + h[lang] + '```' } }, { services }).then((r) => void results.set(`${lang}:${h.name}`, r)));
    }
  }
  await Promise.all(jobs);
}, 300_000);

afterAll(() => services.close());

describe.each(LANGS)('hostile %s programs', (lang) => {
  it.each(programs.map((h) => [h.name, h] as [string, Hostile]))('%s is contained', (_name, h) => {
    const r = results.get(`${lang}:${h.name}`)!;
    expect(r.valid, JSON.stringify(r)).toBe(true);
    const expected = !hasCgroup && h.expectWithoutCgroup ? h.expectWithoutCgroup : h.expect;
    if (h.reason && !expected.includes('pass')) expect(r.reason).toMatch(h.reason);
    if (expected.includes('pass')) {
      // a stray child holding the run open would have been killed at the wall clock: a timeout, score 0
      expect(r.score, r.reason).toBe(1);
      expect(r.metadata.failure, r.reason).toBeUndefined();
    } else {
      expect(r.score, r.reason).toBe(0);
      expect(expected, r.reason).toContain(r.metadata.failure);
      expect(r.reason).not.toMatch(/ESCAPED|LEAK|CONNECTED/);
    }
    // a fork bomb may end either way: killed at the wall clock, or failing on EAGAIN at the process limit
    if (r.metadata.failure === 'timeout') expect(r.reason).toMatch(/timeout|time limit/i);
    if (r.metadata.failure === 'runtime_error' && h.name === 'fork bomb') expect(r.reason).toMatch(/Resource temporarily unavailable|EAGAIN|fork|spawn/i);
  });
});

describe('the host afterwards', () => {
  it('has no process left running as a sandbox user', async () => {
    // the uids of this suite's pool (other pools on the machine have their own)
    const pool = services.has(sandboxPoolKey({ unsafeNoSandbox: false }))
      ? services.get<SandboxPool>(sandboxPoolKey({ unsafeNoSandbox: false }), () => {
          throw new Error('no pool');
        })
      : undefined;
    // (an idle JavaScript spare, waiting for the next run, is the one process allowed: its uid is
    // only used by it once everything of the run before on that uid is gone)
    const uids = pool?.uids.filter((u) => !pool.idleSpareUids.includes(u));
    if (process.getuid?.() === 0) expect(uids?.length).toBeGreaterThan(0);
    // a slot is released only once its run's processes are gone, so nothing is left to reap
    expect(sandboxUidProcesses(uids)).toEqual([]);
  });

  it('has no files written outside the sandbox', () => {
    for (const p of [`${homedir()}/${ESCAPE_NAME}`, `${PROJECT}/${ESCAPE_NAME}`, `/etc/${ESCAPE_NAME}`]) expect(existsSync(p), p).toBe(false);
  });

  it('still runs programs normally', async () => {
    const g = loadGrader({ type: 'code', language: 'python', format: 'stdio', tests: [{ input: '2 3', output: '5' }] });
    const r = await g.grade({ item: {}, sample: { output_text: 'a, b = map(int, input().split())\nprint(a + b)' } }, { services });
    expect(r.score).toBe(1);
  });
});
