// --resume support: collect the ids already in an output file, and cut off a torn last line
// (left by a killed run) so appended records start on a fresh line.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { readLines } from './jsonl-reader.js';

export async function readDoneIds(file: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return ids;
  }
  if (size === 0) return ids;
  // Truncate an incomplete final line.
  const fh = await open(file, 'r+');
  try {
    const tail = Buffer.alloc(Math.min(size, 1));
    await fh.read(tail, 0, tail.length, size - tail.length);
    if (tail[0] !== 10) {
      // find the last newline
      let pos = size;
      const chunk = Buffer.alloc(64 * 1024);
      let cut = 0;
      while (pos > 0) {
        const n = Math.min(chunk.length, pos);
        pos -= n;
        await fh.read(chunk, 0, n, pos);
        const i = chunk.subarray(0, n).lastIndexOf(10);
        if (i >= 0) {
          cut = pos + i + 1;
          break;
        }
      }
      await fh.truncate(cut);
    }
  } finally {
    await fh.close();
  }
  for await (const l of readLines(createReadStream(file))) {
    if (!l.text) continue;
    try {
      const rec = JSON.parse(l.text) as { id?: unknown };
      if (rec.id !== undefined && rec.id !== null) ids.add(String(rec.id));
    } catch {
      // an unreadable line in the old output is ignored; its sample will be graded again
    }
  }
  return ids;
}
