// What the suites over labelled samples (one graded output, a correct/incorrect label) share:
// reading the samples, grading them (live, recorded or scores in the data) and their options.
// The suites are ./agreement.ts, ./calibration.ts and ./bon.ts; ./overopt.ts reads GSM8K through samplesOf.
// Data: GSM8K's example_model_solutions.jsonl (4 solutions a problem, `is_correct`), MATH-500
// test.jsonl (each reference solution, labelled correct), or JSONL/JSON {id?, item, sample |
// output_text, label, group?}. Scores come from a live grader, a previous run's records
// (--recorded), or a score already in the data (--score-field).
import { getPath, openRecords } from '../read.js';
import { clip, type Problems } from '../report.js';
import { gradeOne, runUnits } from '../run.js';
import { EvalUsageError, progressFor, recordedRecords, runOptions, str, type SuiteOption, type SuiteOptions } from './common.js';

export interface LabelledSample {
  key: string;
  where: string;
  group: string;
  item: Record<string, unknown>;
  output: string;
  label: boolean;
  /** A score already in the data (--score-field). */
  score?: number | null;
}

export function asLabel(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (['true', 'yes', 'correct', '1'].includes(t)) return true;
    if (['false', 'no', 'incorrect', '0'].includes(t)) return false;
  }
  return undefined;
}

const GSM8K_MODELS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];

/** The final answer of a GSM8K example solution ("… A: 18"). */
function afterA(s: string): string {
  const i = s.lastIndexOf('A:');
  return (i < 0 ? s : s.slice(i + 2)).trim();
}

export async function* samplesOf(
  file: string,
  opts: SuiteOptions,
  problems: Problems,
  src: Awaited<ReturnType<typeof openRecords>>,
): AsyncGenerator<LabelledSample> {
  const format = (opts.extra.format as string | undefined) ?? (/example_model_solutions/.test(file) ? 'gsm8k' : /math500/.test(file) ? 'math500' : 'samples');
  const labelPath = (opts.extra.label as string | undefined) ?? 'label';
  const groupPath = opts.extra.group as string | undefined;
  const scorePath = opts.extra.scoreField as string | undefined;
  for await (const r of src.records()) {
    if ('error' in r) {
      problems.add(r.where, r.error);
      continue;
    }
    const v = r.value;
    if (format === 'gsm8k') {
      const question = str(v.question);
      const gt = str(v.ground_truth);
      if (question === undefined || gt === undefined) {
        problems.add(r.where, 'a GSM8K example-solutions row needs "question" and "ground_truth"');
        continue;
      }
      for (const m of GSM8K_MODELS) {
        const s = v[m] as { is_correct?: unknown; solution?: unknown } | undefined;
        if (!s) continue;
        const label = asLabel(s.is_correct);
        if (label === undefined || typeof s.solution !== 'string') {
          problems.add(`${r.where} ${m}`, 'needs "solution" (string) and "is_correct" (boolean)');
          continue;
        }
        yield {
          key: `${r.index}:${m}`,
          where: `${r.where} ${m}`,
          group: String(r.index),
          item: { question, ground_truth: gt, answer: afterA(gt), model: m },
          output: s.solution,
          label,
        };
      }
      continue;
    }
    if (format === 'math500') {
      const question = str(v.question);
      const sol = str(v.answer);
      if (question === undefined || sol === undefined) {
        problems.add(r.where, 'a MATH-500 row needs "question" and "answer"');
        continue;
      }
      const final = sol.includes('The answer is:') ? sol.slice(sol.lastIndexOf('The answer is:') + 'The answer is:'.length).trim() : sol;
      yield { key: String(r.index), where: r.where, group: String(r.index), item: { question, answer: final, solution: sol }, output: sol, label: true };
      continue;
    }
    const output = str((v.sample as { output_text?: unknown } | undefined)?.output_text) ?? str(v.output_text) ?? str(v.output);
    const label = asLabel(getPath(v, labelPath));
    if (output === undefined || label === undefined) {
      problems.add(r.where, `needs the output ("sample.output_text", "output_text" or "output") and a label at "${labelPath}" (boolean or 0/1)`);
      continue;
    }
    const item = (v.item && typeof v.item === 'object' ? v.item : v) as Record<string, unknown>;
    const group = groupPath ? String(getPath(v, groupPath) ?? r.index) : String(v.group ?? v.prompt_id ?? r.index);
    const s: LabelledSample = { key: String(r.index), where: r.where, group, item, output, label };
    if (scorePath) {
      const sc = getPath(v, scorePath);
      s.score = typeof sc === 'number' && Number.isFinite(sc) ? sc : null;
    }
    yield s;
  }
}

