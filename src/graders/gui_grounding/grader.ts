// `gui_grounding`: rewards for where a GUI agent points, against a gold box in the original
// image's pixels (item.target.box, item.width, item.height by default). The answer is read in the
// common action formats (./actions.ts) and its numbers mapped from the model's coordinate frame
// (`coordinates`: original pixels, Qwen2.5-VL's smart-resized pixels, a max-side resize, [0,1000]
// or [0,1]) to the original image (./geometry.ts). Rewards: point_in_box (hit), iou, gui_g1 (hit +
// IoU + GUI-G1's box-size term), distance (Gaussian point reward), action (type + arguments of
// click / type / scroll / drag / key). An unreadable answer is a valid 0 with a reason; a malformed
// gold box, size or action is bad_input.
import { z } from 'zod';
import { raisedCaps } from '../../core/capabilities.js';
import { GradeFailure, ResponseFault, type Outcome } from '../../core/result.js';
import { graderSchema, type GraderType, PURE } from '../../core/registry.js';
import { renderCompiled, renderString, renderValue, type Template, type ValueTemplate } from '../../core/template.js';
import { describe, type GradeInput } from '../../core/sample.js';
import { extractSchema, neverCloses, readText, resolveExtract } from '../../extract/index.js';
import type { Size } from '../../images/resize.js';
import { ACTION_FORMATS, actionName, readAction, type Action } from './actions.js';
import {
  area,
  boxSizeTerm,
  boxToOriginal,
  centre,
  COORDINATE_SPACES,
  distance,
  gaussianPoint,
  goldBoxProblem,
  inside,
  iou,
  modelFrame,
  toOriginal,
  type Box,
  type Point,
  type SpaceSettings,
} from './geometry.js';

export const REWARDS = ['point_in_box', 'iou', 'gui_g1', 'distance', 'action'] as const;
type Reward = (typeof REWARDS)[number];

const numberOrTemplate = z.union([z.number().positive(), z.string().min(1)]);

const schema = graderSchema({
  reward: z.enum(REWARDS),
  /** The answer text (default {{sample.output_text}}). */
  input: z.string().optional(),
  /** The gold target: {box: [x1, y1, x2, y2], ...} or the box itself, in original pixels (default {{item.target}}). */
  target: z.unknown().optional(),
  /** The original image's size (default {{item.width}} / {{item.height}}). */
  width: numberOrTemplate.optional(),
  height: numberOrTemplate.optional(),
  /** reward action: the gold action {type, text?, direction?, keys?, end_box?} (default item.action; a click when the item has none). */
  action: z.unknown().optional(),
  coordinates: z.enum(COORDINATE_SPACES).optional(),
  /** coordinates smart_resize: the processor's settings (default QWEN_VL_DEFAULTS in src/images/resize.ts). */
  resize: z
    .strictObject({
      factor: z.number().int().positive().optional(),
      min_pixels: z.number().int().positive().optional(),
      max_pixels: z.number().int().positive().optional(),
    })
    .optional(),
  /** coordinates max_side: the longest side the image was shrunk to. */
  max_side: z.number().int().positive().optional(),
  format: z.enum(ACTION_FORMATS).optional(),
  /** reward distance: the Gaussian's sigma as a fraction of the gold box's width / height (default 0.5). */
  sigma: z.number().positive().optional(),
  /** reward gui_g1: weights of the hit, IoU and box-size terms (default GUI-G1's 1, 0.25, 0.125). */
  weights: z
    .strictObject({ hit: z.number().nonnegative().optional(), iou: z.number().nonnegative().optional(), box: z.number().nonnegative().optional() })
    .optional(),
  /** A predicted box whose area is over this many times the gold box's is no hit (the big-box hack). */
  max_area_ratio: z.number().positive().optional(),
  /** reward action, type actions: `exact` (trimmed text equal, default) or `f1` (token F1 >= 0.5, GUI-R1's rule). */
  text_match: z.enum(['exact', 'f1']).optional(),
  max_chars: z.number().int().positive().optional(),
  /** think `strip` (default) or `keep`; from `whole`. */
  extract: extractSchema(['whole'] as const),
});
type Config = z.infer<typeof schema>;

