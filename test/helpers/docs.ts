// The docs' shell blocks, read from the pages themselves so a test runs exactly what a page says.
// A test runs a block through `docBlock(page, key)` (the one block of the page that contains `key`),
// written with both arguments as string literals: test/core/docs-walk.test.ts reads those calls
// statically and fails for any block of README.md, integrations/README.md or docs/*.md that no test
// claims. `docWorkdir()` lays out a scratch folder like the project root, with `arbiter` on PATH,
// and `runDoc` runs a block there with bash, as a user would paste it.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, type CliResult, ROOT, runProcess } from './cli.js';
import { DATA_DIR } from './data.js';

/** The shell blocks (```bash / ```sh / ```shell) of a page, as written. */
export function shellBlocks(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(/^```(?:bash|sh|shell)\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

/** The one shell block of `page` that contains `key`; throws when none or several do. */
export function docBlock(page: string, key: string): string {
  const hits = shellBlocks(page).filter((b) => b.includes(key));
  if (hits.length !== 1) throw new Error(`${page}: ${hits.length} shell blocks contain ${JSON.stringify(key)} (want exactly 1)`);
  return hits[0]!;
}

/** A scratch folder laid out like the project root: examples/, graders/, scripts/, integrations/ linked, `arbiter` on PATH, ../shared/data beside it. */
export function docWorkdir(): string {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-doc-'));
  mkdirSync(join(root, 'shared'));
  symlinkSync(DATA_DIR, join(root, 'shared', 'data'));
  const dir = join(root, 'project');
  mkdirSync(dir);
  for (const d of ['examples', 'graders', 'scripts', 'integrations', 'dist', 'bench']) symlinkSync(join(ROOT, d), join(dir, d));
  mkdirSync(join(dir, 'bin'));
  const shim = join(dir, 'bin', 'arbiter');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/** Runs a block (or any script) with bash in `dir` (default: a fresh docWorkdir), `arbiter` and node on PATH. */
export function runDoc(script: string, opts: { dir?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string } = {}): Promise<CliResult> {
  const dir = opts.dir ?? docWorkdir();
  return runProcess('bash', ['-e', '-c', script], {
    cwd: dir,
    env: { ...process.env, ...opts.env, PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    timeoutMs: opts.timeoutMs ?? 120_000,
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
  });
}
