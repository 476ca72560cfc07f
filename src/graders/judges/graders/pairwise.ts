// `pairwise`: a judge compares response A (by default the sample) with response B, in both orders
// to cancel position bias. Score from A's side: win 1, tie 0.5, loss 0, averaged over the two
// orders; `metadata.consistent` is false when the orders disagree (the position decided).
import { z } from 'zod';
import { graderSchema, type GraderType } from '../../../core/registry.js';
import { renderString } from '../../../core/template.js';
import type { ChatMessage } from '../../../models/types.js';
import { checkSize, compileImages, fill, imagesField, withImages } from '../messages.js';
import { parsePairwise, type PairwiseValue } from '../parse/pairwise.js';
import { gradedStrings } from '../parse/quotes.js';
import { PAIRWISE_SYSTEM, PAIRWISE_TIE_CLAUSE, PAIRWISE_USER } from '../prompts.js';
import { plantedOutcome, rationale, runJudge, type JudgeRun } from '../run-judge.js';
import { judgeCapabilities, judgeFields, judgeSettings } from '../settings.js';
import { judgeExtractField, judgedInput } from '../response.js';
import { majority } from '../verdicts.js';
import { choiceFormat } from '../verdict-schema.js';

const schema = graderSchema({
  ...judgeFields,
  ...judgeExtractField,
  /** The request both responses answer (template; default none). */
  question: z.string().optional(),
  /** Response A (default "{{sample.output_text}}"). */
  response_a: z.string().optional(),
  /** Response B, e.g. "{{item.reference_response}}". */
  response_b: z.string(),
  /** "both" (default) judges A|B and B|A; "single" judges A|B only. */
  orders: z.enum(['both', 'single']).optional(),
  /** Offer a tie verdict [[C]] (default true). */
  allow_tie: z.boolean().optional(),
  /** Prompt overrides; slots {question} {response_a} {response_b} (and {tie_clause} in the system prompt). */
  system_prompt: z.string().optional(),
  user_prompt: z.string().optional(),
  /** json_schema (default: the verdict in a {"steps", "result"} object; prompt-only when the server lacks it) or text. */
  response_format: z.enum(['json_schema', 'text']).optional(),
  /** Images shown with the prompt (templates giving image URLs, e.g. "{{item.image}}"); see docs/multimodal.md. */
  ...imagesField,
});

export type PairwiseConfig = z.infer<typeof schema>;

/** Score of the first-listed response for a verdict. */
function points(v: PairwiseValue): number {
  return v === 'A' ? 1 : v === 'tie' ? 0.5 : 0;
}

function swap(v: PairwiseValue): PairwiseValue {
  return v === 'A' ? 'B' : v === 'B' ? 'A' : 'tie';
}

