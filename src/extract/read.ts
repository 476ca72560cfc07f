// The text a text grader scores (string_check, text_similarity, length, repetition, prm, ifeval,
// majority_vote): reasoning handled per `extract.think` (think.ts), then the source per
// `extract.from` — the whole text or its last fenced block (fence.ts). Also the one reason every
// grader gives when `think: "strip"` meets a reasoning block that never closes.
import { fencedBlocks } from './fence.js';
import type { ExtractSettings } from './options.js';
import { stripThink } from './think.js';

/** Where a text grader reads: the whole text, or the last fenced block (the whole text when there is none). */
export const TEXT_SOURCES = ['whole', 'fenced'] as const;
export type TextFrom = (typeof TEXT_SOURCES)[number];

/** The reason for an output whose reasoning never closes under `think: "strip"`; `what` says what is therefore missing. */
export function neverCloses(what: string): string {
  return `the reasoning block never closes (extract.think: strip): ${what}`;
}

/** What was read, for a result's `metadata.extracted`. */
export interface TextRead {
  /** `stripped`: a reasoning block was removed; `none`: strip found none; `kept`: reasoning read as text; `unclosed`: it never closes. */
  think: 'stripped' | 'none' | 'kept' | 'unclosed';
  from: string;
  /** With `from: "fenced"`: whether a fenced block was found (else the whole text was read). */
  fence_found?: boolean;
  /** Characters read. */
  chars?: number;
}

export type ReadText =
  /** `start`: where the text read begins in the input, when it is a suffix of it (stripping only); `changed`: it is not the input as given. */
  { ok: true; text: string; start: number | undefined; changed: boolean; read: TextRead } | { ok: false; read: TextRead };

/** Reads the text a grader scores out of `raw`; `ok: false` when stripping finds a reasoning block that never closes. */
export function readText(raw: string, s: ExtractSettings<string>): ReadText {
  let text = raw;
  let think: TextRead['think'] = 'kept';
  if (s.think === 'strip') {
    const body = stripThink(raw);
    if (body === undefined) return { ok: false, read: { think: 'unclosed', from: s.from } };
    think = body.length === raw.length ? 'none' : 'stripped';
    text = body;
  }
  // stripThink keeps a suffix of its input, so the text read starts this far in
  let start: number | undefined = raw.length - text.length;
  const read: TextRead = { think, from: s.from };
  if (s.from === 'fenced') {
    const last = fencedBlocks(text).at(-1);
    read.fence_found = last !== undefined;
    if (last) {
      text = last.body;
      start = undefined;
    }
  }
  read.chars = text.length;
  return { ok: true, text, start, changed: text !== raw, read };
}
