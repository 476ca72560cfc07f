// `arbiter eval grounding`: grades GUI grounding predictions (JSONL {id?, item, output_text}, the
// items as scripts/gen-screens.mjs writes them: image, width, height, target {type, label, box},
// instruction, screen {page, viewport, scale}) with a grounding grader (gui_grounding) and reports
// the hit rate (the predicted point, or a predicted box's centre, inside the gold box: the grader's
// metadata.hit) and the mean reward, overall and per element type, resolution, zoom and page kind.
// The worst cases are drawn on their screenshots (gold box, predicted point and box) in the HTML report.
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { normalizeRecord } from '../../core/sample.js';
import { MIME_TYPES, sniffFormat } from '../../images/sniff.js';
import { grade } from '../../core/grade.js';
import { openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport, type OverlayCase } from '../report.js';
import { runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, progressFor, runOptions, type Suite, type SuiteOptions } from './common.js';

/** Cases drawn on their screenshots, at most (each embeds its image). */
const MAX_OVERLAYS = 12;
/** An image larger than this is not embedded in the report (its row stays in the table). */
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

interface Unit {
  key: string;
  where: string;
  item: Record<string, unknown>;
  sample: Record<string, unknown>;
}

type Graded = {
  where: string;
  type: string;
  resolution: string;
  zoom: string;
  page: string;
  instruction: string;
  image: string | null;
  width: number | null;
  height: number | null;
  gold: unknown;
  valid: boolean;
  score: number | null;
  hit: boolean | null;
  point: [number, number] | null;
  box: [number, number, number, number] | null;
  distance_px: number | null;
  reason: string;
};

interface Tally {
  n: number;
  hits: number;
  score: number;
  invalid: number;
}

const s = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function pair(v: unknown): [number, number] | null {
  return Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === 'number') ? (v as [number, number]) : null;
}
function quad(v: unknown): [number, number, number, number] | null {
  return Array.isArray(v) && v.length === 4 && v.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (v as [number, number, number, number]) : null;
}

async function* units(problems: Problems, src: Awaited<ReturnType<typeof openRecords>>): AsyncGenerator<Unit> {
  for await (const r of src.records()) {
    if ('error' in r) {
      problems.add(r.where, r.error);
      continue;
    }
    try {
      const g = normalizeRecord(r.value);
      yield { key: g.id !== undefined ? String(g.id) : String(r.index), where: r.where, item: g.item, sample: g.sample };
    } catch (e) {
      problems.add(r.where, (e as Error).message);
    }
  }
}

/** The image format its first bytes say (the formats a report may embed, src/images/sniff.ts), as a MIME type. */
const sniff = (b: Buffer): string | undefined => {
  const f = sniffFormat(b);
  return f && MIME_TYPES[f];
};

const DATA_URL = /^data:(image\/(?:png|jpeg|webp|gif));base64,([A-Za-z0-9+/]+=*)$/;

/**
 * The screenshot as a data URL to embed: a data URL or a file (relative to the predictions file),
 * its format checked by its bytes and its size read by sharp from the image header: a screenshot
 * whose size is not the item's width x height would put the boxes in the wrong place, so it is
 * not drawn. A reason (in a one-element list) when it cannot be embedded.
 */
async function embeddable(image: string, base: string, width: number, height: number): Promise<string | string[]> {
  let bytes: Buffer;
  let what: string;
  if (image.startsWith('data:')) {
    const m = DATA_URL.exec(image);
    if (!m) return ['not a base64 PNG/JPEG/WebP/GIF data URL'];
    if ((m[2]!.length * 3) / 4 > MAX_IMAGE_BYTES) return [`over ${MAX_IMAGE_BYTES} bytes`];
    bytes = Buffer.from(m[2]!, 'base64');
    what = 'the data URL';
  } else {
    const path = isAbsolute(image) ? image : resolve(base, image);
    what = path;
    try {
      const st = await stat(path);
      if (!st.isFile()) return [`${path} is not a file`];
      if (st.size > MAX_IMAGE_BYTES) return [`${path} is over ${MAX_IMAGE_BYTES} bytes`];
      bytes = await readFile(path);
    } catch (e) {
      return [`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`];
    }
  }
  const type = sniff(bytes);
  if (!type) return [`${what} is not a PNG, JPEG, WebP or GIF image`];
  let meta: { width?: number | undefined; height?: number | undefined };
  try {
    const { default: sharp } = await import('sharp');
    meta = await sharp(bytes).metadata();
  } catch (e) {
    return [`${what} cannot be decoded: ${(e as Error).message}`];
  }
  if (meta.width !== width || meta.height !== height) return [`${what} is ${meta.width}x${meta.height}, the item says ${width}x${height}`];
  return `data:${type};base64,${bytes.toString('base64')}`;
}

