// The first-error verdict parser (ProcessBench critique format) under the shared conventions:
// the judge's own last box, quotes of the graded steps ignored, conflicts refused, ranges checked.
import { describe, expect, it } from 'vitest';
import { parseFirstError } from '../../dist/index.js';

const steps = ['Add: 2 + 3 = 5.', 'Double it: 5 * 2 = 12.', 'So the answer is $\\boxed{12}$.'];
const ctx = { steps: 3, graded: steps };

describe('parseFirstError', () => {
  it('reads \\boxed{k} (0-based) and -1 for none', () => {
    expect(parseFirstError('Paragraph 1 is wrong: 5*2 is 10.\n\n\\boxed{1}', ctx)).toMatchObject({ ok: true, value: 1, format: 'boxed' });
    expect(parseFirstError('All good. \\boxed{-1}', ctx)).toMatchObject({ ok: true, value: -1 });
    expect(parseFirstError('\\boxed{\\text{paragraph 2}}', ctx)).toMatchObject({ ok: true, value: 2 });
  });

  it('only the last box of the judge is its answer (earlier boxes are its working)', () => {
    expect(parseFirstError('The right result is \\boxed{10}, not 12, so the error is in paragraph 1.\n\nFinal: \\boxed{1}', ctx)).toMatchObject({
      ok: true,
      value: 1,
    });
  });

  it('a box the judge copies from the solution is not its verdict', () => {
    const out = 'Paragraph 2 says "So the answer is $\\boxed{12}$." which follows from paragraph 1, where 5*2 = 12 is wrong. \\boxed{1}';
    expect(parseFirstError(out, ctx)).toMatchObject({ ok: true, value: 1 });
    // the copied box alone is no verdict
    expect(parseFirstError('The solution ends with "So the answer is $\\boxed{12}$."', ctx)).toMatchObject({ ok: false });
  });

  it('an index outside the paragraphs is out_of_range, never clamped', () => {
    expect(parseFirstError('\\boxed{3}', ctx)).toMatchObject({ ok: false, error: 'out_of_range' });
    expect(parseFirstError('\\boxed{-2}', ctx)).toMatchObject({ ok: false, error: 'out_of_range' });
  });

  it('other formats: [[k]], JSON, "Earliest error: paragraph k", a bare final line; conflicts are refused', () => {
    expect(parseFirstError('Verdict [[2]]', ctx)).toMatchObject({ ok: true, value: 2, format: 'brackets' });
    expect(parseFirstError('{"first_error": 0, "reasoning": "bad start"}', ctx)).toMatchObject({ ok: true, value: 0, format: 'json' });
    expect(parseFirstError('Earliest error: paragraph 1', ctx)).toMatchObject({ ok: true, value: 1 });
    expect(parseFirstError('I checked everything.\n-1', ctx)).toMatchObject({ ok: true, value: -1, format: 'final_line' });
    expect(parseFirstError('[[0]] ... [[2]]', ctx)).toMatchObject({ ok: false, error: 'ambiguous' });
    expect(parseFirstError('no index here', ctx)).toMatchObject({ ok: false, error: 'no_verdict' });
    expect(parseFirstError('<think>maybe \\boxed{0}</think>\\boxed{2}', ctx)).toMatchObject({ ok: true, value: 2 });
  });
});
