// Advantage estimators against values computed by hand from the trainers' definitions (verl
// core_algos.py, verl-agent core_gigpo.py, TRL GRPOTrainer), written out in the comments. Invalid
// grades must be left out of the statistics (never counted as reward 0) and get advantage 0.
import { describe, expect, it } from 'vitest';
import { computeAdvantages, ConfigError, parseAdvantageConfig } from '../../dist/index.js';

type Out = Record<string, any>;
const adv = (cfg: Record<string, unknown>, recs: Record<string, unknown>[]): Out[] => computeAdvantages(cfg, recs) as Out[];
const close = (got: number[], want: number[], tol = 1e-9) => {
  expect(got.length).toBe(want.length);
  got.forEach((g, i) => expect(Math.abs(g - want[i]!)).toBeLessThan(tol));
};
const group = (uid: string, scores: (number | null)[], extra: Record<string, unknown> = {}) =>
  scores.map((s, i) => ({ id: `${uid}${i}`, uid, score: s, ...extra }));

describe('grpo (verl compute_grpo_outcome_advantage)', () => {
  it('(s - mean) / (unbiased std + 1e-6)', () => {
    // [2, 4, 9]: mean 5, deviations -3 -1 4, sum of squares 26, unbiased var 26/2 = 13
    const sd = Math.sqrt(13);
    const out = adv({ estimator: 'grpo' }, group('a', [2, 4, 9]));
    close(
      out.map((o) => o.advantage),
      [-3 / (sd + 1e-6), -1 / (sd + 1e-6), 4 / (sd + 1e-6)],
    );
    // [1, 0, 0, 1]: mean 0.5, var (4 × 0.25) / 3 = 1/3
    const out2 = adv({ estimator: 'grpo' }, group('b', [1, 0, 0, 1]));
    const s2 = Math.sqrt(1 / 3);
    close(
      out2.map((o) => o.advantage),
      [0.5 / (s2 + 1e-6), -0.5 / (s2 + 1e-6), -0.5 / (s2 + 1e-6), 0.5 / (s2 + 1e-6)],
    );
    expect(out2[0]!.advantage).toBeCloseTo(0.866024, 6);
    expect(out2.every((o) => o.advantage_masked === undefined)).toBe(true);
  });

  it('norm_adv_by_std_in_grpo: false is Dr.GRPO (s - mean); epsilon is configurable', () => {
    close(
      adv({ estimator: 'grpo', norm_adv_by_std_in_grpo: false }, group('a', [2, 4, 9])).map((o) => o.advantage),
      [-3, -1, 4],
    );
    // [0, 1]: mean 0.5, std sqrt(0.5)
    close(
      adv({ estimator: 'grpo', epsilon: 0.1 }, group('a', [0, 1])).map((o) => o.advantage),
      [-0.5 / (Math.SQRT1_2 + 0.1), 0.5 / (Math.SQRT1_2 + 0.1)],
    );
  });

  it('an all-equal group gets 0, NaN-free', () => {
    const out = adv({ estimator: 'grpo' }, group('a', [0.7, 0.7, 0.7, 0.7]));
    for (const o of out) {
      expect(Number.isFinite(o.advantage)).toBe(true);
      expect(Math.abs(o.advantage)).toBeLessThan(1e-6);
    }
  });

  it('a group of one gets 0 (masked, single_in_group); group_of_one "trainer" is verl\'s mean 0, std 1', () => {
    const z = adv({ estimator: 'grpo' }, group('a', [5]));
    expect(z[0]).toMatchObject({ advantage: 0, advantage_masked: true, advantage_mask_reason: 'single_in_group' });
    // verl: id2mean = 0, id2std = 1 -> 5 / (1 + 1e-6)
    close([adv({ estimator: 'grpo', group_of_one: 'trainer' }, group('a', [5]))[0]!.advantage], [5 / (1 + 1e-6)]);
    close([adv({ estimator: 'grpo', group_of_one: 'trainer', norm_adv_by_std_in_grpo: false }, group('a', [5]))[0]!.advantage], [5]);
  });

  it('invalid grades are left out of the statistics, not counted as 0, and get advantage 0 with a flag', () => {
    const recs = [
      { id: 1, uid: 'g', score: 1 },
      { id: 2, uid: 'g', score: 0 },
      { id: 3, uid: 'g', score: null, valid: false, error: { kind: 'timeout', message: 't' } },
      // a stale score on an invalid grade must be ignored too
      { id: 4, uid: 'g', score: 1, valid: false },
      { id: 5, uid: 'g', score: null },
    ];
    const out = adv({ estimator: 'grpo' }, recs);
    // statistics over [1, 0] only: mean 0.5, std sqrt(0.5). (Counting the three as 0 would give mean 0.2.)
    close([out[0]!.advantage, out[1]!.advantage], [0.5 / (Math.SQRT1_2 + 1e-6), -0.5 / (Math.SQRT1_2 + 1e-6)]);
    for (const o of out.slice(2)) expect(o).toMatchObject({ advantage: 0, advantage_masked: true, advantage_mask_reason: 'invalid_grade' });
    expect(out[2]!.error).toEqual({ kind: 'timeout', message: 't' }); // the record is kept as it was
  });

  it('malformed records are masked with bad_input naming the place, one output per input', () => {
    const out = adv({ estimator: 'grpo' }, [
      { uid: 'a', score: 1 },
      { score: 1 },
      { uid: 'a', score: 'x' },
      7 as unknown as Record<string, unknown>,
      { uid: {}, score: 1 },
      { uid: 'a', scores: [1] },
      { uid: 'a', score: 0 },
    ]);
    expect(out).toHaveLength(7);
    expect(out[1]!.advantage_error).toEqual({ kind: 'bad_input', message: 'records[1]: field "uid" (the group) is missing' });
    expect(out[2]!.advantage_error.message).toMatch(/^records\[2\]: field "score" must be a finite number or null/);
    expect(out[3]).toMatchObject({ id: 3, advantage: 0, advantage_masked: true, advantage_mask_reason: 'bad_input' });
    expect(out[4]!.advantage_error.message).toMatch(/"uid" must be a string or number/);
    expect(out[5]!.advantage_error.message).toMatch(/takes one reward per line in field "score"/);
    close([out[0]!.advantage, out[6]!.advantage], [0.5 / (Math.SQRT1_2 + 1e-6), -0.5 / (Math.SQRT1_2 + 1e-6)]);
  });

  it('uid 1 and uid "1" are different groups', () => {
    const out = adv({ estimator: 'grpo', norm_adv_by_std_in_grpo: false }, [
      { uid: 1, score: 1 },
      { uid: '1', score: 3 },
      { uid: 1, score: 0 },
      { uid: '1', score: 5 },
    ]);
    close(
      out.map((o) => o.advantage),
      [0.5, -1, -0.5, 1],
    );
  });
});

