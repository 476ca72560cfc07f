// docs/recipes.md, Clip and Delta: the documented commands run as written; each process's step
// rewards and return are recomputed here from Gao et al.'s definitions on PRMBench's labels (step k,
// counted from 1, scores 0 when k is in error_steps, else 1): Clip gives min(p − 0.5, 0), Delta
// p_t − p_(t+1) with the last step keeping p_T, and the return is their sum. Then a handful of rows
// of another class, a process whose correct steps are repeated three times (a PRM-farming policy:
// the plain sum triples, neither return moves), and labels that do not fit the steps (bad_input: the
// data's fault, not the response's).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandOf, Figures, mean, prmbenchRows, RECIPES, type Rec, readJsonl, run, runSection, workdir, writeJsonl } from './helpers.js';

const HEADING = RECIPES['clip-delta']!;
const ETA = 0.5;

const labels = (l: Rec): number[] => (l.sample.steps as string[]).map((_, k) => ((l.item.error_steps as number[]).includes(k + 1) ? 0 : 1));
const clip = (p: number[]): number[] => p.map((x) => Math.min(x - ETA, 0));
const delta = (p: number[]): number[] => p.map((x, t) => (t + 1 < p.length ? x - p[t + 1]! : x));
const sum = (xs: number[]) => xs.reduce((a, x) => a + x, 0);

function recompute(input: Rec[], output: Rec[], transform: (p: number[]) => number[]): void {
  expect(output.map((o) => o.id)).toEqual(input.map((i) => i.id));
  input.forEach((l, i) => {
    const o = output[i]!;
    const p = labels(l);
    const want = transform(p);
    expect(o.valid).toBe(true);
    expect(o.metadata.raw_steps).toEqual(p);
    expect(o.steps).toHaveLength(want.length);
    o.steps.forEach((x: number, k: number) => expect(x).toBeCloseTo(want[k]!, 12));
    expect(o.score).toBeCloseTo(sum(want), 12);
  });
}

/** Runs the documented command of `config` (clip or delta) on `lines` written where the doc's input goes. */
function score(config: 'clip' | 'delta', lines: Rec[], exit = 0): Rec[] {
  const dir = workdir();
  writeJsonl(join(dir, 'tmp/recipes/prmbench-30.jsonl'), lines);
  const r = run(dir, commandOf(HEADING, `arbiter score -g examples/recipes/clip-delta/${config}.json`));
  expect(r.code).toBe(exit);
  return readJsonl(join(dir, `tmp/recipes/${config}.jsonl`));
}

const asLines = (rows: Rec[]): Rec[] =>
  rows.flatMap((r) => [
    { id: `${r.idx}-original`, uid: r.idx, item: { error_steps: [] }, sample: { steps: r.original_process } },
    { id: `${r.idx}-modified`, uid: r.idx, item: { error_steps: r.error_steps }, sample: { steps: r.modified_process } },
  ]);

describe('Clip and Delta recipe', () => {
  it('the documented commands run as written; step rewards, returns and the figures table agree with the definitions', () => {
    const { dir, runs } = runSection(HEADING);
    const input = readJsonl(join(dir, 'tmp/recipes/prmbench-30.jsonl'));
    const clipped = readJsonl(join(dir, 'tmp/recipes/clip.jsonl'));
    const deltas = readJsonl(join(dir, 'tmp/recipes/delta.jsonl'));
    expect(input).toHaveLength(60);
    recompute(input, clipped, clip);
    recompute(input, deltas, delta);
    // the sample file is the data's first 30 rows, original then modified
    expect(input.map((l) => l.sample.steps)).toEqual(asLines(prmbenchRows('prm800k_test_p1_4o_redundency.jsonl').slice(0, 30)).map((l) => l.sample.steps));
    const t = new Figures(HEADING);
    const orig = input.filter((l) => l.id.endsWith('-original'));
    const mod = input.filter((l) => l.id.endsWith('-modified'));
    const ret = (tr: (p: number[]) => number[], ls: Rec[]) => mean(ls.map((l) => sum(tr(labels(l)))));
    const nonZero = (tr: (p: number[]) => number[]) => sum(input.map((l) => tr(labels(l)).filter((x) => x !== 0).length));
    t.check('processes', input.length);
    t.check('clip: mean reward', ret(clip, input));
    expect(runs[1]!.stderr).toContain(`mean score ${ret(clip, input).toFixed(4)}`);
    t.check('clip: mean reward, original processes', ret(clip, orig));
    t.check('clip: mean reward, modified processes', ret(clip, mod));
    t.check('clip: steps with a non-zero reward', nonZero(clip));
    t.check('delta: mean reward', ret(delta, input));
    expect(runs[2]!.stderr).toContain(`mean score ${ret(delta, input).toFixed(4)}`);
    t.check('delta: steps with a non-zero reward', nonZero(delta));
    t.check('mean step count, original', mean(orig.map((l) => l.sample.steps.length)));
    t.check('mean step count, modified', mean(mod.map((l) => l.sample.steps.length)));
    t.done();
  });

  it('on a handful of another class (counterfactual errors) both transforms follow the definitions', () => {
    const lines = asLines(prmbenchRows('prm800k_test_p1_4o_counterfactual.jsonl').slice(0, 6));
    recompute(lines, score('clip', lines), clip);
    recompute(lines, score('delta', lines), delta);
  });

  it('repeating correct steps three times farms the plain sum of step scores, but neither the Clip nor the Delta return', () => {
    const r = prmbenchRows('prm800k_test_p1_4o_redundency.jsonl')[0]!;
    const steps = r.original_process as string[];
    const lines = [
      { id: 'once', item: { error_steps: [] }, sample: { steps } },
      { id: 'thrice', item: { error_steps: [] }, sample: { steps: [...steps, ...steps, ...steps] } },
    ];
    for (const [config, tr] of [
      ['clip', clip],
      ['delta', delta],
    ] as const) {
      const out = score(config, lines);
      recompute(lines, out, tr);
      expect(sum(out[1]!.metadata.raw_steps)).toBe(3 * sum(out[0]!.metadata.raw_steps));
      expect(out[1]!.score).toBe(out[0]!.score);
    }
  });

  it('labels that do not fit the steps, and a process without steps, are bad_input naming the field', () => {
    const rows = prmbenchRows('prm800k_test_p1_4o_redundency.jsonl');
    const beyond = rows.find((r) => Math.max(...r.error_steps) > r.modified_process.length)!;
    const lines = [
      { id: 'beyond', item: { error_steps: beyond.error_steps }, sample: { steps: beyond.modified_process } },
      { id: 'empty', item: { error_steps: [] }, sample: { steps: [] } },
    ];
    for (const config of ['clip', 'delta'] as const) {
      // every line invalid: the run is a failure (exit 6), each line still has its result
      const out = score(config, lines, 6);
      for (const o of out) expect(o).toMatchObject({ valid: false, score: null, error: { kind: 'bad_input' } });
      expect(out[0]!.error.message).toMatch(/error_steps/);
    }
  });
});
