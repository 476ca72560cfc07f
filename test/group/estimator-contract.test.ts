// The contract every registered advantage estimator keeps (src/group/estimators/*), run over the
// registry so that a new estimator is checked by adding it: it parses with its defaults, gives
// finite advantages on ordinary groups, masks a group of one, leaves masked lines out of every
// statistic (the others' advantages are those of the batch without them), does not depend on the
// order of the lines, refuses unknown options, gives token advantages only when it says so, and is
// in the docs' estimator table. Then golden values for gpg, the demonstration estimator.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeAdvantages, ConfigError, ESTIMATORS, parseAdvantageConfig } from '../../dist/index.js';
import { estimators } from '../../dist/group/estimator.js';
import { ROOT } from '../helpers/cli.js';

type Out = Record<string, any>;
const adv = (cfg: Record<string, unknown>, recs: Record<string, unknown>[]): Out[] => computeAdvantages(cfg, recs) as Out[];

/** A seeded batch of `groups` groups of 3..8 lines, with every field any estimator reads. */
function batch(groups: number, seed: number): Record<string, unknown>[] {
  let s = seed;
  const rand = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const recs: Record<string, unknown>[] = [];
  for (let g = 0; g < groups; g++) {
    const n = 3 + Math.floor(rand() * 6);
    for (let i = 0; i < n; i++) {
      const score = Math.round(rand() * 4) / 4;
      recs.push({
        id: `g${g}-${i}`,
        uid: `g${g}`,
        score,
        response_length: 1 + Math.floor(rand() * 5),
        // one-step trajectories, so any line order is a valid GiGPO order
        traj_uid: `t${g}-${i}`,
        anchor_obs: { cell: Math.floor(rand() * 2) },
        step_reward: score,
        episode_return: score,
      });
    }
  }
  return recs;
}

const specs = estimators();

describe('the registry', () => {
  it('ESTIMATORS lists every registered estimator, each with a summary and a source', () => {
    expect([...ESTIMATORS]).toEqual(specs.map((e) => e.name));
    expect(ESTIMATORS).toContain('gpg');
    for (const e of specs) {
      expect(e.summary.length, e.name).toBeGreaterThan(10);
      expect(e.source, e.name).toMatch(/\.py/);
    }
  });

  it("every estimator is in docs/groups.md's estimator table", () => {
    const doc = readFileSync(`${ROOT}docs/groups.md`, 'utf8');
    for (const e of specs) expect(doc, e.name).toContain(`| \`${e.name}\` |`);
  });
});

describe.each(specs.map((e) => [e.name, e] as const))('estimator %s', (name, spec) => {
  const cfg = { estimator: name };
  const recs = batch(12, 11);

  it('parses with its defaults and refuses an unknown option, naming it', () => {
    expect(parseAdvantageConfig(cfg).estimator).toBe(name);
    try {
      parseAdvantageConfig({ ...cfg, not_an_option: 1 });
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues[0]!.path).toBe('not_an_option');
    }
  });

  it('gives a finite advantage to every line of ordinary groups, and not all zero', () => {
    const out = adv(cfg, recs);
    expect(out).toHaveLength(recs.length);
    out.forEach((o, i) => {
      expect(o.id).toBe(recs[i]!.id);
      expect(Number.isFinite(o.advantage)).toBe(true);
      expect(o.advantage_masked).toBeUndefined();
    });
    expect(out.some((o) => Math.abs(o.advantage) > 1e-6)).toBe(true);
  });

  it('token advantages exactly when it declares them: one per response token', () => {
    for (const [o, r] of adv(cfg, recs).map((o, i) => [o, recs[i]!] as const)) {
      if (spec.tokenLevel) {
        expect(o.token_advantages).toHaveLength(r.response_length as number);
        expect(o.token_advantages.every(Number.isFinite)).toBe(true);
      } else expect(o.token_advantages).toBeUndefined();
    }
  });

  it('does not depend on the order of the lines', () => {
    const base = new Map(adv(cfg, recs).map((o) => [o.id, o.advantage]));
    const shuffled = [...recs].reverse();
    shuffled.push(shuffled.shift()!);
    for (const o of adv(cfg, shuffled)) expect(Math.abs(o.advantage - base.get(o.id)!)).toBeLessThan(1e-9);
  });

  it('masked lines stay masked and out of every statistic (never a reward of 0)', () => {
    const bad = [
      { ...recs[0]!, id: 'invalid', score: null, valid: false, episode_return: null, traj_uid: 'tx1' },
      { ...recs[1]!, id: 'malformed', score: 'high', episode_return: 'high', traj_uid: 'tx2' },
    ];
    const out = adv(cfg, [...recs.slice(0, 3), ...bad, ...recs.slice(3)]);
    const inv = out.find((o) => o.id === 'invalid')!;
    expect(inv).toMatchObject({ advantage: 0, advantage_masked: true, advantage_mask_reason: 'invalid_grade' });
    expect(out.find((o) => o.id === 'malformed')).toMatchObject({ advantage: 0, advantage_masked: true, advantage_mask_reason: 'bad_input' });
    const without = new Map(adv(cfg, recs).map((o) => [o.id, o.advantage]));
    for (const o of out) if (without.has(o.id)) expect(Math.abs(o.advantage - without.get(o.id)!)).toBeLessThan(1e-12);
  });

  it.runIf(spec.needsUid !== false)('a group of one line gets advantage 0, masked single_in_group', () => {
    const lone = { ...recs[0]!, id: 'lone', uid: 'alone', traj_uid: 'lone' };
    const out = adv(cfg, [...recs, lone]);
    expect(out.at(-1)).toMatchObject({ id: 'lone', advantage: 0, advantage_masked: true, advantage_mask_reason: 'single_in_group' });
  });

  it.runIf(spec.filters !== false)('filter_groups drops an all-equal group, every line of it reported', () => {
    const eq = [0, 1, 2].map((i) => ({ ...recs[0]!, id: `eq${i}`, uid: 'eq', traj_uid: `eq${i}`, score: 0.5 }));
    const out = adv({ ...cfg, filter_groups: { enable: true } }, [...recs, ...eq]);
    for (const o of out.slice(-3)) expect(o).toMatchObject({ advantage: 0, filtered: 'equal_scores', advantage_masked: true });
    expect(out.slice(0, -3).every((o) => o.filtered === undefined)).toBe(true);
  });

  it.runIf(spec.filters === false)('refuses the group filters, saying why', () => {
    expect(() => parseAdvantageConfig({ ...cfg, filter_groups: { enable: true } })).toThrow(/filter_groups: has no effect with/);
    expect(() => parseAdvantageConfig({ ...cfg, rollout_filter_ratio: 0.5 })).toThrow(/rollout_filter_ratio: has no effect with/);
  });
});

