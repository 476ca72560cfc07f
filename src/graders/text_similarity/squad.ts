// Exact match and token F1 with the answer normalisation of the official SQuAD evaluation script
// (Rajpurkar et al. 2016; v2.0 script): lower-case, drop ASCII punctuation, drop the articles
// a/an/the, collapse whitespace. F1 of two empty answers is 1 (v2.0 convention for no-answer).
import { pySplit } from './text.js';

const PUNCT = new Set('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
const ARTICLES = /(?<![\p{L}\p{N}_])(?:a|an|the)(?![\p{L}\p{N}_])/gu;

export function normalizeAnswer(s: string): string {
  let t = '';
  for (const ch of s.toLowerCase()) if (!PUNCT.has(ch)) t += ch;
  t = t.replace(ARTICLES, ' ');
  return pySplit(t).join(' ');
}

export function exactMatch(prediction: string, gold: string): number {
  return normalizeAnswer(prediction) === normalizeAnswer(gold) ? 1 : 0;
}

export function tokenF1(prediction: string, gold: string): number {
  const p = pySplit(normalizeAnswer(prediction));
  const g = pySplit(normalizeAnswer(gold));
  if (p.length === 0 || g.length === 0) return p.length === g.length ? 1 : 0;
  const counts = new Map<string, number>();
  for (const t of g) counts.set(t, (counts.get(t) ?? 0) + 1);
  let same = 0;
  for (const t of p) {
    const c = counts.get(t);
    if (c) {
      same++;
      counts.set(t, c - 1);
    }
  }
  if (same === 0) return 0;
  const precision = same / p.length;
  const recall = same / g.length;
  return (2 * precision * recall) / (precision + recall);
}
