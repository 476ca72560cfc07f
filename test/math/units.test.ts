// Unit behaviour of the math verifier: extraction, parsing into typed values, comparison rules,
// options, hard limits on hostile input, and the `math` grader inside the registry and `multi`.
import { describe, expect, it } from 'vitest';
import { extractAnswer, parseMathAnswer, verifyMath } from '../../dist/graders/math/index.js';
import { grade, loadGrader } from '../../dist/index.js';

const score = (o: string, r: string, opts = {}) => verifyMath(o, r, opts).score;

describe('extractAnswer', () => {
  it.each([
    ['Thus $\\boxed{\\frac{1}{2}}$.', '\\frac{1}{2}', 'boxed'],
    ['first \\boxed{3} then finally \\boxed{x^{2}+\\frac{1}{2}}', 'x^{2}+\\frac{1}{2}', 'boxed'],
    ['the roots are \\boxed{1} and \\boxed{-2}', '1, -2', 'boxed'],
    ['\\fbox{7}', '7', 'boxed'],
    ['so the final answer is $42$. Done', '42', 'answer_phrase'],
    ['The answer is 18 dollars.', '18 dollars', 'answer_phrase'],
    ['Answer: 5', '5', 'answer_phrase'],
    ['work\nA: 2000 hours * $15/hour = $<<2000*15=30000>>30,000', '30,000', 'answer_line'],
    ['steps\n#### 1,234', '1,234', 'hash'],
    ['<answer>\\frac{3}{4}</answer>', '\\frac{3}{4}', 'answer_tag'],
    ['We find that **x = 4** works, so that is it', 'x = 4', 'bold'],
    ['so **73**', '73', 'bold'],
    ['Total: **73** apples', '73', 'bold'],
    ['I added 3 and 4 to get 7 apples', '7', 'last_number'],
    ['<think>it is \\boxed{5}</think>So it is \\boxed{6}', '6', 'boxed'],
  ])('%s', (text, answer, method) => {
    expect(extractAnswer(text)).toEqual({ text: answer, method });
  });

  it('finds nothing in an unterminated think block, or without numbers when the fallback is off', () => {
    expect(extractAnswer('<think>the answer is 5')).toBeUndefined();
    expect(extractAnswer('I computed it carefully and got the number 12 in the end', { last_number: false })).toBeUndefined();
  });

  it('takes a reference without markers whole', () => {
    expect(extractAnswer('(1, 2]', {}, 'reference')).toEqual({ text: '(1, 2]', method: 'whole' });
  });
});

describe('parsing into typed values', () => {
  it.each([
    ['1,000', '1000'],
    ['1\\,000', '1000'],
    ['(1,000)', '(1, 0)'],
    ['\\frac12', '1/2'],
    ['1.5e-3', '3/2000'],
    ['0.\\overline{3}', '1/3'],
    ['2\\frac{1}{4}', '(2 + 1/4)'],
    ['52_8', '52_8'],
    ['\\sqrt[3]{x}', 'root(x, 3)'],
    ['30^\\circ', '30°'],
    ['50\\%', '50%'],
    ['(3,4]', '(3, 4]'],
    ['\\{1,2\\}', '{1, 2}'],
    ['\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}', '[1, 2; 3, 4]'],
    ['x \\le 3', 'x <= 3'],
    ['1 \\pm \\sqrt{2}', '(1 + ±sqrt(2))'],
    ['\\binom{5}{2}', 'binom(5, 2)'],
    ['\\sin^2 x', 'sin(x)^2'],
  ])('%s -> %s', (src, shown) => {
    expect(parseMathAnswer(src).value).toBe(shown);
  });
});

