// A port of the run-time part of NLTK's Punkt sentence tokenizer (Kiss & Strunk 2006), as used by
// the IFEval reference `count_sentences`: candidate contexts, first-pass type annotation, the
// second pass (collocation, orthographic, sentence-starter, initial and number heuristics) and
// boundary realignment. Parameters come from punkt-params.ts instead of a trained model.
import { ABBREVIATIONS, COMMON_LOWERCASE, SENTENCE_STARTERS } from './punkt-params.js';
import { isLower, isUpper } from './pytext.js';

const ORTHO_BEG_UC = 1 << 1;
const ORTHO_MID_UC = 1 << 2;
const ORTHO_BEG_LC = 1 << 4;
const ORTHO_MID_LC = 1 << 5;
const ORTHO_UC = ORTHO_BEG_UC | ORTHO_MID_UC | (1 << 3);
const ORTHO_LC = ORTHO_BEG_LC | ORTHO_MID_LC | (1 << 6);

const NON_WORD = `(?:[)";}\\]*:@'({\\[!?])`;
const MULTI_CHAR = `(?:-{2,}|\\.{2,}|(?:\\.\\s){2,}\\.)`;
const WORD_TOKENIZER = new RegExp(
  `${MULTI_CHAR}|(?=[^("\`{\\[:;&#*@)}\\]\\-,])\\S+?(?=\\s|$|${NON_WORD}|${MULTI_CHAR}|,(?=$|\\s|${NON_WORD}|${MULTI_CHAR}))|\\S`,
  'gu',
);
const PERIOD_CONTEXT = new RegExp(`[.?!](?=(?<after>${NON_WORD}|\\s+(?<next>\\S+)))`, 'gdu');
const BOUNDARY_REALIGN = /^["')\]}]+?(?:\s+|(?=--)|(?![^\n]))/;
const RE_NUMERIC = /^-?[.,]?\p{Nd}[\p{Nd},.-]*\.?$/u;
const RE_ELLIPSIS = /^\.\.+$/;
const RE_INITIAL = /^[\p{L}_]\.$/u;
const SENT_END = new Set(['.', '?', '!']);
const PUNCTUATION = new Set([';', ':', ',', '.', '!', '?']);
const PY_WHITESPACE = ' \t\n\r\v\f';

interface Tok {
  tok: string;
  type: string;
  periodFinal: boolean;
  sentbreak: boolean;
  abbr: boolean;
  ellipsis: boolean;
}

function makeTok(tok: string): Tok {
  const lower = tok.toLowerCase();
  return {
    tok,
    type: RE_NUMERIC.test(lower) ? '##number##' : lower,
    periodFinal: tok.endsWith('.'),
    sentbreak: false,
    abbr: false,
    ellipsis: false,
  };
}

function typeNoPeriod(t: Tok): string {
  return t.type.length > 1 && t.type.endsWith('.') ? t.type.slice(0, -1) : t.type;
}

function typeNoSentPeriod(t: Tok): string {
  return t.sentbreak ? typeNoPeriod(t) : t.type;
}

function firstChar(s: string): string {
  return String.fromCodePoint(s.codePointAt(0)!);
}

/** Orthographic contexts of a word type, approximated from the common-word list. */
function orthoContext(type: string): number {
  return COMMON_LOWERCASE.has(type) ? ORTHO_BEG_UC | ORTHO_BEG_LC | ORTHO_MID_LC : 0;
}

function tokenizeWords(text: string): Tok[] {
  const out: Tok[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    for (const m of line.matchAll(WORD_TOKENIZER)) out.push(makeTok(m[0]));
  }
  return out;
}

function firstPass(t: Tok): void {
  const tok = t.tok;
  if (SENT_END.has(tok)) t.sentbreak = true;
  else if (RE_ELLIPSIS.test(tok)) t.ellipsis = true;
  else if (t.periodFinal && !tok.endsWith('..')) {
    const base = tok.slice(0, -1).toLowerCase();
    if (ABBREVIATIONS.has(base) || ABBREVIATIONS.has(base.split('-').pop()!)) t.abbr = true;
    else t.sentbreak = true;
  }
}

type Ortho = true | false | 'unknown';

function orthoHeuristic(t: Tok): Ortho {
  if (PUNCTUATION.has(t.tok)) return false;
  const ctx = orthoContext(typeNoSentPeriod(t));
  const c = firstChar(t.tok);
  if (isUpper(c) && ctx & ORTHO_LC && !(ctx & ORTHO_MID_UC)) return true;
  if (isLower(c) && (ctx & ORTHO_UC || !(ctx & ORTHO_BEG_LC))) return false;
  return 'unknown';
}

function secondPass(t1: Tok, t2: Tok | undefined): void {
  if (!t2 || !t1.periodFinal) return;
  const typ = typeNoPeriod(t1);
  const nextTyp = typeNoSentPeriod(t2);
  const isInitial = RE_INITIAL.test(t1.tok);
  if ((t1.abbr || t1.ellipsis) && !isInitial) {
    const s = orthoHeuristic(t2);
    if (s === true) {
      t1.sentbreak = true;
      return;
    }
    if (isUpper(firstChar(t2.tok)) && SENTENCE_STARTERS.has(nextTyp)) {
      t1.sentbreak = true;
      return;
    }
  }
  if (isInitial || typ === '##number##') {
    const s = orthoHeuristic(t2);
    if (s === false) {
      t1.sentbreak = false;
      t1.abbr = true;
      return;
    }
    if (s === 'unknown' && isInitial && isUpper(firstChar(t2.tok)) && !(orthoContext(nextTyp) & ORTHO_LC)) {
      t1.sentbreak = false;
      t1.abbr = true;
    }
  }
}

function containsSentbreak(text: string): boolean {
  const toks = tokenizeWords(text);
  for (const t of toks) firstPass(t);
  let found = false;
  for (let i = 0; i < toks.length; i++) {
    if (found) return true;
    secondPass(toks[i]!, toks[i + 1]);
    if (toks[i]!.sentbreak) found = true;
  }
  return false;
}

function lastWhitespaceIndex(s: string): number {
  for (let i = s.length - 1; i >= 0; i--) if (PY_WHITESPACE.includes(s[i]!)) return i;
  return 0;
}

interface Span {
  start: number;
  end: number;
}

function* potentialEnds(text: string): Generator<[RegExpExecArray, string]> {
  let prevSlice: Span = { start: 0, end: 0 };
  let prevMatch: RegExpExecArray | undefined;
  PERIOD_CONTEXT.lastIndex = 0;
  for (;;) {
    const m = PERIOD_CONTEXT.exec(text);
    if (!m) break;
    const before = text.slice(prevSlice.end, m.index);
    let idx = lastWhitespaceIndex(before);
    idx = idx ? idx + prevSlice.end + 1 : prevSlice.start;
    const wordSlice = { start: idx, end: m.index };
    if (prevMatch && prevSlice.end <= wordSlice.start) {
      yield [prevMatch, text.slice(prevSlice.start, prevSlice.end) + prevMatch[0] + (prevMatch.groups!.after ?? '')];
    }
    prevMatch = m;
    prevSlice = wordSlice;
  }
  if (prevMatch) yield [prevMatch, text.slice(prevSlice.start, prevSlice.end) + prevMatch[0] + (prevMatch.groups!.after ?? '')];
}

function* slices(text: string): Generator<Span> {
  let lastBreak = 0;
  for (const [m, context] of potentialEnds(text)) {
    if (containsSentbreak(context)) {
      const end = m.index + m[0].length;
      yield { start: lastBreak, end };
      lastBreak = m.groups!.next !== undefined ? m.indices!.groups!.next![0] : end;
    }
  }
  yield { start: lastBreak, end: text.replace(/\s+$/u, '').length };
}

/** Splits text into sentences the way `PunktSentenceTokenizer.tokenize` does. */
export function splitSentences(text: string): string[] {
  const spans = [...slices(text)];
  const out: string[] = [];
  let realign = 0;
  for (let i = 0; i < spans.length; i++) {
    const s1 = { start: spans[i]!.start + realign, end: spans[i]!.end };
    const s2 = spans[i + 1];
    if (!s2) {
      if (s1.end > s1.start) out.push(text.slice(s1.start, s1.end));
      continue;
    }
    const m = BOUNDARY_REALIGN.exec(text.slice(s2.start, s2.end));
    if (m) {
      out.push(text.slice(s1.start, s2.start + m[0].replace(/\s+$/u, '').length));
      realign = m[0].length;
    } else {
      realign = 0;
      if (s1.end > s1.start) out.push(text.slice(s1.start, s1.end));
    }
  }
  return out;
}

/** The reference `count_sentences`. */
export function countSentences(text: string): number {
  return splitSentences(text).length;
}
