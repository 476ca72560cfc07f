// Checks, before a long run starts, that an output file could be written at its end (so that a
// run never grades for an hour and then fails to save its report).
import { access, constants, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { IoError } from './errors.js';

/** Throws IoError ("cannot write <what> <file>: <why>") when `file` could not be written. */
export async function checkWritable(file: string, what: string): Promise<void> {
  const fail = (why: string) => new IoError(`cannot write ${what} ${file}: ${why}`);
  try {
    const st = await stat(file);
    if (st.isDirectory()) throw fail('it is a directory');
    await access(file, constants.W_OK);
  } catch (e) {
    if (e instanceof IoError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw fail(code ?? (e as Error).message);
    try {
      await access(dirname(file), constants.W_OK);
    } catch (e2) {
      const c2 = (e2 as NodeJS.ErrnoException).code;
      throw fail(`${c2 ?? (e2 as Error).message}${c2 === 'ENOENT' ? ` (does the directory ${dirname(file)} exist?)` : ''}`);
    }
  }
}