describe('gpg (verl compute_gpg_outcome_advantage)', () => {
  // alpha = bsz / count_nonzero(scores); advantage = alpha · (s - mean of the uid group) / f_norm
  const recs = [
    ...[1, 0, 0, 1].map((s, i) => ({ id: `a${i}`, uid: 'a', score: s })),
    ...[0, 0, 0, 1].map((s, i) => ({ id: `b${i}`, uid: 'b', score: s })),
    ...[2, 2].map((s, i) => ({ id: `c${i}`, uid: 'c', score: s })),
  ];
  function byDefinition(rs: { uid: string; score: number }[], fNorm = 1): number[] {
    const bsz = rs.length;
    const m = rs.filter((r) => r.score !== 0).length;
    const alpha = bsz / Math.max(m, 1);
    const mean = (u: string) => {
      const g = rs.filter((r) => r.uid === u);
      return g.reduce((a, r) => a + r.score, 0) / g.length;
    };
    return rs.map((r) => (alpha * (r.score - mean(r.uid))) / fNorm);
  }

  it('alpha · (s - group mean): 10 lines, 5 non-zero, alpha 2', () => {
    const want = byDefinition(recs);
    expect(want[0]).toBe(2 * (1 - 0.5));
    expect(want[7]).toBe(2 * (1 - 0.25));
    const got = adv({ estimator: 'gpg' }, recs).map((o) => o.advantage);
    got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 12));
  });

  it('f_norm divides; an invalid line counts in neither bsz nor the non-zero count', () => {
    const got = adv({ estimator: 'gpg', f_norm: 4 }, [...recs, { id: 'x', uid: 'a', score: null, valid: false }]);
    const want = byDefinition(recs, 4);
    got.slice(0, -1).forEach((g, i) => expect(g.advantage).toBeCloseTo(want[i]!, 12));
    expect(got.at(-1)).toMatchObject({ advantage: 0, advantage_mask_reason: 'invalid_grade' });
  });

  it('an all-zero batch gives 0 (alpha = bsz / max(0, 1)); group_of_one "trainer" is verl\'s mean 0', () => {
    const zeros = adv(
      { estimator: 'gpg' },
      [0, 0, 0].map((s, i) => ({ id: i, uid: 'z', score: s })),
    );
    expect(zeros.map((o) => o.advantage)).toEqual([0, 0, 0]);
    // [a: 1, 0] and a lone 3: bsz 3, non-zero 2, alpha 1.5; the lone line keeps s - 0
    const t = adv({ estimator: 'gpg', group_of_one: 'trainer' }, [
      { id: 1, uid: 'a', score: 1 },
      { id: 2, uid: 'a', score: 0 },
      { id: 3, uid: 'b', score: 3 },
    ]).map((o) => o.advantage);
    expect(t).toEqual([1.5 * 0.5, 1.5 * -0.5, 1.5 * 3]);
  });

  it('refuses group_size (alpha spans the batch) and a non-positive f_norm', () => {
    expect(() => parseAdvantageConfig({ estimator: 'gpg', group_size: 8 })).toThrow(/group_size: has no effect/);
    expect(() => parseAdvantageConfig({ estimator: 'gpg', f_norm: 0 })).toThrow(/f_norm/);
  });
});
