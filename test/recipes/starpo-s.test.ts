// docs/recipes.md, StarPO-S (RAGEN): the documented commands run as written; the variance filter is
// recomputed here from RAGEN's definition (per batch of 40 lines, keep the int(0.25 × groups) groups
// with the highest unbiased reward std, the earlier group first on a tie; a group with no std ranks
// last), with GRPO advantages on the kept groups from the data's is_correct label, and the echo-trap
// series (per global_step, the mean within-group std) with its alert (the last 3 steps below 0.05).
// Then a run whose last three steps are groups that all agree (the alert), a group of one and a line
// without a uid.
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

const HEADING = RECIPES['starpo-s']!;
const RATIO = 0.25;
const BATCH = 40;

const reward = (l: Rec) => (l.item.is_correct ? 1 : 0);

interface Decision {
  uid: string;
  std: number;
  kept: boolean;
}

/** The filter's decisions and the advantages, recomputed; checks every output line. */
function recompute(input: Rec[], output: Rec[]): Decision[] {
  expect(output.map((o) => o.id)).toEqual(input.map((i) => i.id));
  const byId = new Map(output.map((o) => [o.id, o]));
  const decisions: Decision[] = [];
  for (let b = 0; b < input.length; b += BATCH) {
    const batch = input.slice(b, b + BATCH).filter((l) => l.uid !== undefined);
    const groups = groupBy(batch, (l) => l.uid).map((g) => ({ g, std: g.length >= 2 ? stdUnbiased(g.map(reward)) : Number.NaN }));
    const order = groups
      .map((_, i) => i)
      .sort((i, j) => {
        const a = groups[i]!.std;
        const c = groups[j]!.std;
        if (Number.isNaN(a) !== Number.isNaN(c)) return Number.isNaN(a) ? 1 : -1;
        return c - a || i - j;
      });
    const keep = new Set(order.slice(0, Math.trunc(RATIO * groups.length)));
    groups.forEach(({ g, std }, i) => {
      decisions.push({ uid: g[0]!.uid, std, kept: keep.has(i) });
      const adv = keep.has(i) ? grpo(g.map(reward)) : g.map(() => 0);
      g.forEach((line, k) => {
        const o = byId.get(line.id)!;
        expect(o).toMatchObject({ valid: true, score: reward(line) });
        if (keep.has(i)) {
          expect(o.filtered).toBeUndefined();
          expect(o.advantage).toBeCloseTo(adv[k]!, 9);
        } else expect(o).toMatchObject({ advantage: 0, advantage_masked: true, advantage_mask_reason: 'filtered', filtered: 'low_std' });
      });
    });
  }
  return decisions;
}

/** The echo-trap series: per step, the mean over its groups of two or more of the within-group std. */
function series(input: Rec[]): { step: number; std: number }[] {
  const steps = groupBy(
    input.filter((l) => l.uid !== undefined),
    (l) => String(l.item.global_step),
  );
  return steps.map((ls) => ({
    step: ls[0]!.item.global_step,
    std: mean(
      groupBy(ls, (l) => l.uid)
        .filter((g) => g.length >= 2)
        .map((g) => stdUnbiased(g.map(reward))),
    ),
  }));
}

function collapse(summaryFile: string): Rec {
  const s = JSON.parse(readFileSync(summaryFile, 'utf8'));
  return s.pipeline.monitors[0].reports.find((r: Rec) => r.monitor === 'reward_variance_collapse');
}

function checkCollapse(rep: Rec, input: Rec[]): boolean {
  const want = series(input);
  expect(rep.details.steps.map((s: Rec) => s.step)).toEqual(want.map((s) => s.step));
  rep.details.steps.forEach((s: Rec, i: number) => expect(s.std).toBeCloseTo(want[i]!.std, 12));
  const alert = want.length >= 3 && want.slice(-3).every((s) => s.std < 0.05);
  expect(rep.alert).toBe(alert);
  return alert;
}

const line = (q: number, m: number, row: ReturnType<typeof gsm8kRows>[number], step: number) => ({
  id: `q${q}-${m}`,
  uid: `q${q}`,
  item: { answer: /A:\s*(.*)$/.exec(row.ground_truth)![1]!.trim(), is_correct: row.solutions[m]!.correct, global_step: step },
  sample: { output_text: row.solutions[m]!.text },
});
const mixed = (r: ReturnType<typeof gsm8kRows>[number]) => r.solutions.some((s) => s.correct) && r.solutions.some((s) => !s.correct);

