// docs/recipes.md, SophiaVL-R1: the documented commands run as written, and every reward and GRPO
// advantage is recomputed here from the paper's definition — acc from the data's is_correct label,
// the thinking stand-in (SQuAD token F1 against the reference solution) from its definition, the
// group's trust weight γ, the annealed weight 0.3·e^(−step/12000) — on the documented slice and on a
// handful of questions picked for each case (γ < 1, γ = 1, all right, all wrong, a later step),
// then on a group of one and a line without a uid.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandOf,
  expectGsm8kSlice,
  Figures,
  grpo,
  groupBy,
  gsm8kRows,
  mean,
  RECIPES,
  type Rec,
  readJsonl,
  run,
  runSection,
  workdir,
  writeJsonl,
} from './helpers.js';

const HEADING = RECIPES['sophiavl-r1']!;
const ALPHA = 0.3;
const T = 12000;

/** The official SQuAD v2.0 normalisation and token F1 (lower-case, no ASCII punctuation, no a/an/the). */
const PUNCT = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const tokens = (s: string): string[] =>
  [...s.toLowerCase()]
    .filter((c) => !PUNCT.has(c))
    .join('')
    .replace(/\b(a|an|the)\b/g, ' ')
    .split(/\s+/)
    .filter((t) => t !== '');
