// Shared pieces of the verdict parsers: the parse result type, candidate selection (the verdict
// that ENDS LAST in the visible text wins; formats with an explicit key or marker beat a bare
// final line), refusal detection, and the size limit on judge output.
import { maskReasoning } from './reasoning.js';

/** Judge outputs longer than this are not parsed (limit_exceeded upstream). */
export const MAX_VERDICT_TEXT = 1_000_000;
/** Longest line (or JSON string value) that is matched as a bare verdict. */
export const MAX_VERDICT_LINE = 400;

export type ParseErrorCode = 'empty' | 'no_verdict' | 'out_of_range' | 'unknown_label' | 'unterminated_reasoning' | 'refusal' | 'too_long';

export interface VerdictOk<T> {
  ok: true;
  value: T;
  /** Which format carried the verdict: json, brackets, tag, keyed, final_line, fraction. */
  format: string;
  /** Offsets of the verdict's value in the raw output (for logprob lookup). */
  start: number;
  end: number;
  /** The verdict text as written, e.g. "8/10" or "[[B]]". */
  matched: string;
  /** Rationale extracted from a structured answer (JSON `steps`/`reasoning`), when present. */
  rationale?: string;
}

export interface VerdictErr {
  ok: false;
  error: ParseErrorCode;
  message: string;
}

export type Verdict<T> = VerdictOk<T> | VerdictErr;

export interface Candidate<T> {
  value: T | { invalid: ParseErrorCode; message: string };
  format: string;
  /** Span of the whole match (used to pick the last one). */
  end: number;
  /** Span of the value itself. */
  vstart: number;
  vend: number;
  matched: string;
  rationale?: string;
  /** Higher wins on equal end. */
  rank: number;
}

const FORMAT_RANK: Record<string, number> = { json: 5, brackets: 4, tag: 3, keyed: 2, final_line: 1, fraction: 0 };

export function rankOf(format: string): number {
  return FORMAT_RANK[format] ?? 0;
}

/** Picks the structured candidate that ends last; falls back to `fallback` candidates. */
export function choose<T>(structured: Candidate<T>[], fallback: Candidate<T>[]): Candidate<T> | undefined {
  const pick = (cs: Candidate<T>[]) => {
    let best: Candidate<T> | undefined;
    for (const c of cs) if (!best || c.end > best.end || (c.end === best.end && c.rank > best.rank)) best = c;
    return best;
  };
  return pick(structured) ?? pick(fallback);
}

const REFUSAL = [
  /^\W*(?:i['’]m|i am)\s+(?:sorry|afraid)\b[^\n]{0,120}?\b(?:can(?:no|['’])t|unable|won['’]t|not able|not comfortable|cannot)\b/i,
  /^\W*(?:sorry|i apologi[sz]e)[,.!]?\s[^\n]{0,120}?\b(?:can(?:no|['’])t|unable|won['’]t|not able|cannot)\b/i,
  /^\W*(?:i\s+(?:can(?:no|['’])t|cannot|won['’]t|will not|am unable to|am not able to|must decline to)|i['’]m\s+(?:unable|not able) to)\s+(?:help|assist|evaluate|judge|grade|rate|score|provide|comply|do that|fulfil|fulfill|complete|engage|participate|answer)/i,
  /^\W*as an ai\b[^\n]{0,100}?\b(?:can(?:no|['’])t|cannot|unable|not able)\b/i,
  /^\W*(?:i must|i have to) (?:decline|refuse)\b/i,
];

/** True when the visible answer opens with a refusal. Only consulted when no verdict was found. */
export function looksLikeRefusal(visible: string): boolean {
  const t = visible.trim().slice(0, 400);
  return REFUSAL.some((r) => r.test(t));
}

/** The last non-empty line of the visible text, with its offset. */
export function lastLine(text: string): { line: string; start: number } | undefined {
  let end = text.length;
  while (end > 0) {
    const nl = text.lastIndexOf('\n', end - 1);
    const line = text.slice(nl + 1, end);
    // a bare final verdict line is short; longer lines are never one, and the final-line patterns
    // (adjacent optional runs) would backtrack quadratically on a long line of brackets or stars
    if (line.trim() !== '') return line.length <= MAX_VERDICT_LINE ? { line, start: nl + 1 } : undefined;
    end = nl < 0 ? 0 : nl;
  }
  return undefined;
}

/** Masks reasoning, checks limits and emptiness; returns the visible text or an error. */
export function prepare(raw: string): { visible: string } | VerdictErr {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, error: 'empty', message: 'the judge answered with an empty message' };
  if (raw.length > MAX_VERDICT_TEXT) return { ok: false, error: 'too_long', message: `judge output is ${raw.length} characters (limit ${MAX_VERDICT_TEXT})` };
  const m = maskReasoning(raw);
  if (m.text.trim() === '') {
    return m.unterminated
      ? { ok: false, error: 'unterminated_reasoning', message: 'the judge output ends inside an unclosed reasoning block (no final verdict)' }
      : { ok: false, error: 'no_verdict', message: 'the judge output holds only reasoning, no final verdict' };
  }
  return { visible: m.text };
}

/** Turns the chosen candidate (or none) into a Verdict. */
export function finish<T>(c: Candidate<T> | undefined, visible: string, what: string): Verdict<T> {
  if (!c) {
    if (looksLikeRefusal(visible)) return { ok: false, error: 'refusal', message: `the judge refused: "${visible.trim().slice(0, 160)}"` };
    return { ok: false, error: 'no_verdict', message: `no ${what} found in the judge output` };
  }
  const v = c.value;
  if (v && typeof v === 'object' && 'invalid' in (v as object)) {
    const e = v as { invalid: ParseErrorCode; message: string };
    return { ok: false, error: e.invalid, message: e.message };
  }
  const out: VerdictOk<T> = { ok: true, value: v as T, format: c.format, start: c.vstart, end: c.vend, matched: c.matched };
  if (c.rationale !== undefined) out.rationale = c.rationale;
  return out;
}

/** Rationale text from a structured answer: `steps` (OpenAI grader shape) or a reasoning-like field. */
export function rationaleOf(obj: Record<string, unknown>): string | undefined {
  const steps = obj.steps;
  if (Array.isArray(steps)) {
    const parts = steps.map((s) => {
      if (typeof s === 'string') return s;
      if (s && typeof s === 'object') {
        const o = s as Record<string, unknown>;
        return [o.description, o.conclusion].filter((x) => typeof x === 'string' && x).join(' → ');
      }
      return '';
    });
    const t = parts.filter(Boolean).join('\n');
    if (t) return t;
  }
  for (const k of ['reasoning', 'rationale', 'explanation', 'justification', 'analysis', 'reason']) {
    const v = obj[k];
    if (typeof v === 'string' && v.trim()) return v;
  }
  return undefined;
}

export function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
