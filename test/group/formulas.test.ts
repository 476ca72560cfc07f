// Rewards that depend on the other responses to the same prompt: group functions in multi and
// weighted_sum formulas (group_mean/std/sum/max/min/count, rank), the majority_vote and random
// types, and schedule's exp decay. Each expected value is recomputed here from its definition.
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, grade, gradeGroup, loadGrader, scheduleWeight } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';
import { registerValueType, scratch, value } from './helpers.js';

beforeAll(registerValueType);

const member = (uid: string, item: Record<string, unknown>, text = 'x') => ({ uid, item, sample: { output_text: text } });
const issuesOf = (c: unknown): string => {
  try {
    loadGrader(c);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return JSON.stringify((e as ConfigError).issues);
  }
  throw new Error('config was accepted');
};

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

describe('group functions in formulas', () => {
  // SophiaVL-R1's trust weight, written from the paper's definition: w = 1 when the thinking
  // reward's mean over correct responses is at least its mean over wrong ones, else
  // exp(mean_correct - mean_wrong); the reward is acc + w * think.
  const trust = 'group_mean(think, acc == 1, 0) >= group_mean(think, acc == 0, 0) ? 1 : exp(group_mean(think, acc == 1, 0) - group_mean(think, acc == 0, 0))';
  const sophia = { type: 'multi', graders: { acc: value('a'), think: value('t') }, calculate_output: `acc + (${trust}) * think` };
  const reference = (rows: { a: number; t: number }[]) => {
    const c = rows.filter((r) => r.a === 1).map((r) => r.t);
    const w = rows.filter((r) => r.a === 0).map((r) => r.t);
    const mc = c.length ? mean(c) : 0;
    const mw = w.length ? mean(w) : 0;
    const weight = mc >= mw ? 1 : Math.exp(mc - mw);
    return rows.map((r) => r.a + weight * r.t);
  };

  it("SophiaVL-R1's trust weight is one formula: exp(difference) when the judge favours wrong responses", async () => {
    const g = loadGrader(sophia);
    const untrusted = [
      { a: 1, t: 0.2 },
      { a: 1, t: 0.4 },
      { a: 0, t: 0.9 },
      { a: 0, t: 0.7 },
    ];
    const trusted = [
      { a: 1, t: 0.9 },
      { a: 0, t: 0.1 },
      { a: 1, t: 0.5 },
    ];
    const samples = [...untrusted.map((it) => member('u', it)), ...trusted.map((it) => member('v', it))];
    const res = await gradeGroup(g, samples, { advantages: null });
    const want = [...reference(untrusted), ...reference(trusted)];
    res.forEach((r, i) => {
      expect(r.valid).toBe(true);
      expect(r.score!).toBeCloseTo(want[i]!, 12);
    });
    // the weight below 1 for u: exp(0.3 - 0.8)
    expect(res[0]!.score!).toBeCloseTo(1 + Math.exp(-0.5) * 0.2, 12);
    expect(res[0]!.metadata.group_values).toMatchObject({ 'group_mean(think, acc == 1, 0)': expect.closeTo(0.3, 12) });
    expect(res[0]!.metadata.group_n).toBe(4);
  });

  it('group_count, group_std (unbiased), group_max/min/sum and rank (1 = highest, ties share)', async () => {
    const g = loadGrader({
      type: 'multi',
      graders: { x: value('x') },
      calculate_output: 'group_count(x > 1) * 1000 + group_std(x) * 100 + group_max(x) - group_min(x) + group_sum(x) / 100 + rank(x) / 1e4',
    });
    const xs = [3, 1, 3, 5];
    const res = await gradeGroup(
      g,
      xs.map((x) => member('u', { x })),
      { advantages: null },
    );
    const m = mean(xs);
    const std = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
    const ranks = xs.map((x) => 1 + xs.filter((y) => y > x).length);
    res.forEach((r, i) => expect(r.score!).toBeCloseTo(3 * 1000 + std * 100 + (5 - 1) + 12 / 100 + ranks[i]! / 1e4, 9));
    expect(ranks).toEqual([2, 4, 2, 1]);
  });

  it('an aggregate over an empty set is a formula_error naming the call, unless a default is given', async () => {
    const g = loadGrader({ type: 'multi', graders: { acc: value('a'), t: value('t') }, calculate_output: 'group_mean(t, acc == 1)' });
    const res = await gradeGroup(g, [member('u', { a: 0, t: 1 }), member('u', { a: 0, t: 0 })], { advantages: null });
    for (const r of res) {
      expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'formula_error' } });
      expect(r.error!.message).toMatch(/group_mean\(t, acc == 1\) is undefined: 0 of the group's 2 responses satisfy the condition/);
    }
    const d = loadGrader({ type: 'multi', graders: { acc: value('a'), t: value('t') }, calculate_output: 'group_mean(t, acc == 1, -1)' });
    const ok = await gradeGroup(d, [member('u', { a: 0, t: 1 }), member('u', { a: 0, t: 0 })], { advantages: null });
    expect(ok.map((r) => r.score)).toEqual([-1, -1]);
  });

  it('a group formula graded alone is invalid and says how to grade groups; a group of one names its line', async () => {
    const g = loadGrader(sophia);
    const alone = await grade(g, member('u', { a: 1, t: 0.5 }));
    expect(alone).toMatchObject({ valid: false, error: { kind: 'config_error' } });
    expect(alone.error!.message).toMatch(/group/);
    const one = await gradeGroup(g, [member('u', { a: 1, t: 0.5 }), member('w', { a: 1, t: 0.5 }), member('w', { a: 0, t: 0.5 })], { advantages: null });
    expect(one[0]).toMatchObject({ valid: false, error: { kind: 'bad_input' } });
    expect(one[0]!.error!.message).toMatch(/samples\[0\].*only this response/);
    expect(one[1]!.valid).toBe(true);
  });

  it('refused at load: group functions below the root, nested group calls, unknown components', () => {
    expect(issuesOf({ type: 'multi', graders: { inner: sophia }, calculate_output: 'inner' })).toMatch(/must be the root grader/);
    expect(issuesOf({ type: 'multi', graders: { x: value('x') }, calculate_output: 'group_mean(group_max(x))' })).toMatch(/do not nest/);
    expect(issuesOf({ type: 'multi', graders: { x: value('x') }, calculate_output: 'group_mean(y)' })).toMatch(/y/);
    expect(issuesOf({ type: 'multi', graders: { x: value('x') }, calculate_output: 'rank(x, x)' })).toMatch(/rank takes one argument/);
    expect(issuesOf({ type: 'weighted_sum', graders: { x: value('x') }, weights: { x: 'group_mean(z)' } })).toMatch(/unknown variable\(s\) z/);
  });

  it('weighted_sum weights may be group formulas (evaluated on the raw values), alongside number weights', async () => {
    const g = loadGrader({
      type: 'weighted_sum',
      graders: { acc: value('a'), think: value('t') },
      weights: { acc: 1, think: `0.5 * (${trust})` },
    });
    const rows = [
      { a: 1, t: 0.2 },
      { a: 0, t: 0.8 },
    ];
    const res = await gradeGroup(
      g,
      rows.map((it) => member('u', it)),
      { advantages: null },
    );
    const w = Math.exp(0.2 - 0.8);
    expect(res[0]!.score!).toBeCloseTo(1 + 0.5 * w * 0.2, 12);
    expect(res[1]!.score!).toBeCloseTo(0 + 0.5 * w * 0.8, 12);
    expect((res[0]!.metadata.weights as Record<string, number>).think).toBeCloseTo(0.5 * w, 12);
  });
});