describe('rloo, opo, grpo_passk', () => {
  it('rloo: s·n/(n-1) - mean·n/(n-1) = s minus the mean of the others', () => {
    // [1, 2, 6]: 1 - (2+6)/2 = -3, 2 - (1+6)/2 = -1.5, 6 - (1+2)/2 = 4.5
    close(
      adv({ estimator: 'rloo' }, group('a', [1, 2, 6])).map((o) => o.advantage),
      [-3, -1.5, 4.5],
    );
    // verl leaves a lone score unchanged (trainer), 0 by default
    expect(adv({ estimator: 'rloo', group_of_one: 'trainer' }, group('a', [0.3]))[0]!.advantage).toBe(0.3);
    expect(adv({ estimator: 'rloo' }, group('a', [0.3]))[0]!.advantage_mask_reason).toBe('single_in_group');
  });

  it('opo: s - Σ len·s / Σ len', () => {
    // scores [1, 0, 1], lengths [10, 20, 30]: baseline (10 + 0 + 30) / 60 = 2/3
    const recs = [10, 20, 30].map((l, i) => ({ uid: 'a', score: [1, 0, 1][i], response_length: l }));
    close(
      adv({ estimator: 'opo' }, recs).map((o) => o.advantage),
      [1 / 3, -2 / 3, 1 / 3],
    );
    const missing = adv({ estimator: 'opo' }, [{ uid: 'a', score: 1 }]);
    expect(missing[0]!.advantage_error.message).toMatch(/"response_length" .* is required by opo/);
  });

  it('grpo_passk: only the best gets (r_max - r_second) / (std + eps)', () => {
    // [0.2, 0.9, 0.5, 0.7]: r_max 0.9 (index 1), r_second 0.7; mean 0.575, SS 0.2675, std sqrt(0.2675/3)
    const sd = Math.sqrt(0.2675 / 3);
    close(
      adv({ estimator: 'grpo_passk' }, group('a', [0.2, 0.9, 0.5, 0.7])).map((o) => o.advantage),
      [0, 0.2 / (sd + 1e-6), 0, 0],
    );
    close(
      adv({ estimator: 'grpo_passk', norm_adv_by_std_in_grpo: false }, group('a', [0.2, 0.9, 0.5, 0.7])).map((o) => o.advantage),
      [0, 0.9 - 0.7, 0, 0],
    );
    // a tie at the top: r_max - r_second = 0 for everyone
    expect(adv({ estimator: 'grpo_passk' }, group('a', [0.9, 0.9, 0.1])).map((o) => o.advantage)).toEqual([0, 0, 0]);
    // verl refuses groups under 2: masked here
    expect(adv({ estimator: 'grpo_passk' }, group('a', [1]))[0]!.advantage_mask_reason).toBe('single_in_group');
  });
});

