// The tau-bench file caches are keyed by data folder: pointing the process at other data (the
// CLI's --tau-bench-dir, setDataDir) never serves the previous folder's tasks or policy.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { setDataDir } from '../../dist/envs/tau_bench/db.js';
import { loadTasks, loadWiki } from '../../dist/envs/tau_bench/domain.js';

const dirs: string[] = [];
function dataDir(wiki: string, tasks: unknown[]): string {
  const d = mkdtempSync(join(tmpdir(), 'arbiter-tau-data-'));
  dirs.push(d);
  mkdirSync(join(d, 'airline'));
  writeFileSync(join(d, 'airline', 'wiki.md'), wiki);
  writeFileSync(join(d, 'airline', 'tasks_test.json'), JSON.stringify(tasks));
  return d;
}

afterAll(() => {
  setDataDir(undefined);
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('tau-bench data caches', () => {
  it('are keyed by the data folder', () => {
    const a = dataDir('policy A', [{ user_id: 'a', actions: [], outputs: [] }]);
    const b = dataDir('policy B', [
      { user_id: 'b', actions: [], outputs: [] },
      { user_id: 'b2', actions: [], outputs: [] },
    ]);
    setDataDir(a);
    expect(loadWiki('airline')).toBe('policy A');
    expect(loadTasks('airline')).toHaveLength(1);
    setDataDir(b);
    expect(loadWiki('airline')).toBe('policy B');
    expect(loadTasks('airline').map((t) => (t as { user_id: string }).user_id)).toEqual(['b', 'b2']);
    setDataDir(a);
    expect(loadWiki('airline')).toBe('policy A');
  });
});
