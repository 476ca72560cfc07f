// reward_variance_collapse (within-group reward std per global_step, as RAGEN tracks the "echo
// trap") and the verdict rule every gated monitor follows: below min_points it reports its value
// and says there are too few results, never a verdict its number contradicts.
import { describe, expect, it } from 'vitest';
import { computeMonitors, monitorPoint } from '../../dist/index.js';

const run = (recs: Record<string, unknown>[], thresholds = {}) =>
  computeMonitors(
    recs.map((r) => monitorPoint(r)),
    { thresholds },
  );
const find = (rs: ReturnType<typeof run>, name: string) => rs.find((m) => m.monitor === name)!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const std = (xs: number[]) => Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1));

/** Steps 0..n-1, four groups of four per step; `spread(step)` sets how far a group's rewards differ. */
function steps(n: number, spread: (step: number) => number): Record<string, unknown>[] {
  const recs: Record<string, unknown>[] = [];
  for (let s = 0; s < n; s++)
    for (let g = 0; g < 4; g++)
      for (let i = 0; i < 4; i++) recs.push({ uid: `p${g}`, global_step: s, score: 0.5 + spread(s) * (i % 2 ? 1 : -1) * (1 + g / 10) });
  return recs;
}

describe('reward_variance_collapse', () => {
  it('alerts when the within-group std stays below the threshold for k steps in a row, ending now', () => {
    // spread 0.3 for steps 0-4, then 0.01: steps 5, 6, 7 collapsed
    const recs = steps(8, (s) => (s < 5 ? 0.3 : 0.01));
    const r = find(run(recs), 'reward_variance_collapse');
    expect(r.alert).toBe(true);
    expect(r.details).toMatchObject({ run: 3, collapsed_since: 5 });
    // the value by definition: step 7's groups, each the unbiased std of its four rewards, averaged
    const last = [0, 1, 2, 3].map((g) => std(recs.filter((x) => x.global_step === 7 && x.uid === `p${g}`).map((x) => x.score as number)));
    expect(r.value).toBeCloseTo(mean(last), 12);
    expect(r.signal).toMatch(/below 0\.05 for the last 3 steps \(since step 5/);
  });

  it('stays quiet for fewer collapsed steps than collapse_steps, or once the std recovers', () => {
    const two = find(run(steps(8, (s) => (s < 6 ? 0.3 : 0.01))), 'reward_variance_collapse');
    expect(two.alert).toBe(false);
    expect(two.details).toMatchObject({ run: 2 });
    expect(two.signal).toMatch(/2 now/);
    const recovered = find(run(steps(8, (s) => (s >= 3 && s <= 6 ? 0.01 : 0.3))), 'reward_variance_collapse');
    expect(recovered.alert).toBe(false);
    // collapse_steps and collapse_std are thresholds like the others
    expect(
      find(
        run(
          steps(8, (s) => (s < 6 ? 0.3 : 0.01)),
          { collapse_steps: 2 },
        ),
        'reward_variance_collapse',
      ).alert,
    ).toBe(true);
    expect(find(run(steps(8, () => 0.3)), 'reward_variance_collapse').alert).toBe(false);
    expect(
      find(
        run(
          steps(8, () => 0.3),
          { collapse_std: 0.5 },
        ),
        'reward_variance_collapse',
      ).alert,
    ).toBe(true);
  });

  it('needs uid groups with a global_step', () => {
    const r = find(
      run([
        { uid: 'a', score: 1 },
        { uid: 'a', score: 0 },
      ]),
      'reward_variance_collapse',
    );
    expect(r).toMatchObject({ value: null, alert: false });
    expect(r.signal).toMatch(/global_step/);
  });
});

describe('below min_points: the value, and no verdict', () => {
  it('spurious_reward_control at n < 30 no longer calls a noise-level ratio "consistent"', () => {
    // 3 groups of 4 with rewards unrelated to the group: a ratio near (or above) 1
    const recs = [1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0].map((s, i) => ({ uid: `g${i % 3}`, score: s }));
    const r = find(run(recs), 'spurious_reward_control');
    expect(r.n).toBe(12);
    expect(r.value!).toBeGreaterThan(0.9);
    expect(r.alert).toBe(false);
    expect(r.signal).not.toMatch(/consistent/);
    expect(r.signal).toMatch(/over 12 result\(s\): below min_points 30, too few for a verdict/);
    expect(r.signal).toContain(r.value!.toFixed(2));
    // with min_points lowered the same batch gets its verdict: noise
    const v = find(run(recs, { min_points: 10 }), 'spurious_reward_control');
    expect(v.alert).toBe(true);
  });

  it('reward_length_correlation and repetition say the same below min_points', () => {
    const recs = Array.from({ length: 10 }, (_, i) => ({ uid: `g${i % 2}`, score: i / 10, response_length: 100 + i * 50 }));
    const r = find(run(recs), 'reward_length_correlation');
    expect(r.alert).toBe(false);
    expect(r.signal).toMatch(/^r = 1\.000 over the batch over 10 result\(s\): below min_points 30/);
    expect(r.signal).not.toMatch(/no length hacking/);
    const rep = find(
      run(Array.from({ length: 5 }, () => ({ score: 1, output_text: 'again and again and again and again and again and again' }))),
      'repetition',
    );
    expect(rep.alert).toBe(false);
    expect(rep.signal).toMatch(/100\.0% of responses repetitive over 5 result\(s\): below min_points/);
  });
});
