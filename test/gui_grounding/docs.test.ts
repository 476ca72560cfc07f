// docs/multimodal.md "GUI grounding": its shell block runs as written (screens generated, a stand-in
// model's clicks, `arbiter eval grounding`) and the report's numbers are the ones the definitions
// give for those clicks; every gui_grounding recipe on the page loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGrader } from '../../dist/index.js';
import { ROOT } from '../helpers/cli.js';
import { docBlock, docWorkdir, runDoc } from '../helpers/docs.js';

describe('docs/multimodal.md: GUI grounding', () => {
  it('the eval block runs as written; the hit rate per type is that of clicks 12 px right of the centre', { timeout: 240_000 }, async () => {
    const dir = docWorkdir();
    const r = await runDoc(docBlock('docs/multimodal.md', 'gen-screens.mjs --out screens'), { dir, timeoutMs: 240_000 });
    expect(r.code, r.stderr).toBe(0);
    const items = readFileSync(join(dir, 'screens/items.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { width: number; target: { type: string; box: number[] }; screen: { scale: number } });
    const report = JSON.parse(readFileSync(join(dir, 'grounding-report.json'), 'utf8'));
    const hit = (b: number[]) => {
      const x = Math.round((b[0]! + b[2]!) / 2 + 12);
      const y = Math.round((b[1]! + b[3]!) / 2);
      return b[0]! <= x && x <= b[2]! && b[1]! <= y && y <= b[3]!;
    };
    const want: Record<string, { n: number; hits: number }> = {};
    for (const it of items) {
      want[it.target.type] ??= { n: 0, hits: 0 };
      want[it.target.type]!.n++;
      if (hit(it.target.box)) want[it.target.type]!.hits++;
    }
    expect(report.metrics.n).toBe(items.length);
    expect(Object.keys(report.metrics.by_zoom).sort()).toEqual(['1', '2']);
    for (const [type, w] of Object.entries(want)) {
      expect(report.metrics.by_type[type].n).toBe(w.n);
      expect(report.metrics.by_type[type].accuracy).toBeCloseTo(w.hits / w.n, 12);
    }
    expect(readFileSync(join(dir, 'grounding-report.html'), 'utf8')).toContain('data-overlay-id="worst"');
  });

  it('every gui_grounding recipe on the page loads', () => {
    const page = readFileSync(join(ROOT, 'docs/multimodal.md'), 'utf8');
    const recipes = [...page.matchAll(/^```json\n([\s\S]*?)^```/gm)].map((m) => m[1]!).filter((b) => b.includes('"gui_grounding"') && !b.includes('"image"'));
    expect(recipes.length).toBe(4);
    for (const r of recipes) expect(() => loadGrader(JSON.parse(r))).not.toThrow();
  });
});