export const pairwise: GraderType<PairwiseConfig> = {
  type: 'pairwise',
  summary: "LLM judge prefers A or B (both orders, ties, consistency flag); score from A's side",
  schema,
  capabilities: judgeCapabilities,
  build(cfg, b) {
    const q = cfg.question !== undefined ? b.template('question', cfg.question) : undefined;
    const ra = b.template('response_a', cfg.response_a ?? '{{sample.output_text}}');
    const rb = b.template('response_b', cfg.response_b);
    const s = judgeSettings(cfg, b);
    const renderImages = compileImages(b, 'images', cfg.images, { vision: s.vision, floor: 0 });
    const both = (cfg.orders ?? 'both') === 'both';
    const allowTie = cfg.allow_tie ?? true;
    const system = fill(cfg.system_prompt ?? PAIRWISE_SYSTEM, { tie_clause: allowTie ? PAIRWISE_TIE_CLAUSE : '' });
    const user = cfg.user_prompt ?? PAIRWISE_USER;
    const parse = (graded: string[], response: string[]) => (t: string) => {
      const v = parsePairwise(t, { graded, response });
      if (v.ok && v.value === 'tie' && !allowTie)
        return { ok: false as const, error: 'no_verdict' as const, message: 'the judge declared a tie, which this grader does not allow' };
      return v;
    };
    const structured =
      (cfg.response_format ?? 'json_schema') === 'json_schema'
        ? choiceFormat('pairwise_verdict', allowTie ? ['[[A]]', '[[B]]', '[[C]]'] : ['[[A]]', '[[B]]'])
        : undefined;
    const messages = (question: string, x: string, y: string): ChatMessage[] => {
      checkSize(question.length + x.length + y.length);
      return [
        { role: 'system', content: structured ? `${system}\n\n${structured.instruction}` : system },
        { role: 'user', content: fill(user, { question, response_a: x, response_b: y }) },
      ];
    };
    /** Majority verdict of one order's samples, in that order's own A/B terms. */
    const verdictOf = (run: JudgeRun<PairwiseValue>) => {
      const vs = run.valid.map((v) => v.verdict.value);
      const m = majority(vs);
      // an even split between A and B is no preference
      return { value: m.tied && !vs.every((v) => v === vs[0]) ? ('tie' as PairwiseValue) : m.value, all: vs };
    };
    const judged = judgedInput(cfg.extract, 0);
    return async (raw, ctx) => {
      const input = judged(raw);
      const question = q ? renderString(q, input) : '';
      const a = renderString(ra, input);
      const bb = renderString(rb, input);
      // both responses are under judgment: a verdict quoted from either is not the judge's own;
      // the one under test (A, with the sample) is to blame for verdict markers it carries
      const p = parse(gradedStrings(a, bb, input.sample), gradedStrings(a, input.sample));
      const imgs = await renderImages(input, ctx);
      const runs = await Promise.all([
        runJudge(ctx, s, withImages(messages(question, a, bb), imgs), p, structured?.schema, imgs.images),
        ...(both ? [runJudge(ctx, s, withImages(messages(question, bb, a), imgs), p, structured?.schema, imgs.images)] : []),
      ]);
      // response A planted verdict markers that made an order's verdict unreadable: A loses
      const planted = runs.find((r) => r.planted);
      if (planted?.planted) {
        const usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
        for (const r of runs) {
          usage.prompt_tokens += r.call.usage.prompt_tokens;
          usage.completion_tokens += r.call.usage.completion_tokens;
          usage.total_tokens += r.call.usage.total_tokens;
        }
        const order = runs[0]!.planted ? 'ab' : 'ba';
        return plantedOutcome(planted.planted, 0, { ...planted.meta, model: s.model, usage, winner: 'B', planted_order: order });
      }
      const ab = verdictOf(runs[0]!);
      const meta: Record<string, unknown> = { model: s.model, verdict_ab: ab.value };
      let score = points(ab.value);
      const usage = { ...runs[0]!.call.usage };
      if (both) {
        const ba = verdictOf(runs[1]!);
        const mapped = swap(ba.value); // back into "A = the first response" terms
        meta.verdict_ba = mapped;
        meta.consistent = mapped === ab.value;
        score = (score + points(mapped)) / 2;
        usage.prompt_tokens += runs[1]!.call.usage.prompt_tokens;
        usage.completion_tokens += runs[1]!.call.usage.completion_tokens;
        usage.total_tokens += runs[1]!.call.usage.total_tokens;
      }
      meta.winner = score > 0.5 ? 'A' : score < 0.5 ? 'B' : 'tie';
      meta.usage = usage;
      meta.cached = runs.every((r) => r.call.cached);
      if (imgs.images.length) meta.images = imgs.images;
      if (s.samples > 1) meta.samples = { ab: ab.all, ...(both ? { ba: runs[1]!.valid.map((v) => swap(v.verdict.value)) } : {}) };
      const first = runs[0]!.valid[0]!;
      const reasons = runs.map((r, i) => `${i === 0 ? '[A first]' : '[B first]'} ${rationale(r.valid[0]!.verdict, r.valid[0]!.choice.content)}`);
      return { score, reason: both ? reasons.join('\n\n') : rationale(first.verdict, first.choice.content), metadata: meta };
    };
  },
};
