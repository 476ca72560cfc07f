// Shared pieces of the verdict parsers: the parse result type, the judge's own text (reasoning and
// quoted blocks hidden), candidate selection — verdicts the judge copied from the graded response
// are dropped, the rest must agree (or the ones marked final must), and the one that ends last
// gives the offsets; formats with an explicit key or marker beat a bare final line — refusal
// detection, the size limit on judge output — and the parse skeleton every verdict kind runs
// (whole-answer JSON, marked formats, JSON objects, bare fallback) with its candidate builders.
// A parse that fails because of verdict-like text the response under judgment wrote (the judge's
// only verdict is a copy of it, or its conflicting verdicts repeat the response's) is `planted`:
// the graders score that as the response's floor, never as an invalid grade it could hide behind.
import { findJsonObjects, type JsonHit } from '../../../extract/json.js';
import { echoIndexOf, maskQuoted, MAX_ECHO_CHECKS, normalizeForEcho, type EchoIndex } from './quotes.js';
import { maskReasoning } from '../../../extract/think.js';

/** Judge outputs longer than this are not parsed (limit_exceeded upstream). */
export const MAX_VERDICT_TEXT = 1_000_000;
/** Longest line (or JSON string value) that is matched as a bare verdict. */
export const MAX_VERDICT_LINE = 400;

export type ParseErrorCode =
  | 'empty'
  | 'no_verdict'
  | 'out_of_range'
  | 'unknown_label'
  | 'unterminated_reasoning'
  | 'refusal'
  | 'too_long'
  | 'ambiguous'
  | 'truncated'
  | 'planted';

/** What a parser knows besides the judge output. */
export interface ParseContext {
  /**
   * The texts under judgment (the response, both responses of a pair, the sample's strings): a
   * verdict-looking span of the judge output that also appears in one of them is a quotation.
   */
  graded?: readonly string[];
  /**
   * The texts the response under judgment wrote (default: `graded`). When a parse fails and the
   * judge output copies verdict-like text from them, or its conflicting verdicts carry the values
   * of verdict markers found in them, the result is `planted` (the response is to blame).
   */
  response?: readonly string[];
}

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
  /** With `planted`: the response's verdict-like spans behind the failure (at most 4, clipped). */
  planted?: string[];
}

export type Verdict<T> = VerdictOk<T> | VerdictErr;

export interface Candidate<T> {
  value: T | { invalid: ParseErrorCode; message: string };
  format: string;
  /** Start of the whole match. */
  start: number;
  /** End of the whole match (used to pick the last one). */
  end: number;
  /** Span checked against the graded texts (default start..end): for JSON, the key and its value. */
  echo?: [number, number];
  /** Span of the value itself. */
  vstart: number;
  vend: number;
  matched: string;
  rationale?: string;
  /** Higher wins on equal end. */
  rank: number;
  /** Only the last surviving candidate with this flag counts (a judge's `\boxed{}`: earlier ones are its working). */
  lastOnly?: boolean;
}

const FORMAT_RANK: Record<string, number> = { json: 5, brackets: 4, tag: 3, keyed: 2, final_line: 1, fraction: 0 };

export function rankOf(format: string): number {
  return FORMAT_RANK[format] ?? 0;
}

/** Candidates shorter than this (normalised) are never treated as echoes when they carry no key or marker. */
const MIN_BARE_ECHO = 8;

/** Span of a verdict object found in the text: key/marker matches inside it are its own content. */
export interface Span {
  start: number;
  end: number;
}

export interface SelectInput<T> {
  /** Candidates in keyed/marked formats (json, brackets, tag, keyed). */
  structured: Candidate<T>[];
  /** Builds bare candidates (final line, fraction); consulted only when no structured one is left. */
  fallback: () => Candidate<T>[];
  /** The visible judge text the offsets point into. */
  text: string;
  /** JSON objects that carry a verdict key. */
  jsonSpans: Span[];
  ctx?: ParseContext;
}

export type Selection<T> = { pick?: Candidate<T>; error?: VerdictErr };

function valueKey(c: Candidate<unknown>): string {
  const v = c.value as unknown;
  if (v && typeof v === 'object' && 'invalid' in (v as object)) return `invalid:${(v as { invalid: string }).invalid}`;
  if (v && typeof v === 'object' && 'score' in (v as object)) return `score:${(v as { score: number }).score}`;
  return JSON.stringify(v);
}

