// Sentence BLEU as NLTK's `sentence_bleu` defines it (Papineni et al. 2002): clipped n-gram
// precisions for n = 1..4 with uniform weights, the closest reference length for the brevity
// penalty, and NLTK's smoothing functions (Chen & Cherry 2014) method0 (none), 1, 2 and 3.
import { ngramCounts, total } from './text.js';

export type BleuSmoothing = 'none' | 'epsilon' | 'add_one' | 'exp';

/** Python's `sys.float_info.min`, which NLTK's method0 substitutes for a zero precision. */
const PY_FLOAT_MIN = 2.2250738585072014e-308;

export interface BleuOptions {
  maxOrder?: number;
  smoothing?: BleuSmoothing;
}

export function sentenceBleu(references: readonly (readonly string[])[], hypothesis: readonly string[], opts: BleuOptions = {}): number {
  const N = opts.maxOrder ?? 4;
  const smoothing = opts.smoothing ?? 'none';
  const num: number[] = [];
  const den: number[] = [];
  for (let n = 1; n <= N; n++) {
    const counts = ngramCounts(hypothesis, n);
    const maxRef = new Map<string, number>();
    for (const r of references) {
      for (const [k, c] of ngramCounts(r, n)) if ((maxRef.get(k) ?? 0) < c) maxRef.set(k, c);
    }
    let clipped = 0;
    for (const [k, c] of counts) clipped += Math.min(c, maxRef.get(k) ?? 0);
    num.push(clipped);
    den.push(Math.max(1, total(counts)));
  }
  if (num[0] === 0) return 0;
  const hypLen = hypothesis.length;
  // closest reference length; ties go to the shorter reference
  let refLen = Infinity;
  for (const r of references) {
    const d = Math.abs(r.length - hypLen);
    const bd = Math.abs(refLen - hypLen);
    if (d < bd || (d === bd && r.length < refLen)) refLen = r.length;
  }
  if (!Number.isFinite(refLen)) return 0;
  const bp = hypLen > refLen ? 1 : hypLen === 0 ? 0 : Math.exp(1 - refLen / hypLen);
  const p: number[] = [];
  let incvnt = 1;
  for (let i = 0; i < N; i++) {
    const a = num[i]!;
    const b = den[i]!;
    switch (smoothing) {
      case 'none':
        p.push(a !== 0 ? a / b : PY_FLOAT_MIN);
        break;
      case 'epsilon':
        p.push(a !== 0 ? a / b : 0.1 / b);
        break;
      case 'add_one':
        p.push(i === 0 ? a / b : (a + 1) / (b + 1));
        break;
      case 'exp':
        if (a === 0) {
          p.push(1 / (2 ** incvnt * b));
          incvnt++;
        } else p.push(a / b);
        break;
    }
  }
  let s = 0;
  for (const pi of p) s += (1 / N) * Math.log(pi);
  return bp * Math.exp(s);
}
