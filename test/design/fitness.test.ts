// The design loop's fitnesses and statistics against values worked out by hand from their
// definitions, how a candidate's return value is read, what the prompt's schema shows, and the
// messages of each iteration (Eureka's layout).
import { describe, expect, it } from 'vitest';
import { candidateCode, graderSource, MAX_CODE_BYTES, readReturn } from '../../dist/design/candidate.js';
import { auc, averageRanks, componentStats, fitnessOf, kendallTauB, pearson, preferenceAgreement, spearman } from '../../dist/design/fitness.js';
import { iterationMessages, SYSTEM_PROMPT } from '../../dist/design/prompt.js';
import { trajectorySchema } from '../../dist/design/schema.js';

describe('fitness', () => {
  it('preference agreement: strict pairs ordered right, equal rewards one half, labelled ties left out', () => {
    const r = new Map([
      ['a', 3],
      ['b', 1],
      ['c', 1],
      ['d', 0],
    ]);
    const v = preferenceAgreement(r, [
      { chosen: 'a', rejected: 'b' }, // right
      { chosen: 'd', rejected: 'a' }, // wrong
      { chosen: 'b', rejected: 'c' }, // equal: one half
      { chosen: 'c', rejected: 'd' }, // right
      { chosen: 'b', rejected: 'c', tie: true }, // left out (scored equal)
      { chosen: 'a', rejected: 'd', tie: true }, // left out
    ]);
    expect(v.value).toBe(2.5 / 4);
    expect(v.detail).toEqual({ pairs: 4, ordered_right: 2, scored_equal: 1, labelled_ties: 2, labelled_ties_scored_equal: 1 });
    expect(preferenceAgreement(r, [{ chosen: 'a', rejected: 'b', tie: true }]).value).toBeUndefined();
  });

  it('ranks average over ties; Spearman is Pearson of the ranks; Kendall tau-b corrects for ties', () => {
    expect(averageRanks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 40])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    // x = [1,2,3], y = [1,3,2]: ranks equal the values; Pearson = 0.5
    expect(spearman([1, 2, 3], [1, 3, 2])).toBeCloseTo(0.5, 12);
    // pairs of x=[1,2,2,3], y=[1,2,3,3]: concordant 4, discordant 0, tied in x only 1, in y only 1
    expect(kendallTauB([1, 2, 2, 3], [1, 2, 3, 3])).toBeCloseTo(4 / Math.sqrt(5 * 5), 12);
    expect(spearman([1, 1, 1], [1, 2, 3])).toBeUndefined();
    expect(pearson([1, 2, 3], [2, 4, 6.5])).toBeCloseTo(0.9979487157886733, 12);
  });

  it('AUC is the chance a success outscores a failure, equal scores one half', () => {
    // successes 0.9, 0.5; failures 0.5, 0.1: pairs 1 + 1 + 0.5 + 1 of 4
    expect(auc([0.9, 0.5, 0.5, 0.1], [true, true, false, false])).toBe(3.5 / 4);
    expect(auc([1, 2], [true, true])).toBeUndefined();
  });

  it('the rank fitness is Spearman by default, Kendall tau-b when asked, both reported', () => {
    const labels = { metric: [1, 2, 3, 4] };
    const s = fitnessOf('rank', ['a', 'b', 'c', 'd'], [1, 3, 2, 4], labels);
    const k = fitnessOf('rank', ['a', 'b', 'c', 'd'], [1, 3, 2, 4], labels, 'kendall');
    expect(s.value).toBeCloseTo(0.8, 12); // d^2 = 0+1+1+0: 1 - 6*2/(4*15)
    expect(k.value).toBeCloseTo(4 / 6, 12); // 5 concordant, 1 discordant of 6
    expect(s.detail).toEqual(k.detail);
  });

  it('a constant reward has no rank fitness (a failed candidate), but chance-level AUC', () => {
    const f = fitnessOf('rank', ['a', 'b', 'c'], [1, 1, 1], { metric: [1, 2, 3] });
    expect(f.value).toBeUndefined();
    expect(f.undefinedWhy).toMatch(/same for every trajectory/);
    expect(fitnessOf('separation', ['a', 'b'], [1, 1], { success: [true, false] }).value).toBe(0.5);
  });

  it('component statistics: population std and the correlation with the label', () => {
    const s = componentStats([1, 2, 3, 4], [0, 0, 1, 1]);
    expect(s.mean).toBe(2.5);
    expect(s.std).toBeCloseTo(Math.sqrt(1.25), 12);
    expect([s.min, s.max]).toEqual([1, 4]);
    expect(s.corr_with_label).toBeCloseTo(pearson([1, 2, 3, 4], [0, 0, 1, 1])!, 12);
    expect(componentStats([2, 2], [0, 1]).corr_with_label).toBeUndefined();
  });
});

