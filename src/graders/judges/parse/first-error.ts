// First-error verdicts (a step judge in ProcessBench's critique format): the index of the earliest
// wrong paragraph, 0-based, or -1 when every paragraph is right. Read from the last `\boxed{k}` of
// the judge's own text (earlier boxes are its working; boxes it copied from the solution do not
// count), `[[k]]`, a JSON object {"first_error": k}, "Earliest error: paragraph k", or a final
// line holding only the index; the candidates then go through the shared selection (quotes of the
// graded steps dropped, conflicts refused) and the index must name a paragraph that exists.
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
  String.raw`(?<![A-Za-z_])(?:earliest|first)[ _](?:error|mistake|incorrect|wrong)(?:[ _](?:paragraph|step))?(?:[ _]index)?\**\s*(?:[:=]|\bis\b)\s*\**\s*(?:paragraph[\s_]*|step[\s_]*)?(${INDEX})(?!\.?\d)`,
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
  return objectCandidate<V>(h, text, k.key, numText, check(num, n));
}

export function parseFirstError(raw: string, options: FirstErrorOptions): Verdict<number> {
  const n = options.steps;
  const make = (format: string, m: RegExpExecArray): C => matchCandidate<V>(format, m, 1, check(Number(m[1]), n));
  return parseVerdict<V>(raw, 'first-error index', options, {
    json: (h, text) => jsonCandidate(h, text, n),
    marked: (text) => {
      // only the last box of the judge's own text is its answer (earlier boxes are its working;
      // boxes copied from the solution are dropped as quotations before the last one is taken)
      const structured: C[] = [...text.matchAll(BOXED)].map((m) => ({ ...make('boxed', m), lastOnly: true }));
      for (const m of text.matchAll(BRACKETS)) structured.push(make('brackets', m));
      for (const m of text.matchAll(KEYED)) structured.push(make('keyed', m));
      return structured;
    },
    bare: (text) => {
      const ll = lastLine(text);
      const m = ll && FINAL_LINE.exec(ll.line);
      if (!ll || !m) return [];
      return [lineCandidate<V>(ll, ll.start + ll.line.lastIndexOf(m[1]!), m[1]!, check(Number(m[1]), n))];
    },
  });
}
