// Unit tests of the IFEval checkers, sentence splitter, tokenizer and grader edge cases.
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { buildInstruction, countSentences, followVerdicts, INSTRUCTIONS, looseVariants, wordTokenize } from '../../dist/graders/ifeval/index.js';

const ctx = { detectLanguage: () => 'en' };
const check = (id: string, kwargs: Record<string, unknown>, text: string) => buildInstruction(id, kwargs).check(text, ctx);

describe('registry', () => {
  it('has the 25 IFEval instruction types', () => {
    expect(INSTRUCTIONS.size).toBe(25);
  });
});

describe('checkers', () => {
  it('keywords', () => {
    expect(check('keywords:existence', { keywords: ['Alpha', 'beta'] }, 'ALPHA and Beta')).toBe(true);
    expect(check('keywords:existence', { keywords: ['alpha', 'gamma'] }, 'alpha beta')).toBe(false);
    expect(check('keywords:frequency', { keyword: 'cat', frequency: 3, relation: 'at least' }, 'cat Cat CAT')).toBe(true);
    expect(check('keywords:frequency', { keyword: 'cat', frequency: 3, relation: 'less than' }, 'cat Cat CAT')).toBe(false);
    expect(check('keywords:forbidden_words', { forbidden_words: ['cat'] }, 'concatenate')).toBe(true);
    expect(check('keywords:forbidden_words', { forbidden_words: ['cat'] }, 'a Cat.')).toBe(false);
    expect(check('keywords:letter_frequency', { letter: 'q', let_frequency: 2, let_relation: 'at least' }, 'Quick quiz')).toBe(true);
  });

  it('length constraints', () => {
    expect(countSentences('Dr. Smith went home. He slept! Did he? Yes.')).toBe(4);
    expect(countSentences('I like e.g. apples. Then pears.')).toBe(2);
    expect(countSentences('1. first item\n2. second item')).toBe(1);
    expect(check('length_constraints:number_words', { num_words: 3, relation: 'less than' }, 'one two')).toBe(true);
    expect(check('length_constraints:number_paragraphs', { num_paragraphs: 2 }, 'a\n***\nb')).toBe(true);
    expect(check('length_constraints:number_paragraphs', { num_paragraphs: 3 }, 'a\n***\n\n***\nb')).toBe(false);
    expect(check('length_constraints:nth_paragraph_first_word', { num_paragraphs: 2, nth_paragraph: 2, first_word: 'then' }, 'First.\n\n"Then, more.')).toBe(
      true,
    );
  });

  it('format and content', () => {
    expect(check('detectable_format:number_bullet_lists', { num_bullets: 2 }, '* a\n- b\n** not\ntext')).toBe(true);
    expect(check('detectable_format:number_highlighted_sections', { num_highlights: 2 }, '*one* and **two**')).toBe(true);
    expect(check('detectable_format:json_format', {}, '```json\n{"a": 1}\n```')).toBe(true);
    expect(check('detectable_format:json_format', {}, '{a: 1}')).toBe(false);
    expect(check('detectable_format:title', {}, '<<My Title>>\ntext')).toBe(true);
    expect(check('detectable_format:title', {}, '<< >>')).toBe(false);
    expect(check('detectable_format:multiple_sections', { section_spliter: 'Section', num_sections: 2 }, 'Section 1\na\nSection 2\nb')).toBe(true);
    expect(check('detectable_content:number_placeholders', { num_placeholders: 2 }, '[name] at [address]')).toBe(true);
    expect(check('detectable_content:postscript', { postscript_marker: 'P.P.S' }, 'Hi\nP.P.S. bye')).toBe(true);
    expect(check('combination:two_responses', {}, 'one\n******\ntwo')).toBe(true);
    expect(check('combination:two_responses', {}, 'one\n******\none')).toBe(false);
    expect(check('startend:end_checker', { end_phrase: 'Any other questions?' }, 'Text. Any other questions?"')).toBe(true);
    expect(check('startend:quotation', {}, ' "quoted" ')).toBe(true);
    expect(check('punctuation:no_comma', {}, 'a, b')).toBe(false);
  });

  it('case', () => {
    expect(check('change_case:english_capital', {}, 'ALL CAPS HERE')).toBe(true);
    expect(check('change_case:english_lowercase', {}, 'all lower here')).toBe(true);
    expect(check('change_case:english_lowercase', {}, 'Not lower')).toBe(false);
    expect(wordTokenize("I DON'T KNOW, USA.")).toEqual(['I', 'DO', "N'T", 'KNOW', ',', 'USA', '.']);
    expect(check('change_case:capital_word_frequency', { capital_frequency: 4, capital_relation: 'at least' }, "I DON'T know USA")).toBe(true);
  });

  it('loose mode tries the reference variants', () => {
    expect(looseVariants('Sure!\n*body*\nBye')).toEqual([
      'Sure!\n*body*\nBye',
      'Sure!\nbody\nBye',
      '*body*\nBye',
      'Sure!\n*body*',
      '*body*',
      'body\nBye',
      'Sure!\nbody',
      'body',
    ]);
    const ins = [buildInstruction('startend:quotation', {})];
    expect(followVerdicts('Here you go:\n"quoted"', ins, 'strict', ctx)).toEqual([false]);
    expect(followVerdicts('Here you go:\n"quoted"', ins, 'loose', ctx)).toEqual([true]);
  });

  // no clock: a quadratic scanner runs for minutes on these and the test's own timeout fails it
  it('hostile inputs stay fast (linear scanners)', () => {
    check('detectable_format:number_bullet_lists', { num_bullets: 1 }, '\n'.repeat(150_000));
    check('detectable_content:number_placeholders', { num_placeholders: 1 }, '['.repeat(150_000));
    check('detectable_format:title', {}, '<<'.repeat(75_000));
  });
});