describe('majority_vote (TTRL-style label-free reward)', () => {
  const cfg = { type: 'majority_vote', grader: { type: 'math', reference: '{{item.majority_label}}' }, gold: '{{item.answer}}' };

  it('the most common final answer (equivalent answers vote together) is the label every response is checked against', async () => {
    const texts = ['so \\boxed{1/2}', 'the answer is \\boxed{0.5}', '\\boxed{3}', 'I give up', '\\boxed{\\frac{1}{2}}'];
    const res = await gradeGroup(
      loadGrader(cfg),
      texts.map((t) => member('q', { answer: '3' }, t)),
      { advantages: null },
    );
    expect(res.map((r) => r.score)).toEqual([1, 1, 0, 0, 1]);
    for (const r of res) {
      expect(r.valid).toBe(true);
      expect(r.metadata).toMatchObject({ majority_label: '1/2', votes: 3, voters: 4, group_n: 5, vote_share: 3 / 5, label_correct: false });
    }
    expect(res[0]!.reason).toMatch(/3 of 5 votes/);
  });

  it('exact voting counts identical text only; a tie goes to the answer seen first, and says so', async () => {
    const g = loadGrader({ ...cfg, vote: 'exact' });
    const res = await gradeGroup(
      g,
      ['\\boxed{0.5}', '\\boxed{1/2}', '\\boxed{1/2}', '\\boxed{0.5}'].map((t) => member('q', { answer: '1/2' }, t)),
      { advantages: null },
    );
    expect(res[0]!.metadata).toMatchObject({ majority_label: '0.5', votes: 2, tie: true, label_correct: true });
    // the math sub-grader still accepts the equivalent 1/2 against the label 0.5
    expect(res.map((r) => r.score)).toEqual([1, 1, 1, 1]);
    expect(res[0]!.reason).toMatch(/tied: first seen wins/);
  });

  it('the vote is read after the reasoning (extract.think strip, default), in both answer modes; keep reads the draft too', async () => {
    const boxed = { ...cfg, answer: 'boxed', vote: 'exact' };
    // the answer after the reasoning has no box: with strip, no vote from it (the draft's box is not its answer)
    const texts = ['<think>\\boxed{7}</think>no box', '\\boxed{3}', '\\boxed{3}'];
    const res = await gradeGroup(
      loadGrader(boxed),
      texts.map((t) => member('q', { answer: '3' }, t)),
      { advantages: null },
    );
    expect(res[0]!.metadata).toMatchObject({ majority_label: '3', voters: 2 });
    const kept = await gradeGroup(
      loadGrader({ ...boxed, extract: { think: 'keep' } }),
      texts.map((t) => member('q', { answer: '3' }, t)),
      { advantages: null },
    );
    expect(kept[0]!.metadata).toMatchObject({ majority_label: '3', voters: 3 });
    // math mode: a draft box in the reasoning is not read either
    const math = ['<think>\\boxed{7}</think>the answer is 3', '<think>\\boxed{7}</think>the answer is 3', '\\boxed{7}'];
    const m = await gradeGroup(
      loadGrader(cfg),
      math.map((t) => member('q', { answer: '3' }, t)),
      { advantages: null },
    );
    expect(m[0]!.metadata).toMatchObject({ majority_label: '3', votes: 2 });
    const mk = await gradeGroup(
      loadGrader({ ...cfg, extract: { think: 'keep' } }),
      math.map((t) => member('q', { answer: '3' }, t)),
      { advantages: null },
    );
    expect(mk[0]!.metadata).toMatchObject({ majority_label: '7', votes: 3 });
  });

  it('a group with no final answer scores 0 with a reason; alone or below the root it is refused', async () => {
    const g = loadGrader(cfg);
    const none = await gradeGroup(g, [member('q', { answer: '1' }, 'hmm'), member('q', { answer: '1' }, 'no idea')], { advantages: null });
    for (const r of none) expect(r).toMatchObject({ valid: true, score: 0, metadata: { majority_label: null, vote_share: 0 } });
    const alone = await grade(g, member('q', { answer: '1' }, '\\boxed{1}'));
    expect(alone).toMatchObject({ valid: false, error: { kind: 'config_error' } });
    expect(issuesOf({ type: 'multi', graders: { m: cfg } })).toMatch(/must be the root grader/);
    expect(issuesOf({ type: 'majority_vote', grader: { type: 'math', reference: '{{item.answer}}' } })).toMatch(/never reads \{\{item\.majority_label\}\}/);
  });
});

