// Step-reward evaluations a grader can be run through: PRMBench (step-level F1 / negative F1 /
// PRMScore, overall and per error class) and ProcessBench-style first-error accuracy. Each runs the
// grader over the data with bounded concurrency and returns a JSON-ready report.
//
// What the grader sees: `{id, item: {question, ...labels}, sample: {steps}}` — so a `prm` grader with
// `"question": "{{item.question}}"` and the default steps (`sample.steps`) works unchanged. Step
// scores are read from the result's `metadata.raw_steps` (before clip/delta) or else its `steps`.
import { readFile } from 'node:fs/promises';
import type { Grader } from '../core/grader.js';
import { orderedMap } from '../core/ordered.js';
import type { Result } from '../core/result.js';
import { Services } from '../core/services.js';
import { IoError } from '../io/errors.js';
import { prmbenchMetrics, prmbenchRecords, type PrmbenchMetrics, type PrmbenchRecord } from './prmbench.js';
import { firstErrorMetrics, firstErrorOf, predictFirstError, type FirstErrorScores } from './processbench.js';

export { prmbenchMetrics, prmbenchRecords, evalSteps } from './prmbench.js';
export type { PrmbenchMetrics, PrmbenchRecord, PrmbenchScores } from './prmbench.js';
export { firstErrorMetrics, predictFirstError } from './processbench.js';
export type { FirstErrorScores } from './processbench.js';

/** Reads JSONL files into parsed rows (blank lines skipped); an unreadable file or a bad line throws an IoError naming file[:line]. */
export async function readJsonlRows(files: readonly string[]): Promise<{ file: string; row: unknown }[]> {
  const out: { file: string; row: unknown }[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      throw new IoError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    text.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        out.push({ file, row: JSON.parse(line) });
      } catch (e) {
        throw new IoError(`${file}:${i + 1}: invalid JSON (${(e as Error).message})`);
      }
    });
  }
  return out;
}

/** Step scores of a graded result, or the reason there are none. */
export function stepScoresOf(r: Result, steps: number): { scores: number[] } | { kind: string; message: string } {
  if (!r.valid) return { kind: r.error?.kind ?? 'internal_error', message: r.error?.message ?? 'invalid' };
  const raw = r.metadata.raw_steps;
  const s = Array.isArray(raw) ? raw : r.steps;
  if (!Array.isArray(s))
    return { kind: 'config_error', message: `grader "${r.metadata.grader}" returned no per-step scores (use a grader that returns steps, e.g. type prm)` };
  if (s.length !== steps || !s.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    return { kind: 'bad_input', message: `grader "${r.metadata.grader}" returned ${s.length} step scores for ${steps} steps` };
  }
  return { scores: s as number[] };
}

interface RunOptions {
  grader: Grader;
  services?: Services;
  /** Grades in flight at once (default 16). */
  concurrency?: number;
}

async function gradeAll<T>(
  items: readonly T[],
  toInput: (x: T) => Record<string, unknown>,
  o: RunOptions,
  onResult?: (x: T, r: Result) => void,
): Promise<Result[]> {
  const services = o.services ?? new Services();
  const out: Result[] = [];
  try {
    let i = 0;
    for await (const r of orderedMap(items, (x) => o.grader.grade(toInput(x) as never, { services }), o.concurrency ?? 16)) {
      onResult?.(items[i]!, r);
      out.push(r);
      i++;
    }
  } finally {
    if (!o.services) await services.close();
  }
  return out;
}

function countKinds(fails: { kind: string }[]): Record<string, number> {
  const k: Record<string, number> = {};
  for (const f of fails) k[f.kind] = (k[f.kind] ?? 0) + 1;
  return k;
}

export interface PrmbenchEvalInput extends RunOptions {
  /** PRMBench .jsonl files (rows as in ../shared/data/prmbench) ... */
  files?: readonly string[];
  /** ... or rows already parsed. */
  rows?: readonly unknown[];
  /** A step is predicted correct when its score is above this (default 0.5). */
  threshold?: number;
  /** Grade only the first N records (after the loader adds the originals). */
  limit?: number;
  /** Called for each record with its result, in record order. */
  onResult?: (record: PrmbenchRecord, result: Result) => void;
}

export interface PrmbenchEvalReport extends PrmbenchMetrics {
  benchmark: 'prmbench';
  grader: string;
  files: string[];
  /** Error kinds of the invalid grades (left out of the metrics, as in PRMBench). */
  invalid_kinds: Record<string, number>;
  /** The first few invalid grades, for diagnosis. */
  invalid_examples: { idx: string; kind: string; message: string }[];
}

/**
 * Runs `grader` over PRMBench and computes PRMBench's metrics: loads the rows as PRMBench's loader
 * does (adding the original of every redundancy item as a "correct" record), grades each record
 * `{id: idx, item: {question, error_steps, classification, idx}, sample: {steps}}`, and scores the
 * step predictions (correct when above `threshold`). Invalid grades are left out and counted.
 */
export async function prmbenchEval(input: PrmbenchEvalInput): Promise<PrmbenchEvalReport> {
  const rows = input.rows ?? (await readJsonlRows(input.files ?? [])).map((x) => x.row);
  let records = prmbenchRecords(rows);
  if (input.limit !== undefined) records = records.slice(0, input.limit);
  const results = await gradeAll(
    records,
    (r) => ({
      id: r.idx,
      item: { question: r.question, error_steps: r.error_steps, classification: r.classification, idx: r.idx },
      sample: { steps: r.steps },
    }),
    input,
    input.onResult,
  );
  const fails: { idx: string; kind: string; message: string }[] = [];
  const scores = results.map((r, i) => {
    const s = stepScoresOf(r, records[i]!.steps.length);
    if ('scores' in s) return s.scores;
    fails.push({ idx: records[i]!.idx, kind: s.kind, message: s.message });
    return null;
  });
  const m = prmbenchMetrics(records, scores, input.threshold ?? 0.5);
  return {
    benchmark: 'prmbench',
    grader: input.grader.name,
    files: [...(input.files ?? [])],
    ...m,
    invalid: fails.length,
    invalid_kinds: countKinds(fails),
    invalid_examples: fails.slice(0, 10),
  };
}

