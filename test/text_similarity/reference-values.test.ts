// The similarity metrics against reference values: each expected value was computed by hand (the
// arithmetic is written next to it) or is quoted from the metric's paper or the reference
// implementation's documentation (cited next to it). The metric code is never used to make them.
import { describe, expect, it } from 'vitest';
import { sentenceBleu } from '../../dist/graders/text_similarity/bleu.js';
import { sentenceGleu } from '../../dist/graders/text_similarity/gleu.js';
import { meteor } from '../../dist/graders/text_similarity/meteor.js';
import { rougeL, rougeN, rougeTokenize } from '../../dist/graders/text_similarity/rouge.js';
import { exactMatch, normalizeAnswer, tokenF1 } from '../../dist/graders/text_similarity/squad.js';
import { defaultProcess, fuzzyMatch, partialRatio, ratio, tokenSetRatio, tokenSortRatio, wRatio } from '../../dist/graders/text_similarity/fuzzy.js';

const split = (s: string) => s.split(' ');

describe('fuzzy_match (rapidfuzz)', () => {
  // Source: rapidfuzz documentation / README examples (fuzz.* docstrings).
  const table: [string, () => number, number][] = [
    ['ratio("this is a test", "this is a test!") = 2*14/29 (docs: 96.55)', () => ratio('this is a test', 'this is a test!'), (100 * 28) / 29],
    ['partial_ratio("this is a test", "this is a test!") (docs)', () => partialRatio('this is a test', 'this is a test!'), 100],
    ['partial_ratio("a certain string", "cetain") (docs: 83.333)', () => partialRatio('a certain string', 'cetain'), (100 * 10) / 12],
    [
      'token_sort_ratio("fuzzy wuzzy was a bear", "wuzzy fuzzy was a bear") (docs)',
      () => tokenSortRatio('fuzzy wuzzy was a bear', 'wuzzy fuzzy was a bear'),
      100,
    ],
    ['token_set_ratio("fuzzy was a bear", "fuzzy fuzzy was a bear") (docs)', () => tokenSetRatio('fuzzy was a bear', 'fuzzy fuzzy was a bear'), 100],
    ['WRatio("this is a test", "this is a new test!!!") (docs: 85.5)', () => wRatio('this is a test', 'this is a new test!!!'), 85.5],
    ['WRatio(..., processor=default_process) (docs: 95.0)', () => 100 * fuzzyMatch('this is a test', 'this is a new test!!!'), 95],
    // hand: only the 3 spaces are common -> 2*3/28
    ['WRatio("this is a word", "THIS IS A WORD") (docs: 21.43)', () => wRatio('this is a word', 'THIS IS A WORD'), (100 * 6) / 28],
    ['WRatio with default_process, case differs only (docs: 100)', () => 100 * fuzzyMatch('this is a word', 'THIS IS A WORD'), 100],
    // hand: "abc" vs "xyz" share nothing; every token ratio is 0
    ['nothing in common', () => 100 * fuzzyMatch('abc', 'xyz'), 0],
    // rapidfuzz: an empty string scores 0 in WRatio
    ['empty input', () => 100 * fuzzyMatch('', 'abc'), 0],
  ];
  it.each(table)('%s', (_name, f, want) => {
    expect(f()).toBeCloseTo(want, 9);
  });

  it('default_process lower-cases and turns non-word characters into spaces (rapidfuzz utils docs)', () => {
    expect(defaultProcess('  Hello, World!_ ')).toBe('hello  world _');
  });

  it('partial_ratio of a long needle (> 64 chars) uses matching blocks and finds an exact substring', () => {
    const needle = 'the quick brown fox jumps over the lazy dog and keeps running far away';
    expect(needle.length).toBeGreaterThan(64);
    expect(partialRatio(needle, `prefix words ${needle} suffix words`)).toBe(100);
  });
});