describe('reinforce_plus_plus and reinforce_plus_plus_baseline (token level, verl masked_whiten)', () => {
  // masked_whiten over N tokens: mean = Σv / (N + 1e-8); var = Σ(v - mean)² / (N + 1e-8) · N / (N - 1);
  // whitened = (v - mean) / sqrt(var + 1e-8)
  const whiten = (v: number[]) => {
    const n = v.length;
    const m = v.reduce((a, x) => a + x, 0) / (n + 1e-8);
    const variance = (v.reduce((a, x) => a + (x - m) ** 2, 0) / (n + 1e-8)) * (n / (n - 1));
    return v.map((x) => (x - m) / Math.sqrt(variance + 1e-8));
  };

  it('reinforce_plus_plus: discounted returns with the score on the last token, whitened over the batch', () => {
    // A: 2 tokens, score 1, gamma 0.5 -> returns [0.5, 1]; B: 3 tokens, score 0 -> [0, 0, 0]
    // tokens [0.5, 1, 0, 0, 0]: mean ≈ 0.3, deviations .2 .7 -.3 -.3 -.3, SS 0.8, var 0.8/5·5/4 = 0.2
    const out = adv({ estimator: 'reinforce_plus_plus', gamma: 0.5 }, [
      { id: 'A', score: 1, response_length: 2 },
      { id: 'B', score: 0, response_length: 3 },
      { id: 'C', score: null, valid: false, response_length: 2 },
    ]);
    const w = whiten([0.5, 1, 0, 0, 0]);
    close(out[0]!.token_advantages, w.slice(0, 2));
    close(out[1]!.token_advantages, w.slice(2));
    close(out[0]!.token_advantages, [0.2 / Math.sqrt(0.2), 0.7 / Math.sqrt(0.2)], 1e-6);
    expect(out[0]!.advantage).toBe(out[0]!.token_advantages[0]);
    // the invalid line is out of the statistics and gets zeros, one per token
    expect(out[2]).toMatchObject({ advantage: 0, token_advantages: [0, 0], advantage_masked: true, advantage_mask_reason: 'invalid_grade' });
  });

  it('gamma 1 gives the score on every token; token_level_rewards are used when given', () => {
    const out = adv({ estimator: 'reinforce_plus_plus' }, [
      { score: 1, response_length: 2 },
      { score: 0, token_level_rewards: [0.5, 0, 1] },
    ]);
    // returns: [1, 1] and, with gamma 1, [1.5, 1, 1]
    const w = whiten([1, 1, 1.5, 1, 1]);
    close([...out[0]!.token_advantages, ...out[1]!.token_advantages], w);
  });

  it('reinforce_plus_plus_baseline: s - group mean on each token, whitened over the batch tokens', () => {
    // group a: scores [1 (1 token), 0 (3 tokens)], mean 0.5 -> tokens [.5, -.5, -.5, -.5]
    // mean ≈ -0.25, deviations .75 -.25 -.25 -.25, SS .75, var .75/4·4/3 = .25, std .5 -> 1.5 and -0.5
    const out = adv({ estimator: 'reinforce_plus_plus_baseline' }, [
      { uid: 'a', score: 1, response_length: 1 },
      { uid: 'a', score: 0, response_length: 3 },
    ]);
    const w = whiten([0.5, -0.5, -0.5, -0.5]);
    close(out[0]!.token_advantages, [w[0]!]);
    close(out[1]!.token_advantages, w.slice(1));
    close([out[0]!.advantage, out[1]!.advantage], [1.5, -0.5], 1e-6);
  });

  it('a batch with fewer than two scorable tokens cannot be whitened: masked, not NaN', () => {
    const out = adv({ estimator: 'reinforce_plus_plus' }, [{ score: 1, response_length: 1 }]);
    expect(out[0]).toMatchObject({ advantage: 0, advantage_masked: true, advantage_mask_reason: 'bad_input' });
    expect(out[0]!.advantage_error.message).toMatch(/at least 2 response tokens/);
  });
});

