// docs/judges.md says what the verdict parsers read: its examples run here through the parsers, and
// the corpus size it states is the corpus file's, so the page cannot drift from the code.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePairwise, parseScore, parseYesNo } from '../../dist/graders/judges/parse/index.js';
import { ROOT } from '../helpers/cli.js';

const doc = readFileSync(`${ROOT}docs/judges.md`, 'utf8');
const score = (t: string, range: [number, number] = [0, 10]) => {
  const v = parseScore(t, { range } as never);
  return v.ok ? v.value.score : `error ${(v as { error: string }).error}`;
};
const pair = (t: string) => {
  const v = parsePairwise(t);
  return v.ok ? v.value : `error ${(v as { error: string }).error}`;
};

describe('docs/judges.md verdict examples', () => {
  it('states the corpus size of test/judges/fixtures/verdicts.jsonl', () => {
    const n = readFileSync(`${ROOT}test/judges/fixtures/verdicts.jsonl`, 'utf8').split('\n').filter(Boolean).length;
    const stated = /Corpus: `test\/judges\/fixtures\/verdicts\.jsonl`, (\d+) judge outputs/.exec(doc);
    expect(stated).not.toBeNull();
    expect(Number(stated![1])).toBe(n);
  });

  it('score formats: keyed, with a range, broken JSON, prose, a bare final line, fractions, percent', () => {
    for (const shown of [
      '`Accuracy score: 6` … `Clarity score: 9`',
      '`Accuracy: 6` … `Clarity: 9`',
      'Score (1-10): 7',
      '"result": 7',
      'a score of 8',
      '`8/10`',
      '`4 out of 5`',
      '`85%`',
      '`Reward: 10`',
      '`**8**`',
    ])
      expect(doc).toContain(shown);
    expect(score('Looks fine.\nScore (1-10): 7')).toBe(7);
    expect(score('The JSON: {"result": 7')).toBe(7);
    expect(score('Clear and correct; I give it a score of 8.')).toBe(8);
    expect(score('Good answer.\n**8**')).toBe(8);
    expect(score('Score: 8/10', [0, 1])).toBe(0.8);
    expect(score('Score: 4 out of 5')).toBe(8);
    expect(score('Score: 4 out of 5', [1, 5])).toBe(4);
    expect(score('Score: 85%', [0, 1])).toBe(0.85);
    expect(score('Reward: 10', [0, 1])).toBe('error out_of_range');
    // several aspects without an overall verdict
    expect(score('Accuracy score: 6\nClarity score: 9')).toBe('error ambiguous');
    expect(score('Accuracy: 6/10\nClarity: 9/10')).toBe('error ambiguous');
    expect(score('Accuracy: 6\nClarity: 9')).toBe('error no_verdict');
    expect(score('Accuracy: 6\nClarity: 9\nFinal score: 6')).toBe(6);
  });

  it('pairwise formats: [[A]], ties, Arena-Hard, Output (a), Winner: Response B, JSON; a bare lowercase a is never A', () => {
    for (const shown of ['[[A>>B]]', '[[A=B]]', '`Output (a)`', '`Winner: Response B`', '`{"winner": "B"}`']) expect(doc).toContain(shown);
    expect(pair('Verdict: [[A]]')).toBe('A');
    expect(pair('Verdict: [[C]]')).toBe('tie');
    expect(pair('[[A>>B]]')).toBe('A');
    expect(pair('[[A=B]]')).toBe('tie');
    expect(pair('Output (b) has an error.\nOutput (a)')).toBe('A');
    expect(pair('Winner: Response B')).toBe('B');
    expect(pair('{"winner": "B"}')).toBe('B');
    expect(pair('I think a is fine.\na')).toBe('error no_verdict');
  });

  it('reference_verify / binary rubric: [[YES]]/[[NO]], Correct/Incorrect, Equivalent: no', () => {
    for (const shown of ['`Correct`/`Incorrect`', '`Equivalent: no`']) expect(doc).toContain(shown);
    const yn = (t: string) => {
      const v = parseYesNo(t);
      return v.ok ? v.value : 'error';
    };
    expect(yn('Verdict: [[YES]]')).toBe(true);
    expect(yn('Verdict: [[NO]]')).toBe(false);
    expect(yn('Correct')).toBe(true);
    expect(yn('The answer is Incorrect')).toBe(false);
    expect(yn('Equivalent: no')).toBe(false);
  });
});
