// Numeric precision (issue 25, item 5): a comparison whose double arithmetic lost the digits to
// decide (sin of a huge argument, cancellation of huge terms) is never guessed equal or unequal.
// It is re-decided exactly (rationals up to the magnitude limit) or with interval arithmetic,
// or reported invalid with `precision_lost` naming the sub-expression.
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../dist/graders/math/index.js';

/** [answer, reference]: different values that double arithmetic cannot tell apart. */
const nearMisses: [string, string][] = [
  ['\\sin(10^{30})', '\\sin(10^{30}+1)'],
  ['\\cos(2^{60})', '\\cos(2^{60}+1)'],
  ['\\tan(10^{20})', '\\tan(10^{20}+1)'],
  ['\\sin(2^{80})', '\\sin(2^{80}+2^{-10})'],
  ['\\cos(3 \\cdot 10^{25})', '\\cos(3 \\cdot 10^{25} + 10)'],
  // catastrophic cancellation: 10^20 + 1 is 10^20 in doubles
  ['\\sqrt{10^{20}+1}-10^{10}', '0'],
  ['(10^{17}+\\sqrt{2})-10^{17}', '1.4142'],
  ['(10^{17}+\\sqrt{2})-10^{17}', '\\sqrt{3}'],
  // a huge exponential: the difference is e^-1000
  ['\\ln(e^{1000}+1)-1000', '0'],
  // with a variable: the sample points are real, so they are decided precisely too
  ['\\sin(10^{30}x)', '\\sin(10^{30}x+1)'],
  ['\\cos(2^{60} x)', '\\cos((2^{60}+1) x)'],
];

/** True equalities: they stay 1. */
const equal: [string, string][] = [
  ['\\sin(10^{30})', '\\sin(10^{30})'],
  ['\\sin(10^{30})', '\\sin(1000000000000000000000000000000)'],
  ['\\cos(2^{60}+1)', '\\cos(1152921504606846977)'],
  ['\\sin(\\pi/6)', '\\frac{1}{2}'],
  ['\\sin(\\pi)', '0'],
  ['\\cos(2^{60})^2+\\sin(2^{60})^2', '1'],
  ['\\sin(10^{30}\\pi)', '0'],
  ['\\sqrt{10^{20}+1}-10^{10}', '\\frac{1}{\\sqrt{10^{20}+1}+10^{10}}'],
  ['(10^{17}+\\sqrt{2})-10^{17}', '\\sqrt{2}'],
  ['2^{100000}+7-2^{100000}', '7'],
  ['1+2^{100000}', '2^{100000}+1'],
  ['\\frac{2^{100000}+1}{3}', '\\frac{1+2^{100000}}{3}'],
  ['\\tan(10^{20})', '\\frac{\\sin(10^{20})}{\\cos(10^{20})}'],
  ['e^{-30}', '\\frac{1}{e^{30}}'],
  ['\\sin(10^{30}x)', '\\sin(1000000000000000000000000000000 x)'],
];

describe('precision: never decided from digits that were lost', () => {
  it.each(nearMisses)('%s is not %s (valid 0)', (o, r) => {
    const v = verifyMath(o, r);
    expect(v, v.reason).toMatchObject({ valid: true, score: 0 });
    // and in the other direction
    expect(verifyMath(r, o), r).toMatchObject({ valid: true, score: 0 });
  });

  it.each(equal)('%s equals %s', (o, r) => {
    const v = verifyMath(o, r);
    expect(v, v.reason).toMatchObject({ valid: true, score: 1 });
  });

  it('says how a lost-precision pair was decided', () => {
    expect(verifyMath('\\sin(10^{30})', '\\sin(10^{30}+1)').reason).toMatch(/interval arithmetic/);
    expect(verifyMath('2^{100000}+7-2^{100000}', '7').reason).toMatch(/exact values equal/);
  });

  it('what the precise evaluator cannot do is invalid precision_lost naming the sub-expression, never a guess', () => {
    // \arcsin is not in the precise evaluator; its argument has no digits left in doubles
    for (const [o, r] of [
      ['\\arcsin(\\sin(10^{30}))', '\\arcsin(\\sin(10^{30}+1))'],
      ['\\arcsin(\\sin(10^{30}))', '\\arcsin(\\sin(10^{30}))+0'],
    ] as const) {
      const v = verifyMath(o, r);
      expect(v, v.reason).toMatchObject({ valid: false, score: null, error: { kind: 'precision_lost' } });
      expect(v.reason).toMatch(/precision lost: .*sin\(10\^30/);
    }
  });

  it('a near miss by less than the tolerance is still within the tolerance (rel_tol applies to irrational values)', () => {
    expect(verifyMath('\\sin(10^{30})', '\\sin(10^{30}+10^{-12})').score).toBe(1);
    expect(verifyMath('\\sin(10^{30})', '\\sin(10^{30}+10^{-12})', { rel_tol: 1e-15 }).score).toBe(0);
  });
});
