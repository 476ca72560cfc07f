// `repetition`: an n-gram repetition penalty. rep = 1 - distinct n-grams / all n-grams of the
// output (0 for no repeat). Score = 1 - rep by default, or penalty * rep when `penalty` is set —
// with lower-cased words and a negative penalty this is the repetition penalty of Yeo et al. 2025
// ("Demystifying Long Chain-of-Thought Reasoning in LLMs", arXiv:2502.03373).
// The text is read through the extraction layer; `extract.think` defaults to `keep`: repetition
// inside the reasoning (a model looping in its chain of thought) is what the penalty is for.
import { raisedCaps } from '../../core/capabilities.js';
import { z } from 'zod';
import { ResponseFault } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { ENCODINGS, UNITS, getEncoder, tokenize, words } from './measure.js';
import { measuredText, NOTHING_TO_MEASURE, textOf } from './length.js';
import { extractSchema, resolveExtract } from '../../extract/index.js';

const schema = graderSchema({
  input: z.string().optional(),
  n: z.number().int().min(1).max(1000).optional(),
  unit: z.enum(UNITS).optional(),
  encoding: z.enum(ENCODINGS).optional(),
  lowercase: z.boolean().optional(),
  penalty: z.number().optional(),
  max_chars: z.number().int().positive().optional(),
  /** think `keep` (default: repetition inside the reasoning counts) or `strip` (the answer after it); from `whole`. */
  extract: extractSchema(['whole'] as const),
});
type Config = z.infer<typeof schema>;

const DEFAULT_MAX_CHARS = 1_000_000;

/** Repetition statistics of a sequence of units (strings or token ids). */
export function repetitionStats(
  units: readonly (string | number)[],
  n: number,
  sep: string,
): { total: number; distinct: number; rate: number; top?: { gram: string; count: number } } {
  const total = Math.max(0, units.length - n + 1);
  if (total === 0) return { total: 0, distinct: 0, rate: 0 };
  const counts = new Map<string, number>();
  let top: { gram: string; count: number } | undefined;
  for (let i = 0; i < total; i++) {
    const k = units.slice(i, i + n).join(sep);
    const c = (counts.get(k) ?? 0) + 1;
    counts.set(k, c);
    if (c > 1 && (!top || c > top.count)) top = { gram: k, count: c };
  }
  return { total, distinct: counts.size, rate: 1 - counts.size / total, ...(top ? { top } : {}) };
}

export const repetition: GraderType<Config> = {
  type: 'repetition',
  summary: 'n-gram repetition penalty: 1 - repeated fraction of n-grams (or penalty x fraction)',
  // tokenizing, and n-grams up to n = 1000 over 1,000,000 characters
  cpu_heavy: true,
  schema,
  capabilities: (cfg) => [...PURE, ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS })],
  // the tokenizer loads (seconds) before the first grade, not inside its budget
  warm: async (cfg) => {
    if ((cfg.unit ?? 'words') === 'tokens') await getEncoder(cfg.encoding ?? 'o200k_base');
  },
  build(cfg, b) {
    const unit = cfg.unit ?? 'words';
    if (cfg.encoding !== undefined && unit !== 'tokens') b.issue('encoding', 'only used with unit "tokens"');
    if (cfg.lowercase !== undefined && unit === 'tokens') b.issue('lowercase', 'not used with unit "tokens"');
    const input = cfg.input !== undefined ? b.template('input', cfg.input) : undefined;
    const n = cfg.n ?? 3;
    const enc = cfg.encoding ?? 'o200k_base';
    const lower = cfg.lowercase ?? true;
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    const floor = cfg.penalty !== undefined ? Math.min(0, cfg.penalty) : 0;
    const extract = resolveExtract(cfg.extract, { think: 'keep', from: 'whole' });
    return async (s) => {
      const raw = textOf(input, s);
      if (raw.length > maxChars) throw new ResponseFault('limit_exceeded', `input has ${raw.length} characters (limit max_chars=${maxChars})`, { floor });
      const read = measuredText(raw, extract);
      if ('unclosed' in read) return { score: floor, reason: NOTHING_TO_MEASURE, metadata: { extracted: read.unclosed } };
      let text = read.text;
      if (lower && unit !== 'tokens') text = text.toLowerCase();
      const units: (string | number)[] = unit === 'tokens' ? await tokenize(text, enc) : unit === 'words' ? words(text) : [...text];
      // separators that cannot occur inside a unit: words have no spaces, chars are single code points
      const st = repetitionStats(units, n, unit === 'words' ? ' ' : unit === 'chars' ? '' : ',');
      const score = cfg.penalty !== undefined ? cfg.penalty * st.rate : 1 - st.rate;
      const shown = st.top ? (unit === 'tokens' ? `token ids ${st.top.gram}` : st.top.gram) : '';
      const reason = st.top
        ? `${(st.rate * 100).toFixed(1)}% of ${n}-grams repeat; most repeated (${st.top.count}x): ${JSON.stringify(shown.slice(0, 80))}`
        : `no repeated ${n}-grams`;
      return { score, reason, metadata: { ngrams: st.total, distinct: st.distinct, repetition_rate: st.rate, ...read.meta } };
    };
  },
};
