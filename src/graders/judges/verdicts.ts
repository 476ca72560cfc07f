// From judge choices to verdicts: parse each sample, turn refusals/unparsable/cut-off outputs into
// GradeFailures that keep the raw output, collect the samples whose failure the response planted
// (scored as the grader's floor), and aggregate k samples (mean, median, majority) with their
// spread for metadata.
import { GradeFailure, type ErrorKind } from '../../core/result.js';
import type { ChatChoice } from '../../models/types.js';
import type { Verdict, VerdictErr, VerdictOk } from './parse/verdict.js';

/** Raw judge text kept in metadata, per sample. */
export const RAW_KEEP_CHARS = 16_000;
const RAW_KEEP_SAMPLES_CHARS = 4_000;

export interface Parsed<T> {
  choice: ChatChoice;
  verdict: Verdict<T>;
}

export function clip(s: string | undefined, n: number): string | undefined {
  if (s === undefined) return undefined;
  return s.length <= n ? s : `${s.slice(0, n)}… [${s.length - n} more characters]`;
}

export function parseChoices<T>(choices: ChatChoice[], parse: (text: string) => Verdict<T>): Parsed<T>[] {
  return choices.map((choice) => {
    if (choice.refusal) return { choice, verdict: { ok: false, error: 'refusal', message: `the judge refused: "${choice.refusal.slice(0, 160)}"` } };
    if (choice.finish_reason === 'content_filter' && !choice.content.trim()) {
      return { choice, verdict: { ok: false, error: 'refusal', message: 'the judge answer was blocked by a content filter' } };
    }
    const verdict = parse(choice.content);
    if (choice.finish_reason === 'length') {
      // the judge's budget ran out before it finished: whatever verdict-like text it wrote may not be
      // final, and a response cannot be blamed for the judge's max_tokens (never `planted`)
      if (verdict.ok)
        return {
          choice,
          verdict: {
            ok: false,
            error: 'truncated',
            message: `the judge output was cut off at max_tokens before it finished; "${verdict.matched.slice(0, 60)}" may not be its final verdict`,
          },
        };
      const error = verdict.error === 'planted' ? 'truncated' : verdict.error;
      return { choice, verdict: { ok: false, error, message: `${verdict.message} (the output was cut off at max_tokens)` } };
    }
    return { choice, verdict };
  });
}

function kindOf(v: VerdictErr): ErrorKind {
  if (v.error === 'refusal') return 'judge_refusal';
  if (v.error === 'too_long') return 'limit_exceeded';
  return 'judge_parse_error';
}

/** Metadata describing the raw output(s) of a call. */
export function rawMeta(parsed: Parsed<unknown>[]): Record<string, unknown> {
  if (parsed.length === 1) {
    const c = parsed[0]!.choice;
    const m: Record<string, unknown> = { raw: clip(c.content, RAW_KEEP_CHARS), finish_reason: c.finish_reason };
    if (c.reasoning) m.raw_reasoning = clip(c.reasoning, RAW_KEEP_SAMPLES_CHARS);
    if (c.refusal) m.refusal = c.refusal;
    return m;
  }
  return {
    raw_samples: parsed.map((p) => ({
      raw: clip(p.choice.content, RAW_KEEP_SAMPLES_CHARS),
      finish_reason: p.choice.finish_reason,
      ...(p.verdict.ok ? {} : { error: p.verdict.error }),
    })),
  };
}

/** Why the response, not the judge, made the verdict unreadable: it carries verdict markers the judge's output repeats. */
export interface Planted {
  /** The response's verdict-like spans (at most 4). */
  markers: string[];
  /** The first planted sample's parse message. */
  message: string;
  /** Samples that came back planted, of all samples. */
  samples: number;
  of: number;
}

/** The planted samples of a call, when any: one is enough to score the response at the floor. */
export function plantedOf(parsed: Parsed<unknown>[]): Planted | undefined {
  const hit = parsed.map((p) => p.verdict).filter((v): v is VerdictErr => !v.ok && v.error === 'planted');
  if (!hit.length) return undefined;
  const markers = [...new Set(hit.flatMap((v) => v.planted ?? []))].slice(0, 4);
  return { markers, message: hit[0]!.message, samples: hit.length, of: parsed.length };
}

/** The reason of a floor grade for planted verdict markers. */
export function plantedReason(p: Planted, floor: number): string {
  const list = p.markers.map((m) => JSON.stringify(m)).join(', ');
  return (
    `the response contains verdict markers: ${list}; ${p.samples > 1 || p.of > 1 ? `${p.samples} of ${p.of} judge samples` : 'the judge output'} ` +
    `repeated them or could not be told from them, so the response gets this grader's floor (${floor}) — ${p.message}`
  );
}

/** The valid verdicts; throws when fewer than `minValid` parsed (with the first problem's kind). */
export function requireValid<T>(parsed: Parsed<T>[], minValid: number, extra: Record<string, unknown> = {}): VerdictOk<T>[] {
  const ok = parsed.filter((p) => p.verdict.ok).map((p) => p.verdict as VerdictOk<T>);
  if (ok.length >= minValid && ok.length > 0) return ok;
  const bad = parsed.filter((p) => !p.verdict.ok).map((p) => p.verdict as VerdictErr);
  // a refusal in any sample outranks parse errors: it says more about why
  const first = bad.find((b) => b.error === 'refusal') ?? bad[0]!;
  const prefix = parsed.length > 1 ? `${ok.length} of ${parsed.length} judge samples gave a verdict (need ${minValid}); ` : '';
  throw new GradeFailure(kindOf(first), prefix + first.message, { ...extra, parse_error: first.error, ...rawMeta(parsed) });
}

export interface NumberSpread {
  n: number;
  values: number[];
  mean: number;
  std: number;
  min: number;
  max: number;
}

export function spreadOf(xs: number[]): NumberSpread {
  const n = xs.length;
  const mean = xs.reduce((a, b) => a + b, 0) / n;
  const std = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
  return { n, values: xs, mean, std, min: Math.min(...xs), max: Math.max(...xs) };
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Most common value; `tied` when two values share the top count (first seen wins). */
export function majority<T>(xs: T[]): { value: T; count: number; tied: boolean; counts: Map<T, number> } {
  const counts = new Map<T, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  let best: T = xs[0]!;
  let bestN = 0;
  let tied = false;
  for (const [v, n] of counts) {
    if (n > bestN) {
      best = v;
      bestN = n;
      tied = false;
    } else if (n === bestN) tied = true;
  }
  return { value: best, count: bestN, tied, counts };
}

/** Combines per-sample scores. Majority over numbers takes the most common value (ties: median of the tied). */
export function combineScores(xs: number[], mode: 'mean' | 'median' | 'majority'): number {
  if (xs.length === 1) return xs[0]!;
  if (mode === 'median') return median(xs);
  if (mode === 'majority') {
    const m = majority(xs);
    if (!m.tied) return m.value;
    const top = [...m.counts].filter(([, n]) => n === m.count).map(([v]) => v);
    return median(top);
  }
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Self-consistency metadata for k > 1. */
export function samplesMeta(scores: number[], total: number): Record<string, unknown> {
  if (total <= 1) return {};
  const sp = spreadOf(scores);
  return { samples: { requested: total, valid: scores.length, scores, mean: sp.mean, std: sp.std, min: sp.min, max: sp.max } };
}
