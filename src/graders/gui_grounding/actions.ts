// Reading a GUI action out of a model's answer, in the common formats: JSON actions
// ({"action": "click", "coordinate": [x, y]}, Qwen2.5-VL's {"bbox_2d": [...]}, a <tool_call> wrapper
// {"name": ..., "arguments": {...}}), UI-TARS-style calls (click(start_box='(x,y)')), and
// <box>(x1,y1),(x2,y2)</box> / <point>(x,y)</point> / <|box_start|>...<|box_end|> tags. The numbers
// stay in the model's coordinate frame; the grader maps them. What cannot be read is a reason, never a guess.
import { findJsonObjects, parsePythonCalls, ParseError } from '../../extract/index.js';
import type { Box, Point } from './geometry.js';

export const ACTION_FORMATS = ['auto', 'json', 'call', 'tags'] as const;
export type ActionFormat = (typeof ACTION_FORMATS)[number];

/** Action names and their synonyms: click, type, scroll, drag and key have argument checks; any other name is kept (lower-cased) and matched by name only. */
const SYNONYMS: Record<string, string> = {
  click: 'click',
  left_click: 'click',
  left_single: 'click',
  single_click: 'click',
  tap: 'click',
  type: 'type',
  type_text: 'type',
  input: 'type',
  input_text: 'type',
  write: 'type',
  scroll: 'scroll',
  drag: 'drag',
  left_click_drag: 'drag',
  drag_and_drop: 'drag',
  key: 'key',
  hotkey: 'key',
  press: 'key',
  keypress: 'key',
  key_press: 'key',
  press_key: 'key',
};

/** An action name in the project's vocabulary (synonyms above; others lower-cased as given). */
export function actionName(name: string): string {
  const n = name.trim().toLowerCase();
  return SYNONYMS[n] ?? n;
}

export interface Action {
  type: string;
  /** The location: a point, or a box (its centre is the point). */
  point?: Point;
  box?: Box;
  /** Where a drag ends. */
  end?: Point;
  text?: string;
  direction?: string;
  keys?: string;
  /** Which format it was read from. */
  format: 'json' | 'call' | 'tags';
}

export type ReadAction = { ok: true; action: Action } | { ok: false; reason: string };

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Numbers out of a coordinate value: [x, y] / [x1, y1, x2, y2] arrays, or text such as "(x,y)" or "<|box_start|>(x1,y1),(x2,y2)<|box_end|>". */
function numbersOf(v: unknown): number[] | undefined {
  if (Array.isArray(v)) {
    const flat = v.flat();
    return flat.every((n) => typeof n === 'number') ? (flat as number[]) : undefined;
  }
  if (typeof v === 'string' && v.length <= 200) return [...v.matchAll(/-?\d+(?:\.\d+)?(?:e[-+]?\d+)?/gi)].map((m) => Number(m[0]));
  return undefined;
}

type Where = { point: Point } | { box: Box };

/** A location from a coordinate value: 2 numbers a point, 4 a box; anything else a reason. */
function location(v: unknown, what: string): Where | string {
  const n = numbersOf(v);
  if (!n?.every(Number.isFinite)) return `${what} is not a list of numbers: ${JSON.stringify(v)?.slice(0, 60)}`;
  if (n.length === 2) return { point: [n[0]!, n[1]!] };
  if (n.length === 4) return { box: [n[0]!, n[1]!, n[2]!, n[3]!] };
  return `${what} has ${n.length} numbers (a point has 2, a box 4)`;
}

const LOCATION_KEYS = ['coordinate', 'point', 'position', 'bbox_2d', 'bbox', 'box', 'start_box', 'start_coordinate', 'start_point'];
const END_KEYS = ['end_coordinate', 'end_box', 'end_point'];
const TEXT_KEYS = ['text', 'input_text', 'content', 'value'];

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** An action from a JSON object or call arguments; `name` is the action name when the object carries none. */
function fromArgs(args: Record<string, unknown>, name: string | undefined, format: Action['format']): ReadAction {
  const raw = str(args.action) ?? str(args.action_type) ?? name;
  const present = LOCATION_KEYS.filter((k) => args[k] !== undefined);
  if (raw === undefined && present.length === 0) return { ok: false, reason: 'the JSON names no action and no coordinate' };
  const type = actionName(raw ?? 'click');
  const action: Action = { type, format };
  // a drag written as start_coordinate + coordinate (computer-use tools): start, then end
  let startKey = present[0];
  let endValue: unknown = END_KEYS.map((k) => args[k]).find((v) => v !== undefined);
  if (type === 'drag' && endValue === undefined && args.start_coordinate !== undefined && args.coordinate !== undefined) {
    startKey = 'start_coordinate';
    endValue = args.coordinate;
  }
  if (startKey !== undefined) {
    const where = location(args[startKey], `"${startKey}"`);
    if (typeof where === 'string') return { ok: false, reason: where };
    Object.assign(action, where);
  }
  if (endValue !== undefined) {
    const end = location(endValue, 'the drag end');
    if (typeof end === 'string') return { ok: false, reason: end };
    action.end = 'point' in end ? end.point : [(end.box[0] + end.box[2]) / 2, (end.box[1] + end.box[3]) / 2];
  }
  const text = TEXT_KEYS.map((k) => str(args[k])).find((v) => v !== undefined);
  if (text !== undefined) action.text = text;
  const direction = str(args.direction);
  if (direction !== undefined) action.direction = direction;
  const keys = Array.isArray(args.keys) && args.keys.every((k) => typeof k === 'string') ? args.keys.join('+') : (str(args.keys) ?? str(args.key));
  if (keys !== undefined) action.keys = keys;
  else if (type === 'key' && text !== undefined) action.keys = text;
  return { ok: true, action };
}

