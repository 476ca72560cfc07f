// Composition graders beyond multi: weighted sums with per-component group normalisation,
// hierarchical gates, bounded/centred transforms and clipping, step schedules, DAPO's overlong
// penalty. Expected values are computed by hand in the comments; every component is logged.
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, grade, gradeGroup, loadGrader, scheduleWeight, overlongReward } from '../../dist/index.js';
import { registerValueType, value } from './helpers.js';

beforeAll(registerValueType);

const sample = (item: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ item, sample: { output_text: 'x', ...extra } });
const loadIssues = (c: unknown) => {
  try {
    loadGrader(c);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).issues;
  }
  throw new Error('config was accepted');
};

describe('weighted_sum', () => {
  const cfg = { type: 'weighted_sum', graders: { acc: value('a'), fmt: value('f') }, weights: { acc: 1, fmt: 0.25 } };

  it('Σ weight × score, each weighted part logged next to the total', async () => {
    const r = await grade(loadGrader(cfg), sample({ a: 0.8, f: 1 }));
    // 1 × 0.8 + 0.25 × 1 = 1.05
    expect(r.score).toBeCloseTo(1.05, 12);
    expect(r.metadata.weighted).toEqual({ acc: 0.8, fmt: 0.25 });
    expect(r.components!.acc!.score).toBe(0.8);
    expect(r.components!.fmt!.score).toBe(1);
  });

  it('an invalid component makes the grade invalid with its kind', async () => {
    const r = await grade(loadGrader(cfg), sample({ a: 0.8 }));
    expect(r).toMatchObject({ valid: false, error: { kind: 'bad_input' } });
    expect(r.error!.message).toMatch(/component "fmt" could not be graded/);
  });

  it('normalize "group": (x - mean) / (std + 1e-6) per component across the group, then Σ w × normalised', async () => {
    const g = loadGrader({ ...cfg, normalize: 'group' });
    // alone it refuses: there is no group to normalise against
    const alone = await grade(g, sample({ a: 1, f: 1 }));
    expect(alone).toMatchObject({ valid: false, error: { kind: 'config_error' } });
    expect(alone.error!.message).toMatch(/POST \/v1\/groups/);
    // acc [1, 0, 0.5]: mean 0.5, std 0.5; fmt [1, 1, 0]: mean 2/3, std sqrt(1/3)
    const items = [
      { a: 1, f: 1 },
      { a: 0, f: 1 },
      { a: 0.5, f: 0 },
    ];
    const res = await gradeGroup(
      g,
      items.map((it, i) => ({ id: i, ...sample(it) })),
      { advantages: null },
    );
    const sf = Math.sqrt(1 / 3) + 1e-6;
    const sa = 0.5 + 1e-6;
    const want = [0.5 / sa + (0.25 * (1 / 3)) / sf, -0.5 / sa + (0.25 * (1 / 3)) / sf, 0 + (0.25 * (-2 / 3)) / sf];
    res.forEach((r, i) => expect(r.score!).toBeCloseTo(want[i]!, 9));
    expect((res[2]!.metadata.normalized as Record<string, number>).acc).toBeCloseTo(0, 12);
    expect((res[0]!.metadata.group as Record<string, unknown>).acc).toMatchObject({ mean: 0.5, n: 3 });
    expect(res[0]!.metadata.raw).toEqual({ acc: 1, fmt: 1 });
    expect(res[0]!.components!.acc!.score).toBe(1);
  });

  it('normalize "group_mean" only centres; a lone response is a bad_input naming it, never a silent 0', async () => {
    const g = loadGrader({ ...cfg, normalize: 'group_mean' });
    const res = await gradeGroup(
      g,
      [
        { uid: 'p', ...sample({ a: 1, f: 0 }) },
        { uid: 'p', ...sample({ a: 0, f: 1 }) },
        { uid: 'q', ...sample({ a: 1, f: 1 }) },
      ],
      { advantages: null },
    );
    // group p: acc mean 0.5, fmt mean 0.5 -> 0.5 - 0.25·0.5 = 0.375 and -0.5 + 0.125 = -0.375; q is alone
    expect(res.map((r) => r.score)).toEqual([0.375, -0.375, null]);
    expect(res[2]).toMatchObject({ valid: false, error: { kind: 'bad_input' } });
    expect(res[2]!.error!.message).toMatch(/^samples\[2\]: its group \(uid "q"\) has only this response/);
  });

  it('group normalisation only at the root; weights must name sub-graders', () => {
    expect(loadIssues({ type: 'multi', graders: { w: { ...cfg, normalize: 'group' } } })[0]!.message).toMatch(/must be the root grader/);
    expect(loadIssues({ ...cfg, weights: { nope: 1 } })[0]).toMatchObject({ path: 'weights.nope' });
    expect(loadIssues({ ...cfg, epsilon: 0.1 })[0]).toMatchObject({ path: 'epsilon' });
  });
});

