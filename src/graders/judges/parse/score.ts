// Numeric verdicts: JSON {"result"|"score"|...}, [[7]], <score>7</score>, "Score: 7", "Rating: 8/10",
// "85%", or a final line holding only a number. Fractions and percentages are mapped onto the
// configured range; values outside it are rejected (or clamped when asked), never truncated. A
// whole-answer JSON object (structured output) is read by its own key; otherwise the candidates go
// through the shared selection (quotes of the graded response dropped, conflicts refused).
import { pickKey, type JsonHit } from '../../../extract/json.js';
import {
  MAX_VERDICT_LINE,
  lastLine,
  lineCandidate,
  matchCandidate,
  objectCandidate,
  parseVerdict,
  rankOf,
  type Candidate,
  type ParseContext,
  type Verdict,
} from './verdict.js';

export interface ScoreParseOptions extends ParseContext {
  /** Inclusive range of valid scores (default [0, 1]). */
  range?: [number, number];
  /** Out-of-range values: 'reject' (default) makes the parse fail; 'clamp' clamps. */
  outOfRange?: 'reject' | 'clamp';
}

export interface ScoreValue {
  score: number;
  /** The number as written, before mapping a fraction or percentage onto the range. */
  raw: number;
  /** Denominator of a fraction ("8/10") or 100 for a percentage. */
  denominator?: number;
  clamped?: boolean;
}

const NUM = String.raw`[-+]?(?:\d+(?:\.\d+)?|\.\d+)`;
const FRAC = String.raw`(?:\s*(?:\/|out\s+of)\s*(${NUM}))?`;
const KEYS = String.raw`score|rating|grade|reward|verdict|result|mark|points|evaluation|overall`;

const BRACKETS = new RegExp(String.raw`\[\[\s*(${NUM})${FRAC}\s*\]\]`, 'gd');
const TAGS = new RegExp(String.raw`<(score|rating|grade|result|verdict|reward|answer|final_score)>\s*\**\s*(${NUM})${FRAC}\s*(%)?\s*\**\s*<\/\1>`, 'gid');
const KEYED = new RegExp(
  String.raw`(?<![A-Za-z_])["']?(?:final[ _]|overall[ _]|total[ _])?(?:${KEYS})s?["']?\**(?:\s*\([^()\n]{0,24}\))?\**\s*(?:[:=]|\bis\b|-(?=\s))\s*\**\s*"?(?:\[\[?)?\s*(${NUM})${FRAC}\s*(%)?`,
  'gid',
);
const GIVE = new RegExp(String.raw`\b(?:give|gives|assign|assigns|award|awards|rate|rates)\b[^.\n]{0,30}?\bscore\s+of\s+(${NUM})${FRAC}`, 'gid');
const FINAL_LINE = new RegExp(
  String.raw`^[\s*_#>\`]*(?:final\s+)?(?:score|rating|verdict)?[\s:*_]*[([]*\s*(${NUM})${FRAC}\s*(%)?\s*[)\]]*(?:\*{1,2}|_{1,2}|\`)?\s*[.!]?\s*$`,
  'i',
);
const ANY_FRACTION = new RegExp(String.raw`(?<![\d.])(${NUM})\s*(?:\/|out\s+of)\s*(${NUM})(?!\.?\d)`, 'gi');

const JSON_KEYS = ['result', 'score', 'rating', 'grade', 'final_score', 'overall_score', 'verdict', 'reward', 'points'] as const;

type V = ScoreValue;
type RangeOpts = { range: [number, number]; outOfRange: 'reject' | 'clamp' };