const ACTION_KEYS = ['action', 'action_type', ...LOCATION_KEYS];

function fromJson(text: string): ReadAction | undefined {
  const hits = findJsonObjects(text);
  for (let i = hits.length - 1; i >= 0; i--) {
    let v = hits[i]!.value;
    // a tool call wrapper: {"name": "computer_use", "arguments": {...}}
    if (isObj(v.arguments) && typeof v.name === 'string') {
      const inner = v.arguments;
      if (ACTION_KEYS.some((k) => inner[k] !== undefined)) return fromArgs(inner, undefined, 'json');
      v = inner;
    }
    if (ACTION_KEYS.some((k) => v[k] !== undefined)) return fromArgs(v, undefined, 'json');
  }
  return undefined;
}

/** The last `name(` of a known action and its argument list up to the matching `)` (quotes respected). */
function lastCall(text: string): string | undefined {
  const re = /\b([A-Za-z_]+)\(/g;
  let found: { start: number; open: number } | undefined;
  let n = 0;
  for (const m of text.matchAll(re)) {
    if (++n > 10_000) break;
    if (Object.hasOwn(SYNONYMS, m[1]!.toLowerCase())) found = { start: m.index!, open: m.index! + m[0].length - 1 };
  }
  if (!found) return undefined;
  let depth = 0;
  let quote: string | undefined;
  for (let i = found.open; i < text.length && i < found.open + 4000; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return text.slice(found.start, i + 1);
  }
  return text.slice(found.start, found.open + 4000);
}

function fromCall(text: string): ReadAction | undefined {
  const call = lastCall(text);
  if (call === undefined) return undefined;
  try {
    const [c] = parsePythonCalls(call);
    return fromArgs(c!.args, c!.name.split('.').pop()!, 'call');
  } catch (e) {
    if (e instanceof ParseError) return { ok: false, reason: `unreadable action call ${JSON.stringify(call.slice(0, 60))}: ${e.message}` };
    throw e;
  }
}

const TAGS = /<(box|point)>([^<]{0,200})<\/\1>|<\|box_start\|>([^<]{0,200})<\|box_end\|>/g;

function fromTags(text: string): ReadAction | undefined {
  let last: RegExpMatchArray | undefined;
  for (const m of text.matchAll(TAGS)) last = m;
  if (!last) return undefined;
  const tag = last[1] ?? 'box_start';
  const where = location(last[2] ?? last[3], `<${tag}>`);
  if (typeof where === 'string') return { ok: false, reason: where };
  if (tag === 'point' && !('point' in where)) return { ok: false, reason: '<point> holds 4 numbers (a point has 2)' };
  if (tag === 'box' && !('box' in where)) return { ok: false, reason: '<box> holds 2 numbers (a box has 4)' };
  return { ok: true, action: { type: 'click', format: 'tags', ...where } };
}

/** The answer inside the last <answer>...</answer>, when there is one (R1-style outputs). */
function answerBlock(text: string): string {
  const close = text.lastIndexOf('</answer>');
  if (close < 0) return text;
  const open = text.lastIndexOf('<answer>', close);
  return open < 0 ? text : text.slice(open + 8, close);
}

/** Reads the action in `text` in the formats `format` allows (auto: JSON, then a call, then tags). */
export function readAction(text: string, format: ActionFormat): ReadAction {
  const body = answerBlock(text);
  const readers = { json: fromJson, call: fromCall, tags: fromTags };
  const order = format === 'auto' ? (['json', 'call', 'tags'] as const) : ([format] as const);
  // in auto, a format that fails to read lets the next one try; the first failure is the reason
  let failed: ReadAction | undefined;
  for (const f of order) {
    const got = readers[f](body);
    if (got?.ok) return got;
    failed ??= got;
  }
  return failed ?? { ok: false, reason: `no action found (looked for ${order.join(', ')})` };
}
