// Scores a JSONL file (or stdin) into a JSONL file (or stdout): the engine behind `arbiter score`
// and the library's `scoreFile`. Streams both ends; memory does not grow with the input.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { access, constants, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { Grader } from '../core/grader.js';
import { Services } from '../core/services.js';
import { readLines } from './jsonl-reader.js';
import { JsonlWriter } from './jsonl-writer.js';
import { Progress } from './progress.js';
import { readDoneIds } from './resume.js';
import { scoreLines } from './score-stream.js';
import { SummaryStats, type Summary } from './summary.js';

export interface ScoreFileOptions {
  grader: Grader;
  /** Input path, or '-' for stdin. */
  input: string;
  /** Output path; '-' or undefined for stdout. */
  output?: string;
  concurrency?: number;
  resume?: boolean;
  /** Show a progress line (default: when stderr is a TTY). */
  progress?: boolean;
  services?: Services;
  signal?: AbortSignal;
}

/** An I/O problem the user must fix (unreadable input, unwritable output). */
export class IoError extends Error {
  override name = 'IoError';
}

async function openInput(input: string): Promise<{ stream: Readable; size?: number }> {
  if (input === '-') return { stream: process.stdin };
  try {
    const st = await stat(input);
    if (st.isDirectory()) throw new IoError(`cannot read input ${input}: it is a directory`);
    await access(input, constants.R_OK);
    return { stream: createReadStream(input, { highWaterMark: 1 << 20 }), size: st.size };
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
  const skipIds = opts.resume && !toStdout ? await readDoneIds(opts.output!) : undefined;
  const { stream, size } = await openInput(opts.input);
  const out = toStdout ? process.stdout : await openOutput(opts.output!, Boolean(opts.resume));
  const writer = new JsonlWriter(out);
  const services = opts.services ?? new Services();
  const stats = new SummaryStats();
  const progress = new Progress(stats, size, opts.progress ?? Boolean(process.stderr.isTTY));
  let bytes = 0;
  async function* counted() {
    for await (const l of readLines(stream)) {
      bytes += l.bytes + 1;
      yield l;
    }
  }
  try {
    const ctx = opts.signal ? { services, signal: opts.signal } : { services };
    for await (const rec of scoreLines(opts.grader, counted(), ctx, { concurrency: opts.concurrency ?? 64, ...(skipIds ? { skipIds } : {}) })) {
      stats.add(rec);
      await writer.write(rec);
      progress.tick(bytes);
    }
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && /^E[A-Z]+$/.test(code)) throw new IoError(`I/O error: ${(e as Error).message}`);
    throw e;
  } finally {
    progress.done();
    await writer.close(!toStdout).catch((e: Error) => {
      throw new IoError(`cannot write output ${opts.output ?? 'stdout'}: ${e.message}`);
    });
    if (!opts.services) await services.close();
  }
  return stats.summary();
}
