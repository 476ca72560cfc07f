// JSON in model outputs: parseJsonText reads the whole text or its first ```json fence as one JSON
// value (format's json check); findJsonObjects finds objects embedded in free text (bare or inside
// fences; judges' verdicts): a string-aware brace matcher proposes spans, JSON.parse confirms them.
// Bounded work for untrusted text.
import { jsonFenceBody } from './fence.js';

/** Where the JSON value is read from: the whole text, or the first ```json / untagged fence (else the whole text). */
export type JsonFrom = 'whole' | 'fenced';

export type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

/** Parses JSON text (no size check here: callers check max_chars first). */
export function parseJsonText(text: string, from: JsonFrom): Parsed {
  let src = text;
  if (from === 'fenced') {
    const body = jsonFenceBody(text);
    if (body !== undefined) src = body;
  }
  try {
    return { ok: true, value: JSON.parse(src) };
  } catch (e) {
    return { ok: false, reason: `not valid JSON: ${(e as Error).message}` };
  }
}

export interface JsonHit {
  value: Record<string, unknown>;
  start: number;
  end: number;
}

/** At most this many `{` are tried as object starts. */
const MAX_STARTS = 200;

/** Index just past the `}` that closes the `{` at `start`, or -1. */
function matchBrace(text: string, start: number): number {
  let depth = 0;
  let inStr = false;
  for (let i = start; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inStr) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inStr = false;
      continue;
    }
    if (ch === 34) inStr = true;
    else if (ch === 123 /* { */) depth++;
    else if (ch === 125 /* } */) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Top-level JSON objects in `text`, in order of position. */
export function findJsonObjects(text: string): JsonHit[] {
  const hits: JsonHit[] = [];
  let tries = 0;
  let i = text.indexOf('{');
  while (i >= 0 && tries < MAX_STARTS) {
    tries++;
    const end = matchBrace(text, i);
    if (end > 0) {
      try {
        const v: unknown = JSON.parse(text.slice(i, end));
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          hits.push({ value: v as Record<string, unknown>, start: i, end });
          i = text.indexOf('{', end);
          continue;
        }
      } catch {
        // not JSON: try the next brace
      }
    }
    i = text.indexOf('{', i + 1);
  }
  return hits;
}

/**
 * Looks up the first present key (case-insensitive) among `keys`, at the top level first, then
 * one level down (e.g. {"evaluation": {"score": 7}}).
 */
export function pickKey(obj: Record<string, unknown>, keys: readonly string[]): { key: string; value: unknown } | undefined {
  const lower = new Map(Object.entries(obj).map(([k, v]) => [k.toLowerCase(), v] as const));
  for (const k of keys) if (lower.has(k) && lower.get(k) !== null) return { key: k, value: lower.get(k) };
  for (const v of Object.values(obj)) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const inner = new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k.toLowerCase(), x] as const));
      for (const k of keys) if (inner.has(k) && inner.get(k) !== null) return { key: k, value: inner.get(k) };
    }
  }
  return undefined;
}