describe('tiers (hierarchical gates)', () => {
  const cfg = {
    type: 'tiers',
    tiers: [
      { name: 'format', grader: value('f'), weight: 0.1 },
      { name: 'correct', grader: value('c'), weight: 0.8 },
      { name: 'concise', grader: value('l'), weight: 0.1 },
    ],
  };
  it('a tier is graded only when the earlier ones pass; the total is Σ weight × score of graded tiers', async () => {
    const g = loadGrader(cfg);
    const all = await grade(g, sample({ f: 1, c: 1, l: 0.5 }));
    // 0.1 + 0.8 + 0.05
    expect(all.score).toBeCloseTo(0.95, 12);
    expect(all.metadata).toMatchObject({ reached: 3, skipped: [] });
    const wrong = await grade(g, sample({ f: 1, c: 0, l: 1 }));
    // format 0.1, correct 0 -> stops: length is not rewarded for a wrong answer
    expect(wrong.score).toBeCloseTo(0.1, 12);
    expect(wrong.metadata).toMatchObject({ reached: 2, skipped: ['concise'] });
    expect(wrong.components!.concise).toBeUndefined();
    const unformatted = await grade(g, sample({ f: 0, c: 1, l: 1 }));
    expect(unformatted.score).toBe(0);
    expect(unformatted.reason).toMatch(/tier "format" scored 0 < 1: skipped correct, concise/);
    // a skipped tier is not graded at all: its missing input does not matter
    expect((await grade(g, sample({ f: 0 }))).valid).toBe(true);
  });
  it('refuses a threshold on the last tier', () => {
    expect(loadIssues({ type: 'tiers', tiers: [{ grader: value('a') }, { grader: value('b'), threshold: 0.5 }] })[0]).toMatchObject({
      path: 'tiers[1].threshold',
    });
  });
});

describe('transform (bounded, centred, clipped)', () => {
  it('sigmoid of the centred, scaled score', async () => {
    const g = loadGrader({ type: 'transform', grader: value('a'), fn: 'sigmoid', center: 0.5, scale: 0.1 });
    const r = await grade(g, sample({ a: 0.7 }));
    // (0.7 - 0.5) / 0.1 = 2 -> 1 / (1 + e^-2)
    expect(r.score).toBeCloseTo(1 / (1 + Math.exp(-2)), 12);
    expect(r.metadata).toMatchObject({ input: 0.7, center: 0.5, fn: 'sigmoid' });
    expect(r.metadata.centered).toBeCloseTo(2, 12);
  });
  it('clipping, and tanh', async () => {
    const clip = loadGrader({ type: 'transform', grader: value('a'), clip: [-1, 1] });
    expect((await grade(clip, sample({ a: 3.5 }))).score).toBe(1);
    expect((await grade(clip, sample({ a: 3.5 }))).metadata.clipped).toBe(true);
    expect((await grade(clip, sample({ a: -0.25 }))).score).toBe(-0.25);
    const t = loadGrader({ type: 'transform', grader: value('a'), fn: 'tanh', scale: 2 });
    expect((await grade(t, sample({ a: 1 }))).score).toBeCloseTo(Math.tanh(0.5), 12);
  });
  it('center "group_mean": sigmoid of the reward centred on its group', async () => {
    const g = loadGrader({ type: 'transform', grader: value('a'), fn: 'sigmoid', center: 'group_mean' });
    expect((await grade(g, sample({ a: 1 }))).error!.kind).toBe('config_error');
    const res = await gradeGroup(
      g,
      [0, 1, 2].map((a) => sample({ a })),
      { advantages: null },
    );
    // mean 1 -> sigmoid(-1), sigmoid(0), sigmoid(1)
    res.forEach((r, i) => expect(r.score!).toBeCloseTo(1 / (1 + Math.exp(-(i - 1))), 12));
  });
  it('refuses a transform that does nothing and an inverted clip', () => {
    expect(loadIssues({ type: 'transform', grader: value('a') })[0]).toMatchObject({ path: 'fn' });
    expect(loadIssues({ type: 'transform', grader: value('a'), clip: [1, 0] })[0]).toMatchObject({ path: 'clip' });
  });
});

