// Generic parser for categorical verdicts (pairwise winner, yes/no, labels): the same five formats
// as numeric scores — JSON key, [[value]], <tag>value</tag>, "Key: value", a final line holding
// only the value — with the value vocabulary supplied by each verdict kind. A whole-answer JSON
// object (structured output) is read by its own key; otherwise the candidates go through the
// shared selection (quotes of the graded response dropped, conflicts refused).
import { pickKey, type JsonHit } from '../../../extract/json.js';
import {
  MAX_VERDICT_LINE,
  lastLine,
  lineCandidate,
  matchCandidate,
  objectCandidate,
  parseVerdict,
  type Candidate,
  type ParseContext,
  type ParseErrorCode,
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
  // the offsets point at the value inside its marks ("[[YES]]" -> YES), where its logprob token is
  const inner = token.replace(/^[("'[*\s]+/, '');
  const core = inner.replace(/[)"'\].!*\s]+$/, '');
  return objectCandidate(h, text, k.key, token, val === undefined ? unknown(spec.what, token) : val, {
    lead: token.length - inner.length,
    length: core.length || token.length,
  });
}

export function parseChoice<T>(raw: string, c: CompiledChoice<T>, ctx: ParseContext = {}): Verdict<T> {
  const { spec } = c;
  return parseVerdict<T>(raw, spec.what, ctx, {
    json: (h, text) => jsonCandidate(h, text, c),
    marked: (text) => {
      const structured: Cand<T>[] = [];
      const add = (format: string, m: RegExpExecArray, idx: number) => {
        const val = spec.canon(m[idx]!);
        if (val === undefined && !spec.strictUnknown) return;
        structured.push(matchCandidate<T>(format, m, idx, val === undefined ? unknown(spec.what, m[idx]!) : val));
      };
      for (const m of text.matchAll(c.brackets)) add('brackets', m, 1);
      for (const m of text.matchAll(c.tags)) if (c.whole.test(m[2]!) || spec.strictUnknown) add('tag', m, 2);
      for (const m of text.matchAll(c.keyed)) add('keyed', m, 1);
      return structured;
    },
    bare: (text) => {
      const ll = lastLine(text);
      const m = ll && c.finalLine.exec(ll.line);
      if (!ll || !m) return [];
      const val = spec.canon(m[1]!);
      if (val === undefined) return [];
      return [lineCandidate<T>(ll, ll.start + ll.line.lastIndexOf(m[1]!), m[1]!, val)];
    },
  });
}
