// Text a judge copied rather than wrote: quoted blocks (Markdown blockquotes, fenced code blocks
// other than the JSON answer itself) are blanked without moving any character, and an echo index
// over the graded texts (the response under judgment) tells whether a verdict-looking span of the
// judge output also appears there, with the same token boundaries — a verdict the judge quotes
// from the response ("Score: 10" inside "Score: 1 … the response says Score: 10") is not its own.

function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^`\n]*)$/;

/**
 * Blanks blockquote lines (`> …`) and fenced code blocks, except a fence labelled `json` (or with
 * no label) whose content is a JSON object: that is the judge's structured answer. An unclosed
 * fence runs to the end of the text, as in Markdown.
 */
export function maskQuoted(text: string): string {
  if (!text.includes('>') && !text.includes('```') && !text.includes('~~~')) return text;
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    const m = FENCE.exec(lines[i]!);
    if (m) {
      const marker = m[1]!;
      const info = m[2]!.trim().toLowerCase();
      let j = i + 1;
      while (j < lines.length && !closes(lines[j]!, marker)) j++;
      const content = lines
        .slice(i + 1, j)
        .join('\n')
        .trim();
      const ownAnswer = (info === 'json' || info === '') && content.startsWith('{');
      if (!ownAnswer) for (let k = i; k <= Math.min(j, lines.length - 1); k++) lines[k] = blank(lines[k]!);
      i = j + 1;
      continue;
    }
    if (/^ {0,3}>/.test(lines[i]!)) lines[i] = blank(lines[i]!);
    i++;
  }
  return lines.join('\n');
}

/** True when `line` closes a fence opened with `marker` (the same character, at least as many). */
function closes(line: string, marker: string): boolean {
  const t = line.replace(/^ {0,3}/, '').trimEnd();
  if (t.length < marker.length) return false;
  for (let k = 0; k < t.length; k++) if (t[k] !== marker[0]) return false;
  return true;
}

const WORD = /[\p{L}\p{N}]/u;
const DIGIT = /\p{N}/u;

/** No zero-width breaks, lower case, whitespace runs as one space, no space next to punctuation, no emphasis marks. */
export function normalizeForEcho(s: string): string {
  return s
    .replace(/[\u200b\u2060\ufeff]/g, '') // zero-width breaks (the judge prompt's neutralised special tokens)
    .toLowerCase()
    .replace(/[*`]+/g, '')
    .replace(/\s+/g, ' ')
    .replace(/ ?([^\p{L}\p{N} ]) ?/gu, '$1')
    .trim();
}

/** Most distinct spans one parse checks; beyond it the answer is not one verdict. */
export const MAX_ECHO_CHECKS = 256;

/** Graded texts, normalised once, answering "does this judge span appear in them?". */
export class EchoIndex {
  private readonly texts: string[];
  private readonly memo = new Map<string, boolean>();

  constructor(graded: readonly string[]) {
    this.texts = graded.filter((t) => typeof t === 'string' && t.trim() !== '').map(normalizeForEcho);
  }

  get empty(): boolean {
    return this.texts.length === 0;
  }

  /** Distinct spans checked so far. */
  get checks(): number {
    return this.memo.size;
  }

  /**
   * True when `span` occurs in a graded text where its first and last tokens are whole there too:
   * "Score: 1" does not occur in "Score: 10", nor "Score: 8" in "Score: 8/10" or "Score: 8.5".
   */
  has(span: string): boolean {
    const needle = normalizeForEcho(span);
    if (needle === '') return false;
    const known = this.memo.get(needle);
    if (known !== undefined) return known;
    let found = false;
    for (const hay of this.texts) {
      for (let at = hay.indexOf(needle); at >= 0 && !found; at = hay.indexOf(needle, at + 1)) found = whole(hay, at, needle);
      if (found) break;
    }
    this.memo.set(needle, found);
    return found;
  }
}

function whole(hay: string, at: number, needle: string): boolean {
  if (WORD.test(needle[0]!) && at > 0 && WORD.test(hay[at - 1]!)) return false;
  const end = at + needle.length;
  if (WORD.test(needle[needle.length - 1]!) && end < hay.length) {
    const next = hay[end]!;
    if (WORD.test(next) || next === '%') return false;
    // a number that continues: 8 -> 8.5, 8 -> 8/10
    if ((next === '.' || next === '/') && DIGIT.test(needle[needle.length - 1]!) && end + 1 < hay.length && DIGIT.test(hay[end + 1]!)) return false;
  }
  return true;
}

const indexes = new WeakMap<readonly string[], EchoIndex>();

/** The echo index of `graded` (built once per array, so k judge samples of one grade share it). */
export function echoIndexOf(graded: readonly string[] | undefined): EchoIndex | undefined {
  if (!graded || graded.length === 0) return undefined;
  let idx = indexes.get(graded);
  if (!idx) {
    idx = new EchoIndex(graded);
    indexes.set(graded, idx);
  }
  return idx.empty ? undefined : idx;
}

/** Most characters of graded text collected from one sample (the rest is not searched). */
export const MAX_GRADED_CHARS = 4_000_000;

/**
 * Every string in a sample (the policy's output: text, JSON, tool calls, steps, messages), walked
 * iteratively with a depth and size bound: what a judge might quote from the graded output.
 */
export function gradedStrings(...roots: unknown[]): string[] {
  const out: string[] = [];
  let chars = 0;
  const stack: { v: unknown; d: number }[] = roots.map((v) => ({ v, d: 0 })).reverse();
  while (stack.length && chars < MAX_GRADED_CHARS) {
    const { v, d } = stack.pop()!;
    if (typeof v === 'string') {
      if (v.trim()) {
        out.push(v);
        chars += v.length;
      }
    } else if (v && typeof v === 'object' && d < 32) {
      const vals = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
      for (let i = vals.length - 1; i >= 0; i--) stack.push({ v: vals[i], d: d + 1 });
    }
  }
  return out;
}
