// Loads examples/length-gated/*.json — "shorter is better only when correct" built as a gate
// composition — and grades the generated solutions in samples.jsonl (scripts/make-examples.mjs) with it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { grade, loadGraderFile, Services } from '../../dist/index.js';

const ex = (f: string) => fileURLToPath(new URL(`../../examples/length-gated/${f}`, import.meta.url));
const samples = readFileSync(ex('samples.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));

describe('examples/length-gated', () => {
  it('grader.json (gate = string_check on the JSON answer): wrong answers 0, right answers a brevity reward', async () => {
    const g = await loadGraderFile(ex('grader.json'));
    const services = new Services();
    const right: { score: number; tokens: number }[] = [];
    for (const s of samples) {
      const r = await grade(g, s, { services });
      expect(r.valid).toBe(true);
      const correct = s.sample.output_json.answer === s.item.answer;
      if (!correct) {
        expect(r.score).toBe(0);
        // the length grader never ran
        expect(r.components!.then).toBeUndefined();
      } else {
        expect(r.score!).toBeGreaterThanOrEqual(0.5);
        expect(r.score!).toBeLessThanOrEqual(1);
        right.push({ score: r.score!, tokens: r.components!.then!.metadata.length as number });
      }
    }
    expect(right.length).toBeGreaterThan(10);
    expect(right.length).toBeLessThan(samples.length);
    // among correct answers, fewer reasoning tokens never scores lower
    right.sort((a, b) => a.tokens - b.tokens);
    for (let i = 1; i < right.length; i++) expect(right[i]!.score).toBeLessThanOrEqual(right[i - 1]!.score);
    await services.close();
  });

  it('math-grader.json (gate = math): agrees with the correctness label of every sample', async () => {
    const g = await loadGraderFile(ex('math-grader.json'));
    for (const s of samples) {
      const r = await grade(g, s);
      expect(r.valid).toBe(true);
      expect(r.score! > 0, `${s.id}: ${r.reason}`).toBe(s.sample.is_correct);
    }
    expect(samples.some((s) => s.sample.is_correct)).toBe(true);
    expect(samples.some((s) => !s.sample.is_correct)).toBe(true);
  });
});