describe('BLEU (Papineni et al. 2002; NLTK sentence_bleu)', () => {
  // Papineni et al. 2002, section 2.1, Example 1 (the NLTK docstrings use the same sentences).
  const hyp1 = split('It is a guide to action which ensures that the military always obeys the commands of the party');
  const hyp2 = split('It is to insure the troops forever hearing the activity guidebook that party direct');
  const ref1 = split('It is a guide to action that ensures that the military will forever heed Party commands');
  const ref2 = split('It is the guiding principle which guarantees the military forces always being under the command of the Party');
  const ref3 = split('It is the practical guide for the army always to heed the directions of the party');
  const refs = [ref1, ref2, ref3];

  it('modified unigram precision of candidate 1 is 17/18 (paper); lengths 18 vs closest 18 -> BP 1', () => {
    expect(sentenceBleu(refs, hyp1, { maxOrder: 1 })).toBeCloseTo(17 / 18, 12);
  });
  it('candidate 2: unigram precision 8/14 (paper), BP = exp(1 - 16/14) for closest reference length 16', () => {
    expect(sentenceBleu(refs, hyp2, { maxOrder: 1 })).toBeCloseTo((8 / 14) * Math.exp(1 - 16 / 14), 12);
  });
  it('BLEU-4 of candidate 1 is 0.5045... (NLTK bleu_score docstring)', () => {
    const v = sentenceBleu(refs, hyp1);
    expect(v).toBeGreaterThanOrEqual(0.5045);
    expect(v).toBeLessThan(0.5046);
  });
  it('"the the the the the the the": modified unigram precision 2/7 (paper, section 2.1)', () => {
    const r = [split('the cat is on the mat'), split('there is a cat on the mat')];
    expect(sentenceBleu(r, split('the the the the the the the'), { maxOrder: 1 })).toBeCloseTo(2 / 7, 12);
  });

  // Hand: hyp "the cat sat on the mat", ref "the cat is on the mat": clipped matches per order
  // 5/6, 3/5, 1/4, 0/3; equal lengths so BP = 1.
  const h = split('the cat sat on the mat');
  const r = [split('the cat is on the mat')];
  it('no smoothing (NLTK method0): a zero 4-gram precision makes BLEU vanish', () => {
    expect(sentenceBleu(r, h)).toBeLessThan(1e-70);
  });
  it('exp smoothing (method3): p4 = 1/(2*3) -> (5/6 * 3/5 * 1/4 * 1/6)^(1/4) = 48^(-1/4)', () => {
    expect(sentenceBleu(r, h, { smoothing: 'exp' })).toBeCloseTo(48 ** -0.25, 12);
  });
  it('epsilon smoothing (method1): p4 = 0.1/3', () => {
    expect(sentenceBleu(r, h, { smoothing: 'epsilon' })).toBeCloseTo(((5 / 6) * (3 / 5) * (1 / 4) * (0.1 / 3)) ** 0.25, 12);
  });
  it('add-one smoothing (method2): p_n = (m+1)/(c+1) for n >= 2', () => {
    expect(sentenceBleu(r, h, { smoothing: 'add_one' })).toBeCloseTo(((5 / 6) * (4 / 6) * (2 / 5) * (1 / 4)) ** 0.25, 12);
  });
  it('identical sentences score 1; no shared word scores 0', () => {
    expect(sentenceBleu([h], h)).toBeCloseTo(1, 12);
    expect(sentenceBleu([split('a b c d')], split('w x y z'))).toBe(0);
  });
});

describe('GLEU (Wu et al. 2016; NLTK sentence_gleu)', () => {
  it('hand: 1..4-gram totals 18 and 18, matches 5+3+1+0 = 9 -> min(9/18, 9/18)', () => {
    expect(sentenceGleu([split('the cat is on the mat')], split('the cat sat on the mat'))).toBeCloseTo(0.5, 12);
  });
  it('hand: a short hypothesis is limited by recall: "the cat" vs 6-word ref -> matches 3 / max(3, 18)', () => {
    expect(sentenceGleu([split('the cat is on the mat')], split('the cat'))).toBeCloseTo(3 / 18, 12);
  });
  it('several references: the best ratio wins', () => {
    expect(sentenceGleu([split('x y z'), split('the cat')], split('the cat'))).toBeCloseTo(1, 12);
  });
});

describe('METEOR (Banerjee & Lavie 2005; NLTK meteor_score, alpha 0.9, beta 3, gamma 0.5)', () => {
  // Hand: hyp "the cat sat on the mat", ref "the cat is on the mat": 5 exact matches, P = R = 5/6,
  // Fmean = 5/6; matches (0,0)(1,1) | (3,3)(4,4)(5,5) form 2 chunks -> penalty 0.5*(2/5)^3 = 0.032.
  const want = (1 - 0.5 * (2 / 5) ** 3) * (5 / 6);
  it('exact matches and fragmentation penalty', () => {
    expect(meteor([split('the cat is on the mat')], split('the cat sat on the mat'))).toBeCloseTo(want, 12);
  });
  it('the stem stage matches "cats" with "cat" (Porter stem), giving the same alignment', () => {
    expect(meteor([split('the cat is on the mat')], split('the cats sat on the mat'))).toBeCloseTo(want, 12);
  });
  it('case-insensitive; a perfect match of 6 words is one chunk: (1 - 0.5 * (1/6)^3)', () => {
    expect(meteor([split('The Cat is on the mat')], split('the cat is on the mat'))).toBeCloseTo(1 - 0.5 * (1 / 6) ** 3, 12);
  });
  it('no match scores 0', () => {
    expect(meteor([split('a b')], split('c d'))).toBe(0);
  });
});

