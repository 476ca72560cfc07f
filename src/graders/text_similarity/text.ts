// Text helpers that reproduce Python semantics the reference metrics rely on: `str.split()`
// (Unicode whitespace as Python defines it), `\W` (Python's Unicode word characters), n-gram counts.

/** Characters Python's `str.isspace()` accepts (what `str.split()` splits on). */
const PY_WS = '\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_SPLIT = new RegExp(`[${PY_WS}]+`, 'u');
const PY_STRIP = new RegExp(`^[${PY_WS}]+|[${PY_WS}]+$`, 'gu');

/** Python `s.split()` with no argument: split on runs of whitespace, drop empty strings. */
export function pySplit(s: string): string[] {
  if (s.length === 0) return [];
  const out = s.split(PY_SPLIT);
  if (out.length && out[0] === '') out.shift();
  if (out.length && out[out.length - 1] === '') out.pop();
  return out;
}

/** Python `s.strip()` with no argument. */
export function pyStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}

/** Python `\W` under `re.UNICODE`: anything that is not a letter, a number or `_`. */
export const PY_NON_WORD = /[^\p{L}\p{N}_]/gu;

/** A key for an n-gram of tokens (tokens never contain a space: they come from whitespace splitting). */
function gramKey(tokens: readonly string[], start: number, n: number): string {
  return n === 1 ? tokens[start]! : tokens.slice(start, start + n).join(' ');
}

/** Counts the n-grams of one order. */
export function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const m = new Map<string, number>();
  for (let i = 0; i + n <= tokens.length; i++) {
    const k = gramKey(tokens, i, n);
    m.set(k, (m.get(k) ?? 0) + 1);
  }
  return m;
}

/** Sum of min(count_a, count_b) over shared keys (Python `Counter & Counter`). */
export function overlap(a: Map<string, number>, b: Map<string, number>): number {
  const [small, big] = a.size <= b.size ? [a, b] : [b, a];
  let s = 0;
  for (const [k, c] of small) {
    const d = big.get(k);
    if (d !== undefined) s += Math.min(c, d);
  }
  return s;
}

export function total(m: Map<string, number>): number {
  let s = 0;
  for (const c of m.values()) s += c;
  return s;
}

/** Code points of a string (Python indexes strings by code point). */
export function codePoints(s: string): number[] {
  const out: number[] = [];
  for (const ch of s) out.push(ch.codePointAt(0)!);
  return out;
}
