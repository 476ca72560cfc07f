// Scores a JSONL file (or stdin) into a JSONL file (or stdout): the engine behind `arbiter score`
// and the library's `scoreFile`. Streams both ends; memory does not grow with the input. On abort
// (the CLI's SIGINT/SIGTERM) it stops reading, writes the records finished so far as an in-order
// prefix of the output (so --resume continues exactly), and returns the summary marked interrupted.
import { createReadStream, createWriteStream, fstatSync } from 'node:fs';
import { once } from 'node:events';
import { access, constants, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Grader } from '../core/grader.js';
import { Services } from '../core/services.js';
import { readRawLineBatches } from './jsonl-reader.js';
import { JsonlWriter } from './jsonl-writer.js';
import { ProgressLine, progressEnabled } from './progress.js';
import { IoError } from './errors.js';
import { readDoneIds } from './resume.js';
import { INPUT, scoreBatches, type OutputRecord } from './score-stream.js';
import { SummaryStats, type Summary } from './summary.js';
import type { GraderContext } from '../core/grader.js';
import type { GradeInput } from '../core/sample.js';

/**
 * Stages the graded records pass through before they are written (the group stage, advantages
 * and monitors of src/group/pipeline.ts): records go in in input order, and come out in input
 * order, one per record.
 */
export interface RecordStages {
  /** The context members are graded with (e.g. marking that a group stage follows). */
  context(ctx: GraderContext): GraderContext;
  /** True when push needs each record's graded input. */
  readonly wantsInput: boolean;
  /** Resolves once the record (and any group it completes) has moved on; take() then has what is finished. */
  push(rec: OutputRecord, src: string, at: number, input?: GradeInput): Promise<void>;
  end(): Promise<void>;
  take(): OutputRecord[];
  /** Goes into the run summary as `pipeline`. */
  readonly summary: object;
}

export interface ScoreFileOptions {
  grader: Grader;
  /** Input path, or '-' for stdin. */
  input: string;
  /** Output path; '-' or undefined for stdout. */
  output?: string;
  concurrency?: number;
  resume?: boolean;
  /** Show a progress line on stderr (default: when stderr is a TTY; never while the JSONL goes to stdout on a terminal). */
  progress?: boolean;
  services?: Services;
  /**
   * Stops the run: no further line is read, graders see the abort on `ctx.signal`, records not
   * finished (and any after them) are not written, and the summary's `interrupted` is the abort
   * reason when it is a string (e.g. 'SIGINT'), else 'aborted'.
   */
  signal?: AbortSignal;
  /** Deepest JSON nesting accepted in an input line (default 64); deeper lines are `limit_exceeded`. */
  maxJsonDepth?: number;
  /** Input fields each output record carries after its id (default `uid`, `global_step`). */
  keep?: readonly string[];
  /** Group stage, advantages and monitors in the same pass (`--group-by`, `--advantages`, `--monitor`); not with `resume`. */
  stages?: RecordStages;
  /**
   * Stop the run (as `signal` would: the output stays a prefix that `resume` continues) once this
   * many records in a row failed with the same setup error (a kind of SETUP_ERROR_KINDS and the same
   * message): the summary's `interrupted` is 'errors' and `stopped_on_errors` holds the first one.
   * Unset or 0: never.
   */
  stopAfterErrors?: number;
}

/**
 * The error kinds that say the run's set-up is wrong rather than one sample (a grader that cannot
 * reach its model server, a config unusable for the data, a template naming a field the data does
 * not have): the same one on many records in a row will be on every record.
 */
export const SETUP_ERROR_KINDS: readonly string[] = ['config_error', 'template_error', 'judge_server_error'];

/** Counts records in a row that failed with the same setup error; `add` says when there are `limit` of them. */
class ErrorStreak {
  private first: OutputRecord | undefined;
  private key = '';
  count = 0;
  constructor(private readonly limit: number) {}

  add(rec: OutputRecord): boolean {
    const e = rec.valid ? undefined : rec.error;
    if (!e || !SETUP_ERROR_KINDS.includes(e.kind)) {
      this.count = 0;
      this.first = undefined;
      return false;
    }
    const key = `${e.kind}\0${e.message}`;
    if (key !== this.key || !this.first) {
      this.key = key;
      this.first = rec;
      this.count = 0;
    }
    return ++this.count >= this.limit;
  }

  report(): NonNullable<Summary['stopped_on_errors']> {
    const e = this.first!.error!;
    return { kind: e.kind, message: e.message, count: this.count, first_id: this.first!.id };
  }
}

export { IoError, ResumeError } from './errors.js';

