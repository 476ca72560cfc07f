// Step splitting (every rule, spans, limits, the regex screen) and step aggregation / transforms,
// against hand-computed values.
import { describe, expect, it } from 'vitest';
import {
  aggregateSteps,
  compileSplitter,
  firstBelow,
  grade,
  loadGrader,
  pureMinForm,
  stripStepPrefix,
  transformSteps,
  type SplitConfig,
} from '../../dist/index.js';

function split(rule: SplitConfig, text: string) {
  const issues: string[] = [];
  const sp = compileSplitter(rule, (f, m) => issues.push(`${f}: ${m}`));
  expect(issues).toEqual([]);
  return sp.split(text);
}

describe('step splitting', () => {
  it('blank lines: paragraphs, trimmed, with exact spans; runs of blank lines (and spaces on them) are one break', () => {
    const text = 'First step.\n\nSecond\nstill second.\n \n\n  Third.  \n';
    const r = split('blank_lines', text);
    expect(r.pieces.map((p) => p.text)).toEqual(['First step.', 'Second\nstill second.', 'Third.']);
    for (const p of r.pieces) expect(text.slice(p.start, p.end)).toBe(p.text);
    expect(r.markers).toBe(2);
  });

  it('"Step k:" labels: the label is removed, text before the first label is a step, markdown forms count', () => {
    const text = 'Let us solve it.\nStep 1: add 2 and 3.\nso 5.\n**Step 2:** double it: 10.\n## Step 3. Answer 10\nStep 4 is not a label';
    const r = split('step_labels', text);
    expect(r.pieces.map((p) => p.text)).toEqual(['Let us solve it.', 'add 2 and 3.\nso 5.', 'double it: 10.', 'Answer 10\nStep 4 is not a label']);
    expect(r.markers).toBe(3);
  });

  it('numbered lines: "1." "2)" "(3)" start steps, "1.5" does not; continuation lines stay with their step', () => {
    const text = '1. x = 1.5 here\n   more of one\n2) then y\n(3) done';
    expect(split('numbered', text).pieces.map((p) => p.text)).toEqual(['x = 1.5 here\n   more of one', 'then y', 'done']);
  });

  it('lines, a literal separator and a custom regex (separators belong to no step)', () => {
    expect(split('lines', 'a\n\nb\r\nc').pieces.map((p) => p.text)).toEqual(['a', 'b', 'c']);
    expect(split({ rule: 'separator', separator: '<step>' }, 'a<step>b.*<step> c').pieces.map((p) => p.text)).toEqual(['a', 'b.*', 'c']);
    expect(split({ rule: 'regex', pattern: '\\s*;\\s*' }, 'a ; b;c').pieces.map((p) => p.text)).toEqual(['a', 'b', 'c']);
    // an empty match separates nothing (and the scan still ends)
    expect(split({ rule: 'regex', pattern: 'x*' }, 'abxxc').pieces.map((p) => p.text)).toEqual(['ab', 'c']);
  });

  it('a configured regex runs on the linear-time engine: nested quantifiers are safe, bad syntax or lookaround is refused at load, naming the field', async () => {
    const base = { type: 'prm', protocol: 'labels', error_steps: '{{item.e}}' };
    // (a+)+ cannot backtrack on RE2: it splits a hostile text promptly (a regression hangs the test)
    const g = loadGrader({ ...base, split: { rule: 'regex', pattern: '(a+)+;' } });
    const hostile = await grade(g, { item: { e: [] }, output_text: `x${'a'.repeat(50_000)}!` });
    expect(hostile.valid).toBe(true);
    expect(hostile.steps?.length).toBe(1);
    const split = await grade(g, { item: { e: [] }, output_text: 'first aa; second a; third' });
    expect(split.steps?.length).toBe(3);
    expect(() => loadGrader({ ...base, split: { rule: 'regex', pattern: '(' } })).toThrow(/split\.pattern: invalid regular expression/);
    expect(() => loadGrader({ ...base, split: { rule: 'regex', pattern: '(?=a)b' } })).toThrow(/split\.pattern/);
    expect(() => loadGrader({ ...base, split: { rule: 'regex', pattern: 'a'.repeat(1001) } })).toThrow(/split\.pattern/);
    expect(() => loadGrader({ ...base, split: { rule: 'regex', pattern: ';', allow_unsafe_regex: true } })).toThrow(/allow_unsafe_regex/);
  });

  it('strip_prefix removes exactly one leading "Step k." / "Step k:" / "k." label', () => {
    expect(stripStepPrefix('  Step 3. Compute x.')).toBe('Compute x.');
    expect(stripStepPrefix('step12: go')).toBe('go');
    expect(stripStepPrefix('4. Then')).toBe('Then');
    expect(stripStepPrefix('4.5 is a number')).toBe('4.5 is a number');
    expect(stripStepPrefix('Step 1. Step 2. x')).toBe('Step 2. x');
  });
});

