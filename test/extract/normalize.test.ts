// Digits and signs in compatibility forms (issue 25, item 5): folded to ASCII in the shared
// extraction layer before any marker or box is looked for.
import { describe, expect, it } from 'vitest';
import { normalizeForms } from '../../dist/extract/index.js';
import { verifyMath } from '../../dist/graders/math/index.js';

describe('normalizeForms', () => {
  it('folds every decimal digit script, fullwidth signs and separators', () => {
    expect(normalizeForms('１２')).toBe('12');
    expect(normalizeForms('١٢')).toBe('12');
    expect(normalizeForms('۱۲')).toBe('12');
    expect(normalizeForms('१२')).toBe('12'); // Devanagari
    expect(normalizeForms('𝟏𝟐')).toBe('12'); // mathematical bold
    expect(normalizeForms('৯')).toBe('9'); // Bengali
    expect(normalizeForms('x＝－５＋３．５')).toBe('x=-5+3.5');
    expect(normalizeForms('１，０００')).toBe('1,000');
    expect(normalizeForms('١٫٥')).toBe('1.5');
    expect(normalizeForms('５０٪')).toBe('50%');
    expect(normalizeForms('\\boxed｛１２｝')).toBe('\\boxed{12}');
  });
  it('keeps CJK clause punctuation, superscripts and plain ASCII', () => {
    expect(normalizeForms('答案是12！')).toBe('答案是12！');
    expect(normalizeForms('答案：12，所以')).toBe('答案：12，所以');
    expect(normalizeForms('5 m²')).toBe('5 m²');
    const plain = 'The answer is 42.';
    expect(normalizeForms(plain)).toBe(plain);
  });
});

describe('math answers in compatibility forms', () => {
  it.each([
    ['１２', '12'],
    ['答案是１２。', '12'],
    ['\\boxed{１２}', '12'],
    ['所以 $\\boxed{１２}$', '12'],
    ['x＝５', '5'],
    ['١٢', '12'],
    ['۱۲', '12'],
    ['الإجابة: ١٢', '12'],
    ['－３', '-3'],
    ['１．５', '\\frac{3}{2}'],
    ['١٫٥', '1.5'],
    ['答案是１２！', '12'],
    ['The answer is ７.', '7'],
  ])('%s equals %s', (output, reference) => {
    const v = verifyMath(output, reference);
    expect(v, v.reason).toMatchObject({ valid: true, score: 1 });
  });
  it.each([
    ['１３', '12'],
    ['答案是１３。', '12'],
    ['\\boxed{２１}', '12'],
    ['x＝６', '5'],
    ['١٣', '12'],
    ['۲۱', '12'],
    ['＋３', '-3'],
  ])('%s is not %s', (output, reference) => {
    expect(verifyMath(output, reference)).toMatchObject({ valid: true, score: 0 });
  });
  it('a reference in fullwidth digits is read too', () => {
    expect(verifyMath('12', '１２').score).toBe(1);
    expect(verifyMath('13', '１２').score).toBe(0);
  });
});
