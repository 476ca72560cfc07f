// Invalid as an escape from a low reward (issue 25, item 7): trainers mask invalid grades, so
// what the RESPONSE causes (too long, too deep, too costly, over the magnitude limit) must be a
// valid 0 naming the limit; invalid is left for a bad reference and for the grader's own budget
// or precision running out (docs/math.md, "Whose doing").
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../dist/graders/math/index.js';

const nested = (k: number, inner = '1') => '('.repeat(k) + inner + ')'.repeat(k);
const sum3 = '\\sum_{a=1}^{1000}\\sum_{b=1}^{1000} ab';

/** [name, output, reference, reason pattern]: wrong answers that were invalid before issue 25. */
const escapes: [string, string, string, RegExp][] = [
  ['70 nested parentheses', `\\boxed{${nested(70)}}`, '2', /nesting deeper than 64 levels \(max_depth\)/],
  ['70 nested parentheses in answer tags', `<answer>${nested(70, '3')}</answer>`, '2', /nesting deeper than 64 levels \(max_depth\)/],
  ['a 2,000-character box', `\\boxed{${'1+'.repeat(1000)}1}`, '2', /2001 characters, over the 2000-character limit \(max_answer_chars\)/],
  ['an output over max_chars', `${'x'.repeat(1_000_001)} \\boxed{3}`, '2', /over the 1000000-character limit \(max_chars\)/],
  ['an answer that costs more than the step budget', `\\boxed{${sum3}}`, '5', /exceeds the step budget \(max_steps 200000\)/],
  ['an answer over the magnitude limit', '\\boxed{\\sin(10^{100000})}', '\\frac{1}{2}', /answer is over the magnitude limit/],
  ['a power over the magnitude limit, cancelling', '\\boxed{10^{100000}+7-10^{100000}}', '8', /answer is over the magnitude limit/],
  ['values out of double range at every sample point', '\\boxed{x^{10^{7}}}', 'x^2', /answer's values leave floating-point range/],
];

describe('response-caused limits are a valid 0 naming the limit', () => {
  it.each(escapes)('%s', (_name, output, reference, reason) => {
    const v = verifyMath(output, reference);
    expect(v, v.reason).toMatchObject({ valid: true, score: 0 });
    expect(v.reason).toMatch(reason);
  });

  it('what the exact path can evaluate is evaluated, not refused: 2^{100000}+7-2^{100000} is 7', () => {
    expect(verifyMath('\\boxed{2^{100000}+7-2^{100000}}', '8')).toMatchObject({ valid: true, score: 0 });
    expect(verifyMath('\\boxed{2^{100000}+7-2^{100000}}', '7')).toMatchObject({ valid: true, score: 1 });
  });

  it('a correct answer within the limits is still 1', () => {
    expect(verifyMath(`\\boxed{${nested(30, '2')}}`, '2').score).toBe(1);
    expect(verifyMath(`\\boxed{${'1+'.repeat(998)}1}`, '999').score).toBe(1);
  });
});

describe('what the response cannot be blamed for stays invalid', () => {
  it.each([
    ['a reference nested 70 deep', '\\boxed{2}', nested(70, '2'), 'limit_exceeded'],
    ['a reference over max_answer_chars', '\\boxed{2}', `${'1+'.repeat(1000)}1`, 'bad_input'],
    ['a reference over the magnitude limit', '\\boxed{10^{10^{10}}}', '10^{10^{10}}+1', 'limit_exceeded'],
    ['a reference whose own comparison exceeds the step budget', '\\boxed{5}', sum3, 'limit_exceeded'],
    ['an unparsable reference', '\\boxed{5}', '\\frac{1}{', 'bad_input'],
  ])('%s', (_name, output, reference, kind) => {
    const v = verifyMath(output, reference);
    expect(v, v.reason).toMatchObject({ valid: false, score: null, error: { kind } });
  });

  it('a budget too small for the reference itself is the grader configuration: invalid', () => {
    const v = verifyMath('\\boxed{(x+1)^{2}}', 'x^2+2x+1', { max_steps: 60 });
    expect(v).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
    expect(v.reason).toMatch(/reference compared with itself also exceeds it/);
  });
});
