// The NLTK-mode Porter stemmer (used by METEOR's stem stage and ROUGE's stemmer) against NLTK 3.8's
// own output on ~1,000 words from the shared data sets (fixture: see its "source" field), plus the
// NLTK-specific rules named one by one.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { porterStem } from '../../dist/graders/text_similarity/porter.js';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/nltk-porter.json', import.meta.url), 'utf8')) as { source: string; stems: Record<string, string> };

describe('porterStem (NLTK_EXTENSIONS)', () => {
  it('reproduces NLTK 3.8 on every fixture word', () => {
    const words = Object.entries(fixture.stems);
    expect(words.length).toBeGreaterThan(900);
    const wrong = words.filter(([w, s]) => porterStem(w) !== s).map(([w, s]) => `${w}: ${porterStem(w)} != ${s}`);
    expect(wrong).toEqual([]);
  });
  it('NLTK rules that differ from the 1980 algorithm', () => {
    expect(porterStem('dying')).toBe('die'); // irregular pool
    expect(porterStem('ties')).toBe('tie'); // 4-letter ies
    expect(porterStem('day')).toBe('day'); // y -> i only after a consonant
    expect(porterStem('happy')).toBe('happi');
    expect(porterStem('age')).toBe('age'); // a 2-letter stem counts as cvc
    expect(porterStem('caresses')).toBe('caress'); // Porter 1980 examples
    expect(porterStem('relational')).toBe('relat');
    expect(porterStem('Running')).toBe('run');
  });
});
