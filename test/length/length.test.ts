// The length grader: units (chars as code points, Python-style words, real o200k/cl100k tokens),
// target and budget forms with linear and cosine shapes (expected values worked out by hand from
// the formulas in docs/format-similarity-length.md), templated targets, limits and config errors.
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { grade, loadGrader, validateGrader } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';
import { countChars, tokenize, TOKENIZE_WORK_BUDGET } from '../../dist/graders/length/measure.js';

const run = async (cfg: object, output_text: string, item: Record<string, unknown> = {}) =>
  grade(loadGrader({ type: 'length', ...cfg }), { item, output_text });
const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');

describe('length: measuring', () => {
  it('chars are Unicode code points: an emoji and an accented letter count once', () => {
    expect(countChars('a😀é')).toBe(3);
  });
  it('tokens come from the real BPE: "tiktoken is great!" is 6 cl100k_base tokens (OpenAI Cookbook, "How to count tokens with tiktoken")', async () => {
    expect(await tokenize('tiktoken is great!', 'cl100k_base')).toEqual([83, 1609, 5963, 374, 2294, 0]);
  });
  it('o200k_base encodes and special-token text in untrusted output is plain text, not an error', async () => {
    const ids = await tokenize('hello <|endoftext|> world', 'o200k_base');
    expect(ids.length).toBeGreaterThan(4);
    const r = await run({ unit: 'tokens', budget: 100 }, 'hello <|endoftext|> world');
    expect(r.valid).toBe(true);
    expect(r.metadata.length).toBe(ids.length);
  });
  it('words split on whitespace like Python str.split()', async () => {
    const r = await run({ unit: 'words', budget: 10 }, '  one\ttwo\n\nthree\u00a0four ');
    expect(r.metadata.length).toBe(4);
  });
});

describe('length: target form', () => {
  it('linear: within tolerance scores max; then falls linearly over width', async () => {
    const cfg = { unit: 'words', target: 100, tolerance: 10, width: 40 };
    expect((await run(cfg, words(105))).score).toBe(1);
    expect((await run(cfg, words(90))).score).toBe(1);
    // |130-100| - 10 = 20 of 40 -> 1 - 0.5
    expect((await run(cfg, words(130))).score).toBeCloseTo(0.5, 12);
    // |60-100| - 10 = 30 of 40 -> 0.25
    expect((await run(cfg, words(60))).score).toBeCloseTo(0.25, 12);
    expect((await run(cfg, words(200))).score).toBe(0);
  });
  it('cosine: 0.5 * (1 + cos(pi * x)); x = 1/2 gives 0.5, x = 1/4 gives (1 + sqrt(2)/2)/2', async () => {
    const cfg = { unit: 'chars', target: 20, width: 20, shape: 'cosine' };
    expect((await run(cfg, 'x'.repeat(30))).score).toBeCloseTo(0.5, 12);
    expect((await run(cfg, 'x'.repeat(15))).score).toBeCloseTo((1 + Math.SQRT1_2) / 2, 12);
  });
  it('the target can come from the item; a non-numeric target is bad_input', async () => {
    const cfg = { unit: 'words', target: '{{item.n}}' };
    expect((await run(cfg, words(8), { n: 8 })).score).toBe(1);
    // default width = target: |4 - 8| / 8 = 0.5
    expect((await run(cfg, words(4), { n: '8' })).score).toBeCloseTo(0.5, 12);
    const bad = await run(cfg, words(4), { n: 'eight' });
    expect(bad.valid).toBe(false);
    expect(bad.error!.kind).toBe('bad_input');
  });
});

describe('length: budget form', () => {
  it('Yeo et al. 2025 cosine reward: eta_min + (eta_max - eta_min) * 0.5 * (1 + cos(pi t / T)); beyond T the exceed score', async () => {
    const cfg = { unit: 'words', budget: 10, shape: 'cosine', max_score: 2, min_score: 1, exceed_score: -10 };
    expect((await run(cfg, words(0))).score).toBeCloseTo(2, 12);
    expect((await run(cfg, words(5))).score).toBeCloseTo(1.5, 12);
    expect((await run(cfg, words(10))).score).toBeCloseTo(1, 12);
    const over = await run(cfg, words(11));
    expect(over.score).toBe(-10);
    expect(over.reason).toMatch(/exceeds the budget of 10/);
  });
  it('wrong-answer branch of the same paper: longer is better (max_score below min_score)', async () => {
    const cfg = { unit: 'words', budget: 10, shape: 'cosine', max_score: -10, min_score: 0 };
    expect((await run(cfg, words(2))).score!).toBeLessThan((await run(cfg, words(8))).score!);
  });
  it('linear with a free allowance: full score up to free, then linear to min at the budget', async () => {
    const cfg = { unit: 'words', budget: 30, free: 10 };
    expect((await run(cfg, words(10))).score).toBe(1);
    // (20 - 10) / (30 - 10) = 0.5
    expect((await run(cfg, words(20))).score).toBeCloseTo(0.5, 12);
    expect((await run(cfg, words(31))).score).toBe(0);
  });
});