describe('grader', () => {
  const g = loadGrader({ type: 'ifeval', instruction_ids: '{{item.ids}}', kwargs: '{{item.kw}}', aggregate: 'mean' });
  it('mean aggregation with per-instruction components', async () => {
    const r = await grade(g, { item: { ids: ['punctuation:no_comma', 'startend:quotation'], kw: [{}, {}] }, output_text: 'no commas here' });
    expect(r.score).toBe(0.5);
    expect(r.components!['punctuation:no_comma']!.score).toBe(1);
    expect(r.components!['startend:quotation']!.score).toBe(0);
    expect(r.reason).toContain('startend:quotation');
  });
  it('HF-style kwargs with nulls are accepted; bad kwargs are bad_input', async () => {
    const ok = await grade(g, {
      item: { ids: ['length_constraints:number_words'], kw: [{ num_words: 2, relation: 'at least', keywords: null }] },
      output_text: 'two words',
    });
    expect(ok.score).toBe(1);
    const bad = await grade(g, { item: { ids: ['length_constraints:number_words'], kw: [{ num_words: 2, relation: 'about' }] }, output_text: 'x' });
    expect(bad.valid).toBe(false);
    expect(bad.error!.kind).toBe('bad_input');
    expect(bad.error!.message).toContain('relation');
    const unknown = await grade(g, { item: { ids: ['nope:x'], kw: [{}] }, output_text: 'x' });
    expect(unknown.error!.message).toContain('nope:x');
  });
  it('extract.think strip (default) checks the response after the reasoning; keep checks the reasoning too', async () => {
    const out = '<think>first, second, third</think>No commas in this answer';
    const strip = loadGrader({ type: 'ifeval', instruction_ids: ['punctuation:no_comma'] });
    expect(await grade(strip, { item: {}, output_text: out })).toMatchObject({ score: 1, metadata: { extracted: { think: 'stripped' } } });
    const keep = loadGrader({ type: 'ifeval', instruction_ids: ['punctuation:no_comma'], extract: { think: 'keep' } });
    expect((await grade(keep, { item: {}, output_text: out })).score).toBe(0);
  });
  it('a reasoning block that never closes follows no instruction (an empty text would follow no_comma): a valid 0', async () => {
    const g = loadGrader({ type: 'ifeval', instruction_ids: ['punctuation:no_comma', 'startend:quotation'], partial_credit: true });
    const r = await grade(g, { item: {}, output_text: '<think>no comma yet' });
    expect(r).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/reasoning block never closes/) });
    expect(r.metadata.follow_instruction_list).toEqual([false, false]);
    expect(r.components!['punctuation:no_comma']!.score).toBe(0);
  });
  it('limits and config errors', async () => {
    const small = loadGrader({ type: 'ifeval', instruction_ids: ['punctuation:no_comma'], max_chars: 10 });
    const r = await grade(small, { item: {}, output_text: 'x'.repeat(11) });
    expect(r).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    expect(r.reason).toMatch(/max_chars 10/);
    expect(() => loadGrader({ type: 'ifeval', instruction_ids: ['bogus:id'] })).toThrow(/instruction_ids\[0\]/);
  });
  it('empty response follows nothing; language detection is deterministic', async () => {
    const lang = loadGrader({ type: 'ifeval', instruction_ids: ['language:response_language'], kwargs: [{ language: 'de' }] });
    const r1 = await grade(lang, { item: {}, output_text: 'Das ist ein kurzer deutscher Satz über das Wetter.' });
    expect(r1.score).toBe(1);
    const r2 = await grade(lang, { item: {}, output_text: 'This is an English sentence about the weather.' });
    expect(r2.score).toBe(0);
    const r3 = await grade(lang, { item: {}, output_text: '   ' });
    expect(r3.score).toBe(0);
  });
  it('text with nothing to detect a language from counts as followed, as in the reference', async () => {
    const lang = loadGrader({ type: 'ifeval', instruction_ids: ['language:response_language'], kwargs: [{ language: 'de' }] });
    for (const text of ['[[[[]]]]', '12345 67890', '{'.repeat(10_000)]) {
      const r = await grade(lang, { item: {}, output_text: text });
      expect(r.valid, JSON.stringify(r.error)).toBe(true);
      expect(r.score).toBe(1);
    }
  });
});