/** The input stream; `pipe` when reads can stall (not a regular file), so results are yielded eagerly. */
async function openInput(input: string): Promise<{ stream: Readable; size?: number; pipe: boolean }> {
  if (input === '-') {
    let pipe = true;
    try {
      pipe = !fstatSync(0).isFile();
    } catch {
      // keep the eager default
    }
    return { stream: process.stdin, pipe };
  }
  try {
    const st = await stat(input);
    if (st.isDirectory()) throw new IoError(`cannot read input ${input}: it is a directory`);
    await access(input, constants.R_OK);
    return { stream: createReadStream(input, { highWaterMark: 1 << 20 }), size: st.size, pipe: !st.isFile() };
  } catch (e) {
    if (e instanceof IoError) throw e;
    throw new IoError(`cannot read input ${input}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

async function openOutput(output: string, append: boolean): Promise<Writable> {
  try {
    const ws = createWriteStream(output, { flags: append ? 'a' : 'w', highWaterMark: 1 << 20 });
    await once(ws, 'open'); // rejects with the open error (ENOENT, EACCES, EISDIR)
    return ws;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const hint = code === 'ENOENT' ? ` (does the directory ${dirname(output)} exist?)` : '';
    throw new IoError(`cannot write output ${output}: ${code ?? (e as Error).message}${hint}`);
  }
}

export async function scoreFile(opts: ScoreFileOptions): Promise<Summary> {
  const toStdout = !opts.output || opts.output === '-';
  const done = opts.resume && !toStdout ? await readDoneIds(opts.output!) : undefined;
  const { stream, size, pipe } = await openInput(opts.input);
  const out = toStdout ? process.stdout : await openOutput(opts.output!, Boolean(opts.resume));
  const writer = new JsonlWriter(out);
  const services = opts.services ?? new Services();
  const stats = new SummaryStats();
  const progress = new ProgressLine({
    enabled: progressEnabled(opts.progress, toStdout),
    label: 'score',
    noun: 'graded',
    ...(size ? { fraction: () => bytes / size } : {}),
    extra: () => `${stats.count - stats.valid} invalid, mean ${stats.mean === null ? '-' : stats.mean.toFixed(3)}`,
  });
  // the caller's signal, and the stop on a streak of setup errors, abort the same run
  const stopper = new AbortController();
  const signal = stopper.signal;
  const passOn = () => stopper.abort(opts.signal?.reason);
  if (opts.signal?.aborted) passOn();
  else opts.signal?.addEventListener('abort', passOn, { once: true });
  const streak = opts.stopAfterErrors ? new ErrorStreak(opts.stopAfterErrors) : undefined;
  let bytes = 0;
  async function* counted() {
    for await (const b of readRawLineBatches(stream)) {
      for (const l of b) bytes += l.bytes + 1;
      yield b;
    }
  }
  // stopping closes the input, so a wait on an idle stdin ends too
  const closeInput = () => stream.destroy();
  signal.addEventListener('abort', closeInput, { once: true });
  let interrupted = false;
  const stages = opts.stages;
  if (stages && done)
    throw new IoError('--resume cannot continue a run with --group-by, --advantages or --monitor: groups and batches span the lines already written');
  try {
    const base = { services, signal };
    const ctx = stages ? stages.context(base) : base;
    const batches = scoreBatches(opts.grader, counted(), ctx, {
      concurrency: opts.concurrency ?? 64,
      ...(opts.maxJsonDepth !== undefined ? { maxJsonDepth: opts.maxJsonDepth } : {}),
      ...(done ? { done } : {}),
      signal,
      ...(opts.keep ? { keep: opts.keep } : {}),
      withInput: Boolean(stages?.wantsInput),
      eager: pipe,
    });
    const emit = async (rec: OutputRecord) => {
      delete rec[INPUT];
      stats.add(rec);
      await writer.write(rec);
      if (streak?.add(rec) && !signal.aborted) stopper.abort('errors');
    };
    let line = 0;
    run: for await (const recs of batches) {
      for (const rec of recs) {
        // a record that arrives after the abort may have been cut short: it is not written, nor any after it
        if (signal.aborted) break run;
        if (stages) {
          // one record per input line, in order: the k-th record is line k
          await stages.push(rec, 'line', ++line, rec[INPUT]);
          for (const r of stages.take()) await emit(r);
        } else {
          // emit() without its awaits: the writer is waited for only when its buffer is full
          stats.add(rec);
          if (writer.add(rec)) await writer.flush();
          if (streak?.add(rec) && !signal.aborted) stopper.abort('errors');
        }
      }
      progress.update(stats.count);
    }
    interrupted = signal.aborted;
    if (stages && !interrupted) {
      await stages.end();
      for (const r of stages.take()) await emit(r);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (!(e instanceof IoError) && code && /^E[A-Z]+$/.test(code)) throw new IoError(`I/O error: ${(e as Error).message}`);
    throw e;
  } finally {
    signal.removeEventListener('abort', closeInput);
    opts.signal?.removeEventListener('abort', passOn);
    progress.done();
    await writer.close(!toStdout).catch((e: Error) => {
      throw new IoError(`cannot write output ${opts.output ?? 'stdout'}: ${e.message}`);
    });
    if (!opts.services) await services.close();
  }
  const summary = stats.summary();
  if (done?.length) summary.resumed = done.length;
  if (interrupted) summary.interrupted = typeof signal.reason === 'string' ? signal.reason : 'aborted';
  if (summary.interrupted === 'errors' && streak) summary.stopped_on_errors = streak.report();
  if (stages) summary.pipeline = stages.summary;
  return summary;
}