describe('reading a candidate', () => {
  it('takes the python fence of a reply and needs reward()', () => {
    expect(candidateCode('text\n```python\ndef reward(t):\n    return 1\n```\nmore')).toEqual({ code: 'def reward(t):\n    return 1\n' });
    expect(candidateCode('```python\ndef grade(t):\n    return 1\n```')).toEqual({ error: 'the code defines no function reward(trajectory)' });
    expect(candidateCode('   ')).toEqual({ error: 'the reply holds no code' });
    const big = candidateCode(`def reward(t):\n    return 1\n#${'x'.repeat(MAX_CODE_BYTES)}`);
    expect(big).toEqual({ error: `the program is ${MAX_CODE_BYTES + 29} bytes, over the limit of ${MAX_CODE_BYTES}` });
  });

  it('reads a number, per-step numbers, a (total, components) pair and a dict with total', () => {
    expect(readReturn(2)).toEqual({ total: 2 });
    expect(readReturn([0.1, 0.2, -1])).toEqual({ total: 0.1 + 0.2 + -1 });
    expect(readReturn([1.5, { a: 1, b: [0.5, 0.25] }])).toEqual({ total: 1.5, components: { a: 1, b: 0.75 } });
    expect(readReturn({ total: 3, x: 1 })).toEqual({ total: 3, components: { x: 1 } });
    expect(readReturn(true)).toMatch(/returned true, not a number/);
    expect(readReturn(null)).toMatch(/returned null/);
    expect(readReturn('0.5')).toMatch(/returned "0.5"/);
    expect(readReturn({ x: 1 })).toMatch(/without a numeric "total"/);
    expect(readReturn([1, { a: 'x' }])).toMatch(/component "a" is "x"/);
  });

  it('the grader source calls reward on sample.trajectory', () => {
    const src = graderSource('def reward(t):\n    return 1\n');
    expect(src).toMatch(/^def reward\(t\):/);
    expect(src).toContain("r = reward(sample['trajectory'])");
    expect(src).toContain('def grade(sample, item):');
  });
});

describe('the prompt', () => {
  it('shows the field paths, types, ranges and example strings of the data', () => {
    const s = trajectorySchema([
      { steps: [{ a: 'up', x: 1 }], ok: true },
      {
        steps: [
          { a: 'down', x: 2.5 },
          { a: 'up', x: 0 },
        ],
        ok: false,
      },
    ]);
    expect(s.split('\n')).toEqual([
      'trajectory: dict',
      'trajectory.steps: list (length 1 to 2)',
      'trajectory.steps[]: dict',
      'trajectory.steps[].a: str, e.g. "up", "down"',
      'trajectory.steps[].x: int | float, from 0 to 2.5',
      'trajectory.ok: bool',
    ]);
  });

  it('iteration 1: system and task; later: the best reply and its reflection, errors appended', () => {
    expect(iterationMessages('TASK', undefined, [])).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: 'TASK' },
    ]);
    const errs = [{ iteration: 1, index: 0, error: 'SyntaxError: x' }];
    expect(iterationMessages('TASK', undefined, errs)[1]!.content).toMatch(/^TASK\n\nThese candidates .*\n- iteration 1, candidate 1: SyntaxError: x$/);
    const m = iterationMessages('TASK', { reply: 'R', reflection: 'REFL' }, errs);
    expect(m.map((x) => x.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(m[2]!.content).toBe('R');
    expect(m[3]!.content).toMatch(/^REFL\n\nThese candidates/);
  });
});
