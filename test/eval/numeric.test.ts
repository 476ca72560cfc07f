// Python/numpy number semantics used to match the benchmarks' scripts, the bounded worst-case
// heap, and the best-of-N expectation checked against brute-force enumeration.
import { describe, expect, it } from 'vitest';
import { npMean, npSum, pyFixed, pyRepr } from '../../dist/eval/numeric.js';
import { WorstCases } from '../../dist/eval/worst.js';
import { bestOfN } from '../../dist/eval/suites/bon.js';

describe('pyRepr', () => {
  it('prints floats as Python does', () => {
    expect(pyRepr(94)).toBe('94.0');
    expect(pyRepr(77.61194029850746)).toBe('77.61194029850746');
    expect(pyRepr(0.0001)).toBe('0.0001');
    expect(pyRepr(0.00001)).toBe('1e-05');
    expect(pyRepr(1.5e16)).toBe('1.5e+16');
    expect(pyRepr(1e16)).toBe('1e+16');
    expect(pyRepr(1234567890123456)).toBe('1234567890123456.0');
    expect(pyRepr(-0.5)).toBe('-0.5');
    expect(pyRepr(0)).toBe('0.0');
  });
});

describe('pyFixed', () => {
  it('rounds exact ties to even like format(x, ".2f"), other values correctly', () => {
    expect(pyFixed(0.125, 2)).toBe('0.12');
    expect(pyFixed(0.375, 2)).toBe('0.38');
    expect(pyFixed(2.675, 2)).toBe('2.67'); // 2.675 is below the tie in binary
    expect(pyFixed(65.71428571428571, 2)).toBe('65.71');
    expect(pyFixed(-0.125, 2)).toBe('-0.12');
    expect(pyFixed(50, 2)).toBe('50.00');
  });
});

describe('npSum', () => {
  it('sums pairwise as numpy does (differs from a left-to-right sum)', () => {
    // np.sum(np.tril(m, -1)) for a 3x3 matrix: elements 3, 6, 7 are nonzero
    const a = [0, 0, 0, 0.1, 0, 0, 0.2, 0.3, 0];
    expect(a.reduce((s, v) => s + v, 0)).toBe(0.6000000000000001);
    expect(npSum(a)).toBe(0.6);
    expect(npMean([1, 2, 4])).toBe(7 / 3);
    const big = Array.from({ length: 1000 }, (_, i) => 0.1 * (i % 7));
    expect(Math.abs(npSum(big) - big.reduce((s, v) => s + v, 0))).toBeLessThan(1e-9);
  });
});

describe('WorstCases', () => {
  it('keeps only the K most severe rows, most severe first, earlier first on ties', () => {
    const w = new WorstCases<number>(3);
    for (const [sev, id] of [
      [1, 1],
      [5, 2],
      [3, 3],
      [5, 4],
      [0, 5],
      [4, 6],
      [5, 7],
    ])
      w.add(sev!, id!);
    expect(w.rows()).toEqual([2, 4, 7]);
    expect(w.total).toBe(7);
    expect(w.size).toBe(3);
  });
  it('builds rows lazily only when kept', () => {
    const w = new WorstCases<number>(1);
    let built = 0;
    w.add(2, () => {
      built++;
      return 1;
    });
    w.add(1, () => {
      built++;
      return 2;
    });
    expect(built).toBe(1);
  });
});

describe('bestOfN', () => {
  function brute(c: { score: number; correct: boolean }[], n: number) {
    let pick = 0;
    let oracle = 0;
    let subsets = 0;
    const N = c.length;
    for (let mask = 0; mask < 1 << N; mask++) {
      const s = c.filter((_, i) => mask & (1 << i));
      if (s.length !== n) continue;
      subsets++;
      const top = Math.max(...s.map((x) => x.score));
      const tied = s.filter((x) => x.score === top);
      pick += tied.filter((x) => x.correct).length / tied.length;
      oracle += s.some((x) => x.correct) ? 1 : 0;
    }
    return { pick: pick / subsets, oracle: oracle / subsets };
  }
  it('equals the average over every N-subset (ties broken uniformly)', () => {
    const c = [
      { score: 3, correct: false },
      { score: 2, correct: true },
      { score: 2, correct: false },
      { score: 1, correct: true },
      { score: 2, correct: true },
      { score: 0.5, correct: false },
    ];
    for (let n = 1; n <= c.length; n++) {
      const a = bestOfN(c, n);
      const b = brute(c, n);
      expect(a.pick).toBeCloseTo(b.pick, 12);
      expect(a.oracle).toBeCloseTo(b.oracle, 12);
    }
  });
});
