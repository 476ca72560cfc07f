// A short sentence with a label ("So A: 18") is prose that states an answer, never an expression
// (it once parsed as the ratio S*o*A : 18 and scored a right answer 0, valid).
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';

const g = loadGrader({ type: 'math', reference: '{{item.answer}}' });

describe('math: labelled sentences are read for their value', () => {
  it.each([
    ['So A: 18', 1],
    ['So A: 18.', 1],
    ['Thus x: 18', 1],
    ['So A: 17', 0],
  ])('%s against 18 scores %d', async (text, want) => {
    const r = await grade(g, { item: { answer: '18' }, output_text: text });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(want);
  });
});