describe('gigpo (verl-agent compute_gigpo_outcome_advantage)', () => {
  // one prompt group, two trajectories of two steps:
  //   T1: anchor A (step reward 0), anchor B (1); episode return 1
  //   T2: anchor A (0), anchor C (0); episode return 0
  const rows = [
    { id: 't1s1', uid: 'g', traj_uid: 'T1', anchor_obs: 'A', step_reward: 0, episode_return: 1 },
    { id: 't1s2', uid: 'g', traj_uid: 'T1', anchor_obs: 'B', step_reward: 1, episode_return: 1 },
    { id: 't2s1', uid: 'g', traj_uid: 'T2', anchor_obs: 'A', step_reward: 0, episode_return: 0 },
    { id: 't2s2', uid: 'g', traj_uid: 'T2', anchor_obs: 'C', step_reward: 0, episode_return: 0 },
  ];
  // gamma 0.5: step returns T1 [0 + 0.5·1, 1] = [0.5, 1], T2 [0, 0]
  // episode group over all 4 step rows: returns [1, 1, 0, 0], mean 0.5, unbiased std sqrt(1/3)
  // step groups: A = {t1s1: 0.5, t2s1: 0}, mean 0.25, std sqrt(0.125); B and C are single -> 0

  it('mean_norm: (R - mean) for both parts, joined as episode + w · step', () => {
    const out = adv({ estimator: 'gigpo', gamma: 0.5 }, rows);
    close(
      out.map((o) => o.advantage),
      [0.5 + 0.25, 0.5 + 0, -0.5 - 0.25, -0.5 + 0],
    );
    const w2 = adv({ estimator: 'gigpo', gamma: 0.5, step_advantage_w: 2 }, rows);
    close(
      w2.map((o) => o.advantage),
      [0.5 + 0.5, 0.5, -0.5 - 0.5, -0.5],
    );
  });

  it('mean_std_norm divides each part by its std + epsilon', () => {
    const se = Math.sqrt(1 / 3) + 1e-6;
    const ss = Math.sqrt(0.125) + 1e-6;
    const out = adv({ estimator: 'gigpo', gamma: 0.5, mode: 'mean_std_norm' }, rows);
    close(
      out.map((o) => o.advantage),
      [0.5 / se + 0.25 / ss, 0.5 / se, -0.5 / se - 0.25 / ss, -0.5 / se],
    );
  });

  it('identical anchors are compared by value (object keys in any order)', () => {
    const r = rows.map((x) => ({
      ...x,
      anchor_obs: x.anchor_obs === 'A' ? (x.traj_uid === 'T1' ? { room: 1, items: [1, 2] } : { items: [1, 2], room: 1 }) : x.anchor_obs,
    }));
    close(
      adv({ estimator: 'gigpo', gamma: 0.5 }, r).map((o) => o.advantage),
      [0.75, 0.5, -0.75, -0.5],
    );
  });

  it('an invalid step masks itself and the earlier steps of its trajectory (their return includes it)', () => {
    const r = rows.map((x) => (x.id === 't2s2' ? { ...x, valid: false, step_reward: null } : x));
    const out = adv({ estimator: 'gigpo', gamma: 0.5 }, r);
    expect(out[3]!.advantage_mask_reason).toBe('invalid_grade');
    expect(out[2]!.advantage_mask_reason).toBe('depends_on_invalid');
    // T1 alone: episode returns [1, 1] -> 0; anchors A and B are now single -> 0
    expect(out.slice(0, 2).map((o) => o.advantage)).toEqual([0, 0]);
    expect(out[0]!.advantage_masked).toBeUndefined();
  });

  it('needs traj_uid, anchor_obs, step_reward and episode_return', () => {
    const out = adv({ estimator: 'gigpo' }, [
      { uid: 'g', traj_uid: 'T', anchor_obs: 'A', step_reward: 0 },
      { uid: 'g', anchor_obs: 'A', step_reward: 0, episode_return: 1 },
    ]);
    expect(out[0]!.advantage_error.message).toMatch(/"episode_return" is missing/);
    expect(out[1]!.advantage_error.message).toMatch(/"traj_uid"/);
  });
});

