// The grid worlds of the worked examples: the committed maze data is what
// scripts/make-design-data.mjs writes, and its labels follow from the true reward's definition (a
// cost per move, +1 at the goal, -1 in lava), recomputed here from the steps; the key-door world
// (scripts/learn-data.mjs writes it from the same module) against its map and reward.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gridWorldData, keyDoorData, TRUE_REWARD, trueReturn } from '../../dist/design/gridworld.js';
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

  it('the key-door world: moves of one cell (none off the map), the key then the door, labels from the true reward; the script writes it', async () => {
    const { episodes, preferences } = keyDoorData({ seed: 3, trajectories: 80, pairs: 40 });
    const map = ['.....', '...L.', '..L..', '.K...', '....D'];
    const ends = new Set<string>();
    for (const e of episodes) {
      let [x, y] = [0, 0];
      let key = false;
      let want = 0;
      for (const s of e.steps) {
        expect(Math.abs(s.obs.x - x) + Math.abs(s.obs.y - y)).toBeLessThanOrEqual(1);
        [x, y] = [s.obs.x, s.obs.y];
        expect(s.cell).toBe(map[x]![y]);
        key ||= s.cell === 'K';
        expect(s.has_key).toBe(key);
        const goal = s.cell === 'D' && key;
        expect(s.features).toEqual({ goal: Number(goal), lava: Number(s.cell === 'L'), step: Number(!goal && s.cell !== 'L') });
        want += goal ? 1 : s.cell === 'L' ? -1 : -0.05;
      }
      expect(e.return).toBe(want);
      const last = e.steps.at(-1)!;
      ends.add(last.features.goal ? 'door' : last.features.lava ? 'lava' : 'time');
      if (!last.features.goal && !last.features.lava) expect(e.steps).toHaveLength(20);
    }
    expect([...ends].sort()).toEqual(['door', 'lava', 'time']);
    expect(preferences).toHaveLength(40);
    for (const p of preferences) expect(p.chosen).not.toBe(p.rejected);
    // the script writes exactly this data
    const out = mkdtempSync(join(tmpdir(), 'arbiter-kd-'));
    const r = await runProcess(process.execPath, [join(ROOT, 'scripts/learn-data.mjs'), '--out', out, '--seed', '3', '--trajectories', '80', '--pairs', '40']);
    expect(r.code, r.stderr).toBe(0);
    const lines = (f: string) =>
      readFileSync(join(out, f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    expect(lines('trajectories.jsonl')).toEqual(episodes.map((e, i) => ({ id: i, item: { true_return: e.return }, sample: { trajectory: e.steps } })));
    expect(lines('prefs.jsonl')).toEqual(preferences.map((p) => ({ chosen: { segment: p.chosen.steps }, rejected: { segment: p.rejected.steps } })));
  });
});
