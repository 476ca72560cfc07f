// `npm run bench` (bench/run.mjs): its quick form runs the benchmark scripts and prints one table
// of ratios, a row per measure (or a row saying why a benchmark did not run); --help and bad
// options. No figure is asserted: only the table's shape. The test runs the fast half (server,
// score, advantages; math below): the code and queue benchmarks take minutes, `npm run bench` runs them.
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli.js';

const RUN = ['bench/run.mjs'];
const BENCHES = ['server', 'score', 'advantages'];

/** The table's rows as [bench, measure, ratio] cells (the header and rule lines left out). */
function tableRows(stdout: string): string[][] {
  const lines = stdout.split('\n').filter((l) => l.startsWith('| '));
  expect(lines[0]).toMatch(/^\| bench +\| measure +\| ratio \|$/);
  expect(lines[1]).toMatch(/^\| -+ \| -+ \| ----: \|$/);
  return lines.slice(2).map((l) =>
    l
      .slice(2, -2)
      .split(' | ')
      .map((c) => c.trim()),
  );
}

describe('npm run bench', () => {
  it('--quick runs the benchmarks named and prints one table of ratios', { timeout: 300_000 }, async () => {
    const r = await runProcess(process.execPath, [...RUN, '--quick', '--only', BENCHES.join(',')], { timeoutMs: 280_000 });
    const rows = tableRows(r.stdout);
    expect(rows.every((c) => c.length === 3)).toBe(true);
    // every benchmark has at least one row, in the documented order
    expect([...new Set(rows.map((c) => c[0]))]).toEqual(BENCHES);
    for (const [bench, measure, ratio] of rows) {
      if (ratio === 'n/a') {
        // only a benchmark that needs what a host may lack (redis-server, the sandbox) may be missing, and it says why
        expect(['code', 'queue']).toContain(bench);
        expect(measure).toMatch(/^did not run: /);
      } else expect(Number(ratio)).toBeGreaterThan(0);
    }
    // the server is measured on both endpoints against bare node
    expect(rows.filter((c) => c[0] === 'server').map((c) => /POST (\S+),/.exec(c[1]!)?.[1])).toEqual(['/get_reward', '/v1/score']);
    expect(r.stdout).toMatch(/^arbiter benchmarks \(--quick: short runs, rough figures\): \d+ cores, load average /m);
    expect(r.code).toBe(rows.some((c) => c[2] === 'n/a') ? 1 : 0);
  });

  it('--only picks benchmarks; --json prints the rows as JSON', { timeout: 300_000 }, async () => {
    const r = await runProcess(process.execPath, [...RUN, '--quick', '--only', 'math', '--json'], { timeoutMs: 280_000 });
    expect(r.code).toBe(0);
    const rows = JSON.parse(r.stdout) as { bench: string; measure: string; ratio: number }[];
    expect(rows.map((x) => x.bench)).toEqual(['math']);
    expect(rows[0]!.ratio).toBeGreaterThan(0);
  });

  it('--help describes the options; an unknown option is a one-line usage error', async () => {
    const h = await runProcess(process.execPath, [...RUN, '--help']);
    expect(h.code).toBe(0);
    for (const o of ['--quick', '--only', '--json']) expect(h.stdout).toContain(o);
    const bad = await runProcess(process.execPath, [...RUN, '--fast']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('unknown option --fast; see `npm run bench -- --help`');
  });
});
