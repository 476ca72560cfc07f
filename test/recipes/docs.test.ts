// docs/recipes.md as a whole: every command line in it belongs to a recipe section that a test
// under test/recipes/ runs as written (the project's rule: every command in the docs runs in a test);
// every recipe registered in helpers.ts has its section, a figures table and its test file; the
// config files the page names exist, and every file of examples/recipes/ is named by the page; the
// page's links to its own sections and to other docs' sections resolve.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';
import { bashLines, DOC, Figures, RECIPES, sections } from './helpers.js';

/** GitHub's heading anchor: lower-case, punctuation dropped, spaces to hyphens. */
const slug = (h: string) =>
  h
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchors = (md: string) => new Set([...md.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.trim())));

describe('docs/recipes.md', () => {
  it('every command line is in a recipe section whose test runs it', () => {
    const all = bashLines(DOC);
    expect(all.length).toBeGreaterThan(0);
    const tested = new Set(Object.values(RECIPES));
    const covered: string[] = [];
    for (const [heading, text] of sections()) {
      const lines = bashLines(text);
      if (lines.length === 0) continue;
      expect(tested.has(heading), `section "${heading}" has commands but no recipe test is registered for it (RECIPES in test/recipes/helpers.ts)`).toBe(true);
      covered.push(...lines);
    }
    // nothing outside the sections (the introduction) runs untested
    expect(covered).toEqual(all);
  });

  it('each registered recipe has its section, a figures table and a test file that runs the section', () => {
    const s = sections();
    for (const [name, heading] of Object.entries(RECIPES)) {
      expect(s.has(heading), `no section "## ${heading}"`).toBe(true);
      expect(new Figures(heading).labels.length).toBeGreaterThan(0);
      const test = join(ROOT, 'test/recipes', `${name}.test.ts`);
      expect(existsSync(test), test).toBe(true);
      const src = readFileSync(test, 'utf8');
      expect(src.includes(`RECIPES['${name}']`) || src.includes(`RECIPES.${name}!`), `${test} reads RECIPES['${name}']`).toBe(true);
      expect(src).toMatch(/runSection(Async)?\(HEADING/);
      expect(src).toContain('t.done()');
    }
  });

  it('the configs it names exist, and every file of examples/recipes/ is named', () => {
    const named = new Set([...DOC.matchAll(/examples\/recipes\/[\w./-]+\.json/g)].map((m) => m[0]));
    for (const p of named) expect(existsSync(join(ROOT, p)), p).toBe(true);
    const dirs = readdirSync(join(ROOT, 'examples/recipes'));
    for (const d of dirs) {
      for (const f of readdirSync(join(ROOT, 'examples/recipes', d))) {
        const p = `examples/recipes/${d}/${f}`;
        // a config is named by its path, or by its file name inside its recipe's section
        const sec = [...sections().values()].find((t) => t.includes(`examples/recipes/${d}/`));
        expect(named.has(p) || sec?.includes(`\`${f}\``) === true, `${p} is not named in docs/recipes.md`).toBe(true);
      }
    }
  });

  it('links to its own sections and to other docs resolve', () => {
    const own = anchors(DOC);
    const links = [...DOC.matchAll(/\]\(([\w.-]*)(?:#([\w-]+))?\)/g)];
    expect(links.length).toBeGreaterThanOrEqual(4);
    for (const m of links) {
      const [, file, anchor] = m;
      const text = file ? readFileSync(join(ROOT, 'docs', file), 'utf8') : DOC;
      if (file) expect(existsSync(join(ROOT, 'docs', file)), file).toBe(true);
      if (anchor) expect(file ? anchors(text).has(anchor) : own.has(anchor), `${file}#${anchor}`).toBe(true);
    }
  });
});
