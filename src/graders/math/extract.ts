// Finds the final answer in free-form text (a model output or a full reference solution):
// <answer> tags, the last \boxed{}/\fbox{} (boxes joined by "and"), "final answer is", "the
// answer is" (and its equivalents in other languages), "Answer:"/"A:" lines, "#### N", markdown
// bold, a short whole answer, the last math span ($...$, \(...\), \[...\]) and the last
// number as fallbacks. An answer phrase that is itself prose ("The largest $n$ is 34") is read
// for the value it states. A leading <think>...</think> block is skipped.
import { findAnswerPhrase, hasIntlMarker, MAX_MARKER_CANDIDATES, type Phrase } from '../../extract/markers.js';
import { lastBoxes, MAX_JOINED_BOXES } from '../../extract/boxed.js';
import { normalizeForms } from '../../extract/normalize.js';
import { stripThink } from '../../extract/think.js';

export { stripThink };

export type ExtractMethod = 'answer_tag' | 'boxed' | 'answer_phrase' | 'answer_line' | 'hash' | 'bold' | 'whole' | 'last_math' | 'last_number' | 'choice';

export interface Extracted {
  text: string;
  method: ExtractMethod;
}

export interface ExtractOptions {
  /** Use the last number in the text when nothing else marks the answer (default true). */
  last_number?: boolean;
  /** Skip a leading <think>...</think> block (default true). */
  skip_think?: boolean;
  /** Treat a short text without markers as the answer itself (default true). */
  whole?: boolean;
  /** Read "2,74" and "1000,99" as decimals where the comma cannot separate thousands (default true). */
  decimal_comma?: boolean;
  /** Use the last math span ($...$, \(...\), \[...\]) when nothing marks the answer (default true). */
  last_math?: boolean;
  /** Recognise answer markers in other languages (Réponse, Respuesta, Antwort, 答案, ...) (default true). */
  languages?: boolean;
  /**
   * Join boxes / math spans separated by a short phrase containing "and" ("\boxed{1} papers and
   * \boxed{2} bins", "y_1 = \boxed{..} and y_2 = \boxed{..}") (default true); false: only ","
   * or a bare "and" joins.
   */
  join_phrases?: boolean;
}

/** Text allowed between boxes that together form one answer ("\\boxed{1} and \\boxed{2}"); "or" marks alternatives instead. */
const BOX_GAP = /^[\s$,;.]*(?:(?:and|,|\\text\{\s*(?:and|,)\s*\}|\\quad|\\qquad)[\s$,;.]*)?$/;

/**
 * Whether the text between two boxes/spans joins them into one answer. Strict: "," or one "and".
 * With `phrases`: any short gap of layout, math delimiters, labels ("y_2 ="), part names ("(a)")
 * and words that contains the word "and" (never "or").
 */
