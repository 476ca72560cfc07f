// Length of the longest common subsequence of two integer sequences, with the bit-parallel
// algorithm of Hyyrö (2004): O(|a| * ceil(|b|/32)) word operations. Used by fuzzy ratios (on code
// points) and ROUGE-L (on token ids).

/** Bit masks of where each symbol occurs in `pattern`, 32 positions per word. */
export interface PatternMasks {
  readonly length: number;
  readonly words: number;
  readonly masks: Map<number, Uint32Array>;
}

export function patternMasks(pattern: ArrayLike<number>): PatternMasks {
  const words = Math.max(1, Math.ceil(pattern.length / 32));
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    let m = masks.get(c);
    if (!m) masks.set(c, (m = new Uint32Array(words)));
    m[i >>> 5]! |= 1 << (i & 31);
  }
  return { length: pattern.length, words, masks };
}

/** LCS length of the masked pattern and `text[from, to)`. */
export function lcsWithMasks(pm: PatternMasks, text: ArrayLike<number>, from = 0, to = text.length): number {
  if (pm.length === 0 || to <= from) return 0;
  const w = pm.words;
  const v = new Uint32Array(w).fill(0xffffffff);
  for (let j = from; j < to; j++) {
    const m = pm.masks.get(text[j]!);
    if (!m) continue;
    let carry = 0;
    for (let k = 0; k < w; k++) {
      const vk = v[k]!;
      const mk = m[k]!;
      const u = (vk & mk) >>> 0; // >>> 0: bitwise ops yield signed ints; the sum needs unsigned

      const sum = vk + u + carry; // (V + U) with carry across words
      carry = sum > 0xffffffff ? 1 : 0;
      v[k] = (sum >>> 0) | (vk & ~mk);
    }
  }
  // zeros of V within the pattern's length are the LCS
  let zeros = 0;
  for (let i = 0; i < pm.length; i++) if (((v[i >>> 5]! >>> (i & 31)) & 1) === 0) zeros++;
  return zeros;
}

export function lcsLength(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length === 0 || b.length === 0) return 0;
  // the shorter sequence is the bit pattern
  return a.length <= b.length ? lcsWithMasks(patternMasks(a), b) : lcsWithMasks(patternMasks(b), a);
}

/** Maps token strings to small integers so token sequences can use the integer LCS. */
export function tokenIds(...seqs: readonly (readonly string[])[]): number[][] {
  const ids = new Map<string, number>();
  return seqs.map((s) =>
    s.map((t) => {
      let id = ids.get(t);
      if (id === undefined) ids.set(t, (id = ids.size));
      return id;
    }),
  );
}
