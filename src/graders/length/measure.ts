// Measuring text for the length and repetition graders: characters (Unicode code points), words
// (Python `str.split()` semantics, so counts match Python reward code) or tokens of a real BPE
// tokenizer (js-tiktoken with its bundled, offline encodings: o200k_base for GPT-4o/4.1/o-series,
// cl100k_base for GPT-4/3.5, p50k_base, r50k_base/gpt2). Encoders load once per thread (seconds),
// as start-up resources (core/startup.ts): the graders warm them before their first grade.
import { Tiktoken } from 'js-tiktoken/lite';
import { GradeFailure } from '../../core/result.js';
import { startupResource } from '../../core/startup.js';
import { pySplit } from '../text_similarity/text.js';

export const UNITS = ['chars', 'words', 'tokens'] as const;
export type Unit = (typeof UNITS)[number];
export const ENCODINGS = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const encoders = new Map<Encoding, () => Promise<Tiktoken>>();
/** Each encoding's pre-tokenisation pattern (its `pat_str`), to count the work of encoding a text. */
const patterns = new Map<Encoding, RegExp>();

async function loadRanks(enc: Encoding) {
  switch (enc) {
    case 'o200k_base':
      return (await import('js-tiktoken/ranks/o200k_base')).default;
    case 'cl100k_base':
      return (await import('js-tiktoken/ranks/cl100k_base')).default;
    case 'p50k_base':
      return (await import('js-tiktoken/ranks/p50k_base')).default;
    case 'r50k_base':
      return (await import('js-tiktoken/ranks/r50k_base')).default;
  }
}

/** The encoder, loaded on first call (a failed load is retried on the next). */
export function getEncoder(enc: Encoding): Promise<Tiktoken> {
  let load = encoders.get(enc);
  if (!load) {
    load = startupResource(`tokenizer ${enc}`, async () => {
      const ranks = await loadRanks(enc);
      patterns.set(enc, new RegExp(ranks.pat_str, 'gu'));
      const t = new Tiktoken(ranks);
      t.encode('warm up', [], []); // the first encode builds the encoder's lookup structures
      return t;
    });
    encoders.set(enc, load);
  }
  return load();
}

/** Non-whitespace runs longer than this are encoded in slices of this size (see tokenize). */
const RUN_SLICE = 64;
const LONG_RUN = new RegExp(`\\S{${RUN_SLICE + 1},}|\\s{${RUN_SLICE + 1},}`, 'g');
/**
 * Work budget for tokenizing one text, in units of BPE work: each pre-token of L UTF-8 bytes counts
 * L² (js-tiktoken merges a piece the map lacks pair by pair, rescanning it each time). Ordinary
 * English and code count about 7 units a character (1,000,000 characters fit); unspaced CJK, whose
 * pre-tokens are 64-character slices of 192 bytes, about 570 (some 35,000 characters fit). The count
 * depends on the text alone, so the same text gets the same verdict on any machine.
 */
export const TOKENIZE_WORK_BUDGET = 20_000_000;
/** Wall-clock safety net, far above the work budget's cost (about 2 s here): past it the machine failed, not the text. */
export const TOKENIZE_SAFETY_MS = 60_000;
/** Ordinary text is encoded in pieces of about this many characters, cut where no token can span. */
const PIECE = 1_024;
/** A stretch this long with no such place is cut anyway (may change the count by a token). */
const HARD_PIECE = 8_192;

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/**
 * A place in [from, to) where the tokenizers' pre-tokenisation splits whatever surrounds it, so
 * encoding the two sides separately gives the same tokens: before a single space between two
 * non-space characters, or after a single newline between two non-space characters (a longer
 * whitespace run at the end of a piece would be pre-tokenised differently). -1 if none.
 */
function safeCut(text: string, from: number, to: number): number {
  for (let j = Math.max(1, from); j < to; j++) {
    const c = text[j]!;
    if (
      c === ' '
        ? !isSpace(text[j - 1]) && text[j + 1] !== undefined && !isSpace(text[j + 1])
        : text[j - 1] === '\n' && !isSpace(c) && j >= 2 && !isSpace(text[j - 2])
    )
      return j;
  }
  return -1;
}

