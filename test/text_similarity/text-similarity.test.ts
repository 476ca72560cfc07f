// The text_similarity grader type: OpenAI-schema configs, multi-references, pass_threshold, limits,
// bad input, and a realistic run on GSM8K model answers (exact_match vs the human correctness label).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader, validateGrader } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';

const base = { type: 'text_similarity', input: '{{sample.output_text}}', reference: '{{item.ref}}' };

describe('text_similarity grader', () => {
  it('extract.think strip (default) scores the answer after the reasoning; keep scores the whole text', async () => {
    const g = loadGrader({ ...base, evaluation_metric: 'exact_match' });
    const out = '<think>it could be rome</think>Paris';
    const r = await grade(g, { item: { ref: 'paris' }, output_text: out });
    expect(r).toMatchObject({ valid: true, score: 1, metadata: { evaluation_metric: 'exact_match', extracted: { think: 'stripped', chars: 5 } } });
    const keep = loadGrader({ ...base, evaluation_metric: 'exact_match', extract: { think: 'keep' } });
    expect((await grade(keep, { item: { ref: 'paris' }, output_text: out })).score).toBe(0);
    const fenced = loadGrader({ ...base, evaluation_metric: 'exact_match', extract: { from: 'fenced' } });
    expect((await grade(fenced, { item: { ref: 'paris' }, output_text: 'The city:\n```\nParis\n```' })).score).toBe(1);
  });

  it('a reasoning block that never closes gets the metric floor (0; cosine -1) as a valid score', async () => {
    const g = loadGrader({ ...base, evaluation_metric: 'f1' });
    const r = await grade(g, { item: { ref: 'paris' }, output_text: '<think>paris' });
    expect(r).toMatchObject({ valid: true, score: 0, reason: expect.stringMatching(/reasoning block never closes/) });
    // cosine ranges over [-1, 1]: its floor is -1 (no endpoint is called for a response with no answer)
    const cos = loadGrader({ ...base, evaluation_metric: 'cosine', base_url: 'http://127.0.0.1:9/v1', api_key: 'k', max_retries: 0 });
    expect(await grade(cos, { item: { ref: 'paris' }, output_text: '<think>paris' })).toMatchObject({ valid: true, score: -1 });
    // an oversized reference is still the item's fault, even then
    const small = loadGrader({ ...base, evaluation_metric: 'f1', max_chars: 8 });
    expect((await grade(small, { item: { ref: 'paris is the capital' }, output_text: '<think>x' })).error?.kind).toBe('limit_exceeded');
  });

  it('accepts an OpenAI-style config and reports passed against pass_threshold', async () => {
    const g = loadGrader({ ...base, name: 'sim', evaluation_metric: 'fuzzy_match', pass_threshold: 0.9 });
    const hi = await grade(g, { item: { ref: 'this is a new test!!!' }, output_text: 'this is a test' });
    expect(hi.valid).toBe(true);
    expect(hi.score).toBeCloseTo(0.95, 12);
    expect(hi.metadata.passed).toBe(true);
    const lo = await grade(g, { item: { ref: 'completely different' }, output_text: 'this is a test' });
    expect(lo.score!).toBeLessThan(0.9);
    expect(lo.metadata.passed).toBe(false);
  });

  it('every metric of the enum builds and returns a score in [0, 1] for ordinary text', async () => {
    for (const m of ['fuzzy_match', 'bleu', 'gleu', 'meteor', 'rouge_1', 'rouge_2', 'rouge_3', 'rouge_4', 'rouge_5', 'rouge_l', 'exact_match', 'f1']) {
      const g = loadGrader({ ...base, evaluation_metric: m });
      const r = await grade(g, { item: { ref: 'the cat is on the mat' }, output_text: 'the cat sat on the mat' });
      expect(r.valid, m).toBe(true);
      expect(r.score!, m).toBeGreaterThanOrEqual(0);
      expect(r.score!, m).toBeLessThanOrEqual(1);
      const same = await grade(g, { item: { ref: 'the cat is on the mat' }, output_text: 'the cat is on the mat' });
      // identical texts: every metric is at its maximum (METEOR keeps its 1-chunk penalty)
      expect(same.score!, m).toBeGreaterThan(0.99);
    }
  });

  it('a list reference is a multi-reference: best match for exact_match/f1, all references for bleu', async () => {
    const em = loadGrader({ ...base, reference: '{{item.answers}}', evaluation_metric: 'exact_match' });
    const r = await grade(em, { item: { answers: ['Paris', 'the city of Paris'] }, output_text: 'The city of Paris.' });
    expect(r.score).toBe(1);
    const bleu = loadGrader({ ...base, reference: '{{item.answers}}', evaluation_metric: 'bleu', bleu_smoothing: 'exp' });
    const one = await grade(bleu, { item: { answers: ['the cat is on the mat'] }, output_text: 'the cat sat on the mat' });
    const two = await grade(bleu, { item: { answers: ['the cat is on the mat', 'the cat sat on a mat'] }, output_text: 'the cat sat on the mat' });
    expect(two.score!).toBeGreaterThan(one.score!);
  });

  it('config errors name the field', () => {
    expect(validateGrader({ ...base, evaluation_metric: 'rouge_9' })[0]!.path).toBe('evaluation_metric');
    expect(validateGrader({ ...base, evaluation_metric: 'bleu', base_url: 'http://127.0.0.1:1/v1' })[0]!.path).toBe('base_url');
    expect(validateGrader({ ...base, evaluation_metric: 'gleu', bleu_smoothing: 'exp' })[0]!.path).toBe('bleu_smoothing');
    expect(validateGrader({ type: 'text_similarity', input: '{{sample.output_text}}', evaluation_metric: 'bleu' })[0]!.path).toBe('reference');
  });

  it('bad input and oversized input are invalid results with a kind, never a crash', async () => {
    const g = loadGrader({ ...base, evaluation_metric: 'f1', max_chars: 100 });
    const missing = await grade(g, { item: {}, output_text: 'x' });
    expect(missing.valid).toBe(false);
    expect(missing.error!.kind).toBe('template_error');
    const obj = await grade(g, { item: { ref: [{ a: 1 }] }, output_text: 'x' });
    expect(obj.error!.kind).toBe('bad_input');
    expect(obj.error!.message).toMatch(/reference\[0\]/);
    const big = await grade(g, { item: { ref: 'x' }, output_text: 'y'.repeat(101) });
    expect(big).toMatchObject({ valid: true, score: 0, metadata: { response_fault: 'limit_exceeded' } });
    // an oversized reference is the item's fault: invalid
    const bigRef = await grade(g, { item: { ref: 'x'.repeat(101) }, output_text: 'y' });
    expect(bigRef).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
  });

  it('GSM8K model answers: exact_match of the final answer agrees with the official correctness label', async () => {
    // real GPT-3 solutions ending in "A: <answer>"; the reference answer follows "####"
    const dataDir = `${dataPath('gsm8k')}/`;
    const sols = readFileSync(dataDir + 'example_model_solutions.jsonl', 'utf8')
      .trim()
      .split('\n')
      .slice(0, 200)
      .map((l) => JSON.parse(l));
    const g = loadGrader({ type: 'text_similarity', input: '{{sample.answer}}', reference: '{{item.answer}}', evaluation_metric: 'exact_match' });
    let agree = 0;
    let n = 0;
    for (const row of sols) {
      const gold = /A:\s*(.*)\s*$/.exec(row.ground_truth)![1]!;
      for (const key of ['6b_finetuning', '175b_verification']) {
        const sol = row[key];
        const m = /A:\s*(.*?)\s*$/.exec(sol.solution);
        if (!m) continue;
        const r = await grade(g, { item: { answer: gold }, sample: { answer: m[1]! } });
        expect(r.valid).toBe(true);
        n++;
        if ((r.score === 1) === sol.is_correct) agree++;
      }
    }
    expect(n).toBeGreaterThan(350);
    // the label was computed on the same final answers; any disagreement would be a normalisation bug
    expect(agree / n).toBeGreaterThan(0.99);
  });
});
