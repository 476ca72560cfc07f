// ROUGE-N and ROUGE-L F-measure (Lin 2004) as Google's `rouge-score` package computes them: its
// default tokenizer (lower-case, every run of characters outside [a-z0-9] is a separator), optional
// Porter stemming of tokens longer than 3 characters, and F1 of n-gram / LCS precision and recall.
import { porterStem as stemmer } from './porter.js';
import { lcsLength, tokenIds } from './lcs.js';
import { ngramCounts, overlap, total } from './text.js';

export function rougeTokenize(text: string, stem = false): string[] {
  const toks = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .split(/\s+/)
    .filter((t) => t.length > 0);
  return stem ? toks.map((t) => (t.length > 3 ? stemmer(t) : t)) : toks;
}

export interface Prf {
  precision: number;
  recall: number;
  fmeasure: number;
}

function prf(inter: number, predCount: number, targetCount: number): Prf {
  const precision = inter / Math.max(predCount, 1);
  const recall = inter / Math.max(targetCount, 1);
  const fmeasure = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, fmeasure };
}

export function rougeN(target: readonly string[], prediction: readonly string[], n: number): Prf {
  const t = ngramCounts(target, n);
  const p = ngramCounts(prediction, n);
  return prf(overlap(t, p), total(p), total(t));
}

export function rougeL(target: readonly string[], prediction: readonly string[]): Prf {
  if (target.length === 0 || prediction.length === 0) return { precision: 0, recall: 0, fmeasure: 0 };
  const [a, b] = tokenIds(target, prediction);
  const lcs = lcsLength(a!, b!);
  return prf(lcs, prediction.length, target.length);
}