/** True when the candidate, or its line before it, says it is the final/overall verdict. */
function markedFinal(c: Candidate<unknown>, text: string): boolean {
  // the 80 characters before it on its line (bounded: many candidates on one huge line stay linear)
  const seg = text.slice(Math.max(0, c.start - 80), c.start);
  const before = seg.slice(seg.lastIndexOf('\n') + 1);
  return /\b(?:final|overall)\b/i.test(before) || /^["'<]?(?:final|overall|total)[\s_]/i.test(c.matched);
}

function last<T>(cs: Candidate<T>[]): Candidate<T> {
  let best = cs[0]!;
  for (const c of cs) if (c.end > best.end || (c.end === best.end && c.rank > best.rank)) best = c;
  return best;
}

/** Drops quoted candidates (echoes of the graded texts); undefined when there were too many to check. */
function own<T>(cs: Candidate<T>[], text: string, echo: EchoIndex | undefined, bare: boolean): Candidate<T>[] | undefined {
  if (!echo || cs.length === 0) return cs;
  // a quotation mark the judge put around a quote is not part of what it quoted
  const spans = cs.map((c) => echoSpan(c, text));
  if (new Set(spans.map(normalizeForEcho)).size > MAX_ECHO_CHECKS) return undefined;
  return cs.filter((_c, i) => {
    const s = spans[i]!;
    if (bare && normalizeForEcho(s).length < MIN_BARE_ECHO) return true;
    return !echo.has(s);
  });
}

/** Characters before a `lastOnly` candidate that must also be copied for it to count as a quotation when it is the judge's only one. */
const ECHO_CONTEXT = 40;

/**
 * Keeps only the last surviving `lastOnly` candidate. When every one was dropped as a quotation and
 * nothing else is left, the last one still counts if it stands alone on the judge's last line and
 * the text before it is not copied too: a final `\boxed{1}` line after the judge's own words is its
 * answer even when the solution's answer is also `\boxed{1}`.
 */
function lastOnly<T>(kept: Candidate<T>[], all: Candidate<T>[], text: string, echo: EchoIndex | undefined): Candidate<T>[] {
  const lo = kept.filter((c) => c.lastOnly);
  if (lo.length) {
    const keep = last(lo);
    return kept.filter((c) => !c.lastOnly || c === keep);
  }
  const dropped = all.filter((c) => c.lastOnly);
  if (kept.length || !dropped.length || !echo) return kept;
  const c = last(dropped);
  const lineStart = text.lastIndexOf('\n', c.start - 1) + 1;
  const alone = /^[\s*_#`$([]*(?:final\s+answer\s*[:=]?\s*)?[\s$]*$/i.test(text.slice(lineStart, c.start)) && /^[\s$.!*_`)\]]*$/.test(text.slice(c.end));
  if (!alone) return kept;
  const from = Math.max(0, c.start - ECHO_CONTEXT);
  // start at a word boundary (a cut word never matches whole), with the masked-out blanks dropped
  let before = text.slice(from, c.start);
  if (from > 0) before = before.replace(/^\S*\s/, '');
  const withContext = `${before.replace(/\s+/g, ' ').trimStart()}${text.slice(c.start, c.end)}`;
  return normalizeForEcho(before) !== '' && !echo.has(withContext) ? [...kept, c] : kept;
}

/** Whether [start, end) overlaps any of the (all quoted) candidates: merged spans, binary search. */
function quotedCoverage(cs: Candidate<unknown>[]): (start: number, end: number) => boolean {
  const spans = cs.map((c) => [c.start, c.end] as [number, number]).sort((a, b) => a[0] - b[0]);
  const merged: [number, number][] = [];
  for (const sp of spans) {
    const top = merged[merged.length - 1];
    if (top && sp[0] <= top[1]) top[1] = Math.max(top[1], sp[1]);
    else merged.push([sp[0], sp[1]]);
  }
  return (start, end) => {
    let lo = 0;
    let hi = merged.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const [a, b] = merged[mid]!;
      if (b <= start) lo = mid + 1;
      else if (a >= end) hi = mid - 1;
      else return true;
    }
    return false;
  };
}

function decide<T>(cs: Candidate<T>[], text: string, what: string): Selection<T> {
  const keys = new Set(cs.map(valueKey));
  if (keys.size <= 1) return { pick: last(cs) };
  const finals = cs.filter((c) => markedFinal(c, text));
  if (finals.length && new Set(finals.map(valueKey)).size === 1) return { pick: last(finals) };
  const shown = [...new Map(cs.map((c) => [valueKey(c), c.matched.slice(0, 40)])).values()].slice(0, 4).map((m) => `"${m}"`);
  return {
    error: {
      ok: false,
      error: 'ambiguous',
      message: `the judge output holds conflicting ${what}s (${shown.join(', ')}) and none is marked final; not guessing which is the judge's own`,
    },
  };
}

/**
 * Picks the judge's verdict: candidates inside quoted text (echoes of the graded output) and
 * key/marker matches inside a verdict JSON object do not count; the rest must agree — or, when
 * they conflict, those marked final/overall must — and the one that ends last is returned. With no
 * structured candidate left, the bare formats go through the same rules.
 */
export function select<T>(inp: SelectInput<T>, what: string): Selection<T> {
  const echo = echoIndexOf(inp.ctx?.graded);
  const tooMany: Selection<T> = {
    error: { ok: false, error: 'ambiguous', message: `the judge output holds more than ${MAX_ECHO_CHECKS} different ${what}-like spans` },
  };
  const outsideJson = inp.structured.filter((c) => c.format === 'json' || !inp.jsonSpans.some((j) => c.start >= j.start && c.end <= j.end));
  const kept = own(outsideJson, inp.text, echo, false);
  if (!kept) return tooMany;
  const structured = lastOnly(kept, outsideJson, inp.text, echo);
  if (structured.length) return decide(structured, inp.text, what);
  // a bare verdict over text already found to be quoted (a final line "[[A]]" that is the echo) stays quoted
  const covered = quotedCoverage(outsideJson);
  const fallback = own(
    inp.fallback().filter((f) => !covered(f.start, f.end)),
    inp.text,
    echo,
    true,
  );
  if (!fallback) return tooMany;
  if (fallback.length) return decide(fallback, inp.text, what);
  return {};
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

/** Masks reasoning and quoted blocks, checks limits and emptiness; returns the visible text or an error. */
export function prepare(raw: string): { visible: string } | VerdictErr {
  if (typeof raw !== 'string' || raw.trim() === '') return { ok: false, error: 'empty', message: 'the judge answered with an empty message' };
  if (raw.length > MAX_VERDICT_TEXT) return { ok: false, error: 'too_long', message: `judge output is ${raw.length} characters (limit ${MAX_VERDICT_TEXT})` };
  const m = maskReasoning(raw);
  if (m.text.trim() === '') {
    return m.unterminated
      ? { ok: false, error: 'unterminated_reasoning', message: 'the judge output ends inside an unclosed reasoning block (no final verdict)' }
      : { ok: false, error: 'no_verdict', message: 'the judge output holds only reasoning, no final verdict' };
  }
  const visible = maskQuoted(m.text);
  if (visible.trim() === '')
    return { ok: false, error: 'no_verdict', message: 'the judge output holds only quoted text (blockquotes or code blocks), no verdict of its own' };
  return { visible };
}

/** Turns the selection (a candidate, an ambiguity, or none) into a Verdict. */
export function finish<T>(sel: Selection<T>, visible: string, what: string): Verdict<T> {
  if (sel.error) return sel.error;
  const c = sel.pick;
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

/** The whole visible answer as one JSON object (bare, or alone in a ```json fence), if it is one. */
export function wholeJson(text: string): { value: Record<string, unknown>; start: number; end: number } | undefined {
  const t = text.trim();
  if (!t.startsWith('{') && !t.startsWith('```')) return undefined;
  const fence = /^```[ \t]*(?:json)?[ \t]*\n([\s\S]*?)\n?```$/i.exec(t);
  const body = fence ? fence[1]! : t;
  if (!body.trim().startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(body);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
    const start = text.indexOf(body.trim());
    return { value: v as Record<string, unknown>, start, end: start + body.trim().length };
  } catch {
    return undefined;
  }
}

/** A candidate from a regex match whose group `idx` holds the value as written. */
export function matchCandidate<T>(format: string, m: RegExpExecArray, idx: number, value: Candidate<T>['value']): Candidate<T> {
  const token = m[idx]!;
  const vstart = m.indices?.[idx]?.[0] ?? m.index;
  const lead = m[0].length - m[0].trimStart().length;
  return {
    value,
    format,
    start: m.index + lead,
    end: m.index + m[0].length,
    vstart,
    vend: vstart + token.length,
    matched: m[0].trim(),
    rank: rankOf(format),
  };
}

/** A bare final-line candidate: the whole (trimmed) line, its value `token` at offset `at`. */
export function lineCandidate<T>(ll: { line: string; start: number }, at: number, token: string, value: Candidate<T>['value']): Candidate<T> {
  const lead = ll.line.length - ll.line.trimStart().length;
  return {
    value,
    format: 'final_line',
    start: ll.start + lead,
    end: ll.start + ll.line.trimEnd().length,
    vstart: at,
    vend: at + token.length,
    matched: ll.line.trim(),
    rank: rankOf('final_line'),
  };
}

/**
 * The candidate of a verdict JSON object whose `key` holds `token`: the value is its last
 * occurrence in the object, and the echo span runs from the key to the value. `inner` narrows the
 * value offsets to the part inside the token's marks ("[[YES]]" -> YES), and then the echo span
 * takes in the string's closing quote.
 */
export function objectCandidate<T>(
  h: JsonHit,
  text: string,
  key: string,
  token: string,
  value: Candidate<T>['value'],
  inner?: { lead: number; length: number },
): Candidate<T> {
  const at = text.lastIndexOf(token, h.end);
  const tokStart = at >= h.start ? at : h.start;
  const keyAt = text.slice(h.start, tokStart).toLowerCase().lastIndexOf(key);
  const echoStart = keyAt >= 0 ? Math.max(h.start, h.start + keyAt - 1) : h.start;
  const vstart = tokStart + (inner?.lead ?? 0);
  const vend = vstart + (inner?.length ?? token.length);
  const c: Candidate<T> = {
    value,
    format: 'json',
    start: h.start,
    end: h.end,
    echo: [echoStart, inner ? Math.min(h.end, tokStart + token.length + 1) : vend],
    vstart,
    vend,
    matched: text.slice(h.start, h.end),
    rank: rankOf('json'),
  };
  const r = rationaleOf(h.value);
  if (r !== undefined) c.rationale = r;
  return c;
}

/** How one verdict kind reads its candidates out of the visible judge text. */
export interface VerdictFormats<T> {
  /** The candidate of a JSON object, when it carries a verdict key. */
  json(h: JsonHit, text: string): Candidate<T> | undefined;
  /** Candidates in the keyed/marked text formats (brackets, tags, "Key: value", ...). */
  marked(text: string): Candidate<T>[];
  /** Bare candidates (final line, fractions); consulted only when no structured one is left. */
  bare(text: string): Candidate<T>[];
}

/**
 * The parse every verdict kind runs: limits and masking, then a whole-answer JSON object (structured
 * output) read by its own key whatever its strings quote; otherwise the marked formats and the JSON
 * objects in the text go through the shared selection, with the bare formats as the fallback.
 */
export function parseVerdict<T>(raw: string, what: string, ctx: ParseContext, f: VerdictFormats<T>): Verdict<T> {
  const p = prepare(raw);
  if ('ok' in p) return blamed(p, raw, what, ctx, f);
  const text = p.visible;
  const whole = wholeJson(text);
  if (whole) {
    const c = f.json(whole, text);
    if (c) {
      // structured output: the verdict slot is the judge's own, unless it is a copy of the graded text
      const echo = echoIndexOf(ctx.graded);
      if (echo?.has(echoSpan(c, text))) {
        const copied: VerdictErr = {
          ok: false,
          error: 'ambiguous',
          message: `the judge's structured ${what} (${JSON.stringify(echoSpan(c, text).slice(0, 60))}) is copied from a graded text: it cannot be told from a quotation`,
        };
        return blamed(copied, raw, what, ctx, f);
      }
      return blamed(finish({ pick: c }, text, what), raw, what, ctx, f);
    }
  }
  const structured = f.marked(text);
  const jsonSpans: Span[] = [];
  for (const h of findJsonObjects(text)) {
    const c = f.json(h, text);
    if (!c) continue;
    structured.push(c);
    jsonSpans.push({ start: h.start, end: h.end });
  }
  return blamed(finish(select({ structured, fallback: () => f.bare(text), text, jsonSpans, ctx }, what), text, what), raw, what, ctx, f);
}

/** The span of a candidate compared with the graded texts (without a leading quotation mark). */
function echoSpan(c: Candidate<unknown>, text: string): string {
  return text.slice(c.echo?.[0] ?? c.start, c.echo?.[1] ?? c.end).replace(/^["'\u201c\u2018*]+/, '');
}

/** Failures the response can cause (the judge's own output problems, limits and truncation are not). */
const BLAMEABLE = new Set<ParseErrorCode>(['ambiguous', 'no_verdict', 'out_of_range', 'unknown_label', 'refusal']);

/** Most characters of one response text searched for verdict markers. */
const MAX_MARKER_SCAN = 1_000_000;

/** The value of a candidate as a comparable token ("10", "a", "yes"). */
function valueToken(c: Candidate<unknown>, text: string): string {
  return normalizeForEcho(text.slice(c.vstart, c.vend)).replace(/^[[("'<{]+|[\])"'>}.!]+$/g, '');
}

/** Candidates of a text in the keyed/marked and JSON formats (bare ones left out: a final "10" line is no marker). */
function markersOf<T>(text: string, f: VerdictFormats<T>): Candidate<T>[] {
  const out = [...f.marked(text)];
  for (const h of findJsonObjects(text)) {
    const c = f.json(h, text);
    if (c) out.push(c);
  }
  return out;
}

/**
 * `v` unchanged, or — when it is a failure the response can cause and the response is behind it —
 * `planted`: the judge output (reasoning hidden, quoted blocks included) holds a verdict-like span
 * copied from a response text, or a candidate whose value is that of a verdict marker the response
 * itself carries (the judge's conflicting verdicts repeat the response's).
 */
function blamed<T>(v: Verdict<T>, raw: string, what: string, ctx: ParseContext, f: VerdictFormats<T>): Verdict<T> {
  if (v.ok || !BLAMEABLE.has(v.error)) return v;
  const texts = ctx.response ?? ctx.graded;
  const resp = echoIndexOf(texts);
  if (!texts || !resp || typeof raw !== 'string' || raw.length > MAX_VERDICT_TEXT) return v;
  const visible = maskReasoning(raw).text;
  const cands = markersOf(visible, f);
  const whole = wholeJson(visible);
  const wc = whole && f.json(whole, visible);
  if (wc) cands.push(wc);
  const bare = f.bare(visible);
  const shown: string[] = [];
  const spans = new Set<string>();
  for (const c of [...cands, ...bare]) {
    const s = echoSpan(c, visible);
    const n = normalizeForEcho(s);
    if (n === '' || spans.has(n) || spans.size >= MAX_ECHO_CHECKS) continue;
    spans.add(n);
    if (bare.includes(c) && n.length < MIN_BARE_ECHO) continue;
    if (resp.has(s)) shown.push(visible.slice(c.echo?.[0] ?? c.start, c.echo?.[1] ?? c.end));
  }
  if (!shown.length) {
    const values = new Set([...cands, ...bare].map((c) => valueToken(c, visible)).filter(Boolean));
    if (values.size) {
      for (const t of texts) {
        if (typeof t !== 'string' || shown.length >= 4) continue;
        const scan = t.length > MAX_MARKER_SCAN ? t.slice(0, MAX_MARKER_SCAN) : t;
        for (const m of markersOf(scan, f)) if (values.has(valueToken(m, scan))) shown.push(m.matched);
      }
    }
  }
  if (!shown.length) return v;
  // distinct spans, none inside another one shown ("Verdict: [[YES" inside "Verdict: [[YES]]")
  const distinct = [...new Set(shown.map((s) => s.replace(/\s+/g, ' ').trim()))];
  const list = distinct
    .filter((s) => !distinct.some((o) => o !== s && o.includes(s)))
    .map((s) => s.slice(0, 60))
    .slice(0, 4);
  return {
    ok: false,
    error: 'planted',
    planted: list,
    message: `the response contains ${what} markers (${list.map((s) => JSON.stringify(s)).join(', ')}) that the judge's output repeats or cannot be told from (${v.error}: ${v.message})`,
  };
}
