// `text_similarity` (OpenAI grader schema): score how close the rendered input is to the
// reference with one metric: fuzzy_match, bleu, gleu, meteor, rouge_1..rouge_5, rouge_l, cosine
// (embeddings endpoint), plus exact_match and f1 (SQuAD normalisation). The score is the metric
// value; `pass_threshold` only sets metadata.passed (score >= threshold), as in OpenAI's graders.
// A reference that renders to a list of strings is a multi-reference: BLEU/GLEU/METEOR use all
// references as their definitions do, the other metrics take the best reference. The input is
// read through the extraction layer (`extract`: reasoning stripped by default, whole or fenced).
import { z } from 'zod';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { endpointCapabilities } from '../../models/endpoint-capabilities.js';
import { raisedCaps } from '../../core/capabilities.js';
import { renderString, renderValue } from '../../core/template.js';
import { describe } from '../../core/sample.js';
import { extractSchema, neverCloses, readText, resolveExtract, TEXT_SOURCES } from '../../extract/index.js';
import { sentenceBleu } from './bleu.js';
import { cosineScore } from './cosine.js';
import { fuzzyMatch } from './fuzzy.js';
import { sentenceGleu } from './gleu.js';
import { meteor } from './meteor.js';
import { rougeL, rougeN, rougeTokenize } from './rouge.js';
import { exactMatch, tokenF1 } from './squad.js';
import { pySplit } from './text.js';

export const METRICS = [
  'fuzzy_match',
  'bleu',
  'gleu',
  'meteor',
  'cosine',
  'rouge_1',
  'rouge_2',
  'rouge_3',
  'rouge_4',
  'rouge_5',
  'rouge_l',
  'exact_match',
  'f1',
] as const;
export type Metric = (typeof METRICS)[number];

const DEFAULT_MAX_CHARS = 100_000;
/** fuzzy_match's partial ratios grow with the product of the lengths: ~0.5 s at 20k x 2k chars. */
const DEFAULT_MAX_CHARS_FUZZY = 20_000;
const MAX_REFERENCES = 64;

const schema = graderSchema({
  input: z.string(),
  reference: z.string(),
  evaluation_metric: z.enum(METRICS),
  /** BLEU smoothing (NLTK SmoothingFunction): none = method0 (default), epsilon = method1, add_one = method2, exp = method3. */
  bleu_smoothing: z.enum(['none', 'epsilon', 'add_one', 'exp']).optional(),
  /** ROUGE: Porter-stem tokens longer than 3 characters (rouge-score `use_stemmer`). Default false. */
  rouge_stemmer: z.boolean().optional(),
  /** cosine: embedding model (default text-embedding-3-large), endpoint, key, dimensions. */
  model: z.string().min(1).optional(),
  base_url: z.string().url().optional(),
  api_key: z.string().optional(),
  dimensions: z.number().int().positive().optional(),
  max_retries: z.number().int().min(0).max(10).optional(),
  /** Hard limit on the characters of the input and of each reference (default 100000; fuzzy_match 20000). */
  max_chars: z.number().int().positive().optional(),
  /** think `strip` (default: the reasoning is not the answer) or `keep`; from `whole` (default) or `fenced` (the last fenced block, else the whole input). */
  extract: extractSchema(TEXT_SOURCES),
});

type Config = z.infer<typeof schema>;

function references(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  if (Array.isArray(v)) {
    if (v.length === 0) throw new GradeFailure('bad_input', 'reference rendered to an empty list');
    if (v.length > MAX_REFERENCES) throw new GradeFailure('limit_exceeded', `reference list has ${v.length} entries (limit ${MAX_REFERENCES})`);
    return v.map((x, i) => {
      if (typeof x === 'string') return x;
      if (typeof x === 'number') return String(x);
      throw new GradeFailure('bad_input', `reference[${i}] must be a string, got ${describe(x)}`);
    });
  }
  throw new GradeFailure('bad_input', `reference must be a string or a list of strings, got ${describe(v)}`);
}

const best = (refs: string[], f: (r: string) => number) => refs.reduce((m, r) => Math.max(m, f(r)), 0);

