// The answer families from other verifiers' suites (issue 13): each relaxation decides with a
// reason that names its rule, and each can be turned off (strict mode), after which the pair is
// judged as before. Also: the new operators and extraction paths stay bounded on hostile input.
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../dist/graders/math/index.js';
import { loadGrader } from '../../dist/index.js';

const v = (o: string, r: string, opts = {}) => verifyMath(o, r, { time_budget_ms: 10_000, ...opts }); // steps bound the work

describe('each relaxation names its rule and has a switch', () => {
  it.each([
    // [output, reference, option that turns it off, reason pattern]
    ['2.6667', '\\frac{8}{3}', { rounding: false }, /rounding rule/],
    ['1000,99', '1000.99', { decimal_comma: false }, /decimal comma/],
    ['(p,q)=(3,2)', '(3,2)', { equation_values: false }, /taking the value of \(p, q\)/],
    ['x = 5+5+1 = 11', '11', { equation_values: false }, /taking the value of x/],
    ['1\\le|z|\\le 3/2', '[-3/2,-1]\\cup[1,3/2]', { set_relations: false }, /same set of reals/],
    ['[1,3] \\cap [2,5]', '[2,3]', { set_relations: false }, /same set of reals/],
    ['Therefore $x \\geq 5$ is the solution.', 'x \\ge 5', { last_math: false }, /\(last_math\)/],
    ['Réponse : 42 (vérifié : 6 fois 7)', '42', { languages: false }, /\(answer_phrase\)/],
    ['\\boxed{2} papers and \\boxed{1} bins', '1, 2', { join_phrases: false }, /same 2 item/],
  ] as [string, string, Record<string, boolean>, RegExp][])('%s vs %s', (o, r, off, why) => {
    const on = v(o, r);
    expect(on, on.reason).toMatchObject({ valid: true, score: 1 });
    expect(on.reason).toMatch(why);
    const strict = v(o, r, off);
    expect(strict.score, strict.reason).not.toBe(1);
  });

  it('the grader type accepts the switches and refuses bad values', () => {
    expect(() =>
      loadGrader({
        type: 'math',
        reference: '{{item.answer}}',
        rounding: false,
        rounding_min_digits: 6,
        decimal_comma: false,
        equation_values: false,
        set_relations: false,
        last_math: false,
        languages: false,
        join_phrases: false,
      }),
    ).not.toThrow();
    expect(() => loadGrader({ type: 'math', reference: '{{item.answer}}', rounding_min_digits: 0 })).toThrow(/rounding_min_digits/);
    expect(() => loadGrader({ type: 'math', reference: '{{item.answer}}', rounding: 'yes' })).toThrow(/rounding/);
  });
});

describe('identical answer text', () => {
  it('is equal without parsing, even past the answer-size limit; a near miss there is not graded', () => {
    const big = '1'.repeat(100_000);
    expect(v(`\\boxed{${big}}`, big)).toMatchObject({ valid: true, score: 1 });
    expect(v(`\\boxed{${big}}`, big).reason).toMatch(/identical answer text/);
    const other = v(`\\boxed{${big}2}`, big);
    expect(other.score).not.toBe(1);
    expect(other.error?.kind).toBe('bad_input'); // the reference is over max_answer_chars
    // an unparsable reference equals only the same text
    expect(v('$\\zzz{7}$', '\\zzz{7}').score).toBe(1);
    expect(v('$\\zzz{8}$', '\\zzz{7}').valid).toBe(false);
  });
});

describe('near misses of the new rules stay misses', () => {
  it.each([
    ['0.333', '\\frac13'], // 3 significant digits
    ['0.3334', '\\frac13'], // neither rounded nor truncated
    ['2x = 4', '4'], // an equation, not a labelled value
    ['x + 1 = 2', '2'],
    ['(a,b)=(9,4)', '(4,9)'],
    ['1,234', '1.234'], // thousands, not a decimal comma
    ['2 < |x| \\le 4', '[-4,-2] \\cup [2,4]'],
    ['[1,4) \\cap [3,6]', '[3,4]'],
    ['\\begin{pmatrix} 1 & 1 \\\\ 0 & 2 \\end{pmatrix} \\begin{pmatrix} 2 & 0 \\\\ 0 & 3 \\end{pmatrix}', '\\begin{pmatrix} 3 & 1 \\\\ 0 & 5 \\end{pmatrix}'],
    ['\\sum_{k=1}^{n} k', '\\frac{n(n-1)}{2}'],
    ['\\int_0^1 x^2 dx', '\\frac12'],
    ['\\lim_{x\\to 0} \\frac{\\sin 2x}{x}', '1'],
    ['The answer is for sure B, it cannot be A or D', 'D'],
    ['\\boxed{3} then we check that \\boxed{-4}', '3, -4'],
    ['\\boxed{1} no no no \\boxed{2}', '1, 2'],
    ['Answer $ \n 9 \n $', '9'], // inline math does not cross lines: no answer
    ['AZYUK2A', '2'], // a digit glued inside a word is not a number
    ['12:00', '12:30'],
  ])('%s is not %s', (o, r) => {
    const x = v(o, r);
    expect(x.score, x.reason).not.toBe(1);
  });
});

describe('hostile inputs to the new paths stay bounded', () => {
  it.each([
    ['a sum with a billion terms', '\\boxed{\\sum_{k=1}^{10^{9}} k}'],
    ['nested sums of a million terms', '\\boxed{\\sum_{a=1}^{1000}\\sum_{b=1}^{1000} ab}'],
    ['nested infinite series', '\\boxed{\\sum_{n=1}^{\\infty} \\sum_{m=1}^{\\infty} \\frac{1}{n^2 m^2}}'],
    ['a product of 40 matrices', '\\boxed{' + '\\begin{pmatrix}1&1\\\\1&1\\end{pmatrix}'.repeat(40) + '}'],
    ['150 intersections', '\\boxed{' + '[1,2] \\cap '.repeat(150) + '[1,2]}'],
    ['200k math spans', '$1$ '.repeat(200_000)],
    ['50k unclosed \\(', '\\('.repeat(50_000)],
    ['50k answer markers in French', 'Réponse : '.repeat(50_000)],
    ['100k comma-separated digits', '1,'.repeat(100_000) + '2'],
  ])('%s: a result, never a hang or a crash', (_name, output) => {
    const x = v(output, '7');
    expect(x.error?.kind ?? 'none').not.toBe('internal_error');
    if (x.valid) expect(x.score).toBe(0);
    else expect(x.error?.kind).toBe('limit_exceeded');
  });
});
