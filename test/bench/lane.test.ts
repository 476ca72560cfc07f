// bench/lane.mjs: the fast lane's own cost, in-process (no sockets). A short run prints one JSON
// object with a figure per endpoint and build; every request it sent was answered 200 (else it
// exits non-zero). No figure is asserted, only the report's shape.
import { describe, expect, it } from 'vitest';
import { runProcess } from '../helpers/cli.js';

describe('bench/lane.mjs', () => {
  it('measures both endpoints, and now/before against another build in the same rounds', { timeout: 120_000 }, async () => {
    const r = await runProcess(process.execPath, ['bench/lane.mjs', '--requests', '300', '--rounds', '3', '--before', 'dist', '--json'], {
      timeoutMs: 110_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { requests: number; endpoints: Record<string, Record<string, unknown>> };
    expect(report.requests).toBe(300);
    expect(Object.keys(report.endpoints)).toEqual(['/get_reward', '/v1/score']);
    for (const e of Object.values(report.endpoints)) {
      for (const build of ['now', 'before']) {
        const b = e[build] as { us_per_request: number; rounds: number[] };
        expect(b.rounds).toHaveLength(3);
        expect(b.us_per_request).toBeGreaterThan(0);
      }
      expect(e.now_over_before).toBeGreaterThan(0);
    }
  });
});
