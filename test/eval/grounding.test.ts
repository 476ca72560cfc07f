// The grounding evaluation end to end: screens generated in Chromium (scripts/gen-screens.mjs),
// predictions asked of a fake vision-language model over HTTP (it receives each screenshot as an
// image_url data URL and answers a click at a known function of what it saw: the gold centre plus a
// fixed offset, in Qwen2.5-VL's smart-resized pixels), `arbiter eval grounding` over them, every
// per-type / resolution / zoom hit rate recomputed here from the definitions, and the HTML report
// rendered in Chromium: plots drawn, no network, and the worst cases drawn on their screenshots with
// the gold box and the predicted point where the JSON says.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smartResize } from '../../dist/images/resize.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { fakeVlm, startTestServer, visionInput, type TestServer } from '../helpers/openai-test-server.js';
import { CHROMIUM, generateScreens, type ScreenItem } from '../helpers/screens.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-grounding-eval-'));
const OUT = join(ROOT, 'test/.output/eval');
const OFFSET = [16, 10] as const; // original pixels right and down of the gold centre
let items: ScreenItem[] = [];
let server: TestServer;
let browser: Browser | undefined;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The fake VLM's answer for an item, in the smart-resized frame (integers, as a model writes them). */
function answerFor(it: ScreenItem): [number, number] {
  const f = smartResize({ width: it.width, height: it.height });
  const [x1, y1, x2, y2] = it.target.box;
  return [Math.round(((x1 + x2) / 2 + OFFSET[0]) * (f.width / it.width)), Math.round(((y1 + y2) / 2 + OFFSET[1]) * (f.height / it.height))];
}

/** The hit the definitions give: the answer mapped back to the original image lies in the gold box, edges included. */
function hitOf(it: ScreenItem): boolean {
  const f = smartResize({ width: it.width, height: it.height });
  const [ax, ay] = answerFor(it);
  const x = ax * (it.width / f.width);
  const y = ay * (it.height / f.height);
  const [x1, y1, x2, y2] = it.target.box;
  return x1 <= x && x <= x2 && y1 <= y && y <= y2;
}

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  items = await generateScreens(dir, ['--viewports', '800x600,1280x720', '--scales', '1,1.5', '--targets', '4', '--seed', '11']);
  // the fake VLM knows each screenshot by its bytes and instruction, as a model sees them
  const byImage = new Map(items.map((it) => [`${sha(readFileSync(join(dir, it.image)))}\n${it.instruction}`, it]));
  server = await startTestServer();
  server.onChat(
    fakeVlm((seen) => {
      const it = byImage.get(`${sha(seen.images[0]!.bytes!)}\n${seen.text}`);
      if (!it) return 'I do not know this screen.';
      const [x, y] = answerFor(it);
      return `<think>the ${it.target.type}</think>{"action": "click", "coordinate": [${x}, ${y}]}`;
    }),
  );
  if (existsChromium())
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
}, 240_000);
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

function existsChromium(): boolean {
  try {
    readFileSync(CHROMIUM);
    return true;
  } catch {
    return false;
  }
}

type Row = { n: number; invalid: number; accuracy: number | null; mean_score: number | null };

function expectedBy(key: (it: ScreenItem) => string): Record<string, { n: number; accuracy: number }> {
  const out: Record<string, { n: number; hits: number }> = {};
  for (const it of items) {
    const k = key(it);
    out[k] ??= { n: 0, hits: 0 };
    out[k].n++;
    if (hitOf(it)) out[k].hits++;
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, { n: v.n, accuracy: v.hits / v.n }]));
}

