// `ifeval` grader: IFEval's verifiable instructions (ids + kwargs from the item) checked against
// the response in strict or loose mode; score = all followed (1/0) or the fraction followed.
// The response is read through the extraction layer (`extract.think` default `strip`: the
// instructions bind the answer, not the reasoning before it).
import { raisedCaps } from '../../core/capabilities.js';
import { z } from 'zod';
import { GradeFailure, ResponseFault, type Result } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { renderCompiled, renderValue } from '../../core/template.js';
import { extractSchema, neverCloses, partialCreditAlias, partialCreditField, readText, resolveExtract } from '../../extract/index.js';
import { followVerdicts } from './evaluate.js';
import { loadLanguageDetector } from './language.js';
import { buildInstruction, INSTRUCTIONS, type BuiltInstruction } from './registry.js';
import { KwargsError, type CheckContext, type Kwargs } from './types.js';

const DEFAULT_MAX_CHARS = 200_000;

const schema = graderSchema({
  /** The response text (default `{{sample.output_text}}`). */
  input: z.string().optional(),
  /** Instruction ids: a template such as `{{item.instruction_id_list}}`, or a literal list. */
  instruction_ids: z.union([z.string(), z.array(z.string())]),
  /** One kwargs object per instruction: a template such as `{{item.kwargs}}`, or a literal list. Default: all `{}`. */
  kwargs: z.union([z.string(), z.array(z.record(z.string(), z.unknown()))]).optional(),
  mode: z.enum(['strict', 'loose']).optional(),
  /** true: score = fraction of instructions followed; false (default): 1 only when all are. Deprecated: aggregate all|mean. */
  partial_credit: partialCreditField,
  /** Responses longer than this (in UTF-16 units) are not graded (`limit_exceeded`). */
  max_chars: z.number().int().positive().optional(),
  /** think `strip` (default: the reasoning is not the response the instructions bind) or `keep`; from `whole`. */
  extract: extractSchema(['whole'] as const),
});

function asList(v: unknown, what: string): unknown[] {
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new GradeFailure('bad_input', `${what} is a string that is not a JSON list`);
    }
  }
  if (!Array.isArray(v)) throw new GradeFailure('bad_input', `${what} must be a list, got ${v === null ? 'null' : typeof v}`);
  return v;
}

function uniqueKey(id: string, seen: Map<string, number>): string {
  const n = (seen.get(id) ?? 0) + 1;
  seen.set(id, n);
  return n === 1 ? id : `${id}#${n}`;
}

export const ifeval: GraderType<z.infer<typeof schema>> = {
  type: 'ifeval',
  summary: 'IFEval verifiable instructions (25 types), strict or loose, all-or-mean over instructions',
  // sentence splitting, language detection and 8 loose variants over up to 200,000 characters
  cpu_heavy: true,
  schema,
  aliases: [partialCreditAlias('aggregate', 'all', 'mean')],
  capabilities: (cfg) => [...PURE, ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS })],
  // the language profiles load before the first grade, not inside its budget: whenever an item's
  // instruction list may ask for a language check (a template, or a literal list naming one)
  warm: async (cfg) => {
    const ids = cfg.instruction_ids;
    if (typeof ids === 'string' || ids.some((id) => INSTRUCTIONS.get(id)?.usesLanguage)) await loadLanguageDetector();
  },
  build(cfg, b) {
    const input = b.template('input', cfg.input ?? '{{sample.output_text}}');
    const ids = b.value('instruction_ids', cfg.instruction_ids);
    const kwargsT = cfg.kwargs === undefined ? undefined : b.value('kwargs', cfg.kwargs);
    const mode = cfg.mode ?? 'strict';
    const aggregate = cfg.partial_credit === true ? 'mean' : 'all';
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    const extract = resolveExtract(cfg.extract, { think: 'strip', from: 'whole' });
    if (Array.isArray(cfg.instruction_ids)) {
      cfg.instruction_ids.forEach((id, i) => {
        if (!INSTRUCTIONS.has(id)) b.issue(`instruction_ids[${i}]`, `unknown instruction id "${id}"`);
      });
      if (Array.isArray(cfg.kwargs) && cfg.kwargs.length !== cfg.instruction_ids.length) {
        b.issue('kwargs', `has ${cfg.kwargs.length} entries for ${cfg.instruction_ids.length} instruction ids`);
      }
    }

    return async (s) => {
      const raw = renderValue(input, s);
      if (typeof raw !== 'string') throw new GradeFailure('bad_input', `input must render to a string, got ${raw === null ? 'null' : typeof raw}`);
      if (raw.length > maxChars) throw new ResponseFault('limit_exceeded', `response has ${raw.length} characters, over max_chars ${maxChars}`);
      const idList = asList(renderCompiled(ids, s), 'instruction_ids');
      if (idList.length === 0) throw new GradeFailure('bad_input', 'instruction_ids is empty');
      const kwList = kwargsT === undefined ? idList.map(() => ({})) : asList(renderCompiled(kwargsT, s), 'kwargs');
      if (kwList.length !== idList.length) {
        throw new GradeFailure('bad_input', `kwargs has ${kwList.length} entries for ${idList.length} instruction ids`);
      }
      const built: BuiltInstruction[] = idList.map((id, i) => {
        if (typeof id !== 'string') throw new GradeFailure('bad_input', `instruction_ids[${i}] must be a string`);
        const kw = kwList[i] ?? {};
        if (typeof kw !== 'object' || Array.isArray(kw)) throw new GradeFailure('bad_input', `kwargs[${i}] must be an object`);
        try {
          return buildInstruction(id, kw as Kwargs);
        } catch (e) {
          if (e instanceof KwargsError) throw new GradeFailure('bad_input', `instruction ${i} (${id}): ${e.message}`);
          throw e;
        }
      });
      const got = readText(raw, extract);
      const ctx: CheckContext = {
        detectLanguage: got.ok && built.some((x) => x.usesLanguage) ? await loadLanguageDetector() : () => null,
      };
      // no response after the reasoning: no instruction is followed (an empty text would "follow" no_comma)
      const verdicts = got.ok ? followVerdicts(got.text, built, mode, ctx) : built.map(() => false);
      const followed = verdicts.filter(Boolean).length;
      const components: Record<string, Result> = {};
      const seen = new Map<string, number>();
      built.forEach((ins, i) => {
        const key = uniqueKey(ins.id, seen);
        components[key] = { score: verdicts[i] ? 1 : 0, valid: true, metadata: { grader: key, type: 'ifeval_instruction', duration_ms: 0, index: i } };
      });
      const missed = built.filter((_, i) => !verdicts[i]).map((x) => x.id);
      const score = aggregate === 'all' ? (missed.length === 0 ? 1 : 0) : followed / built.length;
      return {
        score,
        reason: !got.ok
          ? neverCloses('no response to check')
          : missed.length
            ? `followed ${followed}/${built.length} instructions (${mode}); not followed: ${missed.join(', ')}`
            : `followed all ${built.length} instructions (${mode})`,
        components,
        metadata: { mode, follow_instruction_list: verdicts, ...(!got.ok || got.changed ? { extracted: got.read } : {}) },
      };
    };
  },
};
