// gui_grounding on generated screens (scripts/gen-screens.mjs: boxes read from Chromium's DOM): for
// every target, answers placed at known offsets in each coordinate frame score exactly what the
// definitions give, recomputed here (point in box with edges included, IoU of continuous areas,
// GUI-G1's hit + 0.25 IoU + 0.125 box term, the area cap, the Gaussian point reward); the action
// formats; action type + arguments; a malformed answer is a valid 0 with a reason; a malformed gold
// box is bad_input.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services, type Result } from '../../dist/index.js';
import { fitMaxSide, smartResize } from '../../dist/images/resize.js';
import { generateScreens, type ScreenItem } from '../helpers/screens.js';

type Box = [number, number, number, number];
let items: ScreenItem[] = [];
const services = new Services();

beforeAll(async () => {
  items = await generateScreens(mkdtempSync(join(tmpdir(), 'arbiter-gui-')), [
    '--viewports',
    '640x480,1000x700',
    '--scales',
    '1,1.75',
    '--targets',
    '4',
    '--seed',
    '3',
  ]);
}, 180_000);
afterAll(() => services.close());

async function run(config: Record<string, unknown>, item: Record<string, unknown>, output: string): Promise<Result> {
  const g = await loadGrader({ type: 'gui_grounding', ...config });
  return grade(g, { item, sample: { output_text: output } }, { services });
}

// the definitions, written out again
const inBox = (x: number, y: number, b: Box) => b[0] <= x && x <= b[2] && b[1] <= y && y <= b[3];
function iouOf(a: Box, b: Box): number {
  const iw = Math.max(0, Math.min(a[2], b[2]) - Math.max(a[0], b[0]));
  const ih = Math.max(0, Math.min(a[3], b[3]) - Math.max(a[1], b[1]));
  const inter = iw * ih;
  return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter);
}
function boxTerm(p: Box, g: Box, w: number, h: number): number {
  const c = [1 - Math.abs(p[0] - g[0]) / w, 1 - Math.abs(p[1] - g[1]) / h, 1 - Math.abs(p[2] - g[2]) / w, 1 - Math.abs(p[3] - g[3]) / h].map((v) =>
    Math.min(1, Math.max(0, v)),
  );
  return c.some((v) => v === 0) ? 0 : 4 / c.reduce((a, v) => a + 1 / v, 0);
}
const centreOf = (b: Box): [number, number] => [(b[0] + b[2]) / 2, (b[1] + b[3]) / 2];

