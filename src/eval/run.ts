// Running an evaluation over a stream: bounded concurrency in input order, one JSONL record per
// unit written as it completes (the run's raw outcomes, re-scorable later with --recorded), resume
// from that file (ids already there are re-read instead of re-graded, a torn last line is cut), and
// a progress line on stderr. Live grading goes through the library's `grade` with one Services.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { orderedMap } from '../core/ordered.js';
import type { Grader } from '../core/grader.js';
import type { Result } from '../core/result.js';
import type { Services } from '../core/services.js';
import { grade } from '../core/grade.js';
import { readLines } from '../io/jsonl-reader.js';
import { JsonlWriter } from '../io/jsonl-writer.js';
import { readDoneIds } from '../io/resume.js';
import { IoError } from '../io/score-file.js';

export interface RunOptions {
  concurrency: number;
  /** JSONL file receiving one record per unit. */
  records?: string;
  /** Re-read records already in `records` and grade only the rest. */
  resume?: boolean;
  progress?: EvalProgress;
}

/** Unit keys are strings unique within one input (its position, unless the suite has ids). */
export interface Keyed {
  key: string;
}

/**
 * Maps units to records with bounded concurrency, writing each record (with `id` = its key) to
 * the records file, and yields every record: first those re-read on resume, then the new ones.
 */
export async function* runUnits<U extends Keyed, R extends Record<string, unknown>>(
  units: AsyncIterable<U>,
  work: (u: U) => Promise<R>,
  opts: RunOptions,
): AsyncGenerator<R> {
  let done: Set<string> | undefined;
  if (opts.resume) {
    if (!opts.records) throw new IoError('--resume needs --records FILE (the file a previous run wrote)');
    // the records' ids as raw JSON text (readDoneIds keeps them byte-exact); units are keyed by strings
    done = new Set((await readDoneIds(opts.records)).map((raw) => String(JSON.parse(raw))));
    if (done.size) {
      for await (const l of readLines(createReadStream(opts.records))) {
        if (!l.text) continue;
        let rec: Record<string, unknown>;
        try {
          rec = JSON.parse(l.text) as Record<string, unknown>;
        } catch {
          continue; // readDoneIds skipped it too: that unit is graded again
        }
        opts.progress?.tick();
        yield rec as R;
      }
    }
  }
  let writer: JsonlWriter | undefined;
  if (opts.records) {
    let ws: Writable;
    try {
      ws = createWriteStream(opts.records, { flags: done ? 'a' : 'w' });
      await once(ws, 'open');
    } catch (e) {
      throw new IoError(`cannot write records ${opts.records}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    writer = new JsonlWriter(ws);
  }
  async function* todo(): AsyncGenerator<U> {
    for await (const u of units) if (!done?.has(u.key)) yield u;
  }
  try {
    for await (const rec of orderedMap(todo(), async (u) => ({ id: u.key, ...(await work(u)) }), opts.concurrency)) {
      if (writer) await writer.write(rec);
      opts.progress?.tick();
      yield rec as unknown as R;
    }
  } finally {
    await writer?.close(true);
  }
}

/** Grades one sample through the library (never throws). */
export function gradeOne(grader: Grader, services: Services, item: Record<string, unknown>, outputText: string): Promise<Result> {
  return grade(grader, { item, sample: { output_text: outputText } }, { services });
}

/** A progress line on stderr: redrawn on a terminal, or one line a second when forced elsewhere. */
export class EvalProgress {
  private n = 0;
  private last = 0;
  private readonly t0 = performance.now();
  constructor(
    private readonly label: string,
    private readonly enabled: boolean,
    private readonly tty = Boolean(process.stderr.isTTY),
    private readonly fraction?: () => number | undefined,
    private readonly extra?: () => string,
  ) {}

  tick(): void {
    this.n++;
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < (this.tty ? 100 : 1000)) return;
    this.last = now;
    this.write(false);
  }

  get count(): number {
    return this.n;
  }

  private write(final: boolean): void {
    const secs = (performance.now() - this.t0) / 1000;
    const rate = Math.round(this.n / Math.max(secs, 1e-3));
    const f = this.fraction?.();
    const pct = f !== undefined && !final ? ` ${(Math.min(1, f) * 100).toFixed(1)}%` : '';
    const extra = this.extra ? `, ${this.extra()}` : '';
    const text = `eval ${this.label}: ${this.n} ${final ? 'done' : 'so far'}${pct}, ${rate}/s${extra}`;
    process.stderr.write(this.tty ? `\r${text}\x1b[K${final ? '\n' : ''}` : `${text}\n`);
  }

  done(): void {
    if (this.enabled) this.write(true);
  }
}