const DEFAULT_MAX_CHARS = 100_000;

interface Gold {
  size: Size;
  box: Box;
}

interface GoldAction {
  type: string;
  text?: string;
  direction?: string;
  keys?: string;
  end_box?: Box;
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function sizeField(t: Template, what: string, s: GradeInput): number {
  const raw = renderValue(t, s);
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new GradeFailure('bad_input', `image ${what} ${t.source} rendered to ${describe(raw)}, not a positive number`);
  return n;
}

function goldBox(raw: unknown, size: Size, what: string): Box {
  const box = isObj(raw) ? raw.box : raw;
  const problem = goldBoxProblem(box, size);
  if (problem) throw new GradeFailure('bad_input', `${what} ${problem}`);
  return box as Box;
}

/** Keys as a canonical chord: lower-case names, common aliases, sorted ("Ctrl+C" = "c ctrl"). */
function chord(keys: string): string {
  const alias: Record<string, string> = {
    control: 'ctrl',
    cmd: 'meta',
    command: 'meta',
    win: 'meta',
    super: 'meta',
    return: 'enter',
    esc: 'escape',
    option: 'alt',
  };
  return keys
    .toLowerCase()
    .split(/[+\s]+/)
    .filter(Boolean)
    .map((k) => alias[k] ?? k)
    .sort()
    .join('+');
}

function tokenF1(a: string, b: string): number {
  const p = new Set(a.toLowerCase().split(/\s+/).filter(Boolean));
  const g = new Set(b.toLowerCase().split(/\s+/).filter(Boolean));
  if (p.size === 0 || g.size === 0) return p.size === g.size ? 1 : 0;
  let common = 0;
  for (const t of p) if (g.has(t)) common++;
  return common === 0 ? 0 : (2 * common) / (p.size + g.size);
}

function goldAction(raw: unknown, size: Size): GoldAction {
  if (raw === undefined || raw === null) return { type: 'click' };
  if (!isObj(raw) || typeof raw.type !== 'string')
    throw new GradeFailure('bad_input', `gold action must be an object with a string "type", got ${describe(raw)}`);
  const type = actionName(raw.type);
  const need = (k: 'text' | 'direction' | 'keys'): string => {
    const v = k === 'keys' && Array.isArray(raw.keys) && raw.keys.every((x) => typeof x === 'string') ? raw.keys.join('+') : raw[k];
    if (typeof v !== 'string' || v.trim() === '') throw new GradeFailure('bad_input', `gold ${type} action needs a non-empty "${k}"`);
    return v;
  };
  if (type === 'type') return { type, text: need('text') };
  if (type === 'scroll') return { type, direction: need('direction') };
  if (type === 'key') return { type, keys: need('keys') };
  if (type === 'drag') return { type, end_box: goldBox(raw.end_box, size, 'gold drag end_box') };
  return { type };
}

const fmt = (p: Point) => `(${p.map((v) => Math.round(v * 10) / 10).join(', ')})`;

export const guiGrounding: GraderType<Config> = {
  type: 'gui_grounding',
  summary: 'GUI grounding: point-in-box, IoU, GUI-G1 box reward, Gaussian distance, action type + arguments; coordinates mapped through the image resize',
  schema,
  capabilities: (cfg) => [...PURE, ...raisedCaps(cfg, { max_chars: DEFAULT_MAX_CHARS })],
  build(cfg, b) {
    const reward: Reward = cfg.reward;
    const space = cfg.coordinates ?? 'pixels';
    if (space === 'max_side' && cfg.max_side === undefined)
      b.fail('max_side', 'coordinates "max_side" needs max_side (the longest side the image was shrunk to)');
    if (space !== 'max_side' && cfg.max_side !== undefined) b.issue('max_side', 'only used with coordinates "max_side"');
    if (space !== 'smart_resize' && cfg.resize !== undefined) b.issue('resize', 'only used with coordinates "smart_resize"');
    if (reward !== 'distance' && cfg.sigma !== undefined) b.issue('sigma', 'only used with reward "distance"');
    if (reward !== 'gui_g1' && cfg.weights !== undefined) b.issue('weights', 'only used with reward "gui_g1"');
    if (reward !== 'action' && cfg.text_match !== undefined) b.issue('text_match', 'only used with reward "action"');
    if (reward !== 'action' && cfg.action !== undefined) b.issue('action', 'only used with reward "action"');
    if (!['point_in_box', 'gui_g1', 'action'].includes(reward) && cfg.max_area_ratio !== undefined)
      b.issue('max_area_ratio', 'only used with rewards point_in_box, gui_g1 and action (it caps what counts as a hit)');
    const input = cfg.input !== undefined ? b.template('input', cfg.input) : undefined;
    const target: ValueTemplate = b.value('target', cfg.target ?? '{{item.target}}');
    const widthT = b.template('width', typeof cfg.width === 'number' ? String(cfg.width) : (cfg.width ?? '{{item.width}}'));
    const heightT = b.template('height', typeof cfg.height === 'number' ? String(cfg.height) : (cfg.height ?? '{{item.height}}'));
    const actionT = cfg.action !== undefined ? b.value('action', cfg.action) : undefined;
    const settings: SpaceSettings = {
      space,
      ...(cfg.resize ? { resize: { factor: cfg.resize.factor, minPixels: cfg.resize.min_pixels, maxPixels: cfg.resize.max_pixels } } : {}),
      ...(cfg.max_side !== undefined ? { maxSide: cfg.max_side } : {}),
    };
    const format = cfg.format ?? 'auto';
    const sigma = cfg.sigma ?? 0.5;
    const w = { hit: cfg.weights?.hit ?? 1, iou: cfg.weights?.iou ?? 0.25, box: cfg.weights?.box ?? 0.125 };
    const ratioCap = cfg.max_area_ratio;
    const textMatch = cfg.text_match ?? 'exact';
    const maxChars = cfg.max_chars ?? DEFAULT_MAX_CHARS;
    const extract = resolveExtract(cfg.extract, { think: 'strip', from: 'whole' });

    return (s): Outcome => {
      // the gold first: a bad item is invalid whatever the response says
      const size = { width: sizeField(widthT, 'width', s), height: sizeField(heightT, 'height', s) };
      const gold: Gold = { size, box: goldBox(renderCompiled(target, s), size, 'gold box') };
      const gAction = reward === 'action' ? goldAction(actionT ? renderCompiled(actionT, s) : s.item.action, size) : undefined;
      let frame: Size;
      try {
        frame = modelFrame(size, settings);
      } catch (e) {
        throw new GradeFailure('bad_input', `cannot map coordinates for a ${size.width}x${size.height} image: ${(e as Error).message}`);
      }
      let raw: string;
      if (input) raw = renderString(input, s);
      else if (typeof s.sample.output_text === 'string') raw = s.sample.output_text;
      else throw new GradeFailure('template_error', 'missing variable {{sample.output_text}}: the sample has no output_text (set "input" to choose the field)');
      if (raw.length > maxChars) throw new ResponseFault('limit_exceeded', `answer has ${raw.length} characters (limit max_chars=${maxChars})`);
      const read = readText(raw, extract);
      const base = { reward, coordinates: space };
      if (!read.ok) return { score: 0, reason: neverCloses('no action given'), metadata: { ...base, extracted: read.read } };
      const got = readAction(read.text, format);
      if (!got.ok) return { score: 0, reason: `malformed action: ${got.reason}`, metadata: { ...base, parse_error: got.reason } };
      const a = got.action;
      const box = a.box ? boxToOriginal(a.box, size, frame) : undefined;
      const point = a.point ? toOriginal(a.point, size, frame) : box ? centre(box) : undefined;
      const meta: Record<string, unknown> = { ...base, format: a.format, action_type: a.type };
      if (point) {
        meta.point = point;
        meta.distance_px = distance(point, centre(gold.box));
      }
      if (box) meta.box = box;
      /** The hit: the point (a box's centre) in the gold box; a box over the area cap is no hit. */
      const hit = (): { hit: boolean; why: string } => {
        if (!point) return { hit: false, why: 'the answer gives no location' };
        if (box && ratioCap !== undefined && area(box) > ratioCap * area(gold.box)) {
          meta.hit = false;
          return { hit: false, why: `predicted box has ${(area(box) / area(gold.box)).toFixed(2)}x the target's area (over max_area_ratio ${ratioCap})` };
        }
        const h = inside(point, gold.box);
        meta.hit = h;
        return { hit: h, why: `point ${fmt(point)} ${h ? 'inside' : 'outside'} the target [${gold.box.join(', ')}]` };
      };
      const noBox = (what: string): Outcome => {
        hit(); // the point's hit is still reported
        return { score: 0, reason: `${what} needs a box; the answer gives ${point ? 'a point' : 'no location'}`, metadata: meta };
      };
      switch (reward) {
        case 'point_in_box': {
          const h = hit();
          return { score: h.hit ? 1 : 0, reason: h.why, metadata: meta };
        }
        case 'distance': {
          if (!point) return { score: 0, reason: 'the answer gives no location', metadata: meta };
          hit();
          const score = gaussianPoint(point, gold.box, sigma);
          return { score, reason: `point ${fmt(point)} is ${(meta.distance_px as number).toFixed(1)} px from the target's centre`, metadata: meta };
        }
        case 'iou': {
          if (!box) return noBox('iou');
          hit();
          const v = iou(box, gold.box);
          meta.iou = v;
          return { score: v, reason: `IoU ${v.toFixed(4)} with the target [${gold.box.join(', ')}]`, metadata: meta };
        }
        case 'gui_g1': {
          if (!box) return noBox('gui_g1');
          const h = hit();
          const v = iou(box, gold.box);
          const bt = boxSizeTerm(box, gold.box, size);
          Object.assign(meta, { iou: v, box_term: bt });
          const score = w.hit * (h.hit ? 1 : 0) + w.iou * v + w.box * bt;
          return { score, reason: `${h.why}; IoU ${v.toFixed(4)}; box term ${bt.toFixed(4)}`, metadata: meta };
        }
        case 'action':
          return actionOutcome(a, a.end ? toOriginal(a.end, size, frame) : undefined, gAction!, hit, textMatch, meta);
      }
    };
  },
};

function actionOutcome(
  a: Action,
  end: Point | undefined,
  g: GoldAction,
  hit: () => { hit: boolean; why: string },
  textMatch: 'exact' | 'f1',
  meta: Record<string, unknown>,
): Outcome {
  meta.gold_action_type = g.type;
  if (a.type !== g.type) {
    meta.type_match = false;
    return { score: 0, reason: `action ${a.type}, expected ${g.type}`, metadata: meta };
  }
  meta.type_match = true;
  const done = (ok: boolean, why: string): Outcome => {
    meta.args_match = ok;
    return { score: ok ? 1 : 0, reason: `${g.type}: ${why}`, metadata: meta };
  };
  switch (g.type) {
    case 'click': {
      const h = hit();
      return done(h.hit, h.why);
    }
    case 'type': {
      if (a.text === undefined) return done(false, 'no text given');
      const ok = textMatch === 'exact' ? a.text.trim() === g.text!.trim() : tokenF1(a.text, g.text!) >= 0.5;
      return done(ok, `text ${JSON.stringify(a.text.slice(0, 40))} ${ok ? 'matches' : 'does not match'} ${JSON.stringify(g.text!.slice(0, 40))}`);
    }
    case 'scroll': {
      const d = a.direction?.trim().toLowerCase();
      const ok = d === g.direction!.trim().toLowerCase();
      return done(ok, d === undefined ? 'no direction given' : `direction ${d}, expected ${g.direction!.toLowerCase()}`);
    }
    case 'key': {
      if (a.keys === undefined) return done(false, 'no keys given');
      const ok = chord(a.keys) === chord(g.keys!);
      return done(ok, `keys ${chord(a.keys)}, expected ${chord(g.keys!)}`);
    }
    case 'drag': {
      const h = hit();
      if (!h.hit) return done(false, `start ${h.why}`);
      if (!end) return done(false, 'no end point given');
      meta.end = end;
      const ok = inside(end, g.end_box!);
      return done(ok, `end ${fmt(end)} ${ok ? 'inside' : 'outside'} [${g.end_box!.join(', ')}]`);
    }
    default:
      return done(true, 'the action type matches (no arguments checked)');
  }
}