describe('aggregation and transforms (hand-computed)', () => {
  const s = [0.9, 0.6, 0.3, 0.8];
  it('min, product, mean, last, sum, geometric mean', () => {
    expect(aggregateSteps(s, 'min')).toBe(0.3);
    expect(aggregateSteps(s, 'product')).toBeCloseTo(0.9 * 0.6 * 0.3 * 0.8, 12);
    expect(aggregateSteps(s, 'mean')).toBeCloseTo(2.6 / 4, 12);
    expect(aggregateSteps(s, 'last')).toBe(0.8);
    expect(aggregateSteps(s, 'sum')).toBeCloseTo(2.6, 12);
    expect(aggregateSteps(s, 'geo_mean')).toBeCloseTo((0.9 * 0.6 * 0.3 * 0.8) ** 0.25, 12);
    expect(aggregateSteps([0.5, 0], 'geo_mean')).toBe(0);
  });

  it("PURE's min form: PR = 2p - 1, weights softmax(-PR/T), score = sum of weight * PR", () => {
    // p = [0.9, 0.2]: PR = [0.8, -0.6]; T = 0.1: logits [-8, 6]; w = [e^-14/(1+e^-14), 1/(1+e^-14)]
    const e = Math.exp(-14);
    const w = [e / (1 + e), 1 / (1 + e)];
    const r = pureMinForm([0.9, 0.2], 0.1);
    expect(r.weights[0]).toBeCloseTo(w[0]!, 15);
    expect(r.weights[1]).toBeCloseTo(w[1]!, 15);
    expect(r.score).toBeCloseTo(w[0]! * 0.8 + w[1]! * -0.6, 15);
    expect(r.credits).toEqual([r.weights[0]! * 0.8, r.weights[1]! * -0.6]);
    // a high temperature is a plain mean of PR: weights -> 1/n
    expect(pureMinForm([0.9, 0.2], 1e9).score).toBeCloseTo((0.8 - 0.6) / 2, 6);
    expect(aggregateSteps([0.9, 0.2], 'pure', 0.1)).toBe(r.score);
  });

  it('first step under the threshold (strictly below), or -1', () => {
    expect(firstBelow(s, 0.5)).toBe(2);
    expect(firstBelow(s, 0.3)).toBe(-1);
    expect(firstBelow(s, 0.95)).toBe(0);
  });

  it('clip keeps only what falls below the threshold; delta takes differences of adjacent steps; clip then delta', () => {
    expect(transformSteps(s, { clip: 0.5 }).map((x) => +x.toFixed(12))).toEqual([0, 0, -0.2, 0]);
    expect(transformSteps(s, { delta: true }).map((x) => +x.toFixed(12))).toEqual([0.3, 0.3, -0.5, 0.8]);
    // the delta rewards from step t onward sum to the score of step t
    const d = transformSteps(s, { delta: true });
    expect(d.slice(1).reduce((a, b) => a + b, 0)).toBeCloseTo(s[1]!, 12);
    expect(transformSteps(s, { clip: 0.5, delta: true }).map((x) => +x.toFixed(12))).toEqual([0, 0.2, -0.2, 0]);
  });
});