function f1(pred: string, gold: string): number {
  const p = tokens(pred);
  const g = tokens(gold);
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const count = new Map<string, number>();
  for (const t of g) count.set(t, (count.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = count.get(t) ?? 0;
    if (c > 0) {
      same++;
      count.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}

interface Member {
  acc: number;
  think: number;
  step: number;
}
/** The group's trust weight γ (null: all right or all wrong, so no thinking reward). */
function trust(g: Member[]): number | null {
  const right = g.filter((m) => m.acc >= 0.5).map((m) => m.think);
  const wrong = g.filter((m) => m.acc < 0.5).map((m) => m.think);
  if (right.length === 0 || wrong.length === 0) return null;
  const mc = mean(right);
  const mw = mean(wrong);
  return mc >= mw ? 1 : Math.exp(mc - mw);
}
/** SophiaVL-R1's reward of each member: acc + α·e^(−step/T)·γ·think. */
const rewards = (g: Member[]): number[] => {
  const gamma = trust(g);
  return g.map((m) => m.acc + (gamma === null ? 0 : ALPHA * Math.exp(-m.step / T) * gamma * m.think));
};

/** The members of a sample file's lines, from the data alone (the label and the reference). */
const member = (line: Rec): Member => ({
  acc: line.item.is_correct ? 1 : 0,
  think: f1(line.sample.output_text, line.item.reference_solution),
  step: line.item.global_step,
});

/** Checks every output line against the recomputation from its input line; returns the groups' γ. */
function recompute(input: Rec[], output: Rec[]): (number | null)[] {
  expect(output.map((o) => o.id)).toEqual(input.map((i) => i.id));
  const byId = new Map(output.map((o) => [o.id, o]));
  const gammas: (number | null)[] = [];
  for (const g of groupBy(input, (l) => l.uid)) {
    const ms = g.map(member);
    const want = rewards(ms);
    const adv = grpo(want);
    gammas.push(trust(ms));
    g.forEach((line, i) => {
      const o = byId.get(line.id)!;
      expect(o.valid).toBe(true);
      expect(o.components.acc.score).toBe(ms[i]!.acc);
      expect(o.components.think.score).toBeCloseTo(ms[i]!.think, 12);
      expect(o.score).toBeCloseTo(want[i]!, 12);
      expect(o.advantage).toBeCloseTo(adv[i]!, 9);
    });
  }
  return gammas;
}

const sample = (q: number, m: number, row: ReturnType<typeof gsm8kRows>[number], step = 0, uid: string | null = `q${q}`) => ({
  id: `q${q}-${m}`,
  ...(uid === null ? {} : { uid }),
  item: {
    answer: /A:\s*(.*)$/.exec(row.ground_truth)![1]!.trim(),
    reference_solution: row.ground_truth,
    is_correct: row.solutions[m]!.correct,
    global_step: step,
  },
  sample: { output_text: row.solutions[m]!.text },
});

describe('SophiaVL-R1 recipe', () => {
  let data: ReturnType<typeof gsm8kRows>;
  beforeAll(() => {
    data = gsm8kRows();
  });

  it('the documented commands run as written; rewards, advantages and the figures table agree with the definition', () => {
    const { dir, runs } = runSection(HEADING);
    const input = readJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'));
    const output = readJsonl(join(dir, 'tmp/recipes/sophiavl-r1.jsonl'));
    expectGsm8kSlice(input, 50);
    const gammas = recompute(input, output);
    const t = new Figures(HEADING);
    const meanReward = mean(output.map((o) => o.score));
    t.check('mean reward', meanReward);
    expect(runs[1]!.stderr).toContain(`mean score ${meanReward.toFixed(4)}`);
    t.check('mean acc', mean(input.map((l) => (l.item.is_correct ? 1 : 0))));
    t.check('mean think', mean(input.map((l) => member(l).think)));
    t.check('groups', gammas.length);
    const mixed = gammas.filter((g): g is number => g !== null);
    t.check('groups with a thinking reward (mixed right and wrong)', mixed.length);
    t.check('groups with trust weight below 1', mixed.filter((g) => g < 1).length);
    t.check('lowest trust weight', Math.min(...mixed));
    t.check('lines with a non-zero advantage', output.filter((o) => o.advantage !== 0).length);
    t.done();
  });

  it('on a handful: γ < 1, γ = 1, all right, all wrong, and the annealing at a later step', () => {
    const pick = (want: (g: number | null) => boolean): number => {
      const q = data.findIndex((r) => want(trust(r.solutions.map((s) => ({ acc: s.correct ? 1 : 0, think: f1(s.text, r.ground_truth), step: 0 })))));
      expect(q).toBeGreaterThanOrEqual(0);
      return q;
    };
    const qs = [pick((g) => g !== null && g < 1), pick((g) => g === 1)];
    const allRight = data.findIndex((r) => r.solutions.every((s) => s.correct));
    const allWrong = data.findIndex((r) => r.solutions.every((s) => !s.correct));
    const lines = [
      ...[...qs, allRight, allWrong].flatMap((q) => [0, 1, 2, 3].map((m) => sample(q, m, data[q]!))),
      // the γ < 1 question again at step 6000: the thinking term weighs 0.3·e^(−1/2)
      ...[0, 1, 2, 3].map((m) => ({ ...sample(qs[0]!, m, data[qs[0]!]!, 6000, `late${qs[0]}`), id: `late-${m}` })),
    ];
    const dir = workdir();
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'), lines);
    const r = run(dir, commandOf(HEADING, 'arbiter score'));
    expect(r.code).toBe(0);
    const output = readJsonl(join(dir, 'tmp/recipes/sophiavl-r1.jsonl'));
    const gammas = recompute(lines, output);
    expect(gammas[0]).toBeLessThan(1);
    expect(gammas[1]).toBe(1);
    expect(gammas[2]).toBeNull();
    expect(gammas[3]).toBeNull();
    expect(gammas[4]).toBeCloseTo(gammas[0]!, 12);
    // all right / all wrong: the reward is the accuracy alone, and GRPO gives nothing
    for (const o of output.slice(8, 16)) expect(o.advantage).toBe(0);
    // the later step: only the thinking term shrinks, by e^(−1/2)
    const early = output.slice(0, 4).map((o, i) => o.score - (lines[i]!.item.is_correct ? 1 : 0));
    const late = output.slice(16, 20).map((o, i) => o.score - (lines[16 + i]!.item.is_correct ? 1 : 0));
    late.forEach((x, i) => expect(x).toBeCloseTo(early[i]! * Math.exp(-0.5), 12));
  });

  it('a group of one and a line without a uid are invalid bad_input naming the line; the other groups are untouched', () => {
    const q = 3;
    const lines = [...[0, 1, 2, 3].map((m) => sample(q, m, data[q]!)), sample(4, 0, data[4]!, 0, 'alone'), sample(5, 0, data[5]!, 0, null)];
    const dir = workdir();
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'), lines);
    const r = run(dir, commandOf(HEADING, 'arbiter score'));
    expect(r.code).toBe(0);
    const output = readJsonl(join(dir, 'tmp/recipes/sophiavl-r1.jsonl'));
    recompute(lines.slice(0, 4), output.slice(0, 4));
    expect(output[4]).toMatchObject({ id: 'q4-0', valid: false, score: null, error: { kind: 'bad_input' }, advantage: 0, advantage_masked: true });
    expect(output[4]!.error.message).toMatch(/line 5: .*only this response/);
    expect(output[5]).toMatchObject({ id: 'q5-0', valid: false, score: null, error: { kind: 'bad_input' }, advantage: 0, advantage_masked: true });
    expect(output[5]!.error.message).toMatch(/line 6: field "uid"/);
  });
});
