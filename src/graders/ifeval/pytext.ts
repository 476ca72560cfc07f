// Python-compatible text helpers used by the IFEval checkers: str.isupper/islower/strip/split
// semantics, the `\w+` word count, and regex pieces that behave like Python's `re` (where `.`
// excludes only "\n" and `^`/`$` in MULTILINE mode see only "\n" as a line break).

/** Python `re` `\w` (Unicode): letters, digits/numerics and underscore. */
export const PY_W = '[\\p{L}\\p{N}_]';

const HAS_UPPER = /\p{Uppercase}/u;
const HAS_LOWER = /\p{Lowercase}/u;
const HAS_TITLE = /\p{Lt}/u;

/** Python `str.isupper()`: at least one cased character and no lowercase/titlecase ones. */
export function isUpper(s: string): boolean {
  return HAS_UPPER.test(s) && !HAS_LOWER.test(s) && !HAS_TITLE.test(s);
}

/** Python `str.islower()`. */
export function isLower(s: string): boolean {
  return HAS_LOWER.test(s) && !HAS_UPPER.test(s) && !HAS_TITLE.test(s);
}

// Python's str.isspace() set (Unicode White_Space plus the \x1c-\x1f separators), without U+FEFF.
const WS = '\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const LEAD_WS = new RegExp(`^[${WS}]+`);
const TRAIL_WS = new RegExp(`[${WS}]+$`);
const WS_RUN = new RegExp(`[${WS}]+`);

/** Python `str.strip()` with no argument. */
export function pyStrip(s: string): string {
  return s.replace(LEAD_WS, '').replace(TRAIL_WS, '');
}

/** Python `str.split()` with no argument: split on whitespace runs, no empty strings. */
export function pySplit(s: string): string[] {
  const t = pyStrip(s);
  return t ? t.split(WS_RUN) : [];
}

/** Python `str.strip(chars)`. */
export function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

export function lstripChars(s: string, chars: string): string {
  let a = 0;
  while (a < s.length && chars.includes(s[a]!)) a++;
  return s.slice(a);
}

export function rstripChars(s: string, chars: string): string {
  let b = s.length;
  while (b > 0 && chars.includes(s[b - 1]!)) b--;
  return s.slice(0, b);
}

const WORD_RE = new RegExp(`${PY_W}+`, 'gu');

/** `nltk.tokenize.RegexpTokenizer(r"\w+")` token count (the reference `count_words`). */
export function countWords(text: string): number {
  let n = 0;
  WORD_RE.lastIndex = 0;
  while (WORD_RE.exec(text)) n++;
  return n;
}

/** Escapes a literal for use inside a RegExp. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