describe('ROUGE (Lin 2004; Google rouge-score)', () => {
  // rouge-score README example: score(target, prediction) gives rouge1 P 0.75 R 0.6667 F 0.7059 and
  // rougeL P 0.625 R 0.5556 F 0.5882. The other orders are hand-counted below.
  const target = rougeTokenize('The quick brown fox jumps over the lazy dog');
  const pred = rougeTokenize('The quick brown dog jumps on the log.');
  it('tokenizer: lower-case, punctuation dropped', () => {
    expect(pred).toEqual(['the', 'quick', 'brown', 'dog', 'jumps', 'on', 'the', 'log']);
  });
  it('rouge_1 (README): 6 shared unigrams of 8 predicted and 9 target', () => {
    const s = rougeN(target, pred, 1);
    expect(s.precision).toBeCloseTo(0.75, 12);
    expect(s.recall).toBeCloseTo(6 / 9, 12);
    expect(s.fmeasure).toBeCloseTo((2 * 0.75 * (6 / 9)) / (0.75 + 6 / 9), 12);
    expect(s.fmeasure).toBeCloseTo(0.70588, 5);
  });
  it('rouge_2 (hand): 2 shared bigrams of 7 and 8 -> F = 4/15', () => {
    expect(rougeN(target, pred, 2).fmeasure).toBeCloseTo(4 / 15, 12);
  });
  it('rouge_3 (hand): 1 shared trigram of 6 and 7 -> F = 2/13', () => {
    expect(rougeN(target, pred, 3).fmeasure).toBeCloseTo(2 / 13, 12);
  });
  it('rouge_4 (hand): no shared 4-gram', () => {
    expect(rougeN(target, pred, 4).fmeasure).toBe(0);
  });
  it('rouge_l (README): LCS "the quick brown jumps the" = 5 -> P 5/8, R 5/9', () => {
    const s = rougeL(target, pred);
    expect(s.precision).toBeCloseTo(0.625, 12);
    expect(s.recall).toBeCloseTo(5 / 9, 12);
    expect(s.fmeasure).toBeCloseTo(0.58824, 5);
  });
  it('with the stemmer, "jumping" and "jumps" share the stem "jump"', () => {
    expect(rougeN(rougeTokenize('dogs jumping', true), rougeTokenize('dog jumps', true), 1).fmeasure).toBeCloseTo(1, 12);
    expect(rougeN(rougeTokenize('dogs jumping'), rougeTokenize('dog jumps'), 1).fmeasure).toBe(0);
  });
});

describe('exact_match and f1 (SQuAD v2.0 evaluation script)', () => {
  it('normalisation: lower-case, punctuation and articles removed, whitespace collapsed', () => {
    expect(normalizeAnswer('  The  Eiffel-Tower, (Paris)! ')).toBe('eiffeltower paris');
  });
  it('exact match after normalisation', () => {
    expect(exactMatch('The Eiffel Tower!', 'eiffel tower')).toBe(1);
    expect(exactMatch('Eiffel Towers', 'eiffel tower')).toBe(0);
  });
  it('hand: "the big red fox" vs "a red fox": 2 shared of 3 and 2 tokens -> P 2/3, R 1, F1 0.8', () => {
    expect(tokenF1('the big red fox', 'a red fox')).toBeCloseTo(0.8, 12);
  });
  it('hand: duplicates count per occurrence: "x x y" vs "x y y" share one x and one y -> P = R = 2/3', () => {
    expect(tokenF1('x x y', 'x y y')).toBeCloseTo(2 / 3, 12);
  });
  it('empty answers: both empty -> 1 (no-answer agreement), one empty -> 0', () => {
    expect(tokenF1('the', 'a')).toBe(1);
    expect(tokenF1('the', 'fox')).toBe(0);
  });
});
