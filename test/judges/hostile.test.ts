// Judge outputs are untrusted model text: every verdict parser must answer promptly on hostile
// input (long runs of brackets, tags, keys, unclosed reasoning, deep JSON) with an error, not a hang.
import { describe, expect, it } from 'vitest';
import { parsePairwise, parseScore, parseYesNo, labelParser } from '../../dist/index.js';

const hostile: Record<string, string> = {
  brackets: '[['.repeat(300_000),
  braces: '{'.repeat(1_000_000),
  think: '<think>'.repeat(100_000),
  scoreKeys: 'Score: '.repeat(150_000),
  tags: '<score>'.repeat(100_000),
  json: '{"result":'.repeat(100_000),
  stars: '*'.repeat(500_000) + 'A',
  longLastLine: 'reasoning\n' + '[ '.repeat(200_000) + '[[A]]',
};
const label = labelParser(['good', 'bad']);
const parsers: Record<string, (t: string) => { ok: boolean }> = {
  score: (t) => parseScore(t, { range: [0, 10] }),
  pairwise: (t) => parsePairwise(t),
  yesno: (t) => parseYesNo(t),
  label: (t) => label.parse(t),
};

describe('verdict parsers on hostile judge output', () => {
  for (const [pn, parse] of Object.entries(parsers)) {
    it(`${pn}: every hostile input is answered promptly (a regression means minutes)`, () => {
      for (const [hn, text] of Object.entries(hostile)) {
        // no clock: a quadratic regression runs for minutes and the test's own timeout fails it
        const v = parse(text);
        if (hn !== 'longLastLine') expect(v.ok, `${pn} on ${hn}`).toBe(false);
      }
    });
  }
  // no clock here: a quadratic regression makes this run for minutes and the test's own timeout fails it
  it('with a large graded response to check quotes against, every hostile input is still answered', { timeout: 60_000 }, () => {
    const graded = ['x '.repeat(100_000) + Array.from({ length: 2000 }, (_, i) => `Score: ${i} [[A]] Verdict: yes`).join(' ') + ' Score: 7'];
    const more: Record<string, string> = {
      ...hostile,
      manyScores: Array.from({ length: 60_000 }, (_, i) => `Score: ${i}`).join('\n'),
      sameScore: 'Score: 7\n'.repeat(100_000),
      fences: '```x\n'.repeat(200_000),
      quotes: '> Score: 1\n'.repeat(90_000),
      pairs: '[[A]] '.repeat(150_000),
      oneLineScores: Array.from({ length: 60_000 }, (_, i) => `Score: ${i % 97}`).join(' '),
      quotedScoresAndFractions: 'Score: 7 1/10 '.repeat(50_000),
    };
    for (const [hn, text] of Object.entries(more)) {
      for (const [pn, parse] of Object.entries({
        score: (t: string) => parseScore(t, { range: [0, 100_000], graded }),
        pairwise: (t: string) => parsePairwise(t, { graded }),
        yesno: (t: string) => parseYesNo(t, { graded }),
      })) {
        const v = parse(text);
        expect(typeof v.ok, `${pn} on ${hn}`).toBe('boolean');
      }
    }
  });
  it('a verdict after a long line of noise is still found in its structured form', () => {
    const v = parsePairwise(hostile.longLastLine!) as { ok: boolean; value?: string };
    expect(v).toMatchObject({ ok: true, value: 'A' });
  });
});
