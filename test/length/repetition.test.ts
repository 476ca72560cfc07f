// The repetition grader: distinct-n ratio and the Yeo et al. 2025 penalty form, hand-counted.
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, validateGrader } from '../../dist/index.js';

const run = async (cfg: object, output_text: string) => grade(loadGrader({ type: 'repetition', ...cfg }), { item: {}, output_text });

describe('repetition', () => {
  it('hand: "the cat the cat the cat" has 5 bigrams, 2 distinct -> rate 3/5, score 2/5', async () => {
    const r = await run({ n: 2 }, 'the cat the cat the cat');
    expect(r.score).toBeCloseTo(0.4, 12);
    expect(r.metadata).toMatchObject({ ngrams: 5, distinct: 2 });
    expect(r.reason).toMatch(/most repeated \(3x\): "the cat"/);
  });
  it('penalty form (Yeo et al. 2025): penalty * (1 - distinct/total); words lower-cased', async () => {
    const r = await run({ n: 2, penalty: -1 }, 'The cat the CAT the cat');
    expect(r.score).toBeCloseTo(-0.6, 12);
    // case kept: "The cat", "cat the", "the CAT", "CAT the", "the cat" are 5 distinct bigrams -> no penalty
    expect((await run({ n: 2, penalty: -1, lowercase: false }, 'The cat the CAT the cat')).score).toBeCloseTo(0, 12);
  });
  it('no repeats and too-short texts score 1 (penalty 0)', async () => {
    expect((await run({ n: 3 }, 'one two three four five')).score).toBe(1);
    expect((await run({ n: 3 }, 'one two')).score).toBe(1);
    expect((await run({ n: 3, penalty: -0.5 }, '')).score).toBeCloseTo(0, 12);
  });
  it('chars and tokens units', async () => {
    // "abababab": 7 bigrams of chars, distinct {ab, ba} -> rate 5/7
    expect((await run({ n: 2, unit: 'chars' }, 'abababab')).score).toBeCloseTo(2 / 7, 12);
    const loop = 'I think so. '.repeat(50);
    const t = await run({ n: 4, unit: 'tokens' }, loop);
    expect(t.valid).toBe(true);
    expect(t.score!).toBeLessThan(0.1);
  });
  it('extract.think keep (default) counts repetition inside the reasoning; strip counts the answer only', async () => {
    const out = '<think>wait wait wait wait wait wait</think>the answer is four';
    const kept = await run({ n: 2 }, out);
    expect(kept.score!).toBeLessThan(1);
    expect(kept.metadata).not.toHaveProperty('extracted');
    const stripped = await run({ n: 2, extract: { think: 'strip' } }, out);
    expect(stripped).toMatchObject({ score: 1, metadata: { repetition_rate: 0, extracted: { think: 'stripped' } } });
  });
  it('strip with a block that never closes: the floor (0, or the penalty when negative), valid', async () => {
    const r = await run({ extract: { think: 'strip' } }, '<think>one two three');
    expect(r).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/reasoning block never closes/) });
    expect((await run({ penalty: -0.5, extract: { think: 'strip' } }, '<think>one two three')).score).toBe(-0.5);
  });
  it('config errors by path', () => {
    expect(validateGrader({ type: 'repetition', n: 0 })[0]!.path).toBe('n');
    expect(validateGrader({ type: 'repetition', unit: 'words', encoding: 'cl100k_base' })[0]!.path).toBe('encoding');
  });
});
