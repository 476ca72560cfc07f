// Python difflib's `SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()` on integer
// sequences: the longest matching block found recursively left and right. rapidfuzz uses these
// blocks to place the needle for partial_ratio when the needle is longer than 64 characters.

export interface MatchingBlock {
  a: number;
  b: number;
  size: number;
}

export function matchingBlocks(a: ArrayLike<number>, b: ArrayLike<number>): MatchingBlock[] {
  const b2j = new Map<number, number[]>();
  for (let j = 0; j < b.length; j++) {
    const c = b[j]!;
    let l = b2j.get(c);
    if (!l) b2j.set(c, (l = []));
    l.push(j);
  }
  // j2len[j + 1] = length of the match ending at a[i - 1], b[j] (difflib's dict, as typed arrays
  // that are cleared through the list of touched indices)
  let j2len = new Int32Array(b.length + 1);
  let next = new Int32Array(b.length + 1);
  let touched: number[] = [];
  let touchedNext: number[] = [];
  const longest = (alo: number, ahi: number, blo: number, bhi: number): MatchingBlock => {
    let besti = alo;
    let bestj = blo;
    let bestsize = 0;
    for (let i = alo; i < ahi; i++) {
      const js = b2j.get(a[i]!);
      if (js) {
        // first occurrence at or after blo (binary search: the lists are sorted)
        let lo = 0;
        let hi = js.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if (js[mid]! < blo) lo = mid + 1;
          else hi = mid;
        }
        for (let q = lo; q < js.length; q++) {
          const j = js[q]!;
          if (j >= bhi) break;
          const k = j2len[j]! + 1;
          next[j + 1] = k;
          touchedNext.push(j + 1);
          if (k > bestsize) {
            besti = i - k + 1;
            bestj = j - k + 1;
            bestsize = k;
          }
        }
      }
      for (const t of touched) j2len[t] = 0;
      [j2len, next] = [next, j2len];
      [touched, touchedNext] = [touchedNext, touched];
      touchedNext.length = 0;
    }
    for (const t of touched) j2len[t] = 0;
    touched.length = 0;
    return { a: besti, b: bestj, size: bestsize };
  };
  const found: MatchingBlock[] = [];
  const queue: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (queue.length) {
    const [alo, ahi, blo, bhi] = queue.pop()!;
    const m = longest(alo, ahi, blo, bhi);
    if (m.size) {
      found.push(m);
      if (alo < m.a && blo < m.b) queue.push([alo, m.a, blo, m.b]);
      if (m.a + m.size < ahi && m.b + m.size < bhi) queue.push([m.a + m.size, ahi, m.b + m.size, bhi]);
    }
  }
  found.sort((x, y) => x.a - y.a || x.b - y.b);
  // collapse adjacent blocks, as difflib does
  const out: MatchingBlock[] = [];
  for (const m of found) {
    const last = out[out.length - 1];
    if (last && last.a + last.size === m.a && last.b + last.size === m.b) last.size += m.size;
    else out.push({ ...m });
  }
  out.push({ a: a.length, b: b.length, size: 0 });
  return out;
}
