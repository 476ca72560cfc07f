// The bit-parallel LCS (multi-word, carries across 32-bit words) against the textbook dynamic
// programme on random sequences of many lengths and alphabet sizes.
import { describe, expect, it } from 'vitest';
import { lcsLength, tokenIds } from '../../dist/graders/text_similarity/lcs.js';

function dpLcs(a: number[], b: number[]): number {
  let prev = new Array(b.length + 1).fill(0);
  let cur = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}

// small deterministic PRNG so a failure can be replayed
function rng(seed: number) {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

describe('lcsLength', () => {
  it('matches the dynamic programme on 1,500 random pairs up to 300 long (1..10 words of 32 bits)', () => {
    const r = rng(7);
    for (let t = 0; t < 1500; t++) {
      const n = Math.floor(r() * 300);
      const m = Math.floor(r() * 300);
      const k = 1 + Math.floor(r() * 8);
      const a = Array.from({ length: n }, () => Math.floor(r() * k));
      const b = Array.from({ length: m }, () => Math.floor(r() * k));
      expect(lcsLength(a, b), `case ${t}`).toBe(dpLcs(a, b));
    }
  });
  it('token sequences map to ids consistently', () => {
    const [a, b] = tokenIds(['the', 'cat', 'sat'], ['cat', 'the', 'sat']);
    expect(lcsLength(a!, b!)).toBe(2);
  });
});

describe('matchingBlocks (difflib SequenceMatcher semantics)', () => {
  it('Python docs example: "abxcd" vs "abcd" -> (0,0,2), (3,2,2), sentinel (5,4,0)', async () => {
    const { matchingBlocks } = await import('../../dist/graders/text_similarity/matching-blocks.js');
    const cp = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);
    expect(matchingBlocks(cp('abxcd'), cp('abcd'))).toEqual([
      { a: 0, b: 0, size: 2 },
      { a: 3, b: 2, size: 2 },
      { a: 5, b: 4, size: 0 },
    ]);
  });
});