export interface Graded {
  where: string;
  group: string;
  label: boolean;
  score: number | null;
  passed: boolean | null;
  reason: string;
  output?: string;
  second?: { score: number | null; passed: boolean | null; reason: string };
}

function passOf(r: { valid: boolean; score: number | null; metadata?: Record<string, unknown> }, threshold: number): boolean | null {
  if (!r.valid || r.score === null) return null;
  if (typeof r.metadata?.passed === 'boolean') return r.metadata.passed;
  return r.score >= threshold;
}

/** Streams graded samples: live, from a records file, or from scores in the data. */
export async function* graded(suite: string, opts: SuiteOptions, problems: Problems, progressLabel: string): AsyncGenerator<Graded> {
  const threshold = Number(opts.extra.threshold ?? 0.5);
  if (opts.recorded) {
    const progress = progressFor(progressLabel, opts);
    for await (const o of recordedRecords(opts.recorded, problems, progress)) {
      if (typeof o.label !== 'boolean' || !('score' in o)) problems.add(str(o.where) ?? '?', `not a ${suite} record (needs "label" and "score")`);
      else yield o as unknown as Graded;
    }
    progress.done();
    return;
  }
  if (opts.files.length !== 1) throw new EvalUsageError(`${suite} takes one data file`);
  const file = opts.files[0]!;
  const src = await openRecords(file);
  const progress = progressFor(progressLabel, opts, src);
  const grader = opts.grader;
  const second = opts.second;
  if (!grader) {
    if (!opts.extra.scoreField)
      throw new EvalUsageError(`${suite} needs scores: --grader G.json (live), --recorded RECORDS.jsonl, or --score-field PATH (scores in the data)`);
    for await (const s of samplesOf(file, opts, problems, src)) {
      progress.tick();
      yield {
        where: s.where,
        group: s.group,
        label: s.label,
        score: s.score ?? null,
        passed: s.score === null || s.score === undefined ? null : s.score >= threshold,
        reason: s.score === null ? `no finite number at "${opts.extra.scoreField}"` : 'score from the data',
      };
    }
    progress.done();
    return;
  }
  const keep = suite === 'agreement';
  const work = async (s: LabelledSample): Promise<Record<string, unknown>> => {
    const [r, r2] = await Promise.all([
      gradeOne(grader, opts.services!, s.item, s.output),
      second ? gradeOne(second, opts.services!, s.item, s.output) : undefined,
    ]);
    const why = (x: typeof r) => (x.valid ? (x.reason ?? '') : `${x.error?.kind}: ${x.error?.message}`);
    return {
      where: s.where,
      group: s.group,
      label: s.label,
      score: r.valid ? r.score : null,
      passed: passOf(r, threshold),
      reason: clip(why(r), 1000),
      ...(keep ? { output: clip(s.output, 600) } : {}),
      ...(r2 ? { second: { score: r2.valid ? r2.score : null, passed: passOf(r2, threshold), reason: clip(why(r2), 1000) } } : {}),
    };
  };
  for await (const o of runUnits(samplesOf(file, opts, problems, src), work, runOptions(opts, progress))) yield o as unknown as Graded;
  progress.done();
}

/** The options of every labelled suite. */
export const LABELLED_OPTIONS: readonly SuiteOption[] = [
  {
    flags: '--format <f>',
    description: 'gsm8k (example_model_solutions.jsonl), math500 (test.jsonl) or samples ({item, output_text, label}); default from the file name',
    key: 'format',
  },
  { flags: '--label <path>', description: 'where the correct/incorrect label is in a samples record (default "label")', key: 'label' },
  { flags: '--score-field <path>', description: 'use the score already in each record at this path instead of grading', key: 'scoreField' },
];

/** Only a suite that reads pass/fail takes it (calibration reads scores as probabilities, bon ranks them). */
export const THRESHOLD_OPTION: SuiteOption = {
  flags: '--threshold <x>',
  description: 'pass when score >= x (when the grader has no pass_threshold; default 0.5)',
  key: 'threshold',
  parse: 'number',
};

/** The shared options every labelled suite takes. */
export const LABELLED_TAKES = ['recorded', 'records', 'concurrency', 'max-cases'] as const;