describe('schedule (annealing by training step)', () => {
  it('linear, cosine and constant interpolation between points, held outside them', () => {
    const pts: [number, number][] = [
      [0, 1],
      [100, 0],
    ];
    expect(scheduleWeight(pts, 25, 'linear')).toBeCloseTo(0.75, 12);
    // cosine: 0 + (1 - 0)(1 + cos(π/4))/2
    expect(scheduleWeight(pts, 25, 'cosine')).toBeCloseTo((1 + Math.cos(Math.PI / 4)) / 2, 12);
    expect(scheduleWeight(pts, 25, 'constant')).toBe(1);
    expect(scheduleWeight(pts, 500, 'linear')).toBe(0);
    expect(
      scheduleWeight(
        [
          [10, 0.5],
          [20, 1],
          [30, 0],
        ],
        25,
        'linear',
      ),
    ).toBeCloseTo(0.5, 12);
  });
  it('reads the step from {{item.global_step}} and multiplies the sub-grader score; a missing step is invalid', async () => {
    const g = loadGrader({
      type: 'schedule',
      grader: value('a'),
      points: [
        [0, 1],
        [100, 0],
      ],
    });
    const r = await grade(g, sample({ a: 0.8, global_step: 25 }));
    expect(r.score).toBeCloseTo(0.6, 12);
    expect(r.metadata).toMatchObject({ step: 25, weight: 0.75, unscheduled: 0.8 });
    const missing = await grade(g, sample({ a: 0.8 }));
    expect(missing).toMatchObject({ valid: false, error: { kind: 'template_error' } });
    const bad = await grade(g, sample({ a: 0.8, global_step: 'soon' }));
    expect(bad.error!.kind).toBe('bad_input');
  });
  it('refuses points whose steps do not increase', () => {
    expect(
      loadIssues({
        type: 'schedule',
        grader: value('a'),
        points: [
          [10, 1],
          [10, 0],
        ],
      })[0],
    ).toMatchObject({ path: 'points[1]' });
  });
});

describe('overlong_penalty (DAPO)', () => {
  it('min(-(L - (max - buffer)) / buffer × factor, 0) added to the sub-grader score', async () => {
    // max_resp_len 20, buffer 5 -> expected 15
    expect(overlongReward(15, 20, 5, 1)).toBe(0);
    expect(overlongReward(10, 20, 5, 1)).toBe(0);
    expect(overlongReward(17, 20, 5, 1)).toBeCloseTo(-0.4, 12);
    expect(overlongReward(20, 20, 5, 0.5)).toBeCloseTo(-0.5, 12);
    const g = loadGrader({ type: 'overlong_penalty', grader: value('a'), max_resp_len: 20, overlong_buffer: { len: 5, penalty_factor: 1 } });
    const r = await grade(g, sample({ a: 1 }, { response_length: 18 }));
    expect(r.score).toBeCloseTo(1 - 0.6, 12);
    expect(r.metadata).toMatchObject({ response_length: 18, expected_len: 15, overlong: true, unpenalized: 1 });
    expect(r.metadata.overlong_reward).toBeCloseTo(-0.6, 12);
    const alone = loadGrader({ type: 'overlong_penalty', max_resp_len: 20, overlong_buffer: { len: 5 }, response_length: '{{item.len}}' });
    expect((await grade(alone, sample({ len: 16 }))).score).toBeCloseTo(-0.2, 12);
    expect((await grade(g, sample({ a: 1 }))).error!.kind).toBe('template_error');
  });
  it('refuses max_resp_len below the buffer, as verl does', () => {
    expect(loadIssues({ type: 'overlong_penalty', max_resp_len: 4, overlong_buffer: { len: 5 } })[0]).toMatchObject({ path: 'max_resp_len' });
  });
});

describe('gradeGroup', () => {
  it('grades a group and adds advantages from the final scores', async () => {
    const g = loadGrader(value('a'));
    const res = await gradeGroup(g, [
      { id: 'x', ...sample({ a: 1 }) },
      { id: 'y', ...sample({ a: 0 }) },
      { id: 'z', ...sample({}) },
    ]);
    // z is invalid: grpo over [1, 0] -> ±0.5 / (sqrt(0.5) + 1e-6)
    expect(res.map((r) => r.id)).toEqual(['x', 'y', 'z']);
    expect(res[0]!.advantage).toBeCloseTo(0.5 / (Math.SQRT1_2 + 1e-6), 9);
    expect(res[2]).toMatchObject({ valid: false, advantage: 0, advantage_masked: true, advantage_mask_reason: 'invalid_grade' });
  });
});
