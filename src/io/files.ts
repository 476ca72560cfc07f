// Opening a JSONL input (a path or "-" for stdin) and output file with errors the user can act on
// (IoError naming the file and the cause), shared by the streaming commands.
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { IoError } from './errors.js';

/** A readable stream of the input; `-` is stdin. */
export async function openInput(input: string, what = 'input'): Promise<Readable> {
  if (input === '-') return process.stdin;
  try {
    const st = await stat(input);
    if (st.isDirectory()) throw new IoError(`cannot read ${what} ${input}: it is a directory`);
    // 64 KiB reads: each batch of lines dies young, so the heap (and RSS) stays small
    const rs = createReadStream(input, { highWaterMark: 1 << 16 });
    await once(rs, 'open');
    return rs;
  } catch (e) {
    if (e instanceof IoError) throw e;
    throw new IoError(`cannot read ${what} ${input}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** A writable stream to the output file (created or truncated). */
export async function openOutput(output: string): Promise<Writable> {
  try {
    const ws = createWriteStream(output, { highWaterMark: 1 << 20 });
    await once(ws, 'open');
    return ws;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const hint = code === 'ENOENT' ? ` (does the directory ${dirname(output)} exist?)` : '';
    throw new IoError(`cannot write output ${output}: ${code ?? (e as Error).message}${hint}`);
  }
}