describe('trl_grpo (TRL GRPOTrainer)', () => {
  it('sum_then_normalize, scale_rewards "group": weighted nansum, minus the group mean, over std + 1e-4', () => {
    // weights [1, 0.5]; rewards [[1,0], [0,1], [1,1], [0,null]] -> sums [1, 0.5, 1.5, 0] (None is skipped)
    // mean 0.75, deviations .25 -.25 .75 -.75, SS 1.25, std sqrt(1.25/3)
    const recs = [
      [1, 0],
      [0, 1],
      [1, 1],
      [0, null],
    ].map((s) => ({ uid: 'g', scores: s }));
    const sd = Math.sqrt(1.25 / 3);
    const out = adv({ estimator: 'trl_grpo', reward_weights: [1, 0.5] }, recs);
    close(
      out.map((o) => o.advantage),
      [0.25 / (sd + 1e-4), -0.25 / (sd + 1e-4), 0.75 / (sd + 1e-4), -0.75 / (sd + 1e-4)],
    );
    close(
      adv({ estimator: 'trl_grpo', reward_weights: [1, 0.5], scale_rewards: 'none' }, recs).map((o) => o.advantage),
      [0.25, -0.25, 0.75, -0.75],
    );
    close(
      adv({ estimator: 'trl_grpo', reward_weights: [1, 0.5], scale_rewards: false }, recs).map((o) => o.advantage),
      [0.25, -0.25, 0.75, -0.75],
    );
  });

  it('scale_rewards "batch": group mean, batch std', () => {
    // g1 [1, 3] (mean 2), g2 [2, 2] (mean 2); batch std of [1, 3, 2, 2] = sqrt(2/3)
    const sd = Math.sqrt(2 / 3);
    const out = adv({ estimator: 'trl_grpo', scale_rewards: 'batch' }, [...group('g1', [1, 3]), ...group('g2', [2, 2])]);
    close(
      out.map((o) => o.advantage),
      [-1 / (sd + 1e-4), 1 / (sd + 1e-4), 0, 0],
    );
  });

  it('unscorable completions (every reward None, or valid: false) get 0 and stay out of the baseline', () => {
    const out = adv({ estimator: 'trl_grpo', scale_rewards: 'none' }, [
      { uid: 'g', scores: [1, 1] },
      { uid: 'g', scores: [null, null] },
      { uid: 'g', scores: [0, 0] },
      { uid: 'g', scores: [5, 5], valid: false },
    ]);
    // sums [2, -, 0, -]: mean 1 -> 1, -1
    expect(out.map((o) => o.advantage)).toEqual([1, 0, -1, 0]);
    expect(out[1]!.advantage_mask_reason).toBe('invalid_grade');
    expect(out[3]!.advantage_mask_reason).toBe('invalid_grade');
  });

  it('normalize_then_sum (GDPO): each reward normalised per group, summed, then normalised over the batch', () => {
    const recs = [
      { uid: 'g1', scores: [1, 0] },
      { uid: 'g1', scores: [0, 0] },
      { uid: 'g1', scores: [1, 1] },
      { uid: 'g2', scores: [0, 1] },
      { uid: 'g2', scores: [1, 1] },
    ];
    // g1 reward 0: [1,0,1] mean 2/3, std sqrt(1/3); reward 1: [0,0,1] mean 1/3, std sqrt(1/3). d = sqrt(1/3) + 1e-4
    //   sums: (1/3 - 1/3)/d = 0, (-2/3 - 1/3)/d = -1/d, (1/3 + 2/3)/d = 1/d
    // g2 reward 0: [0,1] mean .5, std sqrt(.5), e = sqrt(.5) + 1e-4: -.5/e, .5/e; reward 1: [1,1] std 0 -> 0/(0 + 1e-4) = 0
    // batch [0, -1/d, 1/d, -.5/e, .5/e]: mean 0, std sqrt((2/d² + .5/e²) / 4)
    const d = Math.sqrt(1 / 3) + 1e-4;
    const e = Math.SQRT1_2 + 1e-4;
    const r = [0, -1 / d, 1 / d, -0.5 / e, 0.5 / e];
    const sd = Math.sqrt((2 / d ** 2 + 0.5 / e ** 2) / 4);
    const out = adv({ estimator: 'trl_grpo', multi_objective_aggregation: 'normalize_then_sum' }, recs);
    close(
      out.map((o) => o.advantage),
      r.map((x) => x / (sd + 1e-4)),
    );
  });

  it('reward_components reads components.<name>.score; an invalid component is a None reward', () => {
    const rec = (a: number | null, b: number) => ({
      uid: 'g',
      score: 0,
      components: { acc: a === null ? { score: null, valid: false } : { score: a, valid: true }, fmt: { score: b, valid: true } },
    });
    const out = adv({ estimator: 'trl_grpo', reward_components: ['acc', 'fmt'], reward_weights: [1, 0.1], scale_rewards: 'none' }, [
      rec(1, 1),
      rec(0, 1),
      rec(null, 0),
    ]);
    // sums [1.1, 0.1, 0 (acc None)], mean 0.4
    close(
      out.map((o) => o.advantage),
      [0.7, -0.3, -0.4],
    );
    // a line invalid as a whole (multi invalidates on one failed component) keeps its valid components
    const partial = adv({ estimator: 'trl_grpo', reward_components: ['acc', 'fmt'], scale_rewards: 'none' }, [
      rec(1, 1),
      { ...rec(null, 1), valid: false, score: null },
    ]);
    // sums [2, 1]: mean 1.5
    close(
      partial.map((o) => o.advantage),
      [0.5, -0.5],
    );
    const bad = adv({ estimator: 'trl_grpo', reward_components: ['acc', 'nope'] }, [rec(1, 1)]);
    expect(bad[0]!.advantage_error.message).toMatch(/component\(s\) "nope" missing/);
  });

  it('a lone completion gets 0 in every mode', () => {
    for (const scale_rewards of ['group', 'batch', 'none']) {
      expect(adv({ estimator: 'trl_grpo', scale_rewards }, [{ uid: 'x', score: 3 }, ...group('y', [0, 1])])[0]!.advantage).toBe(0);
    }
  });

  it('reward counts must match reward_weights and each other', () => {
    const out = adv({ estimator: 'trl_grpo', reward_weights: [1, 1] }, [{ uid: 'g', scores: [1] }]);
    expect(out[0]!.advantage_error.message).toMatch(/has 1 reward\(s\) but reward_weights has 2/);
    const out2 = adv({ estimator: 'trl_grpo' }, [
      { uid: 'g', scores: [1, 0] },
      { uid: 'g', scores: [1] },
      { uid: 'g', scores: [0, 0] },
    ]);
    expect(out2[1]!.advantage_error.message).toMatch(/has 1 reward\(s\) where earlier lines of the batch have 2/);
  });
});

