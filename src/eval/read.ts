// Streaming readers for evaluation inputs: JSONL (plain or .gz) line by line, or a JSON array
// (the format LLMBar and RM-Bench publish) element by element. Every record carries where it came
// from ("file:12" or "file[3]") so problems can name the place; a malformed record is reported,
// never fatal, and never silently dropped.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Readable } from 'node:stream';
import { readLines } from '../io/jsonl-reader.js';
import { IoError } from '../io/score-file.js';

export type InputRecord = { where: string; index: number; value: Record<string, unknown> } | { where: string; index: number; error: string };

export interface RecordSource {
  path: string;
  /** Total bytes of the file (for progress), when known. */
  size?: number;
  /** Bytes consumed so far (compressed bytes for .gz). */
  bytesRead(): number;
  records(): AsyncGenerator<InputRecord>;
}

async function statInput(path: string): Promise<number> {
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new IoError(`cannot read ${path}: it is a directory`);
    return st.size;
  } catch (e) {
    if (e instanceof IoError) throw e;
    throw new IoError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function rawStream(path: string, counter: { n: number }): Readable {
  const s = createReadStream(path, { highWaterMark: 1 << 20 });
  s.on('data', (c) => {
    counter.n += (c as Buffer).length;
  });
  return path.endsWith('.gz') ? s.pipe(createGunzip()) : s;
}

/** Reads the first non-blank character (after gunzip) to tell a JSON array from JSONL. */
async function firstChar(path: string): Promise<string> {
  const s = rawStream(path, { n: 0 });
  try {
    for await (const chunk of s as AsyncIterable<Buffer>) {
      const m = /\S/.exec(chunk.toString('utf8'));
      if (m) return m[0];
    }
    return '';
  } catch (e) {
    throw new IoError(`cannot read ${path}: ${(e as Error).message}`);
  } finally {
    s.destroy();
  }
}

/** Opens a JSONL / JSON-array / .gz file of records. */
export async function openRecords(path: string): Promise<RecordSource> {
  const size = await statInput(path);
  const counter = { n: 0 };
  const isArray = (await firstChar(path)) === '[';
  async function* jsonl(): AsyncGenerator<InputRecord> {
    let index = 0;
    try {
      for await (const l of readLines(rawStream(path, counter))) {
        if (l.text !== undefined && l.text.trim() === '') continue;
        const where = `${path}:${l.line}`;
        const i = index++;
        if (l.text === undefined) {
          yield { where, index: i, error: `line is ${l.bytes} bytes, over the size limit` };
          continue;
        }
        let v: unknown;
        try {
          v = JSON.parse(l.text);
        } catch (e) {
          yield { where, index: i, error: `invalid JSON: ${(e as Error).message}` };
          continue;
        }
        if (!v || typeof v !== 'object' || Array.isArray(v)) yield { where, index: i, error: 'expected a JSON object' };
        else yield { where, index: i, value: v as Record<string, unknown> };
      }
    } catch (e) {
      if (e instanceof IoError) throw e;
      throw new IoError(`cannot read ${path}: ${(e as Error).message}`);
    }
  }
  async function* array(): AsyncGenerator<InputRecord> {
    // published JSON arrays are read whole (they are small); JSONL is the streaming format
    const chunks: Buffer[] = [];
    try {
      for await (const c of rawStream(path, counter) as AsyncIterable<Buffer>) chunks.push(c);
    } catch (e) {
      throw new IoError(`cannot read ${path}: ${(e as Error).message}`);
    }
    let arr: unknown;
    try {
      arr = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      throw new IoError(`cannot parse ${path}: invalid JSON: ${(e as Error).message}`);
    }
    chunks.length = 0;
    if (!Array.isArray(arr)) throw new IoError(`cannot parse ${path}: expected a JSON array or JSON lines`);
    for (let i = 0; i < arr.length; i++) {
      const v = arr[i] as unknown;
      const where = `${path}[${i}]`;
      if (!v || typeof v !== 'object' || Array.isArray(v)) yield { where, index: i, error: 'expected a JSON object' };
      else yield { where, index: i, value: v as Record<string, unknown> };
      arr[i] = undefined;
    }
  }
  return { path, size, bytesRead: () => counter.n, records: isArray ? array : jsonl };
}

export { getPath } from '../io/path.js';
