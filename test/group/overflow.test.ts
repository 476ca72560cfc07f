// Advantages of scores whose squares leave the float64 range (1e200, 1e-300, ±1e308), through the
// real CLI. The expected values come from each estimator's definition applied by hand to the
// scores' small integer multipliers: every estimator is linear in the scores (normalised ones are
// scale-free, the others scale with them), so scores S·a_i give S·f(a_i) or f(a_i) exactly,
// up to an epsilon that is negligible at these scales (or, for 1e-300, dominant: then it is exact too).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-overflow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function advantages(config: Record<string, unknown>, recs: Record<string, unknown>[]) {
  const k = n++;
  const cfg = join(dir, `c${k}.json`);
  const input = join(dir, `i${k}.jsonl`);
  const out = join(dir, `o${k}.jsonl`);
  writeFileSync(cfg, JSON.stringify(config));
  writeFileSync(input, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
  const r = await runCli(['advantages', '--config', cfg, input, '-o', out]);
  expect(r.code, r.stderr).toBe(0);
  const lines = readFileSync(out, 'utf8').trim().split('\n');
  return { stderr: r.stderr, recs: lines.map((l) => JSON.parse(l) as { advantage: number; advantage_masked?: true; advantage_mask_reason?: string }) };
}

/** Relative closeness (the values span 1e-294 .. 1e308). */
function expectClose(got: number[], want: number[]) {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => {
    const w = want[i]!;
    if (w === 0) expect(Math.abs(g), `[${i}] ${g} vs 0`).toBeLessThan(1e-12);
    else expect(Math.abs(g - w) / Math.abs(w), `[${i}] ${g} vs ${w}`).toBeLessThan(1e-9);
  });
}

const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
const std = (a: number[]) => Math.sqrt(a.reduce((x, y) => x + (y - mean(a)) ** 2, 0) / (a.length - 1));
/** (a - mean) / std on the multipliers: GRPO's advantage when the epsilon is negligible. */
const z = (a: number[]) => a.map((x) => (x - mean(a)) / std(a));
const group = (scores: number[], extra: Record<string, unknown> = {}) => scores.map((score, i) => ({ id: i, uid: 'g', score, ...extra }));

describe('advantages of scores past the float64 squares', () => {
  it('grpo on [1e200, 0, 1] is about 1.15, -0.58, -0.58 (was 0, 0, 0), and trl_grpo the same', async () => {
    const want = z([1, 0, 0]); // 1 is 1e-200 of 1e200: nothing at this precision
    for (const estimator of ['grpo', 'trl_grpo']) {
      const { recs } = await advantages({ estimator }, group([1e200, 0, 1]));
      expectClose(
        recs.map((r) => r.advantage),
        want,
      );
      expect(recs.every((r) => !r.advantage_masked)).toBe(true);
    }
  });

  it('grpo on mixed signs [1e300, -1e300, 2e300, 0] and tiny scores [1e-300, 0, 3e-300]', async () => {
    const big = await advantages({ estimator: 'grpo' }, group([1e300, -1e300, 2e300, 0]));
    expectClose(
      big.recs.map((r) => r.advantage),
      z([1, -1, 2, 0]),
    );
    // tiny: the std (~1.5e-300) is nothing next to epsilon 1e-6, so the advantage is (s - mean) / 1e-6
    const tiny = await advantages({ estimator: 'grpo' }, group([1e-300, 0, 3e-300]));
    const m = 4 / 3;
    expectClose(
      tiny.recs.map((r) => r.advantage),
      [1 - m, 0 - m, 3 - m].map((d) => d * 1e-294),
    );
  });

  it('equal huge scores give 0 everywhere, unmasked', async () => {
    const { recs } = await advantages({ estimator: 'grpo' }, group([1.5e308, 1.5e308, 1.5e308]));
    expect(recs.map((r) => r.advantage)).toEqual([0, 0, 0]);
    expect(recs.every((r) => !r.advantage_masked)).toBe(true);
  });

  it('rloo on [1e308, 1e308, 0] is s minus the mean of the others: 5e307, 5e307, -1e308', async () => {
    const { recs } = await advantages({ estimator: 'rloo' }, group([1e308, 1e308, 0]));
    expectClose(
      recs.map((r) => r.advantage),
      [5e307, 5e307, -1e308],
    );
  });

  it('grpo_passk on [1e200, 0, 1]: the best gets (max - second) / (std + eps) = 1e200 / (1e200·std([1,0,0]))', async () => {
    const { recs } = await advantages({ estimator: 'grpo_passk' }, group([1e200, 0, 1]));
    expectClose(
      recs.map((r) => r.advantage),
      [1 / std([1, 0, 0]), 0, 0],
    );
  });

  it('opo on [1.5e308, 1e308] with lengths 3 and 1: s - Σ len·s / Σ len (Σ len·s alone overflows)', async () => {
    const recs = [
      { uid: 'g', score: 1.5e308, response_length: 3 },
      { uid: 'g', score: 1e308, response_length: 1 },
    ];
    const { recs: out } = await advantages({ estimator: 'opo' }, recs);
    const b = (3 * 1.5 + 1 * 1) / 4; // baseline on the multipliers of 1e308
    expectClose(
      out.map((r) => r.advantage),
      [(1.5 - b) * 1e308, (1 - b) * 1e308],
    );
  });

  it('reinforce_plus_plus_baseline on [1e200, 0, 1] (one token each): whitened s - mean', async () => {
    const { recs } = await advantages({ estimator: 'reinforce_plus_plus_baseline' }, group([1e200, 0, 1], { response_length: 1 }));
    // centred multipliers [2/3, -1/3, -1/3]; verl whitening: mean c̄ = Σc / (3 + 1e-8), variance Σ(c - c̄)² / (3 + 1e-8) · 3/2
    const c = [2 / 3, -1 / 3, -1 / 3];
    const cm = c.reduce((x, y) => x + y, 0) / (3 + 1e-8);
    const v = (c.reduce((x, y) => x + (y - cm) ** 2, 0) / (3 + 1e-8)) * 1.5;
    expectClose(
      recs.map((r) => r.advantage),
      c.map((x) => (x - cm) / Math.sqrt(v)),
    );
  });

  it('an advantage truly beyond float64 is masked out_of_range, and the summary counts it', async () => {
    // rloo: 1.5e308 - (-1.5e308) = 3e308, more than the largest double
    const { recs, stderr } = await advantages({ estimator: 'rloo' }, group([1.5e308, -1.5e308]));
    expect(recs.map((r) => [r.advantage, r.advantage_masked, r.advantage_mask_reason])).toEqual([
      [0, true, 'out_of_range'],
      [0, true, 'out_of_range'],
    ]);
    expect(stderr).toMatch(/2 masked with advantage 0 \(out_of_range=2\)/);
  });
});