function toRange(raw: number, denom: number | undefined, percent: boolean, opts: RangeOpts): V | { invalid: 'out_of_range'; message: string } {
  const [lo, hi] = opts.range;
  const d = percent ? 100 : denom;
  let score: number;
  if (d !== undefined) {
    if (!(d > 0) || raw < 0 || raw > d) return { invalid: 'out_of_range', message: `verdict ${raw}/${d} is not a valid fraction` };
    score = d === hi && lo <= raw ? raw : lo + ((hi - lo) * raw) / d;
  } else {
    score = raw;
  }
  if (score < lo || score > hi) {
    if (opts.outOfRange === 'clamp') return { score: Math.min(hi, Math.max(lo, score)), raw, ...(d !== undefined ? { denominator: d } : {}), clamped: true };
    return { invalid: 'out_of_range', message: `verdict ${d !== undefined ? `${raw}/${d}` : raw} is outside the range [${lo}, ${hi}]` };
  }
  return d !== undefined ? { score, raw, denominator: d } : { score, raw };
}

function fromString(s: string): { raw: number; denom?: number; percent: boolean } | undefined {
  if (s.length > MAX_VERDICT_LINE) return undefined;
  const m = new RegExp(String.raw`^\s*\**\s*(${NUM})${FRAC}\s*(%)?\s*\**\s*$`, 'i').exec(s);
  if (!m) return undefined;
  return { raw: Number(m[1]), denom: m[2] !== undefined ? Number(m[2]) : undefined, percent: !!m[3] };
}

/** The JSON candidate of one object, when it holds a score key. */
function jsonCandidate(h: JsonHit, text: string, opts: RangeOpts): Candidate<V> | undefined {
  const k = pickKey(h.value, JSON_KEYS);
  if (!k) return undefined;
  let value: Candidate<V>['value'];
  if (typeof k.value === 'number') value = toRange(k.value, undefined, false, opts);
  else if (typeof k.value === 'string' && fromString(k.value)) {
    const f = fromString(k.value)!;
    value = toRange(f.raw, f.denom, f.percent, opts);
  } else return undefined;
  const numText = typeof k.value === 'number' ? String(k.value) : String(k.value).trim();
  const c = objectCandidate(h, text, k.key, numText, value);
  if (k.key === 'final_score' || k.key === 'overall_score') c.matched = `final ${c.matched}`;
  return c;
}

export function parseScore(raw: string, options: ScoreParseOptions = {}): Verdict<ScoreValue> {
  const opts = { range: options.range ?? [0, 1], outOfRange: options.outOfRange ?? 'reject' } as RangeOpts;
  const scoreOf = (m: RegExpExecArray, numIdx: number, denIdx: number, pctIdx: number) =>
    toRange(Number(m[numIdx]), m[denIdx] !== undefined ? Number(m[denIdx]) : undefined, pctIdx > 0 && !!m[pctIdx], opts);
  return parseVerdict<V>(raw, 'score', options, {
    json: (h, text) => jsonCandidate(h, text, opts),
    marked: (text) => [
      ...[...text.matchAll(BRACKETS)].map((m) => matchCandidate<V>('brackets', m, 1, scoreOf(m, 1, 2, 0))),
      ...[...text.matchAll(TAGS)].map((m) => matchCandidate<V>('tag', m, 2, scoreOf(m, 2, 3, 4))),
      ...[...text.matchAll(KEYED)].map((m) => matchCandidate<V>('keyed', m, 1, scoreOf(m, 1, 2, 3))),
      ...[...text.matchAll(GIVE)].map((m) => matchCandidate<V>('keyed', m, 1, scoreOf(m, 1, 2, 0))),
    ],
    bare: (text) => {
      const ll = lastLine(text);
      const m = ll && FINAL_LINE.exec(ll.line);
      if (ll && m) return [lineCandidate<V>(ll, ll.start + ll.line.indexOf(m[1]!), m[1]!, scoreOf(m, 1, 2, 3))];
      const out: Candidate<V>[] = [];
      const plausible = new Set([opts.range[1], 5, 10, 100]);
      for (const f of text.matchAll(ANY_FRACTION)) {
        if (!plausible.has(Number(f[2]))) continue;
        out.push({
          value: toRange(Number(f[1]), Number(f[2]), false, opts),
          format: 'fraction',
          start: f.index,
          end: f.index + f[0].length,
          vstart: f.index,
          vend: f.index + f[1]!.length,
          matched: f[0],
          rank: rankOf('fraction'),
        });
      }
      return out;
    },
  });
}