describe('arbiter eval grounding, end to end', () => {
  it('generate → predict through the fake VLM → eval → HTML rendered in Chromium', { timeout: 240_000 }, async () => {
    // predict: each screenshot sent as an image content part with its instruction
    const preds: string[] = [];
    for (const it of items) {
      const png = readFileSync(join(dir, it.image));
      const res = await fetch(`${server.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'fake-vlm',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'image_url', image_url: { url: `data:image/png;base64,${png.toString('base64')}` } },
                { type: 'text', text: it.instruction },
              ],
            },
          ],
        }),
      });
      const body = (await res.json()) as { choices: { message: { content: string } }[] };
      preds.push(JSON.stringify({ id: it.id, item: it, output_text: body.choices[0]!.message.content }));
    }
    // the model saw every screenshot, byte for byte, as one image part
    const seen = server.chatRequests.map(visionInput);
    expect(seen.length).toBe(items.length);
    expect(seen.every((s) => s.images.length === 1 && s.images[0]!.mime === 'image/png')).toBe(true);
    expect(seen.map((s) => sha(s.images[0]!.bytes!))).toEqual(items.map((it) => sha(readFileSync(join(dir, it.image)))));
    writeFileSync(join(dir, 'predictions.jsonl'), `${preds.join('\n')}\n`);
    writeFileSync(join(dir, 'grounding.json'), JSON.stringify({ type: 'gui_grounding', reward: 'point_in_box', coordinates: 'smart_resize' }));

    const html = join(dir, 'report.html');
    const json = join(dir, 'report.json');
    const r = await runCli(
      [
        'eval',
        'grounding',
        join(dir, 'predictions.jsonl'),
        '--grader',
        join(dir, 'grounding.json'),
        '--json',
        json,
        '--html',
        html,
        '--max-cases',
        '5',
        '--no-progress',
      ],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8'));

    // every number recomputed from the definitions
    const hits = items.filter(hitOf).length;
    expect(hits).toBeGreaterThan(0);
    expect(hits).toBeLessThan(items.length); // the offset makes the small targets miss
    expect(report.metrics.n).toBe(items.length);
    expect(report.metrics.accuracy).toBeCloseTo(hits / items.length, 12);
    expect(report.metrics.mean_score).toBeCloseTo(hits / items.length, 12);
    const pick = (m: Record<string, Row>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, { n: v.n, accuracy: v.accuracy }]));
    expect(pick(report.metrics.by_type)).toEqual(expectedBy((it) => it.target.type));
    expect(pick(report.metrics.by_resolution)).toEqual(expectedBy((it) => `${it.width}x${it.height}`));
    expect(pick(report.metrics.by_zoom)).toEqual(expectedBy((it) => String(it.screen.scale)));
    expect(Object.keys(report.metrics.by_resolution).sort()).toEqual(['1200x900', '1280x720', '1920x1080', '800x600']);
    const misses = items.filter((it) => !hitOf(it));
    expect(report.tables[0].total).toBe(misses.length);
    const drawn = report.overlays[0].cases as { where: string; gold: number[]; point: number[]; width: number; height: number }[];
    expect(drawn.length).toBe(Math.min(5, misses.length));

    // the page, in Chromium
    if (!browser) throw new Error(`${CHROMIUM} is missing: the report render needs Debian's chromium (scripts/setup.sh installs it)`);
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const external: string[] = [];
    const errors: string[] = [];
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
      external.push(url);
      return route.abort();
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`file://${html}`);
    await page.waitForSelector('html[data-rendered="true"]', { timeout: 30_000 });
    expect(errors).toEqual([]);
    expect(external).toEqual([]);
    const plots = await page.$$eval('figure[data-plot-id]', (fs) =>
      fs.map((f) => ({ drawn: f.getAttribute('data-drawn'), bars: f.querySelectorAll('svg g[aria-label="bar"] rect').length })),
    );
    expect(plots.length).toBe(3);
    for (const [i, p] of plots.entries()) {
      expect(p.drawn).toBe('true');
      expect(p.bars).toBe(report.plots[i].data.filter((d: { value: number }) => d.value > 0).length);
    }
    const cases = await page.$$eval('section[data-overlay-id="worst"] figure.case', (fs) =>
      fs.map((f) => {
        const img = f.querySelector('img')!;
        const g = f.querySelector('rect.gold')!;
        const c = f.querySelector('circle.pred');
        const pic = img.getBoundingClientRect();
        const svg = f.querySelector('svg')!.getBoundingClientRect();
        return {
          where: f.getAttribute('data-case'),
          loaded: img.complete && img.naturalWidth > 0,
          natural: [img.naturalWidth, img.naturalHeight],
          viewBox: f.querySelector('svg')!.getAttribute('viewBox'),
          gold: ['x', 'y', 'width', 'height'].map((a) => Number(g.getAttribute(a))),
          point: c ? [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))] : null,
          // the drawing lies exactly over the picture
          over:
            Math.abs(pic.left - svg.left) < 0.5 &&
            Math.abs(pic.top - svg.top) < 0.5 &&
            Math.abs(pic.width - svg.width) < 0.5 &&
            Math.abs(pic.height - svg.height) < 0.5 &&
            svg.width > 100,
        };
      }),
    );
    expect(cases.map((c) => c.where)).toEqual(drawn.map((c) => c.where));
    const r2 = (v: number) => Math.round(v * 100) / 100;
    for (const [i, c] of cases.entries()) {
      const d = drawn[i]!;
      expect(c.loaded).toBe(true);
      expect(c.natural).toEqual([d.width, d.height]);
      expect(c.viewBox).toBe(`0 0 ${d.width} ${d.height}`);
      expect(c.gold).toEqual([r2(d.gold[0]!), r2(d.gold[1]!), r2(d.gold[2]! - d.gold[0]!), r2(d.gold[3]! - d.gold[1]!)].map(r2));
      expect(c.point).toEqual([r2(d.point[0]!), r2(d.point[1]!)]);
      expect(c.over).toBe(true);
    }
    // each drawn case is a miss the definitions give, at the point the answer maps to
    for (const d of drawn) {
      const it = items.find((x) => d.where.endsWith(`:${items.indexOf(x) + 1}`))!;
      expect(hitOf(it)).toBe(false);
      const f = smartResize({ width: it.width, height: it.height });
      const [ax, ay] = answerFor(it);
      expect(d.point[0]).toBeCloseTo(ax * (it.width / f.width), 9);
      expect(d.point[1]).toBeCloseTo(ay * (it.height / f.height), 9);
    }
    await (await page.$('section[data-overlay-id="worst"]'))!.screenshot({ path: join(OUT, 'grounding-worst.png') });
    await page.close();
  });

  it("a screenshot is drawn from a data URL too, and not drawn when its size is not the item's (a note says so)", { timeout: 120_000 }, async () => {
    const miss = items.filter((it) => !hitOf(it)).slice(0, 2);
    expect(miss.length).toBe(2);
    const [a, b] = miss as [ScreenItem, ScreenItem];
    const url = (it: ScreenItem) => `data:image/png;base64,${readFileSync(join(dir, it.image)).toString('base64')}`;
    const far = '{"action": "click", "coordinate": [1, 1]}';
    const rows = [
      { id: 'inline', item: { ...a, image: url(a) }, output_text: far },
      // the item claims twice the size: the gold box is still inside it, but the picture is not that image
      { id: 'resized', item: { ...b, image: url(b), width: b.width * 2, height: b.height * 2 }, output_text: far },
    ];
    const f = join(dir, 'inline.jsonl');
    writeFileSync(f, rows.map((r) => JSON.stringify(r)).join('\n'));
    writeFileSync(join(dir, 'pixels.json'), JSON.stringify({ type: 'gui_grounding', reward: 'point_in_box' }));
    const json = join(dir, 'inline.json');
    const r = await runCli(['eval', 'grounding', f, '--grader', join(dir, 'pixels.json'), '--json', json, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report.metrics.accuracy).toBe(0);
    expect(report.overlays[0].cases.map((c: { where: string }) => c.where)).toEqual([`${f}:1`]);
    expect(report.overlays[0].cases[0].image).toBe(url(a));
    expect(report.notes.join('\n')).toContain(
      `${f}:2: screenshot not drawn (the data URL is ${b.width}x${b.height}, the item says ${b.width * 2}x${b.height * 2})`,
    );
  });
});