export function joins(gap: string, phrases: boolean): boolean {
  if (gap.length <= 40 && BOX_GAP.test(gap)) return true;
  if (!phrases || gap.length > 80) return false;
  const words = gap
    .replace(/\\(?:text|textbf|textit|mbox|mathrm)\s*\{([^{}]*)\}/g, ' $1 ')
    .replace(/\\(?:quad|qquad|[,;:! ]|\(|\)|\[|\])/g, ' ')
    .replace(/[$,;.:]/g, ' ')
    .replace(/(?:^|\s)[A-Za-z](?:_\{?\w+\}?)?\s*=/g, ' ')
    .replace(/\([a-z]\)|\([ivx]+\)/g, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  // a short phrase ending in "and" ("papers and", "for part (a) and"), never "and then we check"
  if (words.length > 4 || words.some((w) => !/^[A-Za-z']+$/.test(w))) return false;
  const lower = words.map((w) => w.toLowerCase());
  return lower[lower.length - 1] === 'and' && !lower.includes('or');
}

function lastBoxed(text: string, phrases: boolean, reference = false): { text: string; end: number } | undefined {
  if (!text.includes('\\boxed') && !text.includes('\\fbox')) return undefined;
  const boxes = lastBoxes(text);
  if (!boxes.length) {
    // a reference whose only box never closes (a gold string that lost its last brace): the rest of
    // the box's line, unless a brace closes in it below the box's level (then it is not one box's content)
    const b = reference ? text.lastIndexOf('\\boxed{') : -1;
    if (b < 0) return undefined;
    const nl = text.indexOf('\n', b);
    const rest = text.slice(b + 7, nl < 0 ? text.length : nl);
    let depth = 0;
    for (let i = 0; i < rest.length; i++) {
      if (rest[i] === '\\') i++;
      else if (rest[i] === '{') depth++;
      else if (rest[i] === '}' && --depth < 0) return undefined;
    }
    return { text: rest, end: b + 7 + rest.length };
  }
  const parts = [boxes[boxes.length - 1]!.content];
  for (let k = boxes.length - 2; k >= 0 && parts.length < MAX_JOINED_BOXES; k--) {
    const gap = text.slice(boxes[k]!.end, boxes[k + 1]!.start);
    // boxes inside one inline formula ($\boxed{a} ... \boxed{b}$) are parts of one displayed answer
    const oneFormula = phrases && gap.length <= 80 && !/[$\n]/.test(gap) && insideInlineMath(text, boxes[k]!.start);
    if (!oneFormula && !joins(gap, phrases)) break;
    parts.unshift(boxes[k]!.content);
  }
  return { text: parts.join(', '), end: boxes[boxes.length - 1]!.end };
}

/** Whether position i lies inside an inline $...$ formula (an odd number of unescaped single $ before it on its line). */
function insideInlineMath(text: string, i: number): boolean {
  const from = Math.max(0, text.lastIndexOf('\n', i) + 1, i - 2000);
  let n = 0;
  for (let j = from; j < i; j++) {
    if (text[j] === '\\') j++;
    else if (text[j] === '$') {
      if (text[j + 1] === '$') j++;
      else n++;
    }
  }
  return n % 2 === 1;
}

/** The rest of the line from index `from` (at most 4000 characters). */
function lineAt(text: string, from: number): string {
  const nl = text.indexOf('\n', from);
  return text.slice(from, nl < 0 ? Math.min(text.length, from + 4000) : Math.min(nl, from + 4000));
}

/** The rest of the sentence after a marker: math delimiters kept whole, cut at a sentence end. */
/** Returned for an answer phrase followed by inline math that does not close on its line ("Answer $ <newline> 9 <newline> $"). */
const MALFORMED = '$';

function sentenceAfter(text: string, from: number): string {
  let s = text.slice(from, from + 4000);
  s = s.replace(/^\s+/, '');
  const delim = /^(\$\$|\$|\\\(|\\\[)/.exec(s);
  if (delim) {
    const close = delim[1] === '$$' ? '$$' : delim[1] === '$' ? '$' : delim[1] === '\\(' ? '\\)' : '\\]';
    let end = s.indexOf(close, delim[1]!.length);
    while (end > 0 && s[end - 1] === '\\' && close[0] === '$') end = s.indexOf(close, end + 1); // \$ is a dollar sign
    const inline = delim[1] === '$' || delim[1] === '\\(';
    const nl = s.indexOf('\n');
    // inline math ($...$, \(...\)) never crosses a line break: the answer after the marker is malformed
    if (inline && nl >= 0 && (end < 0 || nl < end)) return MALFORMED;
    if (end > 0) return s.slice(delim[1]!.length, end);
  }
  const nl = s.indexOf('\n');
  if (nl >= 0) s = s.slice(0, nl);
  const stop = /\.(?=\s|$)(?<!\d\.(?=\d))|[。！？]|(?<=\S)\s+(?:because|since|which|as|so|and\s+(?:the|this|that|it))\b/i.exec(s);
  if (stop) s = s.slice(0, stop.index);
  return s;
}

/** One LaTeX spacing command at the very end (`\\,`, `\\;`, `\\:`, `\\!`, `\\ `, `~`, `\\quad`, `\\qquad`, …). */
const SPACE_AT_END = /(?:~|\\[,;:! ]|\\(?:quad|qquad|enspace|thinspace|hfill)|\\hspace\*?\{[^{}]{0,12}\})$/;

/** Drops LaTeX spacing at the end of an answer (`5\\,`, `5\\quad`, `5\\ `): layout, never part of the value. At most 16 commands, from the end. */
function stripTrailingSpace(s: string): string {
  let t = s;
  for (let k = 0; ; k++) {
    // fast path: no spacing command or space ends with any other character
    if (!/[\s~,;:!dl}]/.test(t[t.length - 1] ?? '')) return t;
    let j = t.length;
    while (j > 0 && /\s/.test(t[j - 1]!)) j--;
    if (j < t.length && t[j - 1] === '\\') j++; // `\\ ` is a command (a space), kept for the next step
    t = t.slice(0, j);
    const m = SPACE_AT_END.exec(t.slice(-24));
    // an escaped backslash before it (`\\\\,`) makes it a row break and a comma: left alone
    if (!m || k === 16 || t[t.length - m[0].length - 1] === '\\') return t;
    t = t.slice(0, t.length - m[0].length);
  }
}

/** Trims markup around a candidate: bold markers, math delimiters, sentence punctuation ("!" only in prose). */
function cleanCandidate(s: string, prose = false): string {
  let t = stripTrailingSpace(s).trim();
  for (let k = 0; k < 3; k++) {
    const before = t;
    t = stripTrailingSpace(t);
    t = t.replace(/^\*\*|\*\*$/g, '').trim();
    if (t[0] === '"' || t[0] === '“' || t[0] === '\\') t = t.replace(/^\\?["“]([^"“”]*?)\\?["”]$/, '$1').trim(); // "quoted" answers
    t = t.replace(/^(?:\\\(|\\\[|\$\$?)|(?:\\\)|\\\]|(?<!\\)\$\$?)$/g, '').trim();
    t = t.replace(prose ? /[.;:!?,]+$/ : /[.;:?,]+$/, '').trim();
    if (t === before) break;
  }
  return t;
}

/** "A: 2000 hours * $15/hour = $30,000" -> "$30,000": the value after the last "=" of a worked line. */
function afterLastEquals(s: string): string {
  const t = s.replace(/<<[^<>]*>>/g, '');
  const eq = t.lastIndexOf('=');
  if (eq < 0 || t.slice(0, eq).includes('<') || t.slice(0, eq).includes('>')) return t;
  const lhs = t.slice(0, eq).trim();
  if (/^[A-Za-z](?:_\w+)?$/.test(lhs)) return t; // x = 5 stays an equation
  return t.slice(eq + 1);
}

/**
 * A number not glued to a preceding letter ("AZYUK2A" holds none): thousands groups (1,000.99),
 * a decimal comma (2,74 / 1000,99 / 0,111), a leading point (.4), an optional /denominator.
 */
const LAST_NUMBER = /(?<![\p{L}\d.])-?(?:\d{1,3}(?:,\d{3})+(?![\d,])|(?<!\d,)\d+,\d+(?![\d,])|\d+|(?=\.\d))(?:\.\d+)?(?:\s*\/\s*\d+)?/gu;

/** "2,74" -> "2.74" when the comma cannot be a thousands separator (not 1-3 digits then exactly 3). */
export function decimalComma(s: string): string {
  const m = /^(-?)(\d+),(\d+)$/.exec(s);
  if (!m) return s;
  if (/^[1-9]\d{0,2}$/.test(m[2]!) && m[3]!.length === 3) return s;
  return `${m[1]}${m[2]}.${m[3]}`;
}

interface Found {
  text: string;
  end: number;
}

function lastNumber(text: string, comma: boolean): Found | undefined {
  // scan the tail only: the last number sits near the end, and this keeps 1 MB outputs cheap
  const off = text.length > 2000 ? text.length - 2000 : 0;
  const tail = off ? text.slice(off) : text;
  let last: RegExpMatchArray | undefined;
  for (const m of tail.matchAll(LAST_NUMBER)) if (m[0] !== '') last = m;
  if (!last) return undefined;
  let t = last[0];
  const end = off + last.index! + t.length;
  if (off && last.index === 0) {
    // the number may continue before the tail window: take the whole digit run
    let i = off;
    for (let c = text.charCodeAt(i - 1); i > 0 && ((c >= 48 && c <= 57) || c === 44 || c === 46); c = text.charCodeAt(--i - 1));
    const m = /^-?[\d,.]+/.exec(text.slice(i));
    if (m) t = m[0];
  }
  const value = comma ? decimalComma(t) : t;
  // "the roots are 2 and -3": a short list of numbers joined by "and" ends the text
  const start = end - last[0].length;
  const list = /(?<![\d.,])(-?\d+(?:\.\d+)?(?:\s*,\s*-?\d+(?:\.\d+)?){0,6}),?\s+and\s+$/.exec(text.slice(Math.max(0, start - 80), start));
  return { text: list ? `${list[1]}, ${value}` : value, end };
}

interface Span {
  start: number;
  end: number;
  content: string;
}

const SPAN_TAIL = 6000;
const MAX_SPANS = 64;

/**
 * Math spans in the tail of a text, in order: $$...$$ and \[...\] (may span lines), $...$ and
 * \(...\) (one line). A backslash-escaped \$ is a dollar sign. Linear: each kind of closer that
 * is not found once is never searched again.
 */
function mathSpans(text: string): Span[] {
  const off = text.length > SPAN_TAIL ? text.length - SPAN_TAIL : 0;
  const spans: Span[] = [];
  const missing = new Set<string>();
  const find = (close: string, from: number): number => {
    if (missing.has(close)) return -1;
    let k = text.indexOf(close, from);
    while (k > 0 && close[0] === '$' && text[k - 1] === '\\') k = text.indexOf(close, k + 1);
    if (k < 0) missing.add(close);
    return k;
  };
  for (let i = off; i < text.length && spans.length < MAX_SPANS; i++) {
    const ch = text[i];
    if (ch === '\\') {
      const nx = text[i + 1];
      if (nx === '[' || nx === '(') {
        const close = nx === '[' ? '\\]' : '\\)';
        const k = find(close, i + 2);
        if (k >= 0 && (nx === '[' || !text.slice(i + 2, k).includes('\n'))) {
          spans.push({ start: i, end: k + 2, content: text.slice(i + 2, k) });
          i = k + 1;
          continue;
        }
      }
      i++; // skip the escaped character (\$ is not a delimiter)
      continue;
    }
    if (ch !== '$') continue;
    if (text[i + 1] === '$') {
      const k = find('$$', i + 2);
      if (k >= 0) {
        spans.push({ start: i, end: k + 2, content: text.slice(i + 2, k) });
        i = k + 1;
      } else i++;
      continue;
    }
    const k = find('$', i + 1);
    if (k < 0) continue;
    const nl = text.indexOf('\n', i + 1);
    if (nl >= 0 && nl < k) continue; // inline math does not cross a line break
    spans.push({ start: i, end: k + 1, content: text.slice(i + 1, k) });
    i = k;
  }
  return spans;
}

/** Content that reads as math, not prose or an empty pair of dollar signs. */
function mathLike(s: string): boolean {
  const t = s.trim();
  return t !== '' && looksLikeBareAnswer(t) && /[\p{L}\d\\]/u.test(t);
}

/** The last math span (adjacent spans joined by "," / "and"), with its end. */
function lastMath(text: string, phrases: boolean): Found | undefined {
  if (!text.includes('$') && !text.includes('\\(') && !text.includes('\\[')) return undefined;
  const spans = mathSpans(text);
  for (let k = spans.length - 1; k >= 0 && k >= spans.length - 8; k--) {
    if (!mathLike(spans[k]!.content)) continue;
    const parts = [spans[k]!.content.trim()];
    for (let j = k - 1; j >= 0 && parts.length < MAX_JOINED_BOXES; j--) {
      if (!mathLike(spans[j]!.content) || !joins(text.slice(spans[j]!.end, spans[j + 1]!.start), phrases)) break;
      parts.unshift(spans[j]!.content.trim());
    }
    return { text: parts.join(', '), end: spans[k]!.end };
  }
  return undefined;
}

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{3}/u;

/** Text that reads like a bare answer rather than prose. */
function looksLikeBareAnswer(s: string): boolean {
  if (s.length > 120 || s.includes('\n')) return false;
  const prose = s.replace(/\\[A-Za-z]+(\{[^{}]*\})?/g, ' ');
  // two words, or a word then a label ("So A: 18": a sentence, not the ratio S*o*A : 18), or a run of
  // three CJK characters (scripts without spaces: "所求的值为 5", "4입니다")
  return !/\p{L}{2,}\s+\p{L}{2,}/u.test(prose) && !/\p{L}{2,}\s+\p{L}\s*:/u.test(prose) && !CJK_RUN.test(prose);
}

/** A connective then another value ("2 and 3", "1 ou 2", "3 和 4"): a list goes on, so its first value is not the whole answer ("5 et non 7" is 5). */
const CONNECTIVE = /^(?:and|or|et|ou|y|o|und|oder|e|и|или|和|或|与|及)(?![\p{L}])\s*(?=[-\d$\\(])/iu;

/** A disjunction right after the value: the phrase offers alternatives. */
const DISJUNCTION = /^(?:or|ou|o|oder|или|либо|或|或者|还是|either)(?![\p{L}])/iu;
/** A copula then a value later in the remark: the phrase restates (or corrects) its value. */
const RESTATED = /(?:(?:^|[\s,，;；])(?:is|are|was|were|equals|be|gives|est|es|ist|lautet|è)\s*:?|[是为為=＝])\s*[-\d$\\]/iu;

/**
 * The value an answer phrase starts with, when a remark in words follows it ("7，验证 8",
 * "7 nach 2 Schritten", "7, con 2 pasos", "7 pour les 2 cas"): a number (thousands groups, a
 * decimal point, an optional /denominator and %) or one math span, then an optional clause mark,
 * then a word. Not when a connective joins another value to it ("2 and 3"), a disjunction
 * follows it ("7 or maybe 8"), or the remark states a value with a copula ("7，不对，是 8").
 */
export function leadingValue(s: string): string | undefined {
  const m = /^(-?(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+)(?:\.\d+)?(?:\s*\/\s*\d+)?%?|\$[^$\n]{1,200}\$|\\\([^\n]{1,200}?\\\))\s*[,，;；、]?\s*(?=\p{L})/u.exec(
    s.trim(),
  );
  if (!m) return undefined;
  const rest = s.trim().slice(m[0].length);
  // never a hedge or a correction: "7 or maybe 8", "7，不对，是 8", "7, which is 8" keep the whole phrase
  if (CONNECTIVE.test(rest) || DISJUNCTION.test(rest) || RESTATED.test(rest)) return undefined;
  return cleanCandidate(m[1]!);
}

/** A copula: a word standing alone, or a CJK one glued to its neighbours ("所求的值为 5"). */
const COPULA = /(?:(?:^|\s)(?:is|are|was|were|equals|be|gives|=|est|es|ist)|是|为|為)\s*:?\s*/giu;

/**
 * The value stated by an answer phrase that is itself prose: after its last copula outside math
 * ("The largest $n$ is 34" -> 34), else its last math span, else its last number.
 */
function answerInProse(s: string, opts: ExtractOptions, depth = 0): string {
  // "42 (checked with 6 and 7)", "42 — since ...": a value first, then a remark in words
  const lead = /^(-?\d[\d,]*(?:\.\d+)?%?|\$[^$\n]{1,200}\$)\s+(?:[([—–]|-\s)(?=[^)\]\\$]*\p{L}{2,})/u.exec(s);
  if (lead) return lead[1]!;
  if (looksLikeBareAnswer(s) || depth > 2) return s;
  const spans = mathSpans(s);
  const inSpan = (i: number) => spans.some((sp) => i >= sp.start && i < sp.end);
  let cut = -1;
  for (const m of s.matchAll(COPULA)) if (!inSpan(m.index!) && m.index! + m[0].length < s.length) cut = m.index! + m[0].length;
  if (cut >= 0) {
    const rest = cleanCandidate(s.slice(cut), true);
    if (rest && /[\d$\\]|^[A-Za-z](?:\W|$)/.test(rest)) return answerInProse(rest, opts, depth + 1);
  }
  // "donc 7 pour les 2 cas": the value right after the marker, not the last number of the remark
  const lv = leadingValue(s);
  if (lv) return lv;
  if (opts.last_math !== false) {
    const m = lastMath(s, opts.join_phrases !== false);
    const n = lastNumber(s, opts.decimal_comma !== false);
    if (m && (!n || m.end >= n.end)) return m.text;
    if (n) return n.text;
  } else {
    const n = lastNumber(s, opts.decimal_comma !== false);
    if (n) return n.text;
  }
  return s;
}

/**
 * Extracts the final answer. `reference` mode never falls back to the last number: a reference
 * without markers is taken whole.
 */
export function extractAnswer(text: string, opts: ExtractOptions = {}, role: 'output' | 'reference' = 'output'): Extracted | undefined {
  text = normalizeForms(text);
  let body: string | undefined = text;
  if (opts.skip_think !== false) {
    body = stripThink(text);
    if (body === undefined) return undefined;
  }
  // <answer>...</answer>
  const tagStart = body.lastIndexOf('<answer>');
  if (tagStart >= 0) {
    const close = body.indexOf('</answer>', tagStart);
    const inner = body.slice(tagStart + 8, close < 0 ? undefined : close);
    const nested = extractMarked(inner, opts);
    const t = cleanCandidate(nested?.text ?? inner);
    if (t) return { text: t, method: 'answer_tag' };
  }
  const marked = extractMarked(body, opts, role === 'reference');
  if (marked) return marked;
  if (role === 'reference') {
    const whole = cleanCandidate(body);
    return whole ? { text: whole, method: 'whole' } : undefined;
  }
  // a bolded number/expression beats the whole-text reading ("so **73**" is 73, not "so **73")
  const bold = lastBold(body);
  if (bold) return { text: bold, method: 'bold' };
  const trimmed = body.length <= 400 ? cleanCandidate(body) : '';
  if (opts.whole !== false && trimmed && looksLikeBareAnswer(trimmed)) return { text: trimmed, method: 'whole' };
  // the rightmost of the last math span and the last number
  const m = opts.last_math !== false ? lastMath(body, opts.join_phrases !== false) : undefined;
  const n = opts.last_number !== false ? lastNumber(body, opts.decimal_comma !== false) : undefined;
  if (m && (!n || m.end >= n.end)) return { text: cleanCandidate(m.text), method: 'last_math' };
  if (n) return { text: n.text, method: 'last_number' };
  return undefined;
}

/** The last math span of a text (for a reference that is prose without markers). */
export function extractLastMath(text: string, opts: ExtractOptions = {}): Extracted | undefined {
  text = normalizeForms(text);
  const body = opts.skip_think !== false ? stripThink(text) : text;
  const m = body === undefined ? undefined : lastMath(body, opts.join_phrases !== false);
  return m ? { text: cleanCandidate(m.text), method: 'last_math' } : undefined;
}

function extractMarked(body: string, opts: ExtractOptions = {}, reference = false, prose = true): Extracted | undefined {
  const phrases = opts.join_phrases !== false;
  const hasBox = body.includes('\\boxed') || body.includes('\\fbox');
  const boxed = hasBox ? lastBoxed(body, phrases, reference) : undefined;
  // with a box, only a marker after it matters; markers in other languages are looked for near the end only
  const scan = boxed ? body.slice(boxed.end) : body;
  const intl = opts.languages !== false && hasIntlMarker(scan);
  const lower = scan.length > 200_000 || intl || /answer/i.test(scan) ? body.toLowerCase() : '';
  const phrase = lower ? findAnswerPhrase(body, lower, intl) : undefined;
  const phraseText = (ph: Phrase) => {
    const after = sentenceAfter(body, ph.from);
    if (after === MALFORMED) return MALFORMED; // kept as is: it parses as no answer, and nothing else is guessed
    const raw = cleanCandidate(after, true);
    return raw && prose ? cleanCandidate(answerInProse(raw, opts), true) : raw;
  };
  if (boxed !== undefined) {
    const t = cleanCandidate(boxed.text);
    // "Final Answer: The final answer is $10,455$" after the last box overrides an earlier box
    if (phrase?.strong && phrase.at > boxed.end) {
      const f = phraseText(phrase);
      if (f && looksLikeBareAnswer(f)) return { text: f, method: 'answer_phrase' };
    }
    if (t) return { text: t, method: 'boxed' };
  }
  // the last of: "the answer is X", "Answer: X" / "A: X" lines, "#### X"
  // markers are searched from the end backwards (lastIndexOf), so a long output costs one pass
  const found: { at: number; get: () => string; method: ExtractMethod }[] = [];
  if (phrase) found.push({ at: phrase.at, get: () => phraseText(phrase), method: 'answer_phrase' });
  for (let from = body.length, n = 0; n < MAX_MARKER_CANDIDATES && from >= 0; n++) {
    const p = body.lastIndexOf('A:', from);
    if (p < 0) break;
    from = p - 1;
    let q = p;
    while (q > 0 && (body[q - 1] === ' ' || body[q - 1] === '\t')) q--;
    if (q === 0 || body[q - 1] === '\n') {
      found.push({ at: p, get: () => cleanCandidate(afterLastEquals(lineAt(body, p + 2)), true), method: 'answer_line' });
      break;
    }
  }
  const h = body.lastIndexOf('####');
  if (h >= 0) found.push({ at: h, get: () => cleanCandidate(afterLastEquals(lineAt(body, h + 4)), true), method: 'hash' });
  found.sort((a, b) => b.at - a.at);
  for (const f of found) {
    const t = f.get();
    if (t) return { text: t, method: f.method };
  }
  return undefined;
}

function lastBold(body: string): string | undefined {
  if (!body.includes('**')) return undefined;
  let last: string | undefined;
  for (const m of body.matchAll(/\*\*([^*\n]{1,80})\*\*/g)) {
    const t = cleanCandidate(m[1]!);
    if (/\d|\\/.test(t)) last = t;
  }
  return last;
}

const CHOICE = /^\(?\s*([A-J])\s*\)?$/;

/** The letter of a multiple-choice answer written as `B`, `(B)`, `\text{(B)}`, `B)`, or undefined. */
export function choiceLetter(s: string): string | undefined {
  // only the start can hold a choice ("B", "(B) because ..."): look at no more than that
  const head = s.length > 80 ? s.slice(0, 80) : s;
  if (!/[A-J]/.test(head)) return undefined;
  const t = head
    .replace(/\\(?:text|textbf|mathrm|mbox)\s*\{([^{}]*)\}/g, '$1')
    .replace(/[{}$*]/g, '')
    .trim();
  // a letter then a clause mark: ASCII ones before a space ("B) because"), CJK ones glued ("B，因为")
  const m = (head === s ? CHOICE.exec(t) : null) ?? /^\(?([A-J])(?:[).:]\s|[，。：；、）])/.exec(t + ' ');
  return m?.[1];
}

/**
 * A choice letter stands alone: no letter, digit, or operator, script or brace glued to it on either
 * side (nor `+ / ^ _` across spaces before it, `= + / ^ _` after it), so `2B+1`, `a + B`, `B = 2`,
 * `B^2`, `\\frac{B}{2}`, `AB` hold no choice while `(B)`, `B.`, `**B**`, `B - it is`, `B选项`, `选B` do.
 */
const NOT_BEFORE = String.raw`(?<![A-Za-z0-9'’^_{\\+\-/=]|[+/^_{\\]\s+)`;
const NOT_AFTER = String.raw`(?![A-Za-z0-9'’^_}+\-/=]|\s+[=+/^_])`;
const LEAD_LETTER = new RegExp(String.raw`^\(?([A-J])\)?${NOT_AFTER}`);
const MARKED_CHOICE = new RegExp(
  String.raw`\(([A-J])\)|(?:^|\n)[ \t]*\**([A-J])(?:[).:，。：；、）]|\**[ \t]*(?=\n|$))|(?:answer|option|choice)[^.\n]{0,50}?${NOT_BEFORE}\(?([A-J])\)?${NOT_AFTER}`,
  'gi',
);
const ALONE_LETTER = new RegExp(String.raw`${NOT_BEFORE}\(?([A-J])\)?${NOT_AFTER}(?!\s+[a-z])`, 'g');

/** The first letter A-J standing alone as a word ("for sure D, it can't be A or B" -> D). */
function firstStandaloneLetter(s: string): string | undefined {
  return /(?:^|[\s(*[])\(?([A-J])\)?(?=$|[\s).,:;*!?\]])/.exec(s)?.[1];
}

/** Finds a multiple-choice letter in a model output (the reference being a letter). */
export function extractChoice(text: string, opts: ExtractOptions = {}): Extracted | undefined {
  text = normalizeForms(text);
  let body: string | undefined = text;
  if (opts.skip_think !== false) body = stripThink(text);
  if (body === undefined) return undefined;
  const marked = extractMarked(body, opts, false, false);
  if (marked) {
    const t = marked.text.trim();
    const l = choiceLetter(t) ?? LEAD_LETTER.exec(t)?.[1] ?? firstStandaloneLetter(t.replace(/\\text\{([^{}]*)\}/g, '$1').slice(0, 60));
    if (l) return { text: l, method: 'choice' };
  }
  const tail = body.length > 4000 ? body.slice(-4000) : body;
  let last: string | undefined;
  for (const m of tail.matchAll(MARKED_CHOICE)) {
    const l = m[1] ?? m[2] ?? m[3];
    if (l) last = l.toUpperCase();
  }
  if (last) return { text: last, method: 'choice' };
  const whole = choiceLetter(body.trim());
  if (whole) return { text: whole, method: 'choice' };
  // the last letter standing alone near the end ("..., the right one is C."), not the article "A ball"
  const end = body.length > 300 ? body.slice(-300) : body;
  let alone: string | undefined;
  for (const m of end.matchAll(ALONE_LETTER)) alone = m[1];
  return alone ? { text: alone, method: 'choice' } : undefined;
}
