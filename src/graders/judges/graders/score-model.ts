// `score_model` (OpenAI grader schema): a judge reads templated messages, reasons, and gives a number
// in `range`. Asks for {"steps": [...], "result": n} via json_schema (prompt-only when the server
// lacks it); parses any common verdict format; optional expected score from logprobs; k samples.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../../core/registry.js';
import type { JsonSchemaFormat } from '../../../models/types.js';
import { logprobScore, numericToken } from '../logprob-score.js';
import { compileMessages, messageSchema, withInstruction } from '../messages.js';
import { gradedStrings } from '../parse/quotes.js';
import { parseScore } from '../parse/score.js';
import { plantedOutcome, rationale, runJudge } from '../run-judge.js';
import { judgeCapabilities, judgeFields, judgeSettings } from '../settings.js';
import { judgeExtractField, judgedInput } from '../response.js';
import { combineScores, samplesMeta } from '../verdicts.js';
import { verdictSchema } from '../verdict-schema.js';

const schema = graderSchema({
  ...judgeFields,
  ...judgeExtractField,
  input: z.array(messageSchema).min(1),
  /** Valid score range, inclusive (default [0, 1]). */
  range: z.tuple([z.number(), z.number()]).optional(),
  /** Scores outside the range: reject (default: the grade is invalid) or clamp. */
  out_of_range: z.enum(['reject', 'clamp']).optional(),
  /** json_schema (default; falls back to prompt-only when the server rejects it) or text (prompt only). */
  response_format: z.enum(['json_schema', 'text']).optional(),
  /** Append the answer-format instruction to the last user message (default true). */
  format_instructions: z.boolean().optional(),
});

export type ScoreModelConfig = z.infer<typeof schema>;

export function scoreSchema(lo: number, hi: number): JsonSchemaFormat {
  return verdictSchema('score_verdict', { type: 'number', minimum: lo, maximum: hi });
}

export function scoreInstruction(lo: number, hi: number): string {
  return (
    `Reason step by step first, then give your verdict last. Answer with a JSON object ` +
    `{"steps": [{"description": "...", "conclusion": "..."}], "result": <a number from ${lo} to ${hi}>}.`
  );
}

export const scoreModel: GraderType<ScoreModelConfig> = {
  type: 'score_model',
  summary: 'LLM judge gives a number in a range (OpenAI score_model); k samples, logprob scores',
  schema,
  capabilities: judgeCapabilities,
  build(cfg, b) {
    const [lo, hi] = cfg.range ?? [0, 1];
    if (!(lo < hi)) b.fail('range', `range must be [min, max] with min < max, got [${lo}, ${hi}]`);
    const s = judgeSettings(cfg, b);
    const render = compileMessages(b, 'input', cfg.input, { vision: s.vision, floor: lo });
    const mode = cfg.aggregate ?? 'mean';
    const jsonSchema = (cfg.response_format ?? 'json_schema') === 'json_schema' ? scoreSchema(lo, hi) : undefined;
    const instruct = cfg.format_instructions ?? true;
    const parseOpts = { range: [lo, hi] as [number, number], outOfRange: cfg.out_of_range ?? 'reject' };
    const tokenValue = numericToken(lo, hi);
    const judged = judgedInput(cfg.extract, lo);
    return async (raw, ctx) => {
      const input = judged(raw);
      const prompt = await render(input, ctx);
      let messages = prompt.messages;
      if (instruct) messages = withInstruction(messages, scoreInstruction(lo, hi));
      // what the judge may quote: a verdict copied from the sample is not the judge's own
      const graded = gradedStrings(input.sample);
      const run = await runJudge(ctx, s, messages, (t) => parseScore(t, { ...parseOpts, graded }), jsonSchema, prompt.images);
      // verdict markers in the response behind an unreadable verdict: the range's minimum
      if (run.planted) return plantedOutcome(run.planted, lo, { ...run.meta, range: [lo, hi] });
      const scores: number[] = [];
      const lpNotes: string[] = [];
      for (const { verdict, choice } of run.valid) {
        let v = verdict.value.score;
        if (s.logprobs) {
          const lp = logprobScore(choice, verdict.start, choice.content.slice(verdict.start, verdict.end), tokenValue);
          if (lp.ok && verdict.value.denominator === undefined) v = lp.value.score;
          else if (!lp.ok) lpNotes.push(lp.reason);
        }
        scores.push(v);
      }
      const first = run.valid[0]!;
      const meta: Record<string, unknown> = {
        ...run.meta,
        verdict: first.verdict.value.raw,
        verdict_format: first.verdict.format,
        range: [lo, hi],
        ...samplesMeta(scores, s.samples),
      };
      if (first.verdict.value.clamped) meta.clamped = true;
      if (s.logprobs) meta.logprob_score = lpNotes.length === 0 ? true : { fallback: lpNotes[0] };
      return { score: combineScores(scores, mode), reason: rationale(first.verdict, first.choice.content), metadata: meta };
    };
  },
};