/** Computes a non-embedding metric (synchronous, pure). */
export function computeMetric(
  metric: Exclude<Metric, 'cosine'>,
  input: string,
  refs: string[],
  cfg: Pick<Config, 'bleu_smoothing' | 'rouge_stemmer'> = {},
): number {
  switch (metric) {
    case 'fuzzy_match':
      return best(refs, (r) => fuzzyMatch(input, r));
    case 'bleu':
      return sentenceBleu(refs.map(pySplit), pySplit(input), { smoothing: cfg.bleu_smoothing ?? 'none' });
    case 'gleu':
      return sentenceGleu(refs.map(pySplit), pySplit(input));
    case 'meteor':
      return meteor(refs.map(pySplit), pySplit(input));
    case 'exact_match':
      return best(refs, (r) => exactMatch(input, r));
    case 'f1':
      return best(refs, (r) => tokenF1(input, r));
    case 'rouge_l': {
      const p = rougeTokenize(input, cfg.rouge_stemmer);
      return best(refs, (r) => rougeL(rougeTokenize(r, cfg.rouge_stemmer), p).fmeasure);
    }
    default: {
      const n = Number(metric.slice('rouge_'.length));
      const p = rougeTokenize(input, cfg.rouge_stemmer);
      return best(refs, (r) => rougeN(rougeTokenize(r, cfg.rouge_stemmer), p, n).fmeasure);
    }
  }
}

export const textSimilarity: GraderType<Config> = {
  type: 'text_similarity',
  summary: 'similarity of input and reference: fuzzy_match, bleu, gleu, meteor, rouge_1..5, rouge_l, cosine, exact_match, f1',
  schema,
  // a request may lower max_chars, never raise it above the metric's default
  capabilities: (cfg) => [
    ...(cfg.evaluation_metric === 'cosine' ? endpointCapabilities(cfg) : PURE),
    ...raisedCaps(cfg, { max_chars: cfg.evaluation_metric === 'fuzzy_match' ? DEFAULT_MAX_CHARS_FUZZY : DEFAULT_MAX_CHARS }),
  ],
  build(cfg, b) {
    const input = b.template('input', cfg.input);
    const reference = b.template('reference', cfg.reference);
    const metric = cfg.evaluation_metric;
    const maxChars = cfg.max_chars ?? (metric === 'fuzzy_match' ? DEFAULT_MAX_CHARS_FUZZY : DEFAULT_MAX_CHARS);
    if (metric !== 'cosine') {
      for (const f of ['model', 'base_url', 'api_key', 'dimensions', 'max_retries'] as const) {
        if (cfg[f] !== undefined) b.issue(f, `only used by evaluation_metric "cosine" (this grader uses "${metric}")`);
      }
    }
    if (cfg.bleu_smoothing !== undefined && metric !== 'bleu') b.issue('bleu_smoothing', `only used by evaluation_metric "bleu"`);
    if (cfg.rouge_stemmer !== undefined && !metric.startsWith('rouge_')) b.issue('rouge_stemmer', 'only used by the rouge_* metrics');
    const check = (what: string, s: string) => {
      if (s.length <= maxChars) return;
      const msg = `${what} has ${s.length} characters (limit max_chars=${maxChars})`;
      // an oversized response is its own doing (a valid 0); an oversized reference is the item's
      throw what === 'input' ? new ResponseFault('limit_exceeded', msg) : new GradeFailure('limit_exceeded', msg);
    };
    const extract = resolveExtract(cfg.extract, { think: 'strip', from: 'whole' });
    // no answer after the reasoning gets the metric's lowest value (cosine ranges over [-1, 1])
    const floor = metric === 'cosine' ? -1 : 0;
    return async (s, ctx) => {
      const raw = renderString(input, s);
      const refs = references(renderValue(reference, s));
      check('input', raw);
      refs.forEach((r, i) => check(refs.length > 1 ? `reference[${i}]` : 'reference', r));
      const got = readText(raw, extract);
      if (!got.ok) return { score: floor, reason: neverCloses('no answer given'), metadata: { evaluation_metric: metric, extracted: got.read } };
      const text = got.text;
      const score =
        metric === 'cosine'
          ? await cosineScore(text, refs, { model: cfg.model ?? 'text-embedding-3-large', ...pick(cfg) }, ctx)
          : computeMetric(metric, text, refs, cfg);
      const metadata = got.changed ? { evaluation_metric: metric, extracted: got.read } : { evaluation_metric: metric };
      return { score, reason: `${metric} = ${score} against ${refs.length} reference${refs.length === 1 ? '' : 's'}`, metadata };
    };
  },
};

function pick(cfg: Config) {
  const o: { base_url?: string; api_key?: string; dimensions?: number; max_retries?: number } = {};
  if (cfg.base_url !== undefined) o.base_url = cfg.base_url;
  if (cfg.api_key !== undefined) o.api_key = cfg.api_key;
  if (cfg.dimensions !== undefined) o.dimensions = cfg.dimensions;
  if (cfg.max_retries !== undefined) o.max_retries = cfg.max_retries;
  return o;
}
