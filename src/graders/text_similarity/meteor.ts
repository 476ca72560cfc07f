// METEOR (Banerjee & Lavie 2005) as NLTK's `meteor_score` computes it: lower-cased tokens are
// aligned in stages (exact, then Porter stem, then WordNet synonyms when a synonym source is
// given), each stage greedily matching from the end; score = Fmean * (1 - gamma * frag^beta) with
// Fmean = PR / (alpha P + (1 - alpha) R), alpha 0.9, beta 3, gamma 0.5; best over references.
import { porterStem as stemmer } from './porter.js';

type Enum = [number, string][];

/** NLTK `_match_enums`: for each hypothesis word from the last, the last equal reference word. */
function matchEnums(hyp: Enum, ref: Enum, equal: (h: string, r: string) => boolean): [number, number][] {
  const out: [number, number][] = [];
  for (let i = hyp.length - 1; i >= 0; i--) {
    for (let j = ref.length - 1; j >= 0; j--) {
      if (equal(hyp[i]![1], ref[j]![1])) {
        out.push([hyp[i]![0], ref[j]![0]]);
        hyp.splice(i, 1);
        ref.splice(j, 1);
        break;
      }
    }
  }
  return out;
}

function countChunks(matches: [number, number][]): number {
  let chunks = 1;
  for (let i = 0; i < matches.length - 1; i++) {
    const [h, r] = matches[i]!;
    const [h2, r2] = matches[i + 1]!;
    if (!(h2 === h + 1 && r2 === r + 1)) chunks++;
  }
  return chunks;
}

export interface MeteorOptions {
  alpha?: number;
  beta?: number;
  gamma?: number;
  /** Synonyms of a (stemmed) word, WordNet-style; omitted = no synonym stage. */
  synonyms?: (word: string) => ReadonlySet<string>;
}

export function singleMeteor(reference: readonly string[], hypothesis: readonly string[], opts: MeteorOptions = {}): number {
  const alpha = opts.alpha ?? 0.9;
  const beta = opts.beta ?? 3;
  const gamma = opts.gamma ?? 0.5;
  let hyp: Enum = hypothesis.map((w, i) => [i, w.toLowerCase()]);
  let ref: Enum = reference.map((w, i) => [i, w.toLowerCase()]);
  const hypLen = hyp.length;
  const refLen = ref.length;
  const matches = matchEnums(hyp, ref, (a, b) => a === b);
  hyp = hyp.map(([i, w]) => [i, stemmer(w)]);
  ref = ref.map(([i, w]) => [i, stemmer(w)]);
  matches.push(...matchEnums(hyp, ref, (a, b) => a === b));
  if (opts.synonyms) {
    const syn = opts.synonyms;
    matches.push(...matchEnums(hyp, ref, (h, r) => h === r || syn(h).has(r)));
  }
  matches.sort((x, y) => x[0] - y[0]);
  const m = matches.length;
  if (m === 0 || hypLen === 0 || refLen === 0) return 0;
  const precision = m / hypLen;
  const recall = m / refLen;
  const fmean = (precision * recall) / (alpha * precision + (1 - alpha) * recall);
  const frag = countChunks(matches) / m;
  return (1 - gamma * frag ** beta) * fmean;
}

export function meteor(references: readonly (readonly string[])[], hypothesis: readonly string[], opts: MeteorOptions = {}): number {
  let best = 0;
  for (const r of references) best = Math.max(best, singleMeteor(r, hypothesis, opts));
  return best;
}
