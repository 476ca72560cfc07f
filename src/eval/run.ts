// Running an evaluation over a stream: bounded concurrency in input order, one JSONL record per
// unit written as it completes (the run's raw outcomes, re-scorable later with --recorded), resume
// from that file (ids already there are re-read instead of re-graded, a torn last line is cut), and
// the shared progress line (src/io/progress.ts). Live grading goes through the library's `grade` with one Services.
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
import type { ProgressLine } from '../io/progress.js';

export interface RunOptions {
  concurrency: number;
  /** JSONL file receiving one record per unit. */
  records?: string;
  /** Re-read records already in `records` and grade only the rest. */
  resume?: boolean;
  progress?: ProgressLine;
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
