// rapidfuzz's `fuzz` scorers (ratio, partial_ratio, token_sort/set, WRatio) and
// `utils.default_process`, written from rapidfuzz's definitions. Scores are 0..100 floats like
// rapidfuzz (not the integers of fuzzball/TheFuzz ports). `fuzzyMatch` = WRatio(a, b,
// processor=default_process) / 100, the scorer OpenAI's graders guide uses for fuzzy matching.
import { lcsLength, lcsWithMasks, patternMasks } from './lcs.js';
import { matchingBlocks } from './matching-blocks.js';
import { codePoints, PY_NON_WORD, pySplit, pyStrip } from './text.js';

/** rapidfuzz `utils.default_process`: non-word characters to spaces, strip, lower-case. */
export function defaultProcess(s: string): string {
  return pyStrip(s.replace(PY_NON_WORD, ' ')).toLowerCase();
}

function ratioCp(a: number[], b: number[]): number {
  const lensum = a.length + b.length;
  if (lensum === 0) return 100;
  const dist = lensum - 2 * lcsLength(a, b);
  return 100 - (100 * dist) / lensum;
}

/** Normalised Indel similarity x 100. */
export function ratio(a: string, b: string): number {
  return ratioCp(codePoints(a), codePoints(b));
}

/** Best ratio of `shorter` against windows of `longer` (rapidfuzz `_partial_ratio_impl`). */
function partialImpl(shorter: number[], longer: number[]): number {
  const len1 = shorter.length;
  const len2 = longer.length;
  const pm = patternMasks(shorter);
  const score = (from: number, to: number) => {
    const lensum = len1 + (to - from);
    return lensum === 0 ? 1 : (2 * lcsWithMasks(pm, longer, from, to)) / lensum;
  };
  let best = 0;
  if (len1 > 64) {
    // rapidfuzz (C++) for long needles: only alignments that start at a matching block
    const blocks = matchingBlocks(shorter, longer);
    for (const bl of blocks) if (bl.size === len1) return 100;
    for (const bl of blocks) {
      const start = Math.max(0, bl.b - bl.a);
      const end = Math.min(len2, start + len1);
      const s = score(start, end);
      if (s > best) best = s;
    }
    return best * 100;
  }
  const inShort = new Set(shorter);
  for (let i = 1; i < len1; i++) {
    if (!inShort.has(longer[i - 1]!)) continue;
    const s = score(0, i);
    if (s > best) best = s;
    if (best === 1) return 100;
  }
  for (let i = 0; i < len2 - len1; i++) {
    if (!inShort.has(longer[i + len1 - 1]!)) continue;
    const s = score(i, i + len1);
    if (s > best) best = s;
    if (best === 1) return 100;
  }
  for (let i = Math.max(0, len2 - len1); i < len2; i++) {
    if (!inShort.has(longer[i]!)) continue;
    const s = score(i, len2);
    if (s > best) best = s;
    if (best === 1) return 100;
  }
  return best * 100;
}

export function partialRatio(a: string, b: string): number {
  const s1 = codePoints(a);
  const s2 = codePoints(b);
  if (s1.length === 0 && s2.length === 0) return 100;
  const [shorter, longer] = s1.length <= s2.length ? [s1, s2] : [s2, s1];
  let res = partialImpl(shorter, longer);
  if (res !== 100 && s1.length === s2.length) res = Math.max(res, partialImpl(longer, shorter));
  return res;
}

/** Python `sorted()` of strings: code-point order (UTF-16 order differs only for astral characters). */
function pySorted(xs: Iterable<string>): string[] {
  const arr = [...xs];
  const astral = arr.some((x) => /[\uD800-\uDFFF]/.test(x));
  if (!astral) return arr.sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const keyed = arr.map((x) => [x, codePoints(x)] as const);
  keyed.sort(([, a], [, b]) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return a.length - b.length;
  });
  return keyed.map(([x]) => x);
}

const sortedJoin = (s: string) => pySorted(pySplit(s)).join(' ');

export function tokenSortRatio(a: string, b: string): number {
  return ratio(sortedJoin(a), sortedJoin(b));
}

const cpLen = (s: string) => codePoints(s).length;
const normDist = (dist: number, lensum: number) => (lensum ? 100 - (100 * dist) / lensum : 100);

export function tokenSetRatio(a: string, b: string): number {
  const ta = new Set(pySplit(a));
  const tb = new Set(pySplit(b));
  if (ta.size === 0 || tb.size === 0) return 0;
  const inter = [...ta].filter((t) => tb.has(t));
  const diffAB = [...ta].filter((t) => !tb.has(t));
  const diffBA = [...tb].filter((t) => !ta.has(t));
  if (inter.length && (!diffAB.length || !diffBA.length)) return 100;
  const ab = pySorted(diffAB).join(' ');
  const ba = pySorted(diffBA).join(' ');
  const abLen = cpLen(ab);
  const baLen = cpLen(ba);
  const sectLen = cpLen(inter.join(' '));
  const sep = sectLen !== 0 ? 1 : 0;
  const sectAbLen = sectLen + sep + abLen;
  const sectBaLen = sectLen + sep + baLen;
  const dist = abLen + baLen - 2 * lcsLength(codePoints(ab), codePoints(ba));
  const result = normDist(dist, sectAbLen + sectBaLen);
  if (!sectLen) return result;
  const sectAb = normDist(sep + abLen, sectLen + sectAbLen);
  const sectBa = normDist(sep + baLen, sectLen + sectBaLen);
  return Math.max(result, sectAb, sectBa);
}

export function tokenRatio(a: string, b: string): number {
  return Math.max(tokenSetRatio(a, b), tokenSortRatio(a, b));
}

export function partialTokenRatio(a: string, b: string): number {
  const sa = pySplit(a);
  const sb = pySplit(b);
  const ta = new Set(sa);
  const tb = new Set(sb);
  for (const t of ta) if (tb.has(t)) return 100;
  const diffAB = [...ta].filter((t) => !tb.has(t));
  const diffBA = [...tb].filter((t) => !ta.has(t));
  const result = partialRatio(pySorted(sa).join(' '), pySorted(sb).join(' '));
  if (sa.length === diffAB.length && sb.length === diffBA.length) return result;
  return Math.max(result, partialRatio(pySorted(diffAB).join(' '), pySorted(diffBA).join(' ')));
}

/** rapidfuzz `fuzz.WRatio` (0..100), without a processor. */
export function wRatio(s1: string, s2: string): number {
  if (!s1 || !s2) return 0;
  const UNBASE = 0.95;
  const len1 = cpLen(s1);
  const len2 = cpLen(s2);
  const lenRatio = len1 > len2 ? len1 / len2 : len2 / len1;
  let end = ratio(s1, s2);
  if (lenRatio < 1.5) return Math.max(end, tokenRatio(s1, s2) * UNBASE);
  const PARTIAL = lenRatio <= 8 ? 0.9 : 0.6;
  end = Math.max(end, partialRatio(s1, s2) * PARTIAL);
  return Math.max(end, partialTokenRatio(s1, s2) * UNBASE * PARTIAL);
}

/** WRatio with `default_process`, scaled to 0..1. */
export function fuzzyMatch(input: string, reference: string): number {
  return wRatio(defaultProcess(input), defaultProcess(reference)) / 100;
}
