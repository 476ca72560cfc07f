// First-error verdicts (a step judge in ProcessBench's critique format): the index of the earliest
// wrong paragraph, 0-based, or -1 when every paragraph is right. Read from the last `\boxed{k}` of
// the judge's own text (earlier boxes are its working; boxes it copied from the solution do not
// count), `[[k]]`, a JSON object {"first_error": k}, "Earliest error: paragraph k", or a final
// line holding only the index; the candidates then go through the shared selection (quotes of the
// graded steps dropped, conflicts refused) and the index must name a paragraph that exists.
import { findJsonObjects, pickKey, type JsonHit } from '../../../extract/json.js';
import { echoIndexOf, normalizeForEcho } from './quotes.js';
import {
  MAX_VERDICT_LINE,
  finish,
  lastLine,
  prepare,
  rankOf,
  rationaleOf,
  select,
  wholeJson,
  type Candidate,
  type ParseContext,
  type Span,
  type Verdict,
} from './verdict.js';

export interface FirstErrorOptions extends ParseContext {
  /** Number of paragraphs (steps): a valid index is -1 or 0..steps-1. */
  steps: number;
}

type V = number;
type C = Candidate<V>;

const INDEX = String.raw`-?\d{1,6}`;
const BOXED = new RegExp(
  String.raw`\\boxed\s*\{\s*(?:\\(?:text|textbf|mathrm|mathbf)\s*\{\s*)?(?:paragraph[\s_]*|step[\s_]*)?(${INDEX})\s*(?:\}\s*)?\}`,
  'gid',
);
const BRACKETS = new RegExp(String.raw`\[\[\s*(${INDEX})\s*\]\]`, 'gd');
const KEYED = new RegExp(
  String.raw`(?<![A-Za-z_])(?:earliest|first)[ _](?:error|mistake|incorrect|wrong)(?:[ _](?:paragraph|step))?(?:[ _]index)?\**\s*(?:[:=]|\bis\b)\s*\**\s*(?:paragraph[\s_]*|step[\s_]*)?(${INDEX})(?![\d.])`,
  'gid',
);
const FINAL_LINE = new RegExp(String.raw`^[\s*_#>\`]*(?:final\s+answer\s*[:=]?\s*)?[([]*\s*(${INDEX})\s*[)\]]*[\s*_\`.!]*$`, 'i');
const JSON_KEYS = [
  'first_error',
  'earliest_error',
  'first_error_index',
  'earliest_error_index',
  'first_wrong_step',
  'index',
  'result',
  'answer',
  'paragraph',
] as const;

function check(k: number, n: number): V | { invalid: 'out_of_range'; message: string } {
  if (Number.isInteger(k) && k >= -1 && k < n) return k;
  return { invalid: 'out_of_range', message: `the judge named paragraph ${k}, but the solution has paragraphs 0 to ${n - 1} (or -1 for none wrong)` };
}

function jsonCandidate(h: JsonHit, text: string, n: number): C | undefined {
  const k = pickKey(h.value, JSON_KEYS);
  if (!k) return undefined;
  let num: number | undefined;
  if (typeof k.value === 'number') num = k.value;
  else if (typeof k.value === 'string' && k.value.length <= MAX_VERDICT_LINE && new RegExp(`^\\s*${INDEX}\\s*$`).test(k.value)) num = Number(k.value);
  if (num === undefined) return undefined;
  const numText = typeof k.value === 'number' ? String(k.value) : String(k.value).trim();
  const at = text.lastIndexOf(numText, h.end);
  const vstart = at >= h.start ? at : h.start;
  const keyAt = text.slice(h.start, vstart).toLowerCase().lastIndexOf(k.key);
  const echoStart = keyAt >= 0 ? Math.max(h.start, h.start + keyAt - 1) : h.start;
  const c: C = {
    value: check(num, n),
    format: 'json',
    start: h.start,
    end: h.end,
    echo: [echoStart, vstart + numText.length],
    vstart,
    vend: vstart + numText.length,
    matched: text.slice(h.start, h.end),
    rank: rankOf('json'),
  };
  const r = rationaleOf(h.value);
  if (r !== undefined) c.rationale = r;
  return c;
}

export function parseFirstError(raw: string, options: FirstErrorOptions): Verdict<number> {
  const n = options.steps;
  const p = prepare(raw);
  if ('ok' in p) return p;
  const text = p.visible;
  const whole = wholeJson(text);
  if (whole) {
    const c = jsonCandidate(whole, text, n);
    if (c) return finish({ pick: c }, text, 'first-error index');
  }
  const structured: C[] = [];
  const make = (format: string, m: RegExpExecArray): C => {
    const lead = m[0].length - m[0].trimStart().length;
    const vstart = m.indices?.[1]?.[0] ?? m.index;
    return {
      value: check(Number(m[1]), n),
      format,
      start: m.index + lead,
      end: m.index + m[0].length,
      vstart,
      vend: vstart + m[1]!.length,
      matched: m[0].trim(),
      rank: rankOf(format),
    };
  };
  // only the last box of the judge's own text is its answer; boxes copied from the solution are not its own
  const echo = echoIndexOf(options.graded);
  let box: C | undefined;
  for (const m of text.matchAll(BOXED)) {
    const c = make('boxed', m);
    if (echo && normalizeForEcho(c.matched) && echo.has(c.matched)) continue;
    box = c;
  }
  if (box) structured.push(box);
  for (const m of text.matchAll(BRACKETS)) structured.push(make('brackets', m));
  for (const m of text.matchAll(KEYED)) structured.push(make('keyed', m));
  const jsonSpans: Span[] = [];
  for (const h of findJsonObjects(text)) {
    const c = jsonCandidate(h, text, n);
    if (!c) continue;
    structured.push(c);
    jsonSpans.push({ start: h.start, end: h.end });
  }
  const fallback = (): C[] => {
    const ll = lastLine(text);
    const m = ll && FINAL_LINE.exec(ll.line);
    if (!ll || !m) return [];
    const at = ll.start + ll.line.lastIndexOf(m[1]!);
    const lead = ll.line.length - ll.line.trimStart().length;
    return [
      {
        value: check(Number(m[1]), n),
        format: 'final_line',
        start: ll.start + lead,
        end: ll.start + ll.line.trimEnd().length,
        vstart: at,
        vend: at + m[1]!.length,
        matched: ll.line.trim(),
        rank: rankOf('final_line'),
      },
    ];
  };
  return finish(select({ structured, fallback, text, jsonSpans, ctx: options }, 'first-error index'), text, 'first-error index');
}
