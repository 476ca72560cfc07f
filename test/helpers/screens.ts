// Generated GUI screens for the grounding tests: runs scripts/gen-screens.mjs (headless Chromium)
// into a folder and reads its items back. Needs /usr/bin/chromium (scripts/setup.sh installs it).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, runProcess } from './cli.js';

export const CHROMIUM = '/usr/bin/chromium';

export type ScreenItem = {
  id: string;
  image: string;
  width: number;
  height: number;
  target: { type: string; label: string; box: [number, number, number, number] };
  instruction: string;
  screen: { page: string; viewport: string; scale: number };
};

/** Generates screens into `dir` with the generator's flags; returns the items it wrote. */
export async function generateScreens(dir: string, flags: string[]): Promise<ScreenItem[]> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: the grounding tests need Debian's chromium (scripts/setup.sh installs it)`);
  const r = await runProcess(process.execPath, [join(ROOT, 'scripts/gen-screens.mjs'), '--out', dir, ...flags], { timeoutMs: 120_000 });
  if (r.code !== 0) throw new Error(`gen-screens failed (${r.code}): ${r.stderr}`);
  return readFileSync(join(dir, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as ScreenItem);
}
