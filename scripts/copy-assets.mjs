// Copies the non-TypeScript files the built modules load at run time (the code graders' driver
// programs, the sandbox's warm interpreter, BFCL's long-context export script) from src/ into dist/, called by `npm run build` after tsc. Incremental and idempotent:
// a file is written only when its bytes differ, and files no longer in src/ are removed from dist/.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Folders of src/ copied as they are, relative to src/. */
const ASSET_DIRS = ['graders/code/drivers', 'sandbox/zygote'];
/** Single files copied beside the modules of their folder, relative to src/. */
const ASSET_FILES = ['envs/bfcl_multi_turn/apis/long-context-export.py'];

const root = fileURLToPath(new URL('..', import.meta.url));
let copied = 0;
for (const dir of ASSET_DIRS) {
  const from = join(root, 'src', dir);
  const to = join(root, 'dist', dir);
  mkdirSync(to, { recursive: true });
  const names = new Set(readdirSync(from).filter((n) => statSync(join(from, n)).isFile()));
  for (const name of names) {
    const data = readFileSync(join(from, name));
    const dest = join(to, name);
    if (existsSync(dest) && readFileSync(dest).equals(data)) continue;
    writeFileSync(dest, data);
    copied++;
  }
  for (const name of readdirSync(to)) if (!names.has(name)) rmSync(join(to, name), { recursive: true, force: true });
}
for (const file of ASSET_FILES) {
  const data = readFileSync(join(root, 'src', file));
  const dest = join(root, 'dist', file);
  if (existsSync(dest) && readFileSync(dest).equals(data)) continue;
  mkdirSync(join(dest, '..'), { recursive: true });
  writeFileSync(dest, data);
  copied++;
}
if (copied) console.error(`copy-assets: ${copied} file(s) copied into dist/`);