describe('StarPO-S recipe', () => {
  it('the documented commands run as written; the filter, advantages, the std series and the figures table agree with the definition', () => {
    const { dir, runs } = runSection(HEADING);
    const input = readJsonl(join(dir, 'tmp/recipes/gsm8k-50-steps.jsonl'));
    const output = readJsonl(join(dir, 'tmp/recipes/starpo-s.jsonl'));
    expectGsm8kSlice(input, 50, 10);
    const d = recompute(input, output);
    const kept = d.filter((x) => x.kept);
    const rep = collapse(join(dir, 'tmp/recipes/starpo-s.summary.json'));
    expect(checkCollapse(rep, input)).toBe(false);
    const filteredLines = output.filter((o) => o.filtered).length;
    expect(runs[1]!.stderr).toContain(`${d.length - kept.length} group(s) filtered (low_std=${d.length - kept.length}), ${filteredLines} line(s)`);
    const t = new Figures(HEADING);
    t.check('groups', d.length);
    t.check('groups kept', kept.length);
    t.check('lines filtered', filteredLines);
    t.check('mean within-group std, all groups', mean(d.map((x) => x.std)));
    t.check('mean within-group std, kept groups', mean(kept.map((x) => x.std)));
    const s = series(input);
    t.check('within-group std at step 0', s[0]!.std);
    t.check('within-group std at step 4', s[4]!.std);
    t.done();
  });

  it('a run whose last three steps are groups that all agree raises the echo-trap alert; the filter keeps the groups that still differ', () => {
    const data = gsm8kRows();
    const mixedQs = data.map((r, q) => (mixed(r) ? q : -1)).filter((q) => q >= 0);
    const sameQs = data.map((r, q) => (r.solutions.every((s) => !s.correct) ? q : -1)).filter((q) => q >= 0);
    // 4 steps of 2 groups (32 lines, one batch): step 0 mixed, steps 1-3 every solution wrong
    const qs = [mixedQs[0]!, mixedQs[1]!, ...sameQs.slice(0, 6)];
    const lines = qs.flatMap((q, i) => [0, 1, 2, 3].map((m) => line(q, m, data[q]!, Math.floor(i / 2))));
    const dir = workdir();
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-50-steps.jsonl'), lines);
    expect(run(dir, commandOf(HEADING, 'arbiter score')).code).toBe(0);
    const output = readJsonl(join(dir, 'tmp/recipes/starpo-s.jsonl'));
    const d = recompute(lines, output);
    expect(d.filter((x) => x.kept).map((x) => x.uid)).toEqual([`q${qs[0]}`, `q${qs[1]}`]);
    const rep = collapse(join(dir, 'tmp/recipes/starpo-s.summary.json'));
    expect(checkCollapse(rep, lines)).toBe(true);
    for (const o of output) expect(o.monitor_alerts).toEqual(['reward_variance_collapse']);
  });

  it('a group of one has no std and ranks last (filtered); a line without a uid is bad_input naming the line', () => {
    const data = gsm8kRows();
    const qs = data.map((r, q) => (mixed(r) ? q : -1)).filter((q) => q >= 0);
    const lines: Rec[] = [
      ...qs.slice(0, 8).flatMap((q) => [0, 1, 2, 3].map((m) => line(q, m, data[q]!, 0))),
      { ...line(qs[8]!, 0, data[qs[8]!]!, 0), id: 'alone', uid: 'alone' },
      { id: 'no-uid', item: { answer: '1', is_correct: true, global_step: 0 }, sample: { output_text: 'A: 1' } },
    ];
    const dir = workdir();
    writeJsonl(join(dir, 'tmp/recipes/gsm8k-50-steps.jsonl'), lines);
    expect(run(dir, commandOf(HEADING, 'arbiter score')).code).toBe(0);
    const output = readJsonl(join(dir, 'tmp/recipes/starpo-s.jsonl'));
    const d = recompute(lines.slice(0, 33), output.slice(0, 33));
    // 9 groups: int(0.25 × 9) = 2 kept; the group of one is not among them
    expect(d).toHaveLength(9);
    expect(d.filter((x) => x.kept)).toHaveLength(2);
    expect(output[32]).toMatchObject({ id: 'alone', valid: true, filtered: 'low_std', advantage: 0 });
    expect(output[33]).toMatchObject({ id: 'no-uid', valid: false, score: null, error: { kind: 'bad_input' }, advantage: 0, advantage_masked: true });
    expect(output[33]!.error.message).toMatch(/line 34: field "uid"/);
  });
});
