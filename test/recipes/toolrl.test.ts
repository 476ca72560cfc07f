// docs/recipes.md, ToolRL: the documented commands run as written on BFCL's simple_python items; every
// reward is recomputed here from ToolRL's definition. Each response has the format (1); a right call
// matches the one gold call's name (Jaccard 1), its parameter names and its n values, so
// s = 1 + 1 + n and the correctness is 6·s/(1 + (1 + n)) − 3 = 3; one wrong value gives s = 1 + 1 +
// (n − 1); a call cut off mid-JSON cannot be read and gets the correctness floor, −3. n counts the
// gold's required parameters (the ones whose accepted values do not include "", as BFCL marks
// optional ones). Then hostile input: a response with no block at all is the floor, validly.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandOf, Figures, mean, RECIPES, type Rec, readJsonl, run, runSection, workdir, writeJsonl } from './helpers.js';

const HEADING = RECIPES.toolrl!;
const correctness = (s: number, keys: number) => (6 * s) / (1 + (1 + keys)) - 3;

describe('ToolRL recipe', () => {
  it('the documented commands: every reward recomputed from the definition', () => {
    const { dir } = runSection(HEADING);
    const input = readJsonl(join(dir, 'tmp/recipes/bfcl-400.jsonl'));
    const out = readJsonl(join(dir, 'tmp/recipes/toolrl.jsonl'));
    expect(out.map((o) => o.id)).toEqual(input.map((i) => i.id));
    const by: Record<string, number[]> = { right: [], wrong: [], cut: [] };
    input.forEach((s: Rec, i) => {
      const o = out[i]!;
      expect(o.valid, JSON.stringify(o.error)).toBe(true);
      const params = Object.values(s.item.ground_truth[0])[0] as Record<string, unknown[]>;
      const n = Object.values(params).filter((vals) => !vals.includes('')).length;
      const kind = String(s.id).split('-').at(-1)!;
      const want = kind === 'right' || (kind === 'wrong' && n === 0) ? 1 + correctness(2 + n, n) : kind === 'wrong' ? 1 + correctness(1 + n, n) : 1 - 3;
      expect(o.score, `${s.id}: ${o.reason}`).toBeCloseTo(want, 12);
      by[kind]!.push(o.score);
    });
    const t = new Figures(HEADING);
    t.check('responses', out.length);
    t.check('right: mean reward', mean(by.right!));
    t.check('wrong: mean reward', mean(by.wrong!));
    t.check('cut: mean reward', mean(by.cut!));
    t.done();
  }, 120_000);

  it('a response with no tool_call block scores the floor (format 0, correctness −3), validly', () => {
    const dir = workdir();
    const gt = [{ get_weather: { city: ['Paris'] } }];
    writeJsonl(join(dir, 'tmp/recipes/bfcl-400.jsonl'), [
      { id: 'prose', uid: 'u', item: { ground_truth: gt }, sample: { output_text: 'I think the weather in Paris is fine.' } },
      {
        id: 'half',
        uid: 'u',
        item: { ground_truth: gt },
        sample: { output_text: '<think>t</think>\n<tool_call>\n{"name": "get_weather", "parameters": {"city": \n</tool_call>' },
      },
    ]);
    const r = run(dir, commandOf(HEADING, 'arbiter score -g examples/recipes/toolrl/grader.json'));
    expect(r.code, r.stderr).toBe(0);
    const out = readJsonl(join(dir, 'tmp/recipes/toolrl.jsonl'));
    expect(out.map((o) => [o.valid, o.score])).toEqual([
      [true, -3],
      [true, -2],
    ]);
  });
});
