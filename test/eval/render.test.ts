// HTML reports rendered in headless Chromium (Debian's chromium, driven by playwright-core): every
// plot draws marks, the numbers on the page equal those in the JSON report, the page makes no
// network request, and a screenshot of each report is written to test/.output/eval/.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, ROOT } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const CHROMIUM = '/usr/bin/chromium';
const OUT = join(ROOT, 'test/.output/eval');
const tmp = mkdtempSync(join(tmpdir(), 'arbiter-eval-render-'));
let browser: BrowserContext | undefined;

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  if (!existsSync(CHROMIUM)) return;
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'arbiter-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

function needChromium(): BrowserContext {
  if (!browser)
    throw new Error(`${CHROMIUM} is missing: the report render test needs Debian's chromium (scripts/setup.sh installs it: apt-get install chromium)`);
  return browser;
}

async function make(name: string, args: string[]): Promise<{ html: string; json: any }> {
  const html = join(tmp, `${name}.html`);
  const json = join(tmp, `${name}.json`);
  const r = await runCli([...args, '--html', html, '--json', json, ...(args[0] === 'eval' ? ['--no-progress'] : [])], { timeoutMs: 120_000 });
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  return { html, json: JSON.parse(readFileSync(json, 'utf8')) };
}

function showNumber(v: number | null, digits: number): string {
  return v === null || !Number.isFinite(v) ? 'n/a' : v.toFixed(digits);
}

/** Minimum number of drawn marks a plot spec must produce. */
function expectedMarks(p: any): number {
  if (p.kind === 'bars' || p.kind === 'stacked') return p.data.filter((d: any) => d.value > 0).length;
  if (p.kind === 'matrix') return p.rows.length * p.cols.length;
  return p.series.length;
}

