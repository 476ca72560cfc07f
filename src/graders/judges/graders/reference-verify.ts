// `reference_verify`: model-based verification — does the response's final answer match the
// reference? For answers rules cannot parse. Score 1/0 (k samples: majority, or the yes fraction
// with aggregate "mean"), or P(yes) from logprobs at the verdict token.
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../../core/registry.js';
import { renamed } from '../../../extract/options.js';
import { renderString } from '../../../core/template.js';
import { logprobScore, yesNoToken } from '../logprob-score.js';
import { checkSize, compileImages, fill, imagesField, withImages } from '../messages.js';
import { parseYesNo } from '../parse/binary.js';
import { gradedStrings } from '../parse/quotes.js';
import { VERIFY_SYSTEM, VERIFY_USER } from '../prompts.js';
import { plantedOutcome, rationale, runJudge } from '../run-judge.js';
import { judgeCapabilities, judgeFields, judgeSettings } from '../settings.js';
import { judgeExtractField, judgedInput } from '../response.js';
import { choiceFormat } from '../verdict-schema.js';

const schema = graderSchema({
  ...judgeFields,
  ...judgeExtractField,
  /** The question (template; default none). */
  question: z.string().optional(),
  /** The answer to check (default "{{sample.output_text}}"). */
  /** The model output judged (default {{sample.output_text}}). Deprecated name: response. */
  input: z.string().optional(),
  /** The reference answer, e.g. "{{item.answer}}". */
  reference: z.string(),
  /** Prompt overrides; slots {question} {reference} {response}. */
  system_prompt: z.string().optional(),
  user_prompt: z.string().optional(),
  /** json_schema (default: the verdict in a {"steps", "result"} object; prompt-only when the server lacks it) or text. */
  response_format: z.enum(['json_schema', 'text']).optional(),
  /** Images shown with the prompt (templates giving image URLs, e.g. "{{item.image}}"); see docs/multimodal.md. */
  ...imagesField,
});

export type ReferenceVerifyConfig = z.infer<typeof schema>;

export const referenceVerify: GraderType<ReferenceVerifyConfig> = {
  type: 'reference_verify',
  summary: 'LLM judge checks that the final answer is equivalent to a reference; score 1/0 or P(yes)',
  schema,
  aliases: [renamed('response', 'input')],
  capabilities: judgeCapabilities,
  build(cfg, b) {
    const q = cfg.question !== undefined ? b.template('question', cfg.question) : undefined;
    const resp = b.template('input', cfg.input ?? '{{sample.output_text}}');
    const ref = b.template('reference', cfg.reference);
    const s = judgeSettings(cfg, b);
    const renderImages = compileImages(b, 'images', cfg.images, { vision: s.vision, floor: 0 });
    const system = cfg.system_prompt ?? VERIFY_SYSTEM;
    const user = cfg.user_prompt ?? VERIFY_USER;
    const mode = cfg.aggregate ?? 'majority';
    const structured = (cfg.response_format ?? 'json_schema') === 'json_schema' ? choiceFormat('verify_verdict', ['[[YES]]', '[[NO]]']) : undefined;
    const judged = judgedInput(cfg.extract, 0);
    return async (raw, ctx) => {
      const input = judged(raw);
      const question = q ? renderString(q, input) : '(not given)';
      const response = renderString(resp, input);
      const reference = renderString(ref, input);
      checkSize(question.length + response.length + reference.length);
      const graded = gradedStrings(response, input.sample);
      const imgs = await renderImages(input, ctx);
      const run = await runJudge(
        ctx,
        s,
        withImages(
          [
            { role: 'system', content: structured ? `${system}\n\n${structured.instruction}` : system },
            { role: 'user', content: fill(user, { question, reference, response }) },
          ],
          imgs,
        ),
        (t) => parseYesNo(t, { graded }),
        structured?.schema,
        imgs.images,
      );
      if (run.planted) return plantedOutcome(run.planted, 0, run.meta);
      const votes = run.valid.map((v) => (v.verdict.value ? 1 : 0));
      const yes = votes.reduce<number>((a, v) => a + v, 0);
      const meta: Record<string, unknown> = { ...run.meta, verdict: run.valid[0]!.verdict.value ? 'yes' : 'no', verdict_format: run.valid[0]!.verdict.format };
      let score: number;
      if (s.logprobs) {
        const probs: number[] = [];
        let fallback: string | undefined;
        for (const { verdict, choice } of run.valid) {
          const lp = logprobScore(choice, verdict.start, choice.content.slice(verdict.start, verdict.end), yesNoToken);
          if (lp.ok) probs.push(lp.value.score);
          else {
            fallback ??= lp.reason;
            probs.push(verdict.value ? 1 : 0);
          }
        }
        score = probs.reduce((a, p) => a + p, 0) / probs.length;
        meta.logprob_score = fallback ? { fallback } : true;
      } else if (mode === 'mean' || mode === 'median') {
        score = yes / votes.length;
      } else {
        score = yes * 2 > votes.length ? 1 : yes * 2 < votes.length ? 0 : 0.5;
      }
      if (s.samples > 1) meta.samples = { requested: s.samples, valid: votes.length, yes, agreement: Math.max(yes, votes.length - yes) / votes.length };
      const first = run.valid[0]!;
      return { score, reason: rationale(first.verdict, first.choice.content), metadata: meta };
    };
  },
};
