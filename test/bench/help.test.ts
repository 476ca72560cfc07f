// `node bench/X.mjs --help` (and -h) for every benchmark script: prints the script's opening
// comment and exits 0 without running the benchmark (bench/usage.mjs, imported first by each).
// bench/run.mjs has its own help text (test/bench/run.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runProcess } from '../helpers/cli.js';

const SCRIPTS = readdirSync(join(ROOT, 'bench'))
  .filter((f) => f.endsWith('.mjs') && f !== 'run.mjs' && f !== 'usage.mjs')
  .sort();

/** The opening comment of a script, as --help prints it. */
function header(file: string): string {
  const out: string[] = [];
  for (const l of readFileSync(join(ROOT, 'bench', file), 'utf8').split('\n')) {
    if (!l.startsWith('//')) break;
    out.push(l.replace(/^\/\/ ?/, ''));
  }
  return out.join('\n');
}

describe('benchmark scripts: --help', () => {
  it('finds the scripts', () => {
    expect(SCRIPTS).toContain('humaneval.mjs');
    expect(SCRIPTS).toContain('server.mjs');
    expect(SCRIPTS.length).toBeGreaterThan(10);
  });

  it.each(SCRIPTS)('%s imports the help module first', (file) => {
    const text = readFileSync(join(ROOT, 'bench', file), 'utf8');
    const firstImport = /^import .*$/m.exec(text)?.[0];
    expect(firstImport).toMatch(/^import '\.\/usage\.mjs';/);
  });

  it.each(SCRIPTS)('%s --help prints its opening comment and nothing else, exit 0', { timeout: 60_000 }, async (file) => {
    const want = header(file);
    expect(want.length).toBeGreaterThan(40);
    for (const flag of ['--help', '-h']) {
      const r = await runProcess(process.execPath, [join('bench', file), flag], { timeoutMs: 50_000 });
      expect(r.code).toBe(0);
      // exactly the comment: the benchmark's own output (its first line, a table) never follows
      expect(r.stdout).toBe(`${want}\n`);
      expect(r.stderr).toBe('');
    }
  });
});
