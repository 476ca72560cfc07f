// docs/design.md's learn, intrinsic-bonus and reward-machine blocks, run as written on the grid
// world scripts/learn-data.mjs generates (true reward known): the learned reward orders the
// trajectories as the true return does, the reward machine's score is the true return, and the
// novelty bonus adds 0.1 per distinct cell to it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docBlock, docWorkdir, runDoc } from '../helpers/docs.js';

const jsonl = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('docs/design.md: learn, intrinsic bonuses, reward machines', () => {
  const dir = docWorkdir();
  const truth = () => jsonl(join(dir, 'grid', 'trajectories.jsonl'));

  it('arbiter learn recovers a reward that ranks the trajectories as the true one does', async () => {
    const r = await runDoc(docBlock('docs/design.md', 'arbiter learn grid/prefs.jsonl'), { dir });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/held-out: accuracy/);
    const summary = JSON.parse(readFileSync(join(dir, 'grid', 'learn-summary.json'), 'utf8'));
    // the true weights times the temperature 3: the signs and the order of magnitude
    expect(summary.weights.goal).toBeGreaterThan(1.5);
    expect(summary.weights.lava).toBeLessThan(-1.5);
    expect(summary.weights.step).toBeLessThan(0);
    const t = truth();
    const learned = jsonl(join(dir, 'grid', 'learned-scores.jsonl'));
    expect(learned.every((x) => x.valid)).toBe(true);
    // pairwise agreement of the learned and the true returns over pairs whose true returns differ
    let agree = 0;
    let pairs = 0;
    for (let i = 0; i < t.length; i++)
      for (let j = i + 1; j < t.length; j++) {
        const d = t[i].item.true_return - t[j].item.true_return;
        if (Math.abs(d) < 1e-9) continue;
        pairs += 1;
        if (Math.sign(d) === Math.sign(learned[i].score - learned[j].score)) agree += 1;
      }
    expect(agree / pairs).toBeGreaterThan(0.95);
  }, 120_000);

  it('the reward machine scores each trajectory with its true return, per step too', async () => {
    const r = await runDoc(docBlock('docs/design.md', 'key-door.json -o grid/rm-scores.jsonl'), { dir });
    expect(r.code).toBe(0);
    const t = truth();
    const rm = jsonl(join(dir, 'grid', 'rm-scores.jsonl'));
    expect(rm).toHaveLength(t.length);
    rm.forEach((x, i) => {
      expect(x.score).toBe(t[i].item.true_return);
      expect(x.steps).toHaveLength(t[i].sample.trajectory.length);
    });
    expect(rm.some((x) => x.metadata.final_state === 'done')).toBe(true);
    expect(rm.some((x) => x.metadata.final_state === 'dead')).toBe(true);
  }, 120_000);

  it('the novelty example adds 0.1 per distinct cell of the trajectory to the true return', async () => {
    const r = await runDoc(docBlock('docs/design.md', 'key-door-novelty.json -c 1'), { dir });
    expect(r.code).toBe(0);
    const t = truth();
    const n = jsonl(join(dir, 'grid', 'novelty-scores.jsonl'));
    n.forEach((x, i) => {
      const cells = new Set(t[i].sample.trajectory.map((s: { obs: { x: number; y: number } }) => `${s.obs.x},${s.obs.y}`));
      expect(x.score).toBeCloseTo(t[i].item.true_return + 0.1 * cells.size, 12);
    });
  }, 120_000);
});
