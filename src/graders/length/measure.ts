// Measuring text for the length and repetition graders: characters (Unicode code points), words
// (Python `str.split()` semantics, so counts match Python reward code) or tokens of a real BPE
// tokenizer (js-tiktoken with its bundled, offline encodings: o200k_base for GPT-4o/4.1/o-series,
// cl100k_base for GPT-4/3.5, p50k_base, r50k_base/gpt2). Encoders load lazily, once per process.
import { Tiktoken } from 'js-tiktoken/lite';
import { GradeFailure } from '../../core/result.js';
import { pySplit } from '../similarity/text.js';

export const UNITS = ['chars', 'words', 'tokens'] as const;
export type Unit = (typeof UNITS)[number];
export const ENCODINGS = ['o200k_base', 'cl100k_base', 'p50k_base', 'r50k_base'] as const;
export type Encoding = (typeof ENCODINGS)[number];

const encoders = new Map<Encoding, Promise<Tiktoken>>();

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

export function getEncoder(enc: Encoding): Promise<Tiktoken> {
  let p = encoders.get(enc);
  if (!p) {
    p = loadRanks(enc).then((ranks) => new Tiktoken(ranks));
    p.catch(() => encoders.delete(enc));
    encoders.set(enc, p);
  }
  return p;
}

/** Non-whitespace runs longer than this are encoded in slices of this size (see tokenize). */
const RUN_SLICE = 64;
const LONG_RUN = new RegExp(`\\S{${RUN_SLICE + 1},}|\\s{${RUN_SLICE + 1},}`, 'g');
/** Wall-clock budget for tokenizing one text. */
export const TOKENIZE_BUDGET_MS = 2_000;

/**
 * Token ids of untrusted text: special-token strings such as <|endoftext|> are encoded as plain text.
 * BPE merging is quadratic in the length of one pre-token, and a pre-token is any run without
 * spaces: 8,000 `{` take 3 s, 100,000 take minutes. So runs longer than 64 characters are encoded in
 * 64-character slices (exact for ordinary text; on such runs the count may differ by a token per
 * slice), with a time budget on top: past it the grade is `limit_exceeded`.
 */
export async function tokenize(text: string, enc: Encoding): Promise<number[]> {
  const t = await getEncoder(enc);
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return t.encode(text, [], []);
  const deadline = performance.now() + TOKENIZE_BUDGET_MS;
  const ids: number[] = [];
  const add = (part: string) => {
    for (const id of t.encode(part, [], [])) ids.push(id);
    if (performance.now() > deadline) {
      throw new GradeFailure('limit_exceeded', `tokenizing took over ${TOKENIZE_BUDGET_MS} ms (${text.length} characters); the text is pathological for BPE`);
    }
  };
  let last = 0;
  LONG_RUN.lastIndex = 0;
  for (const m of text.matchAll(LONG_RUN)) {
    if (m.index > last) add(text.slice(last, m.index));
    for (let i = 0; i < m[0].length; i += RUN_SLICE) add(m[0].slice(i, i + RUN_SLICE));
    last = m.index + m[0].length;
  }
  if (last < text.length) add(text.slice(last));
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
