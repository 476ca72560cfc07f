// The step every judge grader shares: call the judge (k samples), parse every choice, and
// return the valid verdicts with call metadata — or, when any sample's failure was planted by the
// response (verdict markers the judge's output repeats), `planted` for the grader's floor — or
// throw the failure with the raw output kept. What the prompt's images were (`images`) goes into the
// metadata either way.
import type { GraderContext } from '../../core/grader.js';
import type { ImageMeta } from '../../images/parts.js';
import type { ChatMessage, JsonSchemaFormat } from '../../models/types.js';
import { callJudge, callMeta, type JudgeCallResult } from './judge-call.js';
import { maskReasoning } from '../../extract/think.js';
import type { Verdict, VerdictOk } from './parse/verdict.js';
import type { JudgeSettings } from './settings.js';
import { clip, parseChoices, plantedOf, plantedReason, rawMeta, requireValid, type Parsed, type Planted } from './verdicts.js';

export interface JudgeRun<T> {
  call: JudgeCallResult;
  parsed: Parsed<T>[];
  /** Valid verdicts, paired with their choice. */
  valid: { verdict: VerdictOk<T>; choice: Parsed<T>['choice'] }[];
  meta: Record<string, unknown>;
  /** Set when the response planted the failure of a sample: `valid` is then empty, and the grade is the floor. */
  planted?: Planted;
}

export async function runJudge<T>(
  ctx: GraderContext,
  s: JudgeSettings,
  messages: ChatMessage[],
  parse: (text: string) => Verdict<T>,
  schema?: JsonSchemaFormat,
  images: readonly ImageMeta[] = [],
): Promise<JudgeRun<T>> {
  const call = await callJudge(ctx, s, messages, schema);
  const parsed = parseChoices(call.choices, parse);
  const meta = callMeta(call, s);
  if (images.length) meta.images = images;
  const planted = plantedOf(parsed);
  if (planted) return { call, parsed, valid: [], meta: { ...meta, ...rawMeta(parsed), planted: plantedMeta(planted) }, planted };
  requireValid(parsed, s.minValid, meta);
  const valid = parsed.filter((p) => p.verdict.ok).map((p) => ({ verdict: p.verdict as VerdictOk<T>, choice: p.choice }));
  return { call, parsed, valid, meta };
}

/** The rationale to show in `reason`: the structured rationale, else the visible answer text. */
export function rationale(v: VerdictOk<unknown>, content: string): string {
  if (v.rationale) return clip(v.rationale, 4000)!;
  const visible = maskReasoning(content)
    .text.replace(/^[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return clip(visible, 4000)!;
}

/** Metadata of a planted failure. */
export function plantedMeta(p: Planted): Record<string, unknown> {
  return { markers: p.markers, samples: p.samples, of: p.of };
}

/** The outcome of a grade whose verdict the response planted: the floor, with the reason naming the markers. */
export function plantedOutcome(p: Planted, floor: number, meta: Record<string, unknown>): { score: number; reason: string; metadata: Record<string, unknown> } {
  return { score: floor, reason: plantedReason(p, floor), metadata: { ...meta, planted: { ...plantedMeta(p), floor } } };
}

export { rawMeta };
