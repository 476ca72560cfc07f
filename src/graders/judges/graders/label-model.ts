// `label_model` (OpenAI grader schema): a judge picks one of `labels`; the score is 1 when the label
// is in `passing_labels`, else 0 (with k samples: majority label, or the passing fraction with
// aggregate "mean"); optional P(passing) from logprobs at the label token.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../../core/registry.js';
import type { JsonSchemaFormat } from '../../../models/types.js';
import { logprobScore } from '../logprob-score.js';
import { compileMessages, messageSchema, withInstruction } from '../messages.js';
import { labelParser } from '../parse/label.js';
import { gradedStrings } from '../parse/quotes.js';
import { plantedOutcome, rationale, runJudge } from '../run-judge.js';
import { judgeCapabilities, judgeFields, judgeSettings } from '../settings.js';
import { judgeExtractField, judgedInput } from '../response.js';
import { majority } from '../verdicts.js';
import { verdictSchema } from '../verdict-schema.js';

const schema = graderSchema({
  ...judgeFields,
  ...judgeExtractField,
  input: z.array(messageSchema).min(1),
  labels: z.array(z.string().min(1)).min(1),
  passing_labels: z.array(z.string().min(1)).min(1),
  response_format: z.enum(['json_schema', 'text']).optional(),
  format_instructions: z.boolean().optional(),
});

export type LabelModelConfig = z.infer<typeof schema>;

function labelSchema(labels: string[]): JsonSchemaFormat {
  return verdictSchema('label_verdict', { type: 'string', enum: labels });
}

export const labelModel: GraderType<LabelModelConfig> = {
  type: 'label_model',
  summary: 'LLM judge picks a label; score 1 when it is a passing label (OpenAI label_model)',
  schema,
  capabilities: judgeCapabilities,
  build(cfg, b) {
    const lower = new Set(cfg.labels.map((l) => l.toLowerCase()));
    if (lower.size !== cfg.labels.length) b.issue('labels', 'labels must be distinct (case-insensitively)');
    cfg.passing_labels.forEach((l, i) => {
      if (!cfg.labels.includes(l)) b.issue(`passing_labels[${i}]`, `"${l}" is not one of the labels`);
    });
    const s = judgeSettings(cfg, b);
    const render = compileMessages(b, 'input', cfg.input, { vision: s.vision, floor: 0 });
    const parser = labelParser(cfg.labels);
    const passing = new Set(cfg.passing_labels);
    const jsonSchema = (cfg.response_format ?? 'json_schema') === 'json_schema' ? labelSchema(cfg.labels) : undefined;
    const instruction =
      `Reason step by step first, then give your verdict last. Answer with a JSON object ` +
      `{"steps": [{"description": "...", "conclusion": "..."}], "result": <one of ${cfg.labels.map((l) => JSON.stringify(l)).join(', ')}>}.`;
    // token → 1 when it starts a passing label only, 0 when it starts a failing label only
    const tokenValue = (t: string): number | undefined => {
      const s0 = t
        .trim()
        .toLowerCase()
        .replace(/^["'[(*]+/, '');
      if (!s0) return undefined;
      const hits = cfg.labels.filter((l) => l.toLowerCase().startsWith(s0));
      if (hits.length === 0) return undefined;
      const p = hits.map((l) => passing.has(l));
      return p.every(Boolean) ? 1 : p.some(Boolean) ? undefined : 0;
    };
    const mode = cfg.aggregate ?? 'majority';
    const judged = judgedInput(cfg.extract, 0);
    return async (raw, ctx) => {
      const input = judged(raw);
      const prompt = await render(input, ctx);
      let messages = prompt.messages;
      if (cfg.format_instructions ?? true) messages = withInstruction(messages, instruction);
      const graded = gradedStrings(input.sample);
      const run = await runJudge(ctx, s, messages, (t) => parser.parse(t, { graded }), jsonSchema, prompt.images);
      if (run.planted) return plantedOutcome(run.planted, 0, run.meta);
      const labels = run.valid.map((v) => v.verdict.value);
      const m = majority(labels);
      let score: number;
      if (mode === 'majority') score = passing.has(m.value) ? 1 : 0;
      else score = labels.filter((l) => passing.has(l)).length / labels.length;
      const meta: Record<string, unknown> = { ...run.meta, label: m.value, verdict_format: run.valid[0]!.verdict.format };
      if (s.samples > 1) meta.samples = { requested: s.samples, valid: labels.length, labels, agreement: m.count / labels.length };
      if (s.logprobs && s.samples === 1) {
        const { verdict, choice } = run.valid[0]!;
        const lp = logprobScore(choice, verdict.start, choice.content.slice(verdict.start, verdict.end).split(/\s+/)[0]!, tokenValue);
        if (lp.ok) {
          score = lp.value.score;
          meta.logprob_score = { mass: lp.value.mass };
        } else meta.logprob_score = { fallback: lp.reason };
      }
      const first = run.valid.find((v) => v.verdict.value === m.value) ?? run.valid[0]!;
      return { score, reason: rationale(first.verdict, first.choice.content), metadata: meta };
    };
  },
};
