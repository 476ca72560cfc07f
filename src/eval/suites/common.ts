// What a suite declares (its name, summary, options, run function: one file per suite, listed in
// ./index.ts), what every suite receives from the command line, and small shared helpers.
import type { Grader } from '../../core/grader.js';
import type { Services } from '../../core/services.js';
import type { EvalReport, Problems } from '../report.js';
import { ProgressLine } from '../../io/progress.js';
import type { RunOptions } from '../run.js';
import { openRecords, type RecordSource } from '../read.js';

/**
 * The command-line options several suites share, which a suite takes only when it declares them
 * (every suite takes --grader, --json, --html, --md, --published, --progress, --unsafe-no-sandbox):
 * `mode` (--mode) and `orders` (--orders) are pair-only: for suites that judge a pair of responses;
 * `second` (--second) a second grader; `recorded` (--recorded) re-scores a previous run's records;
 * `records` (--records, --resume) writes and resumes live runs; `concurrency` (-c) and `max-cases`.
 */
export const SHARED_OPTIONS = ['mode', 'orders', 'second', 'recorded', 'records', 'concurrency', 'max-cases'] as const;
export type SharedOption = (typeof SHARED_OPTIONS)[number];

/** An option of one suite; its value reaches the run as SuiteOptions.extra[key]. */
export interface SuiteOption {
  flags: string;
  description: string;
  /** Key in SuiteOptions.extra. */
  key: string;
  parse?: 'number';
}

/** An eval suite as it declares itself: `arbiter eval <name>` is built from this. */
export interface Suite {
  name: string;
  summary: string;
  /** Its input argument as commander reads it: `<file>`, `<files...>` or `[file]` (optional with --recorded). */
  args: string;
  /** One command line that runs it (the help shows it). */
  example: string;
  /** The shared options it honours (the others are not offered). */
  takes: readonly SharedOption[];
  /** Its own options. */
  options: readonly SuiteOption[];
  run(opts: SuiteOptions): Promise<EvalReport>;
}

export interface SuiteOptions {
  files: string[];
  /** Live grader (built), when grading; absent when re-scoring recorded outputs. */
  grader?: Grader;
  graderFile?: string;
  /** A second grader (agreement). */
  second?: Grader;
  secondFile?: string;
  services?: Services;
  mode?: string;
  orders?: 1 | 2;
  records?: string;
  resume?: boolean;
  /** A previous run's records file to re-score instead of grading. */
  recorded?: string;
  concurrency: number;
  maxCases: number;
  progress: boolean;
  published?: number;
  /** Suite-specific options (label path, bins, format, threshold …). */
  extra: Record<string, string | number | boolean | undefined>;
}

/** The suite's progress line (the shared format), by bytes of its input when it has a size. */
export function progressFor(label: string, opts: SuiteOptions, src?: RecordSource, extra?: () => string): ProgressLine {
  const size = src?.size;
  return new ProgressLine({
    enabled: opts.progress,
    label: `eval ${label}`,
    ...(size ? { fraction: () => src.bytesRead() / size } : {}),
    ...(extra ? { extra } : {}),
  });
}

/** Records of a previous live run (its --records file), re-scored without grading. */
export async function* recordedRecords(file: string, problems: Problems, progress: { tick(): void }): AsyncGenerator<Record<string, unknown>> {
  const src = await openRecords(file);
  for await (const r of src.records()) {
    progress.tick();
    if ('error' in r) problems.add(r.where, r.error);
    else yield r.value;
  }
}

export function runOptions(opts: SuiteOptions, progress: ProgressLine): RunOptions {
  return { concurrency: opts.concurrency, ...(opts.records ? { records: opts.records } : {}), ...(opts.resume ? { resume: true } : {}), progress };
}

/** A usage problem found while running a suite (exit 2). */
export class EvalUsageError extends Error {
  override name = 'EvalUsageError';
}

export function pct(n: number, d: number): number | null {
  return d > 0 ? (100 * n) / d : null;
}

export function ratio(n: number, d: number): number | null {
  return d > 0 ? n / d : null;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
