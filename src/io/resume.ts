// --resume support: cut off a torn last line (left by a killed run) so appended records start on a
// fresh line, and read the raw ids of the records already in the output file, in order. Resume is
// positional: output record k belongs to input line k, and its id is checked against that line's.
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { scanJson } from '../core/json.js';
import { readLines } from './jsonl-reader.js';
import { ResumeError } from './errors.js';

/** Truncates an incomplete final line (no trailing newline) of `file`. */
async function cutTornLine(file: string, size: number): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    const tail = Buffer.alloc(1);
    await fh.read(tail, 0, 1, size - 1);
    if (tail[0] === 10) return;
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
  } finally {
    await fh.close();
  }
}

/**
 * The raw JSON text of the `id` of every complete record in an output file, in file order (empty
 * when the file does not exist). A line that is not an arbiter output record (no top-level id,
 * invalid JSON) is a ResumeError: the file is not ours, and appending to it would mix results.
 */
export async function readDoneIds(file: string): Promise<string[]> {
  const ids: string[] = [];
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch {
    return ids;
  }
  if (size === 0) return ids;
  await cutTornLine(file, size);
  for await (const l of readLines(createReadStream(file))) {
    const bad = (why: string) =>
      new ResumeError(`--resume: line ${l.line} of ${file} ${why}, so it is not an arbiter output file; nothing was appended. Write to a new output file.`);
    if (l.text === undefined) throw bad(l.invalidUtf8 !== undefined ? 'is not valid UTF-8' : 'is over the line size limit');
    const scan = scanJson(l.text, { maxDepth: Infinity, idLevels: 1 });
    let id: string | undefined;
    for (const m of scan.ids) if (m.path.length === 0) id = m.raw;
    if (id === undefined) throw bad('has no "id"');
    try {
      JSON.parse(l.text);
    } catch {
      throw bad('is not valid JSON');
    }
    ids.push(id);
  }
  return ids;
}
