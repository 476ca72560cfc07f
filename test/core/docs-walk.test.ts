// Every shell block of README.md, integrations/README.md and docs/*.md runs in a test: a test claims
// a block by calling `docBlock('page', 'key')` (test/helpers/docs.ts) with string literals, read
// here from the test sources, and runs it. A block is unclaimed only when every line of it starts a
// program this project does not ship (EXTERNAL: a trainer, the machine's set-up), whose evidence
// file must exist and exercise it. docs/recipes.md has its own walk (test/recipes/docs.test.ts).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { EXTERNAL, isExternal, logicalLines, shellBlocks } from '../helpers/docs.js';

const PAGES = ['README.md', 'integrations/README.md', ...readdirSync(join(ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
  (f) => f.endsWith('.md') && f !== 'docs/recipes.md',
);

const tsFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? tsFiles(p) : p.endsWith('.ts') ? [p] : [];
  });

/** Every `docBlock('page', 'key')` call in the tests, with the file that makes it. */
const claims = tsFiles(join(ROOT, 'test'))
  .filter((f) => !f.endsWith('docs-walk.test.ts'))
  .flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/docBlock\(\s*'([^']+)',\s*'((?:[^'\\]|\\.)+)'\s*\)/g)].map((m) => ({
      file: relative(ROOT, f),
      page: m[1]!,
      key: m[2]!.replace(/\\(.)/g, '$1'),
    })),
  );

describe('every shell block of the docs runs in a test', () => {
  it('each block is claimed by a test, or starts only programs this project does not ship', () => {
    const unclaimed: string[] = [];
    for (const page of PAGES) {
      for (const block of shellBlocks(page)) {
        if (claims.some((c) => c.page === page && block.includes(c.key))) continue;
        if (logicalLines(block).every(isExternal)) continue;
        unclaimed.push(`${page}: ${block.split('\n')[0]!.slice(0, 100)}`);
      }
    }
    expect(unclaimed).toEqual([]);
  });

  it('each claim names exactly one block of its page', () => {
    for (const c of claims) {
      const hits = shellBlocks(c.page).filter((b) => b.includes(c.key));
      expect(hits.length, `${c.file}: docBlock('${c.page}', '${c.key}')`).toBe(1);
    }
  });

  it('each program the docs start but no test can (a trainer, the set-up) has its evidence, and is named in a page', () => {
    const lines = PAGES.flatMap((p) => shellBlocks(p).flatMap(logicalLines));
    for (const e of EXTERNAL) {
      expect(readFileSync(join(ROOT, e.evidence), 'utf8'), `${e.evidence} for ${e.prefix}`).toContain(e.names);
      expect(
        lines.some((l) => l.startsWith(e.prefix)),
        `no page runs ${e.prefix} any more: drop it from EXTERNAL`,
      ).toBe(true);
    }
  });
});