/** Splits ordinary text (no long runs) into pieces of about PIECE characters at safe cuts. */
function* pieces(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > PIECE) {
    let j = safeCut(text, start + PIECE, Math.min(text.length, start + HARD_PIECE));
    if (j < 0) j = Math.min(text.length, start + HARD_PIECE);
    yield text.slice(start, j);
    start = j;
  }
  if (start < text.length) yield text.slice(start);
}

/** Walks `text` as it is encoded: ordinary stretches to `ordinary`, each 64-character slice of a long run to `slice`. */
function forEachPart(text: string, ordinary: (part: string) => void, slice: (part: string) => void): void {
  let last = 0;
  LONG_RUN.lastIndex = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (m.index > last) ordinary(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += RUN_SLICE) slice(m[0].slice(i, i + RUN_SLICE));
    last = m.index + m[0].length;
  }
  if (last < text.length) ordinary(text.slice(last));
}

/**
 * Token ids of untrusted text: special-token strings such as <|endoftext|> are encoded as plain text.
 * BPE merging is quadratic in the length of one pre-token, and a pre-token is any run without
 * spaces: 8,000 `{` take 3 s, 100,000 take minutes. So runs longer than 64 characters are encoded in
 * 64-character slices (exact for ordinary text; on such runs the count may differ by a token per
 * slice). Everything else is encoded in pieces of about 1,024 characters cut where no token can
 * span (exact). The BPE work is counted first (TOKENIZE_WORK_BUDGET): past it the grade is
 * `limit_exceeded` on any machine alike; the wall clock, checked every piece, is only a safety net
 * (TOKENIZE_SAFETY_MS, `timeout`). (Under a timeout or a server deadline the grader also runs in a
 * killable worker thread: it is `cpu_heavy`.)
 */
export async function tokenize(text: string, enc: Encoding): Promise<number[]> {
  const t = await getEncoder(enc);
  if (text.length <= PIECE) {
    LONG_RUN.lastIndex = 0;
    if (!LONG_RUN.test(text)) return t.encode(text, [], []);
  }
  // the work is counted before anything is encoded (one pass of the pre-tokeniser over the text, with
  // long runs counted as the 64-character slices they are encoded in), so a text past the budget is
  // refused at once and the verdict never depends on how fast encoding goes
  const pattern = patterns.get(enc)!;
  let work = 0;
  const count = (part: string) => {
    for (const m of part.matchAll(pattern)) {
      const bytes = Buffer.byteLength(m[0]);
      work += bytes * bytes;
    }
  };
  forEachPart(text, count, count);
  if (work > TOKENIZE_WORK_BUDGET)
    throw new GradeFailure(
      'limit_exceeded',
      `tokenizing needs ${work} units of BPE work, over the budget of ${TOKENIZE_WORK_BUDGET} (Σ bytes² over pre-tokens; ${text.length} characters): the text is pathological for BPE`,
    );
  const deadline = performance.now() + TOKENIZE_SAFETY_MS;
  const ids: number[] = [];
  const add = (part: string) => {
    for (const id of t.encode(part, [], [])) ids.push(id);
    if (performance.now() > deadline)
      throw new GradeFailure(
        'timeout',
        `tokenizing ${text.length} characters took over ${TOKENIZE_SAFETY_MS} ms within its work budget: this machine is too slow or overloaded (the text is not at fault)`,
      );
  };
  forEachPart(
    text,
    (part) => {
      for (const p of pieces(part)) add(p);
    },
    add,
  );
  return ids;
}

export function countChars(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // a high surrogate followed by a low one is one code point
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

export function words(text: string): string[] {
  return pySplit(text);
}

export async function measure(text: string, unit: Unit, enc: Encoding): Promise<number> {
  switch (unit) {
    case 'chars':
      return countChars(text);
    case 'words':
      return words(text).length;
    case 'tokens':
      return (await tokenize(text, enc)).length;
  }
}