async function check(name: string, html: string, json: any): Promise<void> {
  const page = await needChromium().newPage();
  const external: string[] = [];
  const errors: string[] = [];
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    external.push(url);
    return route.abort();
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`file://${html}`);
  await page.waitForSelector('html[data-rendered="true"]', { timeout: 30_000 });
  const figures = await page.$$eval('figure[data-plot-id]', (fs) =>
    fs.map((f) => ({
      id: (f as unknown as { dataset: Record<string, string | undefined> }).dataset.plotId,
      drawn: (f as unknown as { dataset: Record<string, string | undefined> }).dataset.drawn,
      error: (f as unknown as { dataset: Record<string, string | undefined> }).dataset.error,
      marks: f.querySelectorAll('svg g[aria-label] rect, svg g[aria-label] path, svg g[aria-label] circle, svg g[aria-label] text, canvas').length,
      bars: f.querySelectorAll('svg g[aria-label="bar"] rect, svg g[aria-label="cell"] rect, svg g[aria-label="line"] path').length,
      chartWidth: Math.floor(f.querySelector('.chart')!.getBoundingClientRect().width),
      svgWidth: Math.max(0, ...[...f.querySelectorAll('svg')].map((s) => Number(s.getAttribute('width')))),
      // each line mark's dash and width (a series' look), and its point symbols
      lineLooks: [...f.querySelectorAll('svg g[aria-label="line"]')].map(
        (g) => `${g.getAttribute('stroke-dasharray') ?? ''}/${g.getAttribute('stroke-width') ?? ''}`,
      ),
      dots: f.querySelectorAll('svg g[aria-label="dot"] path').length,
      xTicks: [...f.querySelectorAll('svg g[aria-label="x-axis tick label"] text')].map((t) => t.textContent ?? ''),
      yTicks: [...f.querySelectorAll('svg g[aria-label="y-axis tick label"] text')].map((t) => t.textContent ?? ''),
    })),
  );
  expect(errors).toEqual([]);
  expect(external).toEqual([]);
  expect(figures.map((f) => f.id)).toEqual(json.plots.map((p: any) => p.id));
  for (const p of json.plots) {
    const f = figures.find((x) => x.id === p.id)!;
    expect(f.error, `${name}/${p.id}`).toBeUndefined();
    expect(f.drawn).toBe('true');
    expect(f.bars, `${name}/${p.id} marks`).toBeGreaterThanOrEqual(expectedMarks(p));
    expect(f.marks).toBeGreaterThan(0);
    // plots use the page's width (the matrix is as wide as its cells need, up to it)
    if (p.kind === 'matrix') expect(f.svgWidth).toBeLessThanOrEqual(f.chartWidth);
    else expect(f.svgWidth, `${name}/${p.id} width`).toBe(Math.max(320, f.chartWidth));
    expect(f.chartWidth).toBeGreaterThan(640);
    if (p.kind === 'lines') {
      // every series is drawn with its own dash and width, and each point with its series' symbol
      const points = p.series.reduce((k: number, s: any) => k + s.points.length, 0);
      expect(new Set(f.lineLooks).size, `${name}/${p.id} line looks`).toBe(f.lineLooks.length);
      expect(f.lineLooks.length).toBe(p.series.length + (p.diagonal ? 1 : 0));
      expect(f.dots).toBe(points);
      // an axis of integers (N, steps) has integer ticks only
      const xs = p.series.flatMap((s: any) => s.points.map((q: any) => q.x));
      if (!p.diagonal && xs.every(Number.isInteger)) {
        expect(f.xTicks.length).toBeGreaterThan(0);
        for (const t of f.xTicks) expect(t, `${name}/${p.id} x tick`).toMatch(/^[−-]?[\d,]+$/);
      }
    }
    if ((p.kind === 'bars' || p.kind === 'stacked') && p.data.every((d: any) => Number.isInteger(d.value)))
      for (const t of f.yTicks) expect(t, `${name}/${p.id} y tick`).toMatch(/^[−-]?[\d,]+$/);
  }
  // table cells: numbers rounded to at most 4 decimals
  const tableCells = await page.$$eval('section[data-table-id] td', (els) => els.map((e) => e.textContent ?? ''));
  for (const t of tableCells) if (/^-?\d+\.\d+$/.test(t)) expect(t, 'table cell').toMatch(/^-?\d+\.\d{1,4}$/);
  // headline numbers: the text on the page is the JSON value at the report's precision
  const shown = await page.$$eval('[data-metric]', (els) =>
    els.map((e) => ({
      key: (e as unknown as { dataset: Record<string, string | undefined> }).dataset.metric,
      text: e.textContent,
      value: (e as unknown as { dataset: Record<string, string | undefined> }).dataset.value,
    })),
  );
  expect(shown.map((s) => s.key)).toEqual(json.headline.map((h: any) => h.key));
  for (const h of json.headline) {
    const s = shown.find((x) => x.key === h.key)!;
    expect(s.text).toBe(`${showNumber(h.value, h.digits)}${h.value !== null && h.unit === '%' ? '%' : ''}`);
    expect(s.value === '' ? null : Number(s.value)).toBe(h.value);
  }
  // the metrics table holds every numeric metric as written in the JSON
  const cells = await page.$$eval('[data-metric-path]', (els) =>
    els.map(
      (e) =>
        [
          (e as unknown as { dataset: Record<string, string | undefined> }).dataset.metricPath,
          e.textContent,
          (e as unknown as { dataset: Record<string, string | undefined> }).dataset.value,
        ] as [string, string, string | undefined],
    ),
  );
  const get = (k: string) => k.split('.').reduce((o: any, p) => (o === null || o === undefined ? undefined : o[p]), json.metrics);
  let numeric = 0;
  for (const [k, text, exact] of cells) {
    const v = get(k);
    if (typeof v === 'number') {
      numeric++;
      // shown rounded to 4 decimals, the exact value kept in data-value
      expect(Number(exact), k).toBe(v);
      expect(Number(text), k).toBe(Number.isInteger(v) ? v : Number(v.toFixed(4)));
      expect(text).not.toMatch(/\.\d{5}/);
    }
  }
  expect(numeric).toBeGreaterThan(0);
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: false });
  await page.close();
  expect(existsSync(join(OUT, `${name}.png`))).toBe(true);
}

