// What every suite receives from the command line, and small shared helpers.
import type { Grader } from '../../core/grader.js';
import type { Services } from '../../core/services.js';
import { EvalProgress, type RunOptions } from '../run.js';
import type { RecordSource } from '../read.js';

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

export function progressFor(label: string, opts: SuiteOptions, src?: RecordSource, extra?: () => string): EvalProgress {
  const fraction = src?.size ? () => src.bytesRead() / src.size! : undefined;
  return new EvalProgress(label, opts.progress, Boolean(process.stderr.isTTY), fraction, extra);
}

export function runOptions(opts: SuiteOptions, progress: EvalProgress): RunOptions {
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
