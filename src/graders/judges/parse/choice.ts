// Generic parser for categorical verdicts (pairwise winner, yes/no, labels): the same five formats
// as numeric scores — JSON key, [[value]], <tag>value</tag>, "Key: value", a final line holding
// only the value — with the value vocabulary supplied by each verdict kind. A whole-answer JSON
// object (structured output) is read by its own key; otherwise the candidates go through the
// shared selection (quotes of the graded response dropped, conflicts refused).
import { findJsonObjects, pickKey, type JsonHit } from '../../../extract/json.js';
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
  type ParseErrorCode,
  type Span,
  type Verdict,
} from './verdict.js';

/** Case-insensitive regex source for a literal word (no flags needed, so values can stay case-sensitive). */
export function ci(word: string): string {
  return word.replace(/[A-Za-z]/g, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`).replace(/ /g, String.raw`[\s_]+`);
}

export interface ChoiceSpec<T> {
  /** What the verdict is called in messages ("pairwise verdict"). */
  what: string;
  /** Regex source (no capturing groups) matching one value token in running text. */
  value: string;
  /** Maps a matched token (or a whole JSON/tag string) to the value; undefined = not a value. */
  canon(token: string): T | undefined;
  /** Keys for "Key: value" (plain words; matched case-insensitively). */
  keys: string[];
  /** JSON keys (lower-case). */
  jsonKeys: string[];
  /** Tag names for <tag>value</tag>. */
  tags: string[];
  /** Values from JSON booleans/numbers, when meaningful. */
  fromBool?(b: boolean): T | undefined;
  fromNumber?(n: number): T | undefined;
  /** When a structured slot holds an unknown value: report it ('unknown_label') instead of ignoring it. */
  strictUnknown?: boolean;
  /** Regex source for what may appear inside [[…]] (default: the value source). */
  bracket?: string;
}

export interface CompiledChoice<T> {
  spec: ChoiceSpec<T>;
  brackets: RegExp;
  tags: RegExp;
  keyed: RegExp;
  finalLine: RegExp;
  whole: RegExp;
}

export function compileChoice<T>(spec: ChoiceSpec<T>): CompiledChoice<T> {
  const keys = spec.keys.map(ci).join('|');
  const tagNames = spec.tags.map(ci).join('|');
  const inner = spec.strictUnknown ? String.raw`[^\[\]\n]{1,80}?` : (spec.bracket ?? spec.value);
  return {
    spec,
    brackets: new RegExp(String.raw`\[\[\s*(${inner})\s*\]\]`, 'gd'),
    tags: new RegExp(String.raw`<(${tagNames})>\s*\**\s*([^<>\n]{1,80}?)\s*\**\s*<\/\1>`, 'gd'),
    keyed: new RegExp(
      String.raw`(?<![A-Za-z_])["']?(?:${keys})["']?\**\s*(?:[:=]|\s+is\b|\s+-(?=\s))\s*\**\s*["']?\[?\[?\s*(${spec.value})(?![A-Za-z0-9_])`,
      'gd',
    ),
    finalLine: new RegExp(String.raw`^[\s*_#>\`"'(\[]*(?:(?:${keys})\s*[:=-]?\s*)?[\s*_"'\[]*(${spec.value})[\s*_.!\`"')\]]*$`),
    whole: new RegExp(String.raw`^\s*\**\s*["'(\[]*\s*(?:${spec.value})\s*[)"'\]]*\s*[.!]?\s*\**\s*$`),
  };
}

type Cand<T> = Candidate<T>;

function unknown(what: string, s: string): { invalid: ParseErrorCode; message: string } {
  return { invalid: 'unknown_label', message: `the judge gave "${s.slice(0, 80)}", which is not a valid ${what}` };
}

/** The JSON candidate of one object, when it holds one of the verdict keys. */
function jsonCandidate<T>(h: JsonHit, text: string, c: CompiledChoice<T>): Cand<T> | undefined {
  const { spec } = c;
  const k = pickKey(h.value, spec.jsonKeys);
  if (!k) return undefined;
  let val: T | undefined;
  let token: string;
  if (typeof k.value === 'string') {
    token = k.value.trim();
    val = token.length <= MAX_VERDICT_LINE && c.whole.test(token) ? spec.canon(token) : undefined;
  } else if (typeof k.value === 'boolean') {
    token = String(k.value);
    val = spec.fromBool?.(k.value);
  } else if (typeof k.value === 'number') {
    token = String(k.value);
    val = spec.fromNumber?.(k.value);
  } else return undefined;
  if (val === undefined && !spec.strictUnknown) return undefined;
  const at = text.lastIndexOf(token, h.end);
  const tokStart = at >= h.start ? at : h.start;
  const keyAt = text.slice(h.start, tokStart).toLowerCase().lastIndexOf(k.key);
  const echoStart = keyAt >= 0 ? Math.max(h.start, h.start + keyAt - 1) : h.start;
  // the offsets point at the value inside its marks ("[[YES]]" -> YES), where its logprob token is
  const inner = token.replace(/^[("'[*\s]+/, '');
  const core = inner.replace(/[)"'\].!*\s]+$/, '');
  const vstart = tokStart + (token.length - inner.length);
  const vend = vstart + (core.length || token.length);
  const cand: Cand<T> = {
    value: val === undefined ? unknown(spec.what, token) : val,
    format: 'json',
    start: h.start,
    end: h.end,
    echo: [echoStart, Math.min(h.end, tokStart + token.length + 1)],
    vstart,
    vend,
    matched: text.slice(h.start, h.end),
    rank: rankOf('json'),
  };
  const r = rationaleOf(h.value);
  if (r !== undefined) cand.rationale = r;
  return cand;
}

export function parseChoice<T>(raw: string, c: CompiledChoice<T>, ctx: ParseContext = {}): Verdict<T> {
  const { spec } = c;
  const p = prepare(raw);
  if ('ok' in p) return p;
  const text = p.visible;
  // structured output: the whole answer is one JSON object; its key is the verdict, whatever its strings quote
  const whole = wholeJson(text);
  if (whole) {
    const cand = jsonCandidate(whole, text, c);
    if (cand) return finish({ pick: cand }, text, spec.what);
  }
  const structured: Cand<T>[] = [];
  const add = (format: string, m: RegExpExecArray, idx: number, token: string) => {
    const vstart = m.indices?.[idx]?.[0] ?? m.index;
    const val = spec.canon(token);
    if (val === undefined && !spec.strictUnknown) return;
    const lead = m[0].length - m[0].trimStart().length;
    structured.push({
      value: val === undefined ? unknown(spec.what, token) : val,
      format,
      start: m.index + lead,
      end: m.index + m[0].length,
      vstart,
      vend: vstart + token.length,
      matched: m[0].trim(),
      rank: rankOf(format),
    });
  };
  for (const m of text.matchAll(c.brackets)) add('brackets', m, 1, m[1]!);
  for (const m of text.matchAll(c.tags)) {
    const t = m[2]!;
    if (c.whole.test(t)) add('tag', m, 2, t);
    else if (spec.strictUnknown) add('tag', m, 2, t);
  }
  for (const m of text.matchAll(c.keyed)) add('keyed', m, 1, m[1]!);
  const jsonSpans: Span[] = [];
  for (const h of findJsonObjects(text)) {
    const cand = jsonCandidate(h, text, c);
    if (!cand) continue;
    structured.push(cand);
    jsonSpans.push({ start: h.start, end: h.end });
  }
  const fallback = (): Cand<T>[] => {
    const ll = lastLine(text);
    const m = ll && c.finalLine.exec(ll.line);
    if (!ll || !m) return [];
    const val = spec.canon(m[1]!);
    if (val === undefined) return [];
    const at = ll.start + ll.line.lastIndexOf(m[1]!);
    const lead = ll.line.length - ll.line.trimStart().length;
    return [
      {
        value: val,
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
  return finish(select({ structured, fallback, text, jsonSpans, ctx }, spec.what), text, spec.what);
}
