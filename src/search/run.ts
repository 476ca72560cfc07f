// Test-time search over a data set: for every problem and every budget N, best-of-N with a verifier,
// majority voting (plain and verifier-weighted) over N samples, and PRM-guided beam search / DVTS
// with N beams; each chosen answer is checked against the reference with the math verifier, and
// the run reports accuracy against N per method. Sampling methods share one pool of samples per
// problem (the first N of it for budget N), generated in rounds up to each budget; a token budget
// stops new rounds once spent.
import { z } from 'zod';
import '../graders/index.js';
import type { Grader } from '../core/grader.js';
import { orderedMap } from '../core/ordered.js';
import { loadGrader } from '../core/registry.js';
import type { GradeInput, Item } from '../core/sample.js';
import { Services } from '../core/services.js';
import { compileTemplate, renderString } from '../core/template.js';
import { verifyMath } from '../graders/math/verify.js';
import { checkBeamShape, stepSearch } from './beam.js';
import { Generator, generatorSchema, newCost, type GenerationCost } from './generator.js';
import { bestOfN, majorityVote, verifyCandidates, type Candidate } from './select.js';

export const METHODS = ['best_of_n', 'majority', 'weighted_majority', 'beam', 'dvts'] as const;
export type Method = (typeof METHODS)[number];

export const searchConfigSchema = z.strictObject({
  generator: generatorSchema,
  /** Grader that scores whole solutions (best_of_n, weighted_majority): any grader type. */
  verifier: z.record(z.string(), z.unknown()).optional(),
  /** Grader that scores partial solutions given as sample.steps (beam, dvts), e.g. a prm. */
  prm: z.record(z.string(), z.unknown()).optional(),
  /** The reference answer of a row (template; default "{{item.answer}}"). */
  reference: z.string().optional(),
  methods: z.array(z.enum(METHODS)).min(1).optional(),
  /** Budgets to report (samples for sampling methods, beams for beam/dvts); default [1, 2, 4, 8]. */
  n: z.array(z.number().int().min(1).max(4096)).min(1).optional(),
  /** Expansions per kept beam, M (default 4). */
  beam_width: z.number().int().min(1).max(4096).optional(),
  max_steps: z.number().int().min(1).max(10_000).optional(),
  /** Completion tokens per problem and method run; no new generation round starts once spent. */
  token_budget: z.number().int().positive().optional(),
  /** Problems searched at once (default 4). */
  concurrency: z.number().int().min(1).max(1024).optional(),
});

export type SearchConfig = z.infer<typeof searchConfigSchema>;

const NEEDS_VERIFIER: readonly Method[] = ['best_of_n', 'weighted_majority'];
const NEEDS_PRM: readonly Method[] = ['beam', 'dvts'];

export interface PreparedSearch {
  cfg: SearchConfig;
  generator: Generator;
  verifier?: Grader;
  prm?: Grader;
  methods: Method[];
  n: number[];
  beamWidth: number;
}

