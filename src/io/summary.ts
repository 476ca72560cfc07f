// Running statistics over graded results: counts, validity, mean score, error kinds, throughput.
import type { Result } from '../core/result.js';

export interface Summary {
  count: number;
  valid: number;
  invalid: number;
  mean_score: number | null;
  error_kinds: Record<string, number>;
  duration_s: number;
  lines_per_s: number;
  /** With --resume: records that were already in the output file (their lines were skipped). */
  resumed?: number;
  /** Set when the run was stopped early (e.g. 'SIGINT'): the output holds the first `count` records after any resumed ones. */
  interrupted?: string;
  /** Set when the run stopped on a streak of identical setup errors (interrupted 'errors'): the first of them and how many in a row. */
  stopped_on_errors?: { kind: string; message: string; count: number; first_id: string | number | null };
  /** With --group-by / --advantages / --monitor: groups, advantage counts and each batch's monitor reports. */
  pipeline?: object;
}

/** The counts of a summary without its timing (a server reply's summary: no clock read per request). */
export type SummaryCounts = Pick<Summary, 'count' | 'valid' | 'invalid' | 'mean_score' | 'error_kinds'>;

/** Counts of graded results: count, validity, mean score, error kinds. */
export class ResultCounts {
  count = 0;
  valid = 0;
  private sum = 0;
  readonly errorKinds: Record<string, number> = {};

  add(r: Result): void {
    this.count++;
    if (r.valid && r.score !== null) {
      this.valid++;
      this.sum += r.score;
    } else {
      const k = r.error?.kind ?? 'internal_error';
      this.errorKinds[k] = (this.errorKinds[k] ?? 0) + 1;
    }
  }

  get mean(): number | null {
    return this.valid ? this.sum / this.valid : null;
  }

  counts(): SummaryCounts {
    return { count: this.count, valid: this.valid, invalid: this.count - this.valid, mean_score: this.mean, error_kinds: { ...this.errorKinds } };
  }
}

/** ResultCounts with the run's duration and throughput (since it was made). */
export class SummaryStats extends ResultCounts {
  private readonly t0 = performance.now();

  elapsed(): number {
    return (performance.now() - this.t0) / 1000;
  }

  summary(): Summary {
    const duration_s = this.elapsed();
    return {
      ...this.counts(),
      duration_s: Math.round(duration_s * 1000) / 1000,
      lines_per_s: duration_s > 0 ? Math.round(this.count / duration_s) : 0,
    };
  }
}

export function formatSummary(s: Summary): string {
  const kinds = Object.entries(s.error_kinds)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  const mean = s.mean_score === null ? 'n/a' : s.mean_score.toFixed(4);
  return (
    `graded ${s.count} samples in ${s.duration_s.toFixed(2)}s (${s.lines_per_s}/s): ` +
    `${s.valid} valid, ${s.invalid} invalid, mean score ${mean}` +
    (kinds ? `; errors: ${kinds}` : '') +
    (s.resumed ? `; ${s.resumed} already in the output (resumed)` : '') +
    (s.interrupted ? `; interrupted by ${s.interrupted}: the output is complete up to here, run again with --resume to continue` : '')
  );
}
