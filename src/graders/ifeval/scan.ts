// Linear-time equivalents of reference regexes that backtrack quadratically on hostile text
// (model outputs are untrusted): bullet lines, [placeholders] and <<titles>>.

const isSpace = (c: string | undefined) => c !== undefined && /\s/u.test(c);

/**
 * Number of matches of Python `re.findall(r"^\s*M[^*].*$" or r"^\s*-.*$", text, re.MULTILINE)`:
 * lines whose first non-whitespace character (whitespace may span blank lines) is the marker.
 */
export function countBulletLines(text: string, marker: '*' | '-'): number {
  const n = text.length;
  let count = 0;
  let pos = 0;
  while (pos <= n) {
    // next line start at or after pos
    let L = pos;
    if (L > 0 && text[L - 1] !== '\n') {
      const nl = text.indexOf('\n', L);
      if (nl < 0) break;
      L = nl + 1;
    }
    let q = L;
    while (q < n && isSpace(text[q])) q++;
    if (q >= n) break;
    if (text[q] === marker && (marker === '-' || (q + 1 < n && text[q + 1] !== '*'))) {
      const from = marker === '-' ? q + 1 : q + 2;
      const nl = from <= n ? text.indexOf('\n', from) : -1;
      count++;
      pos = nl < 0 ? n + 1 : nl;
    } else {
      pos = q + 1;
    }
  }
  return count;
}

/** Number of matches of `re.findall(r"\[.*?\]", text)`. */
export function countPlaceholders(text: string): number {
  let count = 0;
  let i = 0;
  for (;;) {
    const open = text.indexOf('[', i);
    if (open < 0) return count;
    const eol = text.indexOf('\n', open);
    const close = text.indexOf(']', open + 1);
    if (close < 0) return count;
    if (eol >= 0 && eol < close) {
      i = eol + 1;
      continue;
    }
    count++;
    i = close + 1;
  }
}

/** The matches of `re.findall(r"<<[^\n]+>>", text)`. */
export function findTitles(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const i = line.indexOf('<<');
    if (i < 0) continue;
    const k = line.lastIndexOf('>>');
    if (k >= i + 3) out.push(line.slice(i, k + 2));
  }
  return out;
}