describe('random (spurious-reward control)', () => {
  // the definition, written out: u = first 48 bits of SHA-256("<seed>\0<key>") / 2^48, reward = u < p
  const draw = (seed: number, key: string) => createHash('sha256').update(`${seed}\u0000${key}`).digest().readUIntBE(0, 6) / 2 ** 48;

  it('Bernoulli(p) from the seed and the sample identity: the same rewards on a rerun and in any order', async () => {
    const g = loadGrader({ type: 'random', p: 0.3, seed: 7, key: '{{item.q}}' });
    const items = Array.from({ length: 400 }, (_, i) => ({ item: { q: `q${i}` }, sample: { output_text: 'x' } }));
    const a = await Promise.all(items.map((s) => grade(g, s)));
    const b = await Promise.all([...items].reverse().map((s) => grade(g, s)));
    const want = items.map((s) => (draw(7, s.item.q) < 0.3 ? 1 : 0));
    expect(a.map((r) => r.score)).toEqual(want);
    expect(b.reverse().map((r) => r.score)).toEqual(want);
    const rate = mean(want);
    expect(rate).toBeGreaterThan(0.2);
    expect(rate).toBeLessThan(0.4);
    // another seed, another set of rewards
    const other = await Promise.all(items.map((s) => grade(loadGrader({ type: 'random', p: 0.3, seed: 8, key: '{{item.q}}' }), s)));
    expect(other.map((r) => r.score)).not.toEqual(want);
  });

  it('keys on the id without a key template; a key that names nothing is refused', async () => {
    const g = loadGrader({ type: 'random', seed: 1 });
    const r = await grade(g, { id: 'abc', item: {}, sample: { output_text: 'x' } });
    expect(r.score).toBe(draw(1, 'id:string:abc') < 0.5 ? 1 : 0);
    expect(r.metadata).toMatchObject({ key_from: 'id', seed: 1, p: 0.5 });
    expect(issuesOf({ type: 'random', key: 'constant' })).toMatch(/every sample would draw the same reward/);
  });
});