describe('length: config and limits', () => {
  it('exactly one of target and budget; misplaced fields are reported by path', () => {
    expect(validateGrader({ type: 'length' })[0]!.path).toBe('target');
    expect(validateGrader({ type: 'length', target: 5, budget: 5 })[0]!.path).toBe('budget');
    expect(validateGrader({ type: 'length', target: 5, free: 2 })[0]!.path).toBe('free');
    expect(validateGrader({ type: 'length', budget: 5, unit: 'words', encoding: 'o200k_base' })[0]!.path).toBe('encoding');
    expect(validateGrader({ type: 'length', budget: 'abc' })[0]!.path).toBe('budget');
    expect(validateGrader({ type: 'length', budget: 5, unit: 'bytes' })[0]!.path).toBe('unit');
  });
  it('oversized input is a valid floor score naming the limit; a missing output_text is template_error', async () => {
    expect(await run({ budget: 5, unit: 'chars', max_chars: 10 }, 'x'.repeat(11))).toMatchObject({
      valid: true,
      score: 0,
      metadata: { response_fault: 'limit_exceeded' },
    });
    // the floor is the type's lowest score: min_score / exceed_score when they are below 0
    expect(await run({ budget: 5, unit: 'chars', max_chars: 10, exceed_score: -1 }, 'x'.repeat(11))).toMatchObject({ valid: true, score: -1 });
    const r = await grade(loadGrader({ type: 'length', budget: 5 }), { item: {}, sample: { output_json: {} } });
    expect(r.error!.kind).toBe('template_error');
  });
});

describe('length: reasoning (extract)', () => {
  const out = `<think>${'x'.repeat(90)}</think>Paris`;
  it('keep (default) measures the whole response, reasoning included (as DAPO-style overlong penalties do)', async () => {
    const r = await run({ unit: 'chars', budget: 200 }, out);
    expect(r.metadata.length).toBe(out.length);
    expect(r.metadata).not.toHaveProperty('extracted');
  });
  it('strip measures the answer after the reasoning, and says so', async () => {
    const r = await run({ unit: 'chars', budget: 200, extract: { think: 'strip' } }, out);
    expect(r).toMatchObject({ valid: true, metadata: { length: 5, extracted: { think: 'stripped', from: 'whole', chars: 5 } } });
    expect(r.score).toBeCloseTo(1 - 5 / 200, 12);
  });
  it('strip with a block that never closes: the lowest score the config gives, valid, with the shared reason', async () => {
    const cfg = { unit: 'chars', budget: 200, max_score: 1, min_score: -1, exceed_score: -2, extract: { think: 'strip' } };
    const r = await run(cfg, '<think>no end');
    expect(r).toMatchObject({ valid: true, score: -2, reason: expect.stringMatching(/reasoning block never closes/) });
    expect((await run({ unit: 'chars', target: 10, min_score: -1, extract: { think: 'strip' } }, '<think>x')).score).toBe(-1);
    // a bad target is still the item's fault, even for a response with no answer
    const bad = await run({ unit: 'chars', target: '{{item.t}}', extract: { think: 'strip' } }, '<think>x', { t: 'many' });
    expect(bad.error?.kind).toBe('bad_input');
  });
  it('refuses a source it does not read', () => {
    expect(validateGrader({ type: 'length', budget: 10, extract: { from: 'fenced' } }).map((i) => i.path)).toEqual(['extract.from']);
  });
});