describe('config validation', () => {
  const issues = (c: unknown) => {
    try {
      parseAdvantageConfig(c);
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      return (e as ConfigError).issues;
    }
    throw new Error('config was accepted');
  };
  it('names unknown estimators, options of other estimators, and options with no effect', () => {
    expect(issues({ estimator: 'ppo' })[0]!.message).toMatch(/unknown estimator "ppo" \(known: grpo, rloo/);
    expect(issues({})[0]!.message).toMatch(/required field "estimator" is missing/);
    expect(issues({ estimator: 'grpo', gamma: 0.9 })[0]).toEqual({
      path: 'gamma',
      message: 'has no effect with grpo (it is an option of reinforce_plus_plus, gigpo)',
    });
    expect(issues({ estimator: 'rloo', epsilon: 1e-6 })[0]!.message).toMatch(/has no effect with rloo/);
    expect(issues({ estimator: 'trl_grpo', multi_objective_aggregation: 'normalize_then_sum', scale_rewards: 'group' })[0]!.path).toBe('scale_rewards');
    expect(issues({ estimator: 'reinforce_plus_plus_baseline', group_size: 8 })[0]!.message).toMatch(/group_size: |no effect/);
    expect(issues({ estimator: 'trl_grpo', scale_rewards: 'batch', group_size: 8 })[0]!.path).toBe('group_size');
    expect(issues({ estimator: 'gigpo', enable_similarity: true })[0]!.message).toMatch(/exact equality/);
    expect(issues({ estimator: 'grpo', epsilon: -1 })[0]!.path).toBe('epsilon');
    expect(issues({ estimator: 'trl_grpo', reward_weights: [1], reward_components: ['a', 'b'] })[0]!.path).toBe('reward_weights');
  });
});

describe('NaN-free on awkward batches', () => {
  it('every estimator gives a finite advantage for every line', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const recs: Record<string, unknown>[] = [];
    for (let i = 0; i < 400; i++) {
      const k = Math.floor(rand() * 6);
      recs.push({
        id: i,
        uid: `g${Math.floor(rand() * 40)}`,
        score: k === 0 ? null : k === 1 ? 1 : Math.round(rand() * 3) / 3,
        ...(k === 0 ? { valid: false } : {}),
        scores: [k === 2 ? null : rand(), rand() < 0.5 ? 1 : 0],
        response_length: Math.floor(rand() * 4),
        traj_uid: `t${Math.floor(rand() * 80)}`,
        anchor_obs: Math.floor(rand() * 3),
        step_reward: k === 0 ? null : rand(),
        episode_return: 1,
      });
    }
    const configs = [
      { estimator: 'grpo' },
      { estimator: 'grpo', group_of_one: 'trainer' },
      { estimator: 'rloo' },
      { estimator: 'opo', group_of_one: 'trainer' },
      { estimator: 'grpo_passk' },
      { estimator: 'reinforce_plus_plus', gamma: 0.9 },
      { estimator: 'reinforce_plus_plus_baseline', group_of_one: 'trainer' },
      { estimator: 'gigpo', mode: 'mean_std_norm' },
      { estimator: 'trl_grpo', reward_weights: [1, 2] },
      { estimator: 'trl_grpo', multi_objective_aggregation: 'normalize_then_sum', group_of_one: 'trainer' },
    ];
    for (const c of configs) {
      const single = c.estimator === 'trl_grpo' ? recs : recs.map(({ scores: _s, ...r }) => r);
      const out = adv(c, single);
      expect(out).toHaveLength(recs.length);
      for (const o of out) {
        expect(Number.isFinite(o.advantage)).toBe(true);
        for (const t of o.token_advantages ?? []) expect(Number.isFinite(t)).toBe(true);
      }
    }
  });
});