describe('schedule exp', () => {
  it('w0 · e^(-(t - s0)/T) from one point, w0 before it', async () => {
    expect(scheduleWeight([[10, 2]], 5, 'exp', 50)).toBe(2);
    expect(scheduleWeight([[10, 2]], 60, 'exp', 50)).toBeCloseTo(2 * Math.exp(-1), 12);
    const g = loadGrader({ type: 'schedule', grader: value('a'), points: [[0, 1]], interpolation: 'exp', T: 100 });
    const r = await grade(g, { item: { a: 0.5, global_step: 200 }, sample: { output_text: 'x' } });
    expect(r.score!).toBeCloseTo(0.5 * Math.exp(-2), 12);
    expect(r.metadata).toMatchObject({ step: 200, T: 100 });
    expect(issuesOf({ type: 'schedule', grader: value('a'), points: [[0, 1]], interpolation: 'exp' })).toMatch(/needs T/);
    expect(
      issuesOf({
        type: 'schedule',
        grader: value('a'),
        points: [
          [0, 1],
          [5, 0],
        ],
        interpolation: 'exp',
        T: 3,
      }),
    ).toMatch(/takes one point/);
    expect(issuesOf({ type: 'schedule', grader: value('a'), points: [[0, 1]], T: 3 })).toMatch(/only used with interpolation .*exp/);
  });
});

describe('group stages through arbiter score --group-by', () => {
  it('majority_vote reads each member input in the one-pass pipeline; output in input order, vote share per line', async () => {
    const dir = scratch();
    const grader = join(dir, 'g.json');
    writeFileSync(grader, JSON.stringify({ type: 'majority_vote', grader: { type: 'math', reference: '{{item.majority_label}}' } }));
    const lines = [
      ['a', '\\boxed{4}'],
      ['b', '\\boxed{7}'],
      ['a', '\\boxed{4}'],
      ['b', '\\boxed{8}'],
      ['a', '\\boxed{5}'],
      ['b', '\\boxed{8}'],
    ].map(([uid, t], i) => JSON.stringify({ id: i, uid, item: {}, sample: { output_text: t } }));
    const input = join(dir, 's.jsonl');
    writeFileSync(input, lines.join('\n') + '\n');
    const r = await runCli(['score', '-g', grader, input, '--group-by', 'uid', '--group-size', '3']);
    expect(r.code).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.id)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(out.map((o) => o.score)).toEqual([1, 0, 1, 1, 0, 1]);
    expect(out[0].metadata).toMatchObject({ majority_label: '4', vote_share: 2 / 3 });
    expect(out[1].metadata).toMatchObject({ majority_label: '8', vote_share: 2 / 3 });
  });
});