describe('HTML reports in headless Chromium', () => {
  it('chromium is installed (scripts/setup.sh)', () => {
    needChromium();
  });

  it('JudgeBench: category bars and position consistency', async () => {
    const f = dataPath('judgebench/outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl');
    const { html, json } = await make('judgebench', ['eval', 'judgebench', f, '--published', '65.71']);
    expect(json.plots.map((p: any) => p.kind)).toEqual(['bars', 'stacked']);
    await check('judgebench', html, json);
    expect(readFileSync(html, 'utf8')).toContain('published 65.71%');
  });

  it('LLMBar over five sets, RM-Bench matrix', async () => {
    const sets = ['Natural', 'Adversarial/Neighbor', 'Adversarial/GPTInst', 'Adversarial/GPTOut', 'Adversarial/Manual'].map((s) =>
      dataPath(join('llmbar', s, 'evaluators/GPT-4/Swap/result.json')),
    );
    const lb = await make('llmbar', ['eval', 'llmbar', ...sets]);
    await check('llmbar', lb.html, lb.json);
    const rm = await make('rm-bench', ['eval', 'rm-bench', join(ROOT, 'test/eval/fixtures/total_result.json')]);
    expect(rm.json.plots.map((p: any) => p.kind)).toEqual(['matrix', 'bars']);
    await check('rm-bench', rm.html, rm.json);
  });

  it('agreement confusion matrix, calibration and best-of-N curves, and a comparison of two runs', async () => {
    const f = join(tmp, 'scored.jsonl');
    const lines: string[] = [];
    for (let g = 0; g < 30; g++)
      for (let k = 0; k < 4; k++) {
        const p = ((g * 7 + k * 13) % 20) / 20;
        lines.push(JSON.stringify({ group: g, output_text: `answer ${g}.${k}`, label: (g + k) % 3 !== 0, p, q: ((g * 3 + k * 11) % 20) / 20 }));
      }
    writeFileSync(f, lines.join('\n') + '\n');
    const ag = await make('agreement', ['eval', 'agreement', f, '--score-field', 'p']);
    await check('agreement', ag.html, ag.json);
    const cal = await make('calibration', ['eval', 'calibration', f, '--score-field', 'p', '--bins', '5']);
    await check('calibration', cal.html, cal.json);
    // "most confident mistakes" lists mistakes only: the score on the wrong side of 0.5, the surest first
    const mistakes = cal.json.tables.find((t: any) => t.id === 'worst');
    const wrong = lines.map((l) => JSON.parse(l)).filter((x) => Math.abs(x.p - (x.label ? 1 : 0)) > 0.5);
    expect(wrong.length).toBeGreaterThan(0);
    expect(mistakes.total).toBe(wrong.length);
    for (const row of mistakes.rows) expect(Math.abs(row[2] - (row[1] === 'true' ? 1 : 0))).toBeGreaterThan(0.5);
    const bon = await make('bon', ['eval', 'bon', f, '--score-field', 'p']);
    expect(bon.json.plots[0].kind).toBe('lines');
    await check('bon', bon.html, bon.json);
    const bon2 = join(tmp, 'bon2.json');
    expect((await runCli(['eval', 'bon', f, '--score-field', 'q', '--json', bon2, '--no-progress'])).code).toBe(0);
    const cmp = await make('compare', ['report', join(tmp, 'bon.json'), bon2]);
    expect(cmp.json.suite).toBe('compare');
    expect(cmp.json.headline.every((h: any) => 'baseline' in h)).toBe(true);
    await check('compare', cmp.html, cmp.json);
    // the page names the command that made it (there is no "arbiter eval compare")
    expect(readFileSync(cmp.html, 'utf8')).toContain('arbiter report ·');
    expect(readFileSync(cmp.html, 'utf8')).not.toContain('arbiter eval compare');
    // reports of different suites are refused
    const other = await runCli(['report', join(tmp, 'bon.json'), join(tmp, 'calibration.json'), '--json', join(tmp, 'mixed.json')]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /cannot compare reports of different suites: .*bon\.json is from arbiter eval bon, .*calibration\.json from arbiter eval calibration/,
    );
    expect(existsSync(join(tmp, 'mixed.json'))).toBe(false);
  }, 180_000);

  it('over-optimisation: best-of-n gold and proxy against KL_bon with the fit, and the per-step view with KL', async () => {
    const f = join(tmp, 'overopt.jsonl');
    const lines: string[] = [];
    for (let step = 0; step < 3; step++)
      for (let q = 0; q < 5; q++)
        for (let k = 0; k < 6; k++) {
          const proxy = ((q * 5 + k * 7 + step) % 11) / 10;
          lines.push(JSON.stringify({ uid: `q${q}`, global_step: step * 5, score: proxy, gold: proxy > 0.7 ? 0.2 : proxy, kl: step * 0.1 + k / 100 }));
        }
    writeFileSync(f, lines.join('\n') + '\n');
    const oo = await make('overopt', ['eval', 'overopt', f]);
    expect(oo.json.plots.map((p: any) => p.id)).toEqual(['bon-gold', 'bon-proxy', 'bon-gold-proxy', 'steps', 'steps-kl']);
    expect(oo.json.plots[0].series.length).toBe(2);
    await check('overopt', oo.html, oo.json);
  });
});