describe('gui_grounding on generated screens', () => {
  it('the generator gave targets of every page kind at two resolutions and two zooms, boxes inside their screenshots', () => {
    expect(items.length).toBeGreaterThan(40);
    expect(new Set(items.map((i) => i.screen.page))).toEqual(new Set(['form', 'menu', 'toolbar', 'table']));
    expect(new Set(items.map((i) => `${i.width}x${i.height}`))).toEqual(new Set(['640x480', '1120x840', '1000x700', '1750x1225']));
    for (const i of items) {
      const [x1, y1, x2, y2] = i.target.box;
      expect(x2 > x1 && y2 > y1 && x1 >= 0 && y1 >= 0 && x2 <= i.width && y2 <= i.height, i.id).toBe(true);
    }
    // the same page at zoom 1.75 has each box 1.75 times the size at zoom 1 (getBoundingClientRect x devicePixelRatio)
    const at = (page: string, scale: number) => items.filter((i) => i.screen.page === page && i.screen.viewport === '640x480' && i.screen.scale === scale);
    const one = at('toolbar', 1);
    const big = at('toolbar', 1.75);
    for (const a of one) {
      const b = big.find((x) => x.target.label === a.target.label);
      if (b) for (let k = 0; k < 4; k++) expect(b.target.box[k]).toBeCloseTo(a.target.box[k]! * 1.75, 6);
    }
  });

  it('the generator is deterministic: the same seed gives the same items and screenshots, another seed other pages', { timeout: 120_000 }, async () => {
    const flags = (seed: string) => ['--pages', 'toolbar,table', '--viewports', '640x480', '--scales', '1', '--targets', '3', '--seed', seed];
    const [a, b, c] = await Promise.all(
      ['5', '5', '6'].map(async (seed) => {
        const out = mkdtempSync(join(tmpdir(), 'arbiter-gui-seed-'));
        const got = await generateScreens(out, flags(seed));
        return { got, png: readFileSync(join(out, got[0]!.image)) };
      }),
    );
    expect(b!.got).toEqual(a!.got);
    expect(b!.png.equals(a!.png)).toBe(true);
    expect(c!.got.map((i) => i.target.label)).not.toEqual(a!.got.map((i) => i.target.label));
  });

  it('point_in_box in each coordinate frame: the centre hits, the corners hit (edges included), just outside misses', async () => {
    for (const it of items.filter((_, k) => k % 3 === 0)) {
      const b = it.target.box;
      const size = { width: it.width, height: it.height };
      const frames = [
        { coordinates: 'pixels', w: it.width, h: it.height },
        { coordinates: 'smart_resize', ...(({ width, height }) => ({ w: width, h: height }))(smartResize(size)) },
        { coordinates: 'max_side', max_side: 512, ...(({ width, height }) => ({ w: width, h: height }))(fitMaxSide(size, 512)) },
        { coordinates: 'norm1000', w: 1000, h: 1000 },
      ];
      for (const { w, h, ...cfg } of frames) {
        const sx = w / it.width;
        const sy = h / it.height;
        // an integer answer as a model gives it, in its frame; the expected hit is that answer mapped back
        for (const [px, py] of [centreOf(b), [b[0], b[1]], [b[2] + 3 / sx, b[3]]] as [number, number][]) {
          const ax = Math.round(px * sx);
          const ay = Math.round(py * sy);
          const expected = inBox(ax / sx, ay / sy, b) ? 1 : 0;
          const r = await run({ reward: 'point_in_box', ...cfg }, it, JSON.stringify({ action: 'click', coordinate: [ax, ay] }));
          expect({ id: it.id, cfg, score: r.score, valid: r.valid }).toEqual({ id: it.id, cfg, score: expected, valid: true });
          expect((r.metadata.point as number[])[0]).toBeCloseTo(ax / sx, 9);
        }
      }
    }
  });

  it('iou, gui_g1 and distance on boxes shifted by known amounts: the values the definitions give', async () => {
    for (const it of items.filter((_, k) => k % 4 === 1)) {
      const b = it.target.box;
      const bw = b[2] - b[0];
      const bh = b[3] - b[1];
      for (const [dx, dy] of [
        [0, 0],
        [bw / 4, 0],
        [-bw / 3, bh / 2],
        [bw * 2, bh * 2],
      ] as [number, number][]) {
        const p: Box = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy];
        const text = `<box>(${p[0]},${p[1]}),(${p[2]},${p[3]})</box>`;
        const want = iouOf(p, b);
        const iou = await run({ reward: 'iou' }, it, text);
        expect(iou.score).toBeCloseTo(want, 12);
        const [cx, cy] = centreOf(p);
        const hit = inBox(cx, cy, b) ? 1 : 0;
        const g1 = await run({ reward: 'gui_g1' }, it, text);
        expect(g1.score).toBeCloseTo(hit + 0.25 * want + 0.125 * boxTerm(p, b, it.width, it.height), 12);
        const dist = await run({ reward: 'distance', sigma: 0.4 }, it, `<point>(${cx}, ${cy})</point>`);
        expect(dist.score).toBeCloseTo(Math.exp(-((dx * dx) / (2 * (0.4 * bw) ** 2) + (dy * dy) / (2 * (0.4 * bh) ** 2))), 12);
      }
    }
  });

  it("the box-size cap: a box grown around the target hits until its area passes max_area_ratio times the target's", async () => {
    const it = items.find((i) => i.target.type === 'button')!;
    const b = it.target.box;
    const [cx, cy] = centreOf(b);
    // twice the width and height: 4 times the area, the centre unchanged
    const p: Box = [cx - (b[2] - b[0]), cy - (b[3] - b[1]), cx + (b[2] - b[0]), cy + (b[3] - b[1])];
    const text = JSON.stringify([{ bbox_2d: p, label: it.target.label }]);
    expect((await run({ reward: 'point_in_box' }, it, text)).score).toBe(1);
    expect((await run({ reward: 'point_in_box', max_area_ratio: 5 }, it, text)).score).toBe(1);
    const capped = await run({ reward: 'point_in_box', max_area_ratio: 3 }, it, text);
    expect(capped.score).toBe(0);
    expect(capped.reason).toMatch(/4\.00x the target's area/);
    const g1 = await run({ reward: 'gui_g1', max_area_ratio: 3, weights: { hit: 1, iou: 0, box: 0 } }, it, text);
    expect(g1.score).toBe(0);
  });

  it('action formats: JSON, a tool-call wrapper, UI-TARS calls in [0,1000], tags, an <answer> block; all read the same point', async () => {
    const it = items.find((i) => i.target.type === 'cell')!;
    const [cx, cy] = centreOf(it.target.box);
    const x = Math.round(cx);
    const y = Math.round(cy);
    const nx = Math.round((cx / it.width) * 1000);
    const ny = Math.round((cy / it.height) * 1000);
    const px: [string, Record<string, unknown>][] = [
      [`{"action": "click", "coordinate": [${x}, ${y}]}`, {}],
      [`<tool_call>{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [${x}, ${y}]}}</tool_call>`, {}],
      [`<think>the cell</think><answer>[{'x': 1}] <point>(${x}, ${y})</point></answer>`, {}],
      [`Thought: there.\nAction: click(start_box='<|box_start|>(${nx},${ny})<|box_end|>')`, { coordinates: 'norm1000' }],
      [`<point>${nx / 1000} ${ny / 1000}</point>`, { coordinates: 'norm1' }],
    ];
    for (const [text, cfg] of px) {
      const r = await run({ reward: 'action', ...cfg }, it, text);
      const [ex, ey] =
        cfg.coordinates === 'norm1000'
          ? [(nx / 1000) * it.width, (ny / 1000) * it.height]
          : cfg.coordinates === 'norm1'
            ? [(nx / 1000) * it.width, (ny / 1000) * it.height]
            : [x, y];
      expect({ text, score: r.score }).toEqual({ text, score: inBox(ex, ey, it.target.box) ? 1 : 0 });
      expect((r.metadata.point as number[])[0]).toBeCloseTo(ex, 9);
    }
  });

  it('action type + arguments for type, scroll, key and drag', async () => {
    const it = items[0]!;
    const b = it.target.box;
    const [cx, cy] = centreOf(b);
    const end: Box = [0, 0, 10, 10];
    const cases: [Record<string, unknown>, string, number, RegExp][] = [
      [{ type: 'type', text: 'hello world' }, '{"action": "type", "text": "hello world"}', 1, /matches/],
      [{ type: 'type', text: 'hello world' }, '{"action": "type", "text": "hello"}', 0, /does not match/],
      [{ type: 'scroll', direction: 'down' }, "scroll(start_box='(5,5)', direction='DOWN')", 1, /direction down/],
      [{ type: 'scroll', direction: 'down' }, "scroll(start_box='(5,5)', direction='up')", 0, /expected down/],
      [{ type: 'key', keys: 'ctrl+shift+t' }, '{"action": "key", "keys": ["Shift", "Control", "T"]}', 1, /ctrl\+shift\+t/],
      [{ type: 'key', keys: 'ctrl+c' }, "hotkey(key='ctrl v')", 0, /keys c/],
      [{ type: 'drag', end_box: end }, `{"action": "left_click_drag", "start_coordinate": [${cx}, ${cy}], "coordinate": [5, 5]}`, 1, /end \(5, 5\) inside/],
      [{ type: 'drag', end_box: end }, `drag(start_box='(${cx},${cy})', end_box='(50,50)')`, 0, /outside/],
      [{ type: 'click' }, `{"action": "type", "text": "x"}`, 0, /action type, expected click/],
    ];
    for (const [action, text, score, reason] of cases) {
      const r = await run({ reward: 'action', action, text_match: 'exact' }, it, text);
      expect({ text, valid: r.valid, score: r.score }).toEqual({ text, valid: true, score });
      expect(r.reason).toMatch(reason);
    }
    // GUI-R1's text rule: token F1 >= 0.5
    const f1 = await run(
      { reward: 'action', action: { type: 'type', text: 'hello big world' }, text_match: 'f1' },
      it,
      '{"action": "type", "text": "hello world"}',
    );
    expect(f1.score).toBe(1); // F1 = 2*2/(2+3) = 0.8
  });

  it('a malformed answer is a valid 0 with a reason; a malformed gold box, size or action is bad_input', async () => {
    const it = items[1]!;
    for (const text of [
      'I would click the button.',
      '<point>(12)</point>',
      '{"action": "click", "coordinate": ["a", 3]}',
      '<box>(1,2,3)</box>',
      '<think>never closes',
    ]) {
      const r = await run({ reward: 'point_in_box' }, it, text);
      expect({ text, valid: r.valid, score: r.score }).toEqual({ text, valid: true, score: 0 });
      expect(r.reason!.length).toBeGreaterThan(5);
    }
    const iouOfPoint = await run({ reward: 'iou' }, it, '<point>(1, 2)</point>');
    expect([iouOfPoint.valid, iouOfPoint.score, iouOfPoint.reason]).toEqual([true, 0, 'iou needs a box; the answer gives a point']);
    const ok = '<point>(1, 2)</point>';
    for (const bad of [
      { target: { box: [20, 10, 10, 30] } },
      { target: { box: [Number.NaN, 1, 2, 3] } },
      { target: { box: [0, 0, it.width + 1, 10] } },
      { target: { box: [1, 2, 3] } },
      { width: 0 },
      { width: 'wide' },
    ]) {
      const r = await run({ reward: 'point_in_box' }, { ...it, ...bad }, ok);
      expect({ bad, valid: r.valid, kind: r.error?.kind }).toEqual({ bad, valid: false, kind: 'bad_input' });
    }
    const badAction = await run({ reward: 'action', action: { type: 'type' } }, it, ok);
    expect([badAction.valid, badAction.error?.kind]).toEqual([false, 'bad_input']);
  });

  it('load-time checks: max_side needs its frame, options of other rewards are refused', () => {
    expect(() => loadGrader({ type: 'gui_grounding', reward: 'point_in_box', coordinates: 'max_side' })).toThrow(
      /max_side: coordinates "max_side" needs max_side/,
    );
    expect(() => loadGrader({ type: 'gui_grounding', reward: 'iou', sigma: 0.3 })).toThrow(/sigma: only used with reward "distance"/);
    expect(() => loadGrader({ type: 'gui_grounding', reward: 'distance', resize: { factor: 14 } })).toThrow(
      /resize: only used with coordinates "smart_resize"/,
    );
  });
});
