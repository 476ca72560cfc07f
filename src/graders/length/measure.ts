// Measuring text for the length and repetition graders: characters (Unicode code points), words
// (Python `str.split()` semantics, so counts match Python reward code) or tokens of a real BPE
// tokenizer (js-tiktoken with its bundled, offline encodings: o200k_base for GPT-4o/4.1/o-series,
// cl100k_base for GPT-4/3.5, p50k_base, r50k_base/gpt2). Encoders load lazily, once per process.
import { Tiktoken } from 'js-tiktoken/lite';
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

/** Token ids of untrusted text: special-token strings such as <|endoftext|> are encoded as plain text. */
export async function tokenize(text: string, enc: Encoding): Promise<number[]> {
  return (await getEncoder(enc)).encode(text, [], []);
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