function add(map: Map<string, Tally>, key: string, g: Graded): void {
  const t = map.get(key) ?? { n: 0, hits: 0, score: 0, invalid: 0 };
  if (!g.valid) t.invalid++;
  else {
    t.n++;
    if (g.hit) t.hits++;
    t.score += g.score!;
  }
  map.set(key, t);
}

function table(map: Map<string, Tally>): Record<string, { n: number; invalid: number; accuracy: number | null; mean_score: number | null }> {
  const keys = [...map.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return Object.fromEntries(
    keys.map((k) => {
      const t = map.get(k)!;
      return [k, { n: t.n, invalid: t.invalid, accuracy: t.n ? t.hits / t.n : null, mean_score: t.n ? t.score / t.n : null }];
    }),
  );
}

async function runGrounding(opts: SuiteOptions): Promise<EvalReport> {
  if (!opts.grader) throw new EvalUsageError('grounding needs --grader G.json (a gui_grounding grader) to grade the predictions');
  const grader = opts.grader;
  const file = opts.files[0]!;
  const problems = new Problems();
  const src = await openRecords(file);
  const progress = progressFor('grounding', opts, src);
  const work = async (u: Unit): Promise<Graded> => {
    const r = await grade(grader, { item: u.item, sample: u.sample }, { services: opts.services! });
    const screen = isObj(u.item.screen) ? u.item.screen : {};
    const target = isObj(u.item.target) ? u.item.target : {};
    const width = num(u.item.width);
    const height = num(u.item.height);
    return {
      where: u.where,
      type: s(target.type) ?? 'unknown',
      resolution: width !== null && height !== null ? `${width}x${height}` : 'unknown',
      zoom: s(screen.scale) ?? s(u.item.zoom) ?? 'unknown',
      page: s(screen.page) ?? 'unknown',
      instruction: clip(s(u.item.instruction) ?? '', 300),
      image: s(u.item.image) ?? null,
      width,
      height,
      gold: target.box ?? null,
      valid: r.valid,
      score: r.valid ? r.score : null,
      hit: typeof r.metadata.hit === 'boolean' ? r.metadata.hit : r.valid ? false : null,
      point: pair(r.metadata.point),
      box: quad(r.metadata.box),
      distance_px: num(r.metadata.distance_px),
      reason: clip(r.valid ? (r.reason ?? '') : `${r.error?.kind}: ${r.error?.message}`, 600),
    };
  };
  const all = new Map<string, Tally>();
  const byType = new Map<string, Tally>();
  const byRes = new Map<string, Tally>();
  const byZoom = new Map<string, Tally>();
  const byPage = new Map<string, Tally>();
  const worst = new WorstCases<Graded>(opts.maxCases);
  let invalid = 0;
  let records = 0;
  for await (const g of runUnits(units(problems, src), work, runOptions(opts, progress))) {
    records++;
    add(all, 'all', g);
    add(byType, g.type, g);
    add(byRes, g.resolution, g);
    add(byZoom, g.zoom, g);
    add(byPage, g.page, g);
    if (!g.valid) {
      invalid++;
      continue;
    }
    // a miss is worse than a hit; among them the farther (in image diagonals) the worse; no location at all is worst
    const diag = g.width && g.height ? Math.hypot(g.width, g.height) : 1;
    const severity = g.point ? (g.hit ? 0 : 1) + Math.min(1, (g.distance_px ?? 0) / diag) : 2;
    if (!g.hit) worst.add(severity, g);
  }
  progress.done();
  const overall = table(all).all ?? { n: 0, invalid: 0, accuracy: null, mean_score: null };
  const r = newReport('grounding', `GUI grounding: ${opts.graderFile ?? 'grader'} on ${file}`, { files: opts.files, grader: opts.graderFile });
  const by = { type: table(byType), resolution: table(byRes), zoom: table(byZoom), page: table(byPage) };
  const pctHits = overall.accuracy === null ? null : 100 * overall.accuracy;
  r.metrics = {
    n: overall.n,
    invalid,
    accuracy: overall.accuracy,
    accuracy_pct: pctHits,
    mean_score: overall.mean_score,
    by_type: by.type,
    by_resolution: by.resolution,
    by_zoom: by.zoom,
    by_page: by.page,
  };
  r.headline = [
    { key: 'accuracy_pct', label: 'Hit rate (point in the target box)', value: pctHits, digits: 1, unit: '%' },
    { key: 'mean_score', label: 'Mean reward', value: overall.mean_score, digits: 4, unit: '' },
    { key: 'n', label: 'Graded predictions', value: overall.n, digits: 0, unit: '' },
  ];
  for (const [id, title, m] of [
    ['by_type', 'Hit rate per element type', by.type],
    ['by_resolution', 'Hit rate per screenshot resolution', by.resolution],
    ['by_zoom', 'Hit rate per zoom (device scale factor)', by.zoom],
  ] as const) {
    r.plots.push({
      kind: 'bars',
      id,
      title,
      y_label: 'hit rate',
      max: 1,
      data: Object.entries(m)
        .filter(([, v]) => v.accuracy !== null)
        .map(([label, v]) => ({ label, value: v.accuracy! })),
    });
  }
  const rows = worst.rows();
  r.tables.push({
    id: 'worst',
    title: 'Misses (no location first, then the farthest from the target)',
    columns: ['where', 'type', 'resolution', 'zoom', 'instruction', 'score', 'reason'],
    rows: rows.map((g) => [g.where, g.type, g.resolution, g.zoom, g.instruction, g.score, g.reason]),
    total: worst.total,
  });
  const base = dirname(resolve(file));
  const cases: OverlayCase[] = [];
  for (const g of rows) {
    if (cases.length >= MAX_OVERLAYS) break;
    const gold = quad(g.gold);
    if (!g.image || !gold || g.width === null || g.height === null) continue;
    const img = await embeddable(g.image, base, g.width, g.height);
    if (typeof img !== 'string') {
      r.notes.push(`${g.where}: screenshot not drawn (${img[0]})`);
      continue;
    }
    cases.push({
      where: g.where,
      caption: `${g.type} · ${g.resolution} @ ${g.zoom}x · score ${g.score} · ${g.instruction} · ${g.reason}`,
      image: img,
      width: g.width,
      height: g.height,
      gold,
      ...(g.point ? { point: g.point } : {}),
      ...(g.box ? { box: g.box } : {}),
      score: g.score,
    });
  }
  r.overlays = [{ id: 'worst', title: 'Worst cases on their screenshots (green: target, red: prediction)', cases, total: worst.total }];
  r.counts = { records: records + problems.count, skipped: problems.count, invalid };
  r.problems = problems.list;
  r.notes.unshift(
    "Hit: the predicted point (or the centre of a predicted box), mapped to the original image, lies in the gold box (edges included). Mean reward: the grader's score. Ungradeable predictions (a bad item) are counted apart.",
  );
  return r;
}

export const suite: Suite = {
  name: 'grounding',
  summary: 'GUI grounding: hit rate and mean reward per element type, resolution and zoom, worst cases drawn on the screenshots',
  args: '<file>',
  example: 'arbiter eval grounding predictions.jsonl --grader grounding.json --html report.html',
  takes: ['records', 'concurrency', 'max-cases'],
  options: [],
  run: runGrounding,
};