describe('equivalence rules', () => {
  it('uses exact rationals: a rounded decimal is not a fraction', () => {
    expect(score('0.333', '\\frac13')).toBe(0);
    expect(score('0.\\overline{3}', '\\frac13')).toBe(1);
    expect(score('12345678901234567890123', '12345678901234567890124')).toBe(0);
  });
  it('honours rel_tol for inexact values (with the rounding rule off)', () => {
    expect(score('3.14159', '\\pi', { rounding: false })).toBe(0);
    expect(score('3.14159', '\\pi', { rounding: false, rel_tol: 1e-5 })).toBe(1);
  });
  it('the rounding rule: a decimal that is the value rounded or truncated to its own places, with >= 4 digits', () => {
    expect(verifyMath('3.14159', '\\pi').reason).toMatch(/rounding rule/);
    expect(score('3.14159', '\\pi')).toBe(1);
    expect(score('3.14158', '\\pi')).toBe(0);
    expect(score('3.14', '\\pi')).toBe(0);
    expect(score('3.14', '\\pi', { rounding_min_digits: 3 })).toBe(1);
    expect(score('0.3333', '\\frac13', { rounding: false })).toBe(0);
  });
  it('percent modes', () => {
    expect(score('50\\%', '50')).toBe(1);
    expect(score('50\\%', '50', { percent: 'strict' })).toBe(0);
    expect(score('50\\%', '0.5', { percent: 'ignore' })).toBe(0);
  });
  it('compares different variable sets over their union (identities that are constant)', () => {
    expect(score('\\sin^2 x + \\cos^2 x', '1')).toBe(1);
    expect(score('x - x + 3', '3')).toBe(1);
    expect(score('x', '2')).toBe(0);
    expect(score('2k+2', '2n+2')).toBe(0);
  });
  it('strict variable names', () => {
    expect(score('2n+2', '2k+2')).toBe(0);
    expect(score('2n+2', '2k+2', { strict_variables: false })).toBe(1);
  });
  it('units can be required to match', () => {
    expect(score('30 \\text{ cm}', '30 \\text{ m}')).toBe(1);
    expect(score('30 \\text{ cm}', '30 \\text{ m}', { units: 'strict' })).toBe(0);
  });
  it('keeps tuples ordered and solution lists unordered', () => {
    expect(score('(2,1)', '(1,2)')).toBe(0);
    expect(score('2, 1', '1, 2')).toBe(1);
  });
  it('compares equations as relations and keeps inequality direction', () => {
    expect(score('y = 2x + 1', '2x - y + 1 = 0')).toBe(1);
    expect(score('3x+4y+14=0', '3x-y+13=0')).toBe(0);
    expect(score('x < 2', '2 > x')).toBe(1);
    expect(score('x > 2', 'x < 2')).toBe(0);
    expect(score('-x > -2', 'x < 2')).toBe(1);
  });
  it('symbolic identities hold at complex points too', () => {
    expect(score('\\ln(x) + \\ln(y)', '\\ln(xy)')).toBe(1);
    expect(score('\\sqrt{x^2}', 'x')).toBe(1);
    expect(score('|x|', 'x')).toBe(0);
    expect(score('\\sin(2x)', '2\\sin x\\cos x')).toBe(1);
  });
});

describe('results explain themselves', () => {
  it('reports both extracted answers and why', () => {
    const v = verifyMath('So $\\boxed{\\dfrac{1}{2}}$', '0.5');
    expect(v).toMatchObject({ score: 1, valid: true, extracted: { output: '\\dfrac{1}{2}', reference: '0.5', output_method: 'boxed' } });
    expect(v.reason).toMatch(/exact value 1\/2/);
  });
  it('an output without an answer is a valid 0', () => {
    expect(verifyMath('I do not know.', '5')).toMatchObject({ score: 0, valid: true, reason: 'no answer found' });
  });
  it('an output whose reasoning never closes says so, in the words every grader uses', () => {
    expect(verifyMath('<think>it is \\boxed{5}', '5')).toMatchObject({
      score: 0,
      valid: true,
      reason: 'the reasoning block never closes (extract.think: strip): no answer found',
    });
  });
  it('a missing or unparsable reference is bad_input', () => {
    expect(verifyMath('5', '').error?.kind).toBe('bad_input');
    expect(verifyMath('5', '\\frac{1}{').error?.kind).toBe('bad_input');
    expect(verifyMath('5', '3 +* ^').error?.kind).toBe('bad_input');
  });
});