describe('tokenizing hostile text', async () => {
  const { Tiktoken } = await import('js-tiktoken/lite');
  const exactRanks = (await import('js-tiktoken/ranks/cl100k_base')).default;
  const exact = new Tiktoken(exactRanks);

  it('is exact on ordinary text and within a token per 64-character slice on long unbroken runs', async () => {
    const plain = 'The quick brown fox jumps over the lazy dog. '.repeat(50);
    expect((await tokenize(plain, 'cl100k_base')).length).toBe(exact.encode(plain, [], []).length);
    const url = 'see https://example.com/' + 'a1b2'.repeat(50) + ' now';
    const sliced = (await tokenize(url, 'cl100k_base')).length;
    expect(Math.abs(sliced - exact.encode(url, [], []).length)).toBeLessThanOrEqual(Math.ceil(url.length / 64));
  });

  it('a 100,000-character run without spaces is tokenized in 64-character slices (BPE alone takes minutes)', { timeout: 20_000 }, async () => {
    const ids = await tokenize('{'.repeat(100_000), 'cl100k_base');
    expect(ids.length).toBe(50_000);
  });

  it('ordinary text is encoded in pieces cut where no token can span: the same ids as one call', async () => {
    const responses: string[] = readFileSync(dataPath('ifeval/input_response_data_gpt4_20231107_145030.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).response);
    const ordinary = responses.filter((r) => !/\S{65,}|\s{65,}/.test(r)).join('\n');
    expect(ordinary.length).toBeGreaterThan(200_000);
    expect(await tokenize(ordinary, 'cl100k_base')).toEqual(exact.encode(ordinary, [], []));
    const o200k = new Tiktoken((await import('js-tiktoken/ranks/o200k_base')).default);
    expect(await tokenize(ordinary, 'o200k_base')).toEqual(o200k.encode(ordinary, [], []));
  });

  /** 64-character runs of CJK characters between spaces: no run is long, yet BPE works ~570 units per character. */
  const hostile = (n: number) => {
    let text = '';
    for (let i = 0; text.length < n; ) {
      for (let k = 0; k < 64; k++, i++) text += String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
      text += ' ';
    }
    return text.slice(0, n);
  };
  /** The work the budget counts, recomputed here: Σ over cl100k's pre-tokens of their UTF-8 bytes squared. */
  const work = (text: string) => {
    let w = 0;
    for (const m of text.matchAll(new RegExp(exactRanks.pat_str, 'gu'))) w += Buffer.byteLength(m[0]) ** 2;
    return w;
  };

  it(`past the work budget (${TOKENIZE_WORK_BUDGET} units) the length grade is limit_exceeded, even without long runs; below it, a count`, {
    timeout: 60_000,
  }, async () => {
    const g = loadGrader({ type: 'length', unit: 'tokens', budget: 100 });
    const over = hostile(999_000);
    expect(work(over)).toBeGreaterThan(TOKENIZE_WORK_BUDGET);
    const r = await grade(g, { item: {}, output_text: over });
    expect(r).toMatchObject({
      valid: false,
      error: { kind: 'limit_exceeded', message: expect.stringMatching(/units of BPE work, over the budget of 20000000/) },
    });
    const under = hostile(20_000);
    expect(work(under)).toBeLessThan(TOKENIZE_WORK_BUDGET);
    const ok = await grade(g, { item: {}, output_text: under });
    expect(ok.valid, JSON.stringify(ok.error)).toBe(true);
  });

  it('the verdict depends on the text alone: a clock that runs 1000x fast changes nothing below the safety net', { timeout: 60_000 }, async () => {
    const g = loadGrader({ type: 'length', unit: 'tokens', budget: 100 });
    const text = hostile(20_000);
    const real = performance.now.bind(performance);
    const start = real();
    const spy = vi.spyOn(performance, 'now').mockImplementation(() => start + (real() - start) * 1000);
    try {
      // about 1 s of work reads as 1000 s: past the 60 s safety net, which is the machine's failure, never the text's
      const slow = await grade(g, { item: {}, output_text: text });
      expect(slow).toMatchObject({ valid: false, error: { kind: 'timeout', message: expect.stringMatching(/machine is too slow/) } });
      // a text past the work budget is refused before any time passes, on the fast clock as on the real one
      const over = await grade(g, { item: {}, output_text: hostile(60_000) });
      expect(over).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
    } finally {
      spy.mockRestore();
    }
    const fine = await grade(g, { item: {}, output_text: text });
    expect(fine.valid).toBe(true);
  });
});