/** Validates a search config (graders included) and refuses settings that cannot hold as written. */
export function prepareSearch(raw: unknown, file?: string): PreparedSearch {
  const parsed = searchConfigSchema.safeParse(raw);
  const where = file ? `${file}: ` : '';
  if (!parsed.success) {
    throw new SearchConfigError(
      `${where}${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.code === 'unrecognized_keys' ? `unknown field(s) ${i.keys.join(', ')}` : i.message}`).join('; ')}`,
    );
  }
  const cfg = parsed.data;
  const methods: Method[] = cfg.methods ?? METHODS.filter((m) => (!NEEDS_VERIFIER.includes(m) || cfg.verifier) && (!NEEDS_PRM.includes(m) || cfg.prm));
  const problems: string[] = [];
  for (const m of methods) {
    if (NEEDS_VERIFIER.includes(m) && !cfg.verifier) problems.push(`method ${m} needs "verifier" (a grader scoring whole solutions)`);
    if (NEEDS_PRM.includes(m) && !cfg.prm) problems.push(`method ${m} needs "prm" (a grader scoring partial solutions given as steps)`);
  }
  const n = [...new Set(cfg.n ?? [1, 2, 4, 8])].sort((a, b) => a - b);
  const beamWidth = cfg.beam_width ?? 4;
  if (methods.some((m) => NEEDS_PRM.includes(m))) {
    for (const k of n) {
      const why = checkBeamShape(k, beamWidth);
      if (why) problems.push(`n=${k}: ${why} (beam, dvts)`);
    }
  }
  if (problems.length) throw new SearchConfigError(`${where}${problems.join('; ')}`);
  const load = (g: Record<string, unknown> | undefined, field: string): Grader | undefined => {
    if (!g) return undefined;
    try {
      return loadGrader(g, { file: file ? `${file} (${field})` : field });
    } catch (e) {
      throw new SearchConfigError(`${where}${field}: ${(e as Error).message}`);
    }
  };
  try {
    compileTemplate(cfg.reference ?? '{{item.answer}}');
    compileTemplate(cfg.generator.prompt ?? '{{item.question}}');
  } catch (e) {
    throw new SearchConfigError(`${where}${(e as Error).message}`);
  }
  return { cfg, generator: new Generator(cfg.generator), verifier: load(cfg.verifier, 'verifier'), prm: load(cfg.prm, 'prm'), methods, n, beamWidth };
}

export class SearchConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SearchConfigError';
  }
}

/** One method at one budget on one problem. */
export interface Attempt {
  answer?: string;
  correct: boolean;
  /** Samples (or beams) actually used: less than N when the token budget ran out first. */
  samples: number;
  /** Completion tokens spent by this run (sampling methods: by the shared pool up to this N). */
  tokens: number;
  solution?: string;
  note?: string;
}

export interface ProblemResult {
  id: string;
  /** False when the reference could not be read (the problem is left out of the accuracies). */
  gradable: boolean;
  reference_error?: string;
  attempts: Partial<Record<Method, Record<number, Attempt>>>;
  error?: string;
}

export interface SearchReport {
  n: number[];
  methods: Method[];
  problems: number;
  gradable: number;
  failed: number;
  /** accuracy[method][N]: fraction of gradable problems answered correctly. */
  accuracy: Partial<Record<Method, Record<number, number>>>;
  mean_tokens: Partial<Record<Method, Record<number, number>>>;
  mean_samples: Partial<Record<Method, Record<number, number>>>;
}

function check(solution: string | undefined, reference: string): boolean {
  if (solution === undefined) return false;
  return verifyMath(solution, reference).score === 1;
}

async function samplingMethods(
  p: PreparedSearch,
  input: GradeInput,
  reference: string,
  services: Services,
  out: ProblemResult,
  signal?: AbortSignal,
): Promise<void> {
  const wanted = p.methods.filter((m) => !NEEDS_PRM.includes(m));
  if (wanted.length === 0) return;
  const cost = newCost();
  const pool: string[] = [];
  const tokensAt: number[] = []; // tokens spent when the pool reached each size
  let cands: Candidate[] = [];
  for (const n of p.n) {
    if (pool.length < n && !(p.cfg.token_budget !== undefined && cost.completion_tokens >= p.cfg.token_budget)) {
      if (p.cfg.token_budget !== undefined && cost.unreported > 0)
        throw new Error('the generator server reports no token usage, so token_budget cannot be enforced');
      const more = await p.generator.solutions(services, input, n - pool.length, cost, signal);
      pool.push(...more.map((g) => g.text));
      while (tokensAt.length < pool.length) tokensAt.push(cost.completion_tokens);
      if (p.verifier && wanted.some((m) => NEEDS_VERIFIER.includes(m))) {
        cands = cands.concat(
          await verifyCandidates(
            p.verifier,
            input.item,
            more.map((g) => g.text),
            services,
            signal,
          ),
        );
      } else cands = pool.map((text) => ({ text }));
    }
    const k = Math.min(n, pool.length);
    const head = cands.slice(0, k);
    const tokens = k ? tokensAt[k - 1]! : 0;
    for (const m of wanted) {
      let idx: number;
      let note: string | undefined;
      if (m === 'best_of_n') idx = bestOfN(head);
      else idx = majorityVote(head, m === 'weighted_majority').index;
      if (idx < 0) note = m === 'best_of_n' ? 'no candidate could be verified' : 'no candidate gave a final answer';
      const solution = idx >= 0 ? head[idx]!.text : undefined;
      const a: Attempt = { correct: check(solution, reference), samples: k, tokens };
      if (solution !== undefined) a.solution = solution;
      if (note) a.note = note;
      if (k < n) a.note = `${a.note ? `${a.note}; ` : ''}token budget spent after ${k} samples`;
      record(out, m, n, a);
    }
  }
}

async function stepMethods(
  p: PreparedSearch,
  input: GradeInput,
  reference: string,
  services: Services,
  out: ProblemResult,
  signal?: AbortSignal,
): Promise<void> {
  for (const m of p.methods.filter((x) => NEEDS_PRM.includes(x))) {
    for (const n of p.n) {
      const cost: GenerationCost = newCost();
      const r = await stepSearch({
        generator: p.generator,
        prm: p.prm!,
        services,
        input,
        n,
        beamWidth: p.beamWidth,
        maxSteps: p.cfg.max_steps,
        tokenBudget: p.cfg.token_budget,
        diverse: m === 'dvts',
        cost,
        signal,
      });
      const solution = r.best ? r.best.steps.join(p.generator.delimiter) : undefined;
      const a: Attempt = { correct: check(solution, reference), samples: n, tokens: cost.completion_tokens };
      if (solution !== undefined) a.solution = solution;
      const notes = [
        r.stopped === 'token_budget' ? 'token budget spent' : '',
        r.finished.length === 0 ? 'no beam finished' : '',
        r.prm_invalid ? `${r.prm_invalid} partial solutions the PRM could not grade` : '',
      ].filter(Boolean);
      if (notes.length) a.note = notes.join('; ');
      record(out, m, n, a);
    }
  }
}

function record(out: ProblemResult, m: Method, n: number, a: Attempt): void {
  const per = out.attempts[m] ?? {};
  per[n] = a;
  out.attempts[m] = per;
}

/** A data row as a grade input: `{id?, item, ...}` rows keep their item; any other object is the item itself. */
export function rowInput(row: unknown, i: number): { id: string; input: GradeInput } {
  const r = (row ?? {}) as Record<string, unknown>;
  const item = (r.item && typeof r.item === 'object' && !Array.isArray(r.item) ? r.item : r) as Item;
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : String(i + 1);
  return { id, input: { item, sample: {} } };
}

export interface RunSearchOptions {
  services?: Services;
  signal?: AbortSignal;
  onProblem?: (r: ProblemResult) => void;
}

/** Searches every row and reports accuracy against N per method. */
export async function runSearch(
  p: PreparedSearch,
  rows: readonly unknown[],
  opts: RunSearchOptions = {},
): Promise<{ report: SearchReport; problems: ProblemResult[] }> {
  const services = opts.services ?? new Services();
  const reference = compileTemplate(p.cfg.reference ?? '{{item.answer}}');
  const results: ProblemResult[] = [];
  try {
    const one = async (row: unknown, i: number): Promise<ProblemResult> => {
      const { id, input } = rowInput(row, i);
      const out: ProblemResult = { id, gradable: true, attempts: {} };
      let ref: string;
      try {
        ref = renderString(reference, input);
        const probe = verifyMath('', ref);
        if (!probe.valid) throw new Error(probe.error?.message ?? 'unreadable reference');
      } catch (e) {
        return { ...out, gradable: false, reference_error: (e as Error).message };
      }
      try {
        await samplingMethods(p, input, ref, services, out, opts.signal);
        await stepMethods(p, input, ref, services, out, opts.signal);
      } catch (e) {
        out.error = (e as Error).message;
      }
      return out;
    };
    for await (const r of orderedMap(
      rows.map((row, k) => [row, k] as const),
      ([row, k]) => one(row, k),
      p.cfg.concurrency ?? 4,
    )) {
      opts.onProblem?.(r);
      results.push(r);
    }
  } finally {
    if (!opts.services) await services.close();
  }
  return { report: summarize(p, results), problems: results };
}

export function summarize(p: PreparedSearch, results: readonly ProblemResult[]): SearchReport {
  const ok = results.filter((r) => r.gradable && !r.error);
  const report: SearchReport = {
    n: p.n,
    methods: p.methods,
    problems: results.length,
    gradable: results.filter((r) => r.gradable).length,
    failed: results.filter((r) => r.error).length,
    accuracy: {},
    mean_tokens: {},
    mean_samples: {},
  };
  for (const m of p.methods) {
    const acc: Record<number, number> = {};
    const tok: Record<number, number> = {};
    const smp: Record<number, number> = {};
    for (const n of p.n) {
      const as = ok.map((r) => r.attempts[m]?.[n]).filter((a): a is Attempt => !!a);
      acc[n] = as.length ? as.filter((a) => a.correct).length / as.length : NaN;
      tok[n] = as.length ? as.reduce((s, a) => s + a.tokens, 0) / as.length : NaN;
      smp[n] = as.length ? as.reduce((s, a) => s + a.samples, 0) / as.length : NaN;
    }
    report.accuracy[m] = acc;
    report.mean_tokens[m] = tok;
    report.mean_samples[m] = smp;
  }
  return report;
}
