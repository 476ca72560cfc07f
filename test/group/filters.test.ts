// Group filters in `advantages`: verl DAPO's dynamic sampling (filter_groups: drop a group whose
// metric is the same on every line; keep std > 0 or a single line) and RAGEN StarPO-S's variance
// filter (keep topk(int(ratio × groups)) groups by torch.std of the scores). The rules are
// recomputed here from those definitions; dropped lines must be reported, never missing.
import { join } from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { computeAdvantages, parseAdvantageConfig } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from './helpers.js';

type Out = Record<string, any>;
const adv = (cfg: Record<string, unknown>, recs: Record<string, unknown>[]): Out[] => computeAdvantages(cfg, recs) as Out[];
const grp = (uid: string, scores: (number | null)[], extra: (i: number) => Record<string, unknown> = () => ({})) =>
  scores.map((s, i) => ({ id: `${uid}${i}`, uid, score: s, ...(s === null ? { valid: false } : {}), ...extra(i) }));

/** torch.std (unbiased). */
const std = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
};

describe('filter_groups (verl DAPO dynamic sampling)', () => {
  it('drops the all-equal groups, keeps the rest with their GRPO advantages, reports every dropped line', () => {
    const recs = [...grp('all1', [1, 1, 1, 1]), ...grp('mixed', [1, 0, 1, 1]), ...grp('all0', [0, 0, 0, 0]), ...grp('one', [1])];
    const out = adv({ estimator: 'grpo', filter_groups: { enable: true } }, recs);
    expect(out).toHaveLength(13);
    for (const o of out.filter((o) => o.uid === 'all1' || o.uid === 'all0'))
      expect(o).toMatchObject({ advantage: 0, filtered: 'equal_scores', advantage_masked: true, advantage_mask_reason: 'filtered' });
    const plain = adv(
      { estimator: 'grpo' },
      recs.filter((r) => r.uid === 'mixed'),
    );
    expect(out.filter((o) => o.uid === 'mixed').map((o) => o.advantage)).toEqual(plain.map((o) => o.advantage));
    // DAPO keeps a group of one line (len == 1); GRPO then masks it single_in_group, not filtered
    expect(out.at(-1)).toMatchObject({ uid: 'one', advantage_mask_reason: 'single_in_group' });
    expect(out.at(-1)!.filtered).toBeUndefined();
  });

  it('an invalid line does not make a group unequal: it is left out of the comparison', () => {
    const out = adv({ estimator: 'grpo', filter_groups: { enable: true } }, grp('g', [1, null, 1]));
    expect(out.map((o) => o.filtered)).toEqual(['equal_scores', 'equal_scores', 'equal_scores']);
    expect(out[1]!.advantage_mask_reason).toBe('invalid_grade');
  });

  it('metric names a component (components.<name>.score) or a field, as verl names acc', () => {
    // total scores differ but accuracy is 1 everywhere: DAPO with metric acc drops the group
    const recs = grp('g', [0.9, 1.0, 0.95], () => ({ components: { acc: { score: 1, valid: true } } }));
    expect(adv({ estimator: 'grpo', filter_groups: { enable: true, metric: 'acc' } }, recs).every((o) => o.filtered === 'equal_scores')).toBe(true);
    expect(adv({ estimator: 'grpo', filter_groups: { enable: true } }, recs).some((o) => o.filtered)).toBe(false);
    const field = grp('h', [0.9, 1.0], () => ({ acc: 0 }));
    expect(adv({ estimator: 'grpo', filter_groups: { enable: true, metric: 'acc' } }, field).every((o) => o.filtered)).toBe(true);
  });

  it('a metric the line does not have is bad_input naming the line and what it has, never a silent keep', () => {
    const recs = grp('g', [1, 0], () => ({ components: { correct: { score: 1 } } }));
    const out = adv({ estimator: 'grpo', filter_groups: { enable: true, metric: 'acc' } }, recs);
    expect(out[0]).toMatchObject({ advantage: 0, advantage_mask_reason: 'bad_input' });
    expect(out[0]!.advantage_error.message).toBe(
      'records[0]: filter_groups.metric "acc" is neither a component of the line (it has "correct") nor a field of it',
    );
  });

  it('refuses max_num_gen_batches (the trainer re-generates, not the reward) and a metric while disabled', () => {
    expect(() => parseAdvantageConfig({ estimator: 'grpo', filter_groups: { enable: true, max_num_gen_batches: 10 } })).toThrow(
      /filter_groups\.max_num_gen_batches: has no effect here/,
    );
    expect(() => parseAdvantageConfig({ estimator: 'grpo', filter_groups: { enable: false, metric: 'acc' } })).toThrow(/filter_groups\.metric/);
  });
});

