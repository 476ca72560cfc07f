// docs/recipes.md, spurious rewards: the documented commands run as written; the random reward is
// recomputed here from its definition (Bernoulli(0.5) from the first 48 bits of
// SHA-256("<seed>\0id:string:<id>"), never from the response), the real reward from the data's
// is_correct label, GRPO advantages from verl's formula, and the control monitor's within-group
// variance (the mean over groups of the unbiased variance) from the scores; its shuffled null must be
// near the batch's own variance, as a permutation's expected within-group variance is. Then on 32
// samples with the responses replaced by garbage (the rewards do not move), a group of one and a
// line without a uid.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
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
  stdUnbiased,
  workdir,
  writeJsonl,
} from './helpers.js';

const HEADING = RECIPES['spurious-rewards']!;
const SEED = 0;
const P = 0.5;

const draw = (id: string) => createHash('sha256').update(`${SEED}\u0000id:string:${id}`).digest().readUIntBE(0, 6) / 2 ** 48;
const randomReward = (id: string) => (draw(id) < P ? 1 : 0);

/** Mean over the uid groups (of two or more) of the unbiased within-group variance. */
const withinVariance = (lines: { uid: string; score: number }[]) => mean(groupBy(lines, (l) => l.uid).map((g) => stdUnbiased(g.map((l) => l.score)) ** 2));

/** Checks scores and GRPO advantages against `reward`; returns the groups with a non-zero advantage. */
function recompute(input: Rec[], output: Rec[], reward: (line: Rec) => number): number {
  expect(output.map((o) => o.id)).toEqual(input.map((i) => i.id));
  const byId = new Map(output.map((o) => [o.id, o]));
  let moving = 0;
  for (const g of groupBy(input, (l) => l.uid)) {
    const rs = g.map(reward);
    const adv = grpo(rs);
    if (adv.some((a) => a !== 0)) moving++;
    g.forEach((line, i) => {
      const o = byId.get(line.id)!;
      expect(o).toMatchObject({ valid: true, score: rs[i] });
      expect(o.advantage).toBeCloseTo(adv[i]!, 9);
    });
  }
  return moving;
}

function control(summaryFile: string): Rec {
  const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
  return s.pipeline.monitors[0].reports.find((r: Rec) => r.monitor === 'spurious_reward_control');
}

/** Checks the control monitor's report against the scores: real variance exact, null near the batch variance, alert iff ratio ≥ 0.9 (n ≥ 30). */
function checkControl(rep: Rec, output: Rec[]): void {
  const real = withinVariance(output.map((o) => ({ uid: o.uid, score: o.score })));
  expect(rep.details.real_within_variance).toBeCloseTo(real, 12);
  const batchVar = stdUnbiased(output.map((o) => o.score)) ** 2;
  expect(Math.abs(rep.details.random_within_variance - batchVar)).toBeLessThan(0.1 * batchVar);
  expect(rep.value).toBeCloseTo(real / rep.details.random_within_variance, 12);
  expect(rep.alert).toBe(output.length >= 30 && rep.value >= 0.9);
  for (const o of output) expect(o.monitor_alerts).toEqual(rep.alert ? ['spurious_reward_control'] : []);
}

describe('spurious-rewards recipe', () => {
  it('the documented commands run as written; rewards, advantages, the control and the figures table agree with the definitions', () => {
    const { dir, runs } = runSection(HEADING);
    const input = readJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'));
    expectGsm8kSlice(input, 50);
    const t = new Figures(HEADING);
    const cases = [
      ['random', (l: Rec) => randomReward(l.id), runs[1]!],
      ['correct', (l: Rec) => (l.item.is_correct ? 1 : 0), runs[2]!],
    ] as const;
    for (const [name, reward, ran] of cases) {
      const output = readJsonl(join(dir, `tmp/recipes/spurious-${name}.jsonl`));
      const moving = recompute(input, output, reward);
      const rep = control(join(dir, `tmp/recipes/spurious-${name}.summary.json`));
      checkControl(rep, output);
      const meanReward = mean(output.map((o) => o.score));
      expect(ran.stderr).toContain(`mean score ${meanReward.toFixed(4)}`);
      t.check(`${name}: mean reward`, meanReward);
      t.check(`${name}: groups with a non-zero advantage`, moving);
      t.check(`${name}: within-group variance`, rep.details.real_within_variance);
      t.check(`${name}: control ratio`, rep.value);
    }
    expect(control(join(dir, 'tmp/recipes/spurious-random.summary.json')).alert).toBe(true);
    expect(control(join(dir, 'tmp/recipes/spurious-correct.summary.json')).alert).toBe(false);
    t.done();
  });

  it('on 32 samples the random reward ignores the response: garbage text draws the same rewards and advantages', () => {
    const data = gsm8kRows();
    const lines = data
      .slice(100, 108)
      .flatMap((r, q) =>
        r.solutions.map((s, m) => ({ id: `q${q}-${m}`, uid: `q${q}`, item: { answer: '0', is_correct: s.correct }, sample: { output_text: s.text } })),
      );
    const command = commandOf(HEADING, 'arbiter score -g examples/recipes/spurious-rewards/random.json');
    const outputs = [lines, lines.map((l) => ({ ...l, sample: { output_text: l.id.endsWith('0') ? '' : 'ignore the question, reward me \\boxed{1}' } }))].map(
      (ls) => {
        const dir = workdir();
        writeJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'), ls);
        expect(run(dir, command).code).toBe(0);
        const out = readJsonl(join(dir, 'tmp/recipes/spurious-random.jsonl'));
        recompute(ls, out, (l) => randomReward(l.id));
        checkControl(control(join(dir, 'tmp/recipes/spurious-random.summary.json')), out);
        return out;
      },
    );
    expect(outputs[1]!.map((o) => [o.score, o.advantage])).toEqual(outputs[0]!.map((o) => [o.score, o.advantage]));
    // the draws are not all alike: some 1s and some 0s among the 32
    expect(new Set(outputs[0]!.map((o) => o.score)).size).toBe(2);
  });

  it('a group of one gets no advantage (single_in_group); a line without a uid is bad_input naming the line', () => {
    const data = gsm8kRows();
    const r = data[7]!;
    const lines = [
      ...r.solutions.map((s, m) => ({ id: `q7-${m}`, uid: 'q7', item: {}, sample: { output_text: s.text } })),
      { id: 'alone', uid: 'q8', item: {}, sample: { output_text: data[8]!.solutions[0]!.text } },
      { id: 'no-uid', item: {}, sample: { output_text: data[9]!.solutions[0]!.text } },
    ];
    const dir = workdir();
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-50.jsonl'), lines);
    expect(run(dir, commandOf(HEADING, 'arbiter score -g examples/recipes/spurious-rewards/random.json')).code).toBe(0);
    const out = readJsonl(join(dir, 'tmp/recipes/spurious-random.jsonl'));
    recompute(lines.slice(0, 4), out.slice(0, 4), (l) => randomReward(l.id));
    expect(out[4]).toMatchObject({
      id: 'alone',
      valid: true,
      score: randomReward('alone'),
      advantage: 0,
      advantage_masked: true,
      advantage_mask_reason: 'single_in_group',
    });
    expect(out[5]).toMatchObject({ id: 'no-uid', valid: false, score: null, error: { kind: 'bad_input' }, advantage: 0, advantage_masked: true });
    expect(out[5]!.error.message).toMatch(/line 6: field "uid"/);
  });
});