describe('hard limits on hostile input', () => {
  // the response's own doing since issue 25: a valid 0 naming the limit (an invalid grade is
  // masked by trainers, so it would let a wrong answer escape its penalty)
  it.each([
    ['100k nested braces', '\\boxed{' + '{'.repeat(100_000) + '1' + '}'.repeat(100_000) + '}', /over the 2000-character limit \(max_answer_chars\)/],
    ['deep nesting within the length cap', '\\boxed{' + '('.repeat(500) + '1' + ')'.repeat(500) + '}', /nesting deeper than 64 levels \(max_depth\)/],
    ['1 MB of digits', '7'.repeat(1_000_000), /over the 2000-character limit \(max_answer_chars\)/],
    ['over the input cap', 'x'.repeat(1_000_001), /over the 1000000-character limit \(max_chars\)/],
  ])('%s is a valid 0 naming the limit', (_name, output, reason) => {
    const v = verifyMath(output, '1');
    expect(v).toMatchObject({ valid: true, score: 0 });
    expect(v.reason).toMatch(reason);
  });
  it.each([
    ['a power tower', '\\boxed{10^{10^{10^{10}}}}'],
    ['a huge factorial', '\\boxed{100000!}'],
    ['a huge exponent', '\\boxed{2^{10^{9}}}'],
    ['100k boxes', '\\boxed{1}x'.repeat(100_000)],
    ['100k unclosed boxes', '\\boxed{'.repeat(100_000)],
  ])('%s is a wrong answer, not a hang', (_name, output) => {
    const v = verifyMath(output, '5');
    expect(v.valid).toBe(true);
    expect(v.score).toBe(0);
  });
  it('a tiny step budget stops the evaluator with limit_exceeded', () => {
    const v = verifyMath('\\boxed{(x+1)^{2}+(x+2)^{2}+(x+3)^{2}}', '3x^2+12x+14', { max_steps: 100 });
    expect(v.error?.kind).toBe('limit_exceeded');
    expect(verifyMath('\\boxed{(x+1)^{2}+(x+2)^{2}+(x+3)^{2}}', '3x^2+12x+14').score).toBe(1);
  });
});

describe('the math grader type', () => {
  it('grades through the registry, with templates and options', async () => {
    const g = loadGrader({ type: 'math', name: 'acc', input: '{{sample.output_text}}', reference: '{{item.answer}}', percent: 'strict' });
    const ok = await grade(g, { item: { answer: '\\frac{1}{2}' }, output_text: 'so \\boxed{0.5}' });
    expect(ok).toMatchObject({ score: 1, valid: true, metadata: { grader: 'acc', type: 'math', extracted: { output: '0.5' } } });
    const pct = await grade(g, { item: { answer: '0.5' }, output_text: '\\boxed{50}' });
    expect(pct.score).toBe(0);
    const num = await grade(g, { item: { answer: 18 }, output_text: 'A: 18' });
    expect(num.score).toBe(1);
  });
  it('turns a bad gold answer into an invalid bad_input result', async () => {
    const g = loadGrader({ type: 'math', reference: '{{item.answer}}' });
    const r = await grade(g, { item: { answer: null }, output_text: '5' });
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'bad_input' } });
    const missing = await grade(g, { item: {}, output_text: '5' });
    expect(missing.error?.kind).toBe('template_error');
  });
  it('works as a sub-grader of multi', async () => {
    const g = loadGrader({
      type: 'multi',
      graders: {
        acc: { type: 'math', reference: '{{item.answer}}' },
        fmt: { type: 'string_check', input: '{{sample.output_text}}', reference: 'boxed', operation: 'like' },
      },
      calculate_output: '0.8 * acc + 0.2 * fmt',
    });
    const r = await grade(g, { item: { answer: '(3,\\frac{\\pi}{2})' }, output_text: '$\\boxed{\\left( 3, \\frac{\\pi}{2} \\right)}$' });
    expect(r.score).toBeCloseTo(1);
    expect(r.components?.acc?.score).toBe(1);
  });
  it('rejects bad options at load time with field paths', () => {
    expect(() => loadGrader({ type: 'math', reference: '{{item.answer}}', percent: 'sometimes' })).toThrow(/percent/);
    expect(() => loadGrader({ type: 'math', reference: '{{item.answer}}', rel_tol: -1 })).toThrow(/rel_tol/);
  });
});
