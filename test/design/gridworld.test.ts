// The grid world of the worked examples: the committed data is what scripts/make-design-data.mjs
// writes, and its labels follow from the true reward's definition (a cost per move, +1 at the
// goal, -1 in lava), recomputed here from the steps.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gridWorldData, TRUE_REWARD, trueReturn } from '../../dist/design/gridworld.js';
import { ROOT, runProcess } from '../helpers/cli.js';

const FILES = ['task.md', 'trajectories.jsonl', 'preferences.jsonl'];

describe('grid world', () => {
  it('the committed examples/design files are what the script writes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'arbiter-gw-'));
    const r = await runProcess(process.execPath, [join(ROOT, 'scripts/make-design-data.mjs'), '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    for (const f of FILES) expect(readFileSync(join(out, f), 'utf8'), f).toBe(readFileSync(join(ROOT, 'examples/design', f), 'utf8'));
  });

  it('labels follow from the true reward, and the walkers give a spread of outcomes', () => {
    const { episodes, preferences } = gridWorldData();
    let lava = 0;
    for (const e of episodes) {
      const steps = e.trajectory.steps;
      const last = steps[steps.length - 1]!.cell;
      let want = 0;
      for (const s of steps) want += TRUE_REWARD.step + (s.cell === 'G' ? 1 : s.cell === '~' ? -1 : 0);
      expect(trueReturn(e.trajectory)).toBe(want);
      expect(e.return).toBeCloseTo(want, 6);
      expect(e.success).toBe(last === 'G');
      if (last === '~') lava++;
      // a refused move stays put; any other move goes one cell
      for (const s of steps) {
        const d = Math.abs(s.next[0] - s.pos[0]) + Math.abs(s.next[1] - s.pos[1]);
        expect(d).toBe(s.cell === '#' ? 0 : 1);
      }
    }
    const wins = episodes.filter((e) => e.success).length;
    expect(wins).toBeGreaterThan(5);
    expect(episodes.length - wins).toBeGreaterThan(5);
    expect(lava).toBeGreaterThan(0);
    const ret = new Map(episodes.map((e) => [e.id, e.return]));
    for (const p of preferences) {
      if (p.tie) expect(ret.get(p.chosen)).toBe(ret.get(p.rejected));
      else expect(ret.get(p.chosen)!).toBeGreaterThan(ret.get(p.rejected)!);
    }
  });
});
