// The design report in headless Chromium (as test/eval/render.test.ts checks the eval reports):
// both plots draw, the fitness line holds each iteration's point, the headline numbers are the
// report's, the winning program is shown whole, and the page fetches nothing.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { designReport } from '../../dist/design/report.js';
import { renderHtml } from '../../dist/eval/render/html.js';

const CHROMIUM = '/usr/bin/chromium';
const CODE = 'def reward(trajectory):\n    return -len(trajectory["steps"])  # <b>not markup</b>\n' + '# long line '.repeat(200);

const rec = (iteration: number, index: number, fitness?: number) => ({
  iteration,
  index,
  seed: 1000 * (iteration - 1) + index,
  status: fitness === undefined ? ('failed' as const) : ('ok' as const),
  ...(fitness === undefined ? { error: 'SyntaxError: invalid syntax' } : { fitness }),
  files: { prompt: `iter-${iteration}/prompt.json`, reply: `iter-${iteration}/cand-${index}.reply.md` },
});

describe('the design report', () => {
  it('draws in Chromium with the fitness per iteration and the winning code', async () => {
    expect(existsSync(CHROMIUM), `${CHROMIUM} is missing (scripts/setup.sh installs it)`).toBe(true);
    const records = [rec(1, 0), rec(1, 1, 0.4), rec(2, 0, 0.7), rec(2, 1), rec(3, 0, 0.6), rec(3, 1, 0.65)];
    const result = {
      records,
      iterations: [
        { iteration: 1, worked: 1, failed: 1, best_index: 1, best_fitness: 0.4, best_so_far: 0.4 },
        { iteration: 2, worked: 1, failed: 1, best_index: 0, best_fitness: 0.7, best_so_far: 0.7 },
        { iteration: 3, worked: 2, failed: 0, best_index: 1, best_fitness: 0.65, best_so_far: 0.7 },
      ],
      best: records[2]!,
      modelCalls: 6,
    };
    const rep = designReport(result, { fitness: 'rank', label: 'return', model: 'm', inputs: {}, winningCode: CODE });
    expect(rep.plots[0]).toMatchObject({
      kind: 'lines',
      series: [
        {
          name: 'best so far',
          points: [
            { x: 1, y: 0.4 },
            { x: 2, y: 0.7 },
            { x: 3, y: 0.7 },
          ],
        },
        {
          name: "iteration's best",
          points: [
            { x: 1, y: 0.4 },
            { x: 2, y: 0.7 },
            { x: 3, y: 0.65 },
          ],
        },
      ],
    });
    const file = join(mkdtempSync(join(tmpdir(), 'arbiter-design-report-')), 'report.html');
    writeFileSync(file, renderHtml(rep));
    const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'arbiter-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      const page = await browser.newPage();
      const external: string[] = [];
      const errors: string[] = [];
      await page.route('**/*', (route) => {
        if (route.request().url().startsWith('file:')) return route.continue();
        external.push(route.request().url());
        return route.abort();
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`file://${file}`);
      await page.waitForSelector('html[data-rendered="true"]', { timeout: 30_000 });
      const figs = await page.$$eval('figure[data-plot-id]', (fs) =>
        fs.map((f) => ({
          id: f.getAttribute('data-plot-id'),
          drawn: f.getAttribute('data-drawn'),
          dots: f.querySelectorAll('svg g[aria-label="dot"] path').length,
          bars: f.querySelectorAll('svg g[aria-label="bar"] rect').length,
        })),
      );
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
      expect(figs).toEqual([
        { id: 'fitness', drawn: 'true', dots: 6, bars: 0 },
        // one bar per iteration and outcome (ran 1, 1, 2; failed 1, 1, 0)
        { id: 'outcomes', drawn: 'true', dots: 0, bars: 6 },
      ]);
      expect(await page.$eval('[data-metric="best_fitness"]', (e) => e.textContent)).toBe('0.7000');
      expect(await page.$eval('[data-metric="execute_rate_pct"]', (e) => e.textContent)).toBe('66.7%');
      // the code whole (no cut), as text: its markup-like comment is not markup
      expect(await page.$eval('section[data-code] pre', (e) => e.textContent)).toBe(CODE);
      expect(await page.$$eval('section[data-code] pre b', (els) => els.length)).toBe(0);
      expect(await page.$$eval('section[data-table-id="candidates"] tbody tr', (els) => els.length)).toBe(6);
    } finally {
      await browser.close();
    }
  }, 120_000);
});
