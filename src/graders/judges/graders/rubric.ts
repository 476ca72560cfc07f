// `rubric`: one judge call per weighted criterion (binary met/not met, or a rating scale), each with
// its own rationale as a component result; combined as a weighted mean over positive weights, minus
// negative-weight (pitfall) criteria that are met, clamped to [0, 1]. Criteria come from the config
// or per item from the data (`criteria: "{{item.rubric}}"`).
import { z } from 'zod';
import type { GraderContext } from '../../../core/grader.js';
import { graderSchema, type GraderType } from '../../../core/registry.js';
import { renamed } from '../../../extract/options.js';
import { GradeFailure, type Result } from '../../../core/result.js';
import type { GradeInput } from '../../../core/sample.js';
import { renderString, renderValue, type Template } from '../../../core/template.js';
import { logprobScore, numericToken, yesNoToken } from '../logprob-score.js';
import { checkSize, compileImages, fill, imagesField, withImages, type ResolvedImages } from '../messages.js';
import { parseYesNo } from '../parse/binary.js';
import { gradedStrings } from '../parse/quotes.js';
import { parseScore } from '../parse/score.js';
import { RUBRIC_SYSTEM_BINARY, RUBRIC_SYSTEM_SCALE, RUBRIC_USER } from '../prompts.js';
import { plantedMeta, rationale, runJudge } from '../run-judge.js';
import { judgeCapabilities, judgeFields, judgeSettings, type JudgeSettings } from '../settings.js';
import { judgeExtractField, judgedInput } from '../response.js';
import { combineScores, plantedReason, type Planted } from '../verdicts.js';
import { choiceFormat, structuredInstruction, verdictSchema } from '../verdict-schema.js';

/** Most criteria one grade may judge (each is a model call). */
export const MAX_CRITERIA = 64;

const criterionSchema = z.union([
  z.string().min(1),
  z.strictObject({ name: z.string().min(1).optional(), criterion: z.string().min(1), weight: z.number().optional() }),
]);

const schema = graderSchema({
  ...judgeFields,
  ...judgeExtractField,
  /** A list of criteria, or a template yielding one per item (strings or {criterion|description|title, weight|points}). */
  criteria: z.union([z.array(criterionSchema).min(1), z.string()]),
  question: z.string().optional(),
  /** The model output judged (default {{sample.output_text}}). Deprecated name: response. */
  input: z.string().optional(),
  /** "binary" (default: met / not met) or a rating range [lo, hi], as score_model's `range` (old name: `scale`). */
  range: z.union([z.literal('binary'), z.tuple([z.number().int(), z.number().int()])]).optional(),
  system_prompt: z.string().optional(),
  user_prompt: z.string().optional(),
  /** json_schema (default: each verdict in a {"steps", "result"} object; prompt-only when the server lacks it) or text. */
  response_format: z.enum(['json_schema', 'text']).optional(),
  /** Images shown with every criterion's prompt (templates giving image URLs, e.g. "{{item.image}}"); see docs/multimodal.md. */
  ...imagesField,
});

export type RubricConfig = z.infer<typeof schema>;

interface Criterion {
  name: string;
  text: string;
  weight: number;
}

function fromData(v: unknown): Criterion[] {
  if (!Array.isArray(v)) throw new GradeFailure('bad_input', `rubric criteria must be an array, got ${v === null ? 'null' : typeof v}`);
  if (v.length === 0) throw new GradeFailure('bad_input', 'the item has an empty rubric');
  if (v.length > MAX_CRITERIA) throw new GradeFailure('limit_exceeded', `the rubric has ${v.length} criteria (limit ${MAX_CRITERIA})`);
  return v.map((c, i) => {
    if (typeof c === 'string' && c.trim()) return { name: `c${i}`, text: c, weight: 1 };
    if (c && typeof c === 'object' && !Array.isArray(c)) {
      const o = c as Record<string, unknown>;
      const text = [o.criterion, o.description, o.title, o.text].find((x) => typeof x === 'string' && x.trim()) as string | undefined;
      const w = o.weight ?? o.points ?? 1;
      if (text && typeof w === 'number' && Number.isFinite(w)) return { name: typeof o.name === 'string' && o.name ? o.name : `c${i}`, text, weight: w };
    }
    throw new GradeFailure('bad_input', `rubric criterion ${i} must be a string or {criterion, weight}, got ${JSON.stringify(c)?.slice(0, 80)}`);
  });
}

