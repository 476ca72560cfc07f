// Sentence GLEU ("Google BLEU", Wu et al. 2016) as NLTK's `sentence_gleu` defines it: over all
// 1..4-grams, min(precision, recall); with several references, the best reference's ratio.
import { ngramCounts, overlap, total } from './text.js';

function everygrams(tokens: readonly string[], minLen: number, maxLen: number): Map<string, number> {
  const all = new Map<string, number>();
  for (let n = minLen; n <= maxLen; n++) {
    // n-grams of different orders never share a key: the key's separator count encodes n
    for (const [k, c] of ngramCounts(tokens, n)) all.set(k, (all.get(k) ?? 0) + c);
  }
  return all;
}

export function sentenceGleu(references: readonly (readonly string[])[], hypothesis: readonly string[], minLen = 1, maxLen = 4): number {
  const hyp = everygrams(hypothesis, minLen, maxLen);
  const tpfp = total(hyp);
  let best: [number, number] | undefined;
  for (const r of references) {
    const ref = everygrams(r, minLen, maxLen);
    const tpfn = total(ref);
    const tp = overlap(ref, hyp);
    const nAll = Math.max(tpfp, tpfn);
    if (nAll > 0 && (!best || tp / nAll > best[0] / best[1])) best = [tp, nAll];
  }
  return best ? best[0] / best[1] : 0;
}
