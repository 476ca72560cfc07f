// The step every judge grader shares: call the judge (k samples), parse every choice, and
// return the valid verdicts with call metadata — or throw the failure with the raw output kept.
import type { GraderContext } from '../../core/grader.js';
import type { ChatMessage, JsonSchemaFormat } from '../../models/types.js';
import { callJudge, callMeta, type JudgeCallResult } from './judge-call.js';
import { maskReasoning } from '../../extract/think.js';
import type { Verdict, VerdictOk } from './parse/verdict.js';
import type { JudgeSettings } from './settings.js';
import { clip, parseChoices, rawMeta, requireValid, type Parsed } from './verdicts.js';

export interface JudgeRun<T> {
  call: JudgeCallResult;
  parsed: Parsed<T>[];
  /** Valid verdicts, paired with their choice. */
  valid: { verdict: VerdictOk<T>; choice: Parsed<T>['choice'] }[];
  meta: Record<string, unknown>;
}

export async function runJudge<T>(
  ctx: GraderContext,
  s: JudgeSettings,
  messages: ChatMessage[],
  parse: (text: string) => Verdict<T>,
  schema?: JsonSchemaFormat,
): Promise<JudgeRun<T>> {
  const call = await callJudge(ctx, s, messages, schema);
  const parsed = parseChoices(call.choices, parse);
  const meta = callMeta(call, s);
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

export { rawMeta };