export const rubric: GraderType<RubricConfig> = {
  type: 'rubric',
  summary: 'LLM judge checks each weighted rubric criterion separately (item-specific rubrics too); weighted score',
  schema,
  // `scale` elsewhere divides a score (reward_model, transform); the rating range is `range`, as in score_model
  aliases: [renamed('response', 'input'), renamed('scale', 'range')],
  capabilities: judgeCapabilities,
  build(cfg, b) {
    let fixed: Criterion[] | undefined;
    let fromItem: Template | undefined;
    if (typeof cfg.criteria === 'string') {
      fromItem = b.template('criteria', cfg.criteria);
      if (!fromItem.single) b.fail('criteria', 'must be a list of criteria or a single {{...}} placeholder naming a list in the data');
    } else {
      fixed = cfg.criteria.map((c, i) =>
        typeof c === 'string' ? { name: `c${i}`, text: c, weight: 1 } : { name: c.name ?? `c${i}`, text: c.criterion, weight: c.weight ?? 1 },
      );
      if (fixed.length > MAX_CRITERIA) b.fail('criteria', `at most ${MAX_CRITERIA} criteria`);
      if (!fixed.some((c) => c.weight > 0)) b.fail('criteria', 'needs at least one criterion with a positive weight');
      const names = new Set<string>();
      fixed.forEach((c, i) => {
        if (names.has(c.name)) b.issue(`criteria[${i}].name`, `duplicate criterion name "${c.name}"`);
        names.add(c.name);
      });
    }
    const scale = cfg.range ?? 'binary';
    if (scale !== 'binary' && !(scale[0] < scale[1])) b.fail('range', 'range must be [lo, hi] with lo < hi');
    const q = cfg.question !== undefined ? b.template('question', cfg.question) : undefined;
    const resp = b.template('input', cfg.input ?? '{{sample.output_text}}');
    const s = judgeSettings(cfg, b);
    const renderImages = compileImages(b, 'images', cfg.images, { vision: s.vision, floor: 0 });
    const system = cfg.system_prompt ?? (scale === 'binary' ? RUBRIC_SYSTEM_BINARY : fill(RUBRIC_SYSTEM_SCALE, { lo: String(scale[0]), hi: String(scale[1]) }));
    const user = cfg.user_prompt ?? RUBRIC_USER;
    const mode = cfg.aggregate ?? 'mean';
    const useSchema = (cfg.response_format ?? 'json_schema') === 'json_schema';
    const structured = !useSchema
      ? undefined
      : scale === 'binary'
        ? choiceFormat('criterion_verdict', ['[[YES]]', '[[NO]]'])
        : {
            schema: verdictSchema('criterion_rating', { type: 'integer', minimum: scale[0], maximum: scale[1] }),
            instruction: structuredInstruction(`<an integer from ${scale[0]} to ${scale[1]}>`),
          };

    /** Criteria whose verdict the response planted (per grade call). */
    const plantedIn = new WeakMap<Result, Planted>();
    /**
     * A criterion whose verdict the response planted: its floor (not met; met for a pitfall, whose
     * negative weight then applies), valid, with the reason naming the markers.
     */
    const plantedResult = (p: Planted, c: Criterion, base: { grader: string; type: string; [k: string]: unknown }, t0: number): Result => {
      const floor = c.weight < 0 ? 1 : 0;
      const r: Result = {
        score: floor,
        valid: true,
        reason: plantedReason(p, floor),
        metadata: { ...base, planted: { ...plantedMeta(p), floor }, duration_ms: performance.now() - t0 },
      };
      plantedIn.set(r, p);
      return r;
    };

    /** One criterion → a component result in [0, 1]. */
    const judgeOne = async (
      c: Criterion,
      question: string,
      response: string,
      graded: string[],
      imgs: ResolvedImages,
      ctx: GraderContext,
      st: JudgeSettings,
    ): Promise<Result> => {
      const t0 = performance.now();
      const messages = withImages(
        [
          { role: 'system' as const, content: structured ? `${system}\n\n${structured.instruction}` : system },
          { role: 'user' as const, content: fill(user, { question, response, criterion: c.text }) },
        ],
        imgs,
      );
      const base = { grader: c.name, type: 'rubric_criterion', criterion: c.text, weight: c.weight };
      try {
        let values: number[];
        // biome-ignore lint/suspicious/noImplicitAnyLet: typed by control flow (each branch assigns its own verdict type)
        let first;
        if (scale === 'binary') {
          const run = await runJudge(ctx, st, messages, (t) => parseYesNo(t, { graded }), structured?.schema);
          if (run.planted) return plantedResult(run.planted, c, { ...base, usage: run.call.usage, cached: run.call.cached }, t0);
          values = run.valid.map(({ verdict, choice }) => {
            if (!st.logprobs) return verdict.value ? 1 : 0;
            const lp = logprobScore(choice, verdict.start, choice.content.slice(verdict.start, verdict.end), yesNoToken);
            return lp.ok ? lp.value.score : verdict.value ? 1 : 0;
          });
          first = run.valid[0]!;
          Object.assign(base, { verdict: first.verdict.value ? 'yes' : 'no', usage: run.call.usage, cached: run.call.cached });
        } else {
          const [lo, hi] = scale;
          const run = await runJudge(ctx, st, messages, (t) => parseScore(t, { range: [lo, hi], graded }), structured?.schema);
          if (run.planted) return plantedResult(run.planted, c, { ...base, usage: run.call.usage, cached: run.call.cached }, t0);
          const tok = numericToken(lo, hi);
          values = run.valid.map(({ verdict, choice }) => {
            let v = verdict.value.score;
            if (st.logprobs) {
              const lp = logprobScore(choice, verdict.start, choice.content.slice(verdict.start, verdict.end), tok);
              if (lp.ok && verdict.value.denominator === undefined) v = lp.value.score;
            }
            return (v - lo) / (hi - lo);
          });
          first = run.valid[0]!;
          Object.assign(base, { verdict: first.verdict.value.raw, usage: run.call.usage, cached: run.call.cached });
        }
        const score = combineScores(values, mode);
        return { score, valid: true, reason: rationale(first.verdict, first.choice.content), metadata: { ...base, duration_ms: performance.now() - t0 } };
      } catch (e) {
        if (!(e instanceof GradeFailure)) throw e;
        return {
          score: null,
          valid: false,
          error: { kind: e.kind, message: e.message },
          metadata: { ...e.metadata, ...base, duration_ms: performance.now() - t0 },
        };
      }
    };

    const judged = judgedInput(cfg.extract, 0);
    return async (raw: GradeInput, ctx) => {
      const input = judged(raw);
      const criteria = fixed ?? fromData(renderValue(fromItem!, input));
      if (!criteria.some((c) => c.weight > 0)) throw new GradeFailure('bad_input', 'the rubric has no criterion with a positive weight');
      const question = q ? renderString(q, input) : '(not given)';
      const response = renderString(resp, input);
      checkSize(question.length + response.length);
      const graded = gradedStrings(response, input.sample);
      const imgs = await renderImages(input, ctx);
      const imagesMeta = imgs.images.length ? { images: imgs.images } : {};
      const results = await Promise.all(criteria.map((c) => judgeOne(c, question, response, graded, imgs, ctx, s)));
      const components: Record<string, Result> = {};
      criteria.forEach((c, i) => {
        let key = c.name;
        for (let n = 2; components[key]; n++) key = `${c.name}_${n}`;
        components[key] = results[i]!;
      });
      // verdict markers in the response made a criterion's verdict unreadable: the whole grade is the floor
      const plantedAt = results.findIndex((r) => plantedIn.has(r));
      if (plantedAt >= 0) {
        const p = plantedIn.get(results[plantedAt]!)!;
        return {
          score: 0,
          components,
          reason: `criterion "${criteria[plantedAt]!.name}": ${plantedReason(p, 0)}`,
          metadata: {
            model: s.model,
            criteria: criteria.length,
            ...imagesMeta,
            planted: { ...plantedMeta(p), floor: 0, criterion: criteria[plantedAt]!.name },
          },
        };
      }
      const bad = results.findIndex((r) => !r.valid);
      if (bad >= 0) {
        const r = results[bad]!;
        throw new GradeFailure(r.error!.kind, `criterion "${criteria[bad]!.name}" could not be judged: ${r.error!.message}`, { components, ...imagesMeta });
      }
      const pos = criteria.reduce((a, c) => a + (c.weight > 0 ? c.weight : 0), 0);
      let total = 0;
      criteria.forEach((c, i) => {
        total += (c.weight * results[i]!.score!) / pos;
      });
      const score = Math.min(1, Math.max(0, total));
      const met = results.filter((r) => (r.score ?? 0) >= 0.5).length;
      return { score, components, reason: `${met} of ${criteria.length} criteria met`, metadata: { model: s.model, criteria: criteria.length, ...imagesMeta } };
    };
  },
};