describe('rollout_filter_ratio (RAGEN StarPO-S)', () => {
  // eight groups of four with distinct stds
  const sets = [
    [0, 0, 0, 1],
    [0, 1, 0, 1],
    [0.5, 0.5, 0.5, 0.5],
    [0, 0.2, 0.4, 0.6],
    [1, 1, 1, 0],
    [0, 1, 1, 1],
    [0.1, 0.1, 0.2, 0.2],
    [0, 0, 1, 1],
  ];
  const recs = sets.flatMap((s, g) => grp(`g${g}`, s));
  /** RAGEN: in_group_std.topk(int(ratio × num_groups)), here with ties to the earlier group. */
  const keptByDefinition = (ratio: number, rev: boolean) => {
    const k = Math.floor(ratio * sets.length);
    const order = sets.map((s, i) => ({ i, sd: std(s) })).sort((a, b) => (rev ? a.sd - b.sd : b.sd - a.sd) || a.i - b.i);
    return new Set(order.slice(0, k).map((x) => `g${x.i}`));
  };

  it('keeps the top fraction of groups by reward std; the others are written with advantage 0 and filtered', () => {
    const kept = keptByDefinition(0.25, false);
    // [0,1,0,1] and [0,0,1,1] tie at the highest std (0.577): both kept
    expect(kept).toEqual(new Set(['g1', 'g7']));
    const out = adv({ estimator: 'grpo', rollout_filter_ratio: 0.25 }, recs);
    for (const o of out) {
      if (kept.has(o.uid)) expect(o.filtered).toBeUndefined();
      else expect(o).toMatchObject({ advantage: 0, filtered: 'low_std' });
    }
    const plain = new Map(adv({ estimator: 'grpo' }, recs).map((o) => [o.id, o.advantage]));
    for (const o of out) if (kept.has(o.uid)) expect(o.advantage).toBe(plain.get(o.id));
  });

  it('std_rev keeps the lowest; the count is int(ratio × groups), as Python truncates', () => {
    const out = adv({ estimator: 'grpo', rollout_filter_ratio: 0.5, rollout_filter_type: 'std_rev' }, recs);
    const kept = keptByDefinition(0.5, true);
    expect(kept.size).toBe(4);
    for (const o of out) expect(o.filtered).toBe(kept.has(o.uid) ? undefined : 'high_std');
    // 0.58 × 50 is 28.999… in floating point: RAGEN (Python int()) keeps 28 of 50
    const fifty = Array.from({ length: 50 }, (_, g) => grp(`t${g}`, [0, g / 50])).flat();
    const kept50 = new Set(
      adv({ estimator: 'grpo', rollout_filter_ratio: 0.58 }, fifty)
        .filter((o) => !o.filtered)
        .map((o) => o.uid),
    );
    expect(kept50.size).toBe(28);
    // the 28 with the highest std: t22 … t49
    expect(kept50.has('t22') && kept50.has('t49') && !kept50.has('t21')).toBe(true);
  });

  it('applies after filter_groups, over the groups it kept; a batch-wide filter refuses group_size', () => {
    const out = adv({ estimator: 'grpo', filter_groups: { enable: true }, rollout_filter_ratio: 0.5 }, recs);
    // g2 is all equal: dropped by DAPO; of the 7 left, int(3.5) = 3 are kept
    expect(out.filter((o) => o.uid === 'g2').every((o) => o.filtered === 'equal_scores')).toBe(true);
    expect(new Set(out.filter((o) => !o.filtered).map((o) => o.uid)).size).toBe(3);
    expect(() => parseAdvantageConfig({ estimator: 'grpo', rollout_filter_ratio: 0.5, group_size: 4 })).toThrow(
      /group_size: has no effect: rollout_filter_ratio/,
    );
    expect(() => parseAdvantageConfig({ estimator: 'grpo', rollout_filter_type: 'std' })).toThrow(/rollout_filter_type: has no effect without/);
  });
});

describe('arbiter advantages with filters', () => {
  it('streams DAPO with group_size and counts the dropped groups and lines in the summary', async () => {
    const dir = scratch();
    const recs = [...grp('a', [1, 1, 1, 1]), ...grp('b', [1, 0, 0, 1]), ...grp('c', [0, 0, 0, 0])];
    const input = join(dir, 'in.jsonl');
    writeFileSync(input, recs.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const cfg = join(dir, 'dapo.json');
    writeFileSync(cfg, JSON.stringify({ estimator: 'grpo', group_size: 4, filter_groups: { enable: true, metric: 'score' } }));
    const out = join(dir, 'out.jsonl');
    const sum = join(dir, 'sum.json');
    const r = await runCli(['advantages', '--config', cfg, input, '-o', out, '--summary-json', sum]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/2 group\(s\) filtered \(equal_scores=2\), 8 line\(s\) written with advantage 0 and "filtered"/);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.filtered ?? null)).toEqual([...Array(4).fill('equal_scores'), null, null, null, null, ...Array(4).fill('equal_scores')]);
    expect(JSON.parse(readFileSync(sum, 'utf8'))).toMatchObject({ filtered_groups: { equal_scores: 2 }, filtered_lines: 8 });
  });
});