/** One solution of a first-error data set. */
export interface FirstErrorItem {
  id: string;
  question: string;
  steps: string[];
  label: number;
  /** File it came from (for per-file scores). */
  file?: string;
}

/**
 * A labelled solution from a row: ProcessBench's `{id, problem, steps, label}`, or a PRMBench row
 * (`modified_question`, `modified_process`, `error_steps` numbered from 1). Throws a TypeError
 * naming the row when it has neither shape.
 */
export function firstErrorItem(row: unknown, where: string): FirstErrorItem {
  const r = row as Record<string, unknown>;
  if (!r || typeof r !== 'object') throw new TypeError(`${where} is not an object`);
  const prmbench = Array.isArray(r.modified_process);
  const steps = prmbench ? r.modified_process : r.steps;
  const question = prmbench ? r.modified_question : (r.problem ?? r.question);
  const label = firstErrorOf(r);
  if (!Array.isArray(steps) || !steps.every((s) => typeof s === 'string')) throw new TypeError(`${where} has no list of steps ("steps" or "modified_process")`);
  if (typeof question !== 'string') throw new TypeError(`${where} has no question ("problem", "question" or "modified_question")`);
  if (label === undefined || label < -1 || label >= steps.length)
    throw new TypeError(`${where} has no valid first-error label ("label" from 0 or -1, or "error_steps" from 1)`);
  const id = typeof r.id === 'string' || typeof r.id === 'number' ? String(r.id) : typeof r.idx === 'string' ? `${r.classification ?? ''}_${r.idx}` : where;
  return { id, question, steps: steps as string[], label };
}

export interface ProcessBenchEvalInput extends RunOptions {
  /** JSONL files of labelled solutions (ProcessBench or PRMBench rows) ... */
  files?: readonly string[];
  /** ... or items already built. */
  items?: readonly FirstErrorItem[];
  /** The predicted first error is the first step scored below this (default 0.5), unless the result names one (`metadata.first_error`). */
  threshold?: number;
  limit?: number;
  onResult?: (item: FirstErrorItem, result: Result) => void;
}

export interface ProcessBenchEvalReport extends FirstErrorScores {
  benchmark: 'processbench';
  grader: string;
  files: string[];
  threshold: number;
  records: number;
  invalid: number;
  invalid_kinds: Record<string, number>;
  /** Rows left out because they hold no usable solution or label (e.g. a first error beyond the steps), with the first reasons. */
  skipped: number;
  skipped_examples: string[];
  /** The same scores per input file. */
  by_file: Record<string, FirstErrorScores>;
}

/**
 * ProcessBench-style evaluation: grades each solution `{id, item: {question, label}, sample: {steps}}`,
 * predicts its first wrong step (the result's `metadata.first_error` when the grader names one, as
 * the `judge` protocol does, else the first step scored below `threshold`, -1 when none is), and
 * reports accuracy on erroneous and on correct solutions and their harmonic mean. An invalid grade
 * is a missed prediction.
 */
export async function processBenchEval(input: ProcessBenchEvalInput): Promise<ProcessBenchEvalReport> {
  let items: FirstErrorItem[];
  const skipped: string[] = [];
  if (input.items) items = [...input.items];
  else {
    const rows = await readJsonlRows(input.files ?? []);
    items = [];
    rows.forEach((x, i) => {
      try {
        items.push({ ...firstErrorItem(x.row, `${x.file} record ${i + 1}`), file: x.file });
      } catch (e) {
        // a row without a usable label cannot be scored either way: counted, never guessed
        skipped.push((e as Error).message);
      }
    });
  }
  if (input.limit !== undefined) items = items.slice(0, input.limit);
  const threshold = input.threshold ?? 0.5;
  const results = await gradeAll(
    items,
    (it) => ({ id: it.id, item: { question: it.question, label: it.label }, sample: { steps: it.steps } }),
    input,
    input.onResult,
  );
  const fails: { kind: string }[] = [];
  const preds = results.map((r, i) => {
    const s = stepScoresOf(r, items[i]!.steps.length);
    if (!('scores' in s)) {
      fails.push(s);
      return null;
    }
    const named = r.metadata.first_error;
    return typeof named === 'number' && Number.isInteger(named) ? named : predictFirstError(s.scores, threshold);
  });
  const by_file: Record<string, FirstErrorScores> = {};
  const files = [...new Set(items.map((it) => it.file).filter((f): f is string => !!f))];
  for (const f of files) {
    const idx = items.map((it, i) => (it.file === f ? i : -1)).filter((i) => i >= 0);
    by_file[f] = firstErrorMetrics(
      idx.map((i) => items[i]!),
      idx.map((i) => preds[i] ?? null),
    );
  }
  return {
    benchmark: 'processbench',
    grader: input.grader.name,
    files: [...(input.files ?? [])],
    threshold,
    ...firstErrorMetrics(items, preds),
    records: items.length,
    invalid: fails.length,
    invalid_kinds: countKinds(fails),
    skipped: skipped.length,
    skipped_examples: skipped.slice(0, 10),
    by_file,
  };
}
