// `{{item.path}}` / `{{sample.path}}` templates: compiled once at config load, rendered per sample.
// A template that is exactly one placeholder yields the raw value (array, object, number);
// a missing variable is a per-sample `template_error`, never an empty string.
import { DEFAULT_MAX_JSON_DEPTH, scanJson, stringifyExact, tooDeepMessage } from './json.js';
import { GradeFailure } from './result.js';
import { closest } from './suggest.js';
import type { GradeInput } from './sample.js';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const NAMESPACES = new Set(['item', 'sample']);

export type Segment = string | number;

export interface TemplateVar {
  /** The text inside the braces, e.g. `item.answer`. */
  expr: string;
  root: 'item' | 'sample';
  path: Segment[];
}

export interface Template {
  source: string;
  /** Present when the whole template is one placeholder: render returns the raw value. */
  single?: TemplateVar;
  parts: (string | TemplateVar)[];
  vars: TemplateVar[];
}

/** Parses `item.a.b[0]["c d"]` into root + path; throws Error with a readable message. */
export function parseVarPath(expr: string): TemplateVar {
  const segs: Segment[] = [];
  let i = 0;
  const ident = /^[A-Za-z_$][\w$-]*/;
  const first = ident.exec(expr);
  if (!first) throw new Error(`invalid variable "${expr}"`);
  const root = first[0];
  if (!NAMESPACES.has(root)) throw new Error(`unknown namespace "${root}" in "{{${expr}}}" (use item.* or sample.*)`);
  i = root.length;
  while (i < expr.length) {
    const ch = expr[i];
    if (ch === '.') {
      const m = /^[^.[\]]+/.exec(expr.slice(i + 1));
      if (!m) throw new Error(`invalid path "${expr}" at position ${i}`);
      segs.push(/^\d+$/.test(m[0]) ? Number(m[0]) : m[0]);
      i += 1 + m[0].length;
    } else if (ch === '[') {
      const m = /^\[\s*(?:(\d+)|"([^"]*)"|'([^']*)')\s*\]/.exec(expr.slice(i));
      if (!m) throw new Error(`invalid index in "${expr}" at position ${i}`);
      segs.push(m[1] !== undefined ? Number(m[1]) : (m[2] ?? m[3])!);
      i += m[0].length;
    } else {
      throw new Error(`unexpected "${ch}" in "${expr}" at position ${i}`);
    }
  }
  return { expr, root: root as 'item' | 'sample', path: segs };
}

// `{{item…` / `{{sample…` that no `}}` closes (other double braces, as in code, stay literal text)
const UNCLOSED = /\{\{\s*(?:item|sample)\b/;
// `{item.answer}` with single braces: what a placeholder written in Python's str.format style looks like
const SINGLE_BRACE = /(?<!\{)\{\s*((?:item|sample)(?:\.[\w$-]+|\[[^\]]*\])+)\s*\}(?!\})/;

/**
 * Literal text between placeholders must not hold a `{{item…` that nothing closes: an unclosed
 * placeholder would be sent as literal text and every sample graded against it. A single-brace
 * `{item.path}` is literal text (code such as a Python f-string may mean it): a note says so.
 */
function checkLiteral(text: string, offset: number, notes: string[] | undefined): void {
  const open = UNCLOSED.exec(text);
  if (open) {
    throw new Error(`unclosed "{{" at character ${offset + open.index + 1}: a placeholder is {{item.path}} or {{sample.path}}, closed by "}}"`);
  }
  const single = SINGLE_BRACE.exec(text);
  if (single && notes) {
    notes.push(`"${single[0]}" has single braces, so it is literal text, never substituted (write {{${single[1]}}} for the value)`);
  }
}

function literal(source: string, from: number, to: number, notes: string[] | undefined): string {
  const text = source.slice(from, to);
  checkLiteral(text, from, notes);
  return text;
}

/**
 * Compiles a template string. Throws Error on syntax problems (reported at config load); `notes`
 * receives what is accepted but probably not meant (single-brace placeholders).
 */
export function compileTemplate(source: string, notes?: string[]): Template {
  const parts: (string | TemplateVar)[] = [];
  const vars: TemplateVar[] = [];
  let last = 0;
  for (const m of source.matchAll(PLACEHOLDER)) {
    if (m.index! > last) parts.push(literal(source, last, m.index!, notes));
    const v = parseVarPath(m[1]!);
    parts.push(v);
    vars.push(v);
    last = m.index! + m[0].length;
  }
  if (last < source.length) parts.push(literal(source, last, source.length, notes));
  const single = parts.length === 1 && typeof parts[0] !== 'string' ? parts[0] : undefined;
  return single ? { source, single, parts, vars } : { source, parts, vars };
}

const parsedJson = new WeakMap<object, unknown>();
const NO_JSON = Symbol('no-json');
/** output_text holds JSON nested too deep to hand to graders: a `limit_exceeded` failure, cached. */
class TooDeep {
  constructor(readonly path: string) {}
}

function sampleOutputJson(input: GradeInput): unknown {
  const s = input.sample;
  if (s.output_json !== undefined) return s.output_json;
  if (parsedJson.has(s)) {
    const v = parsedJson.get(s);
    if (v instanceof TooDeep)
      throw new GradeFailure('limit_exceeded', `sample.output_text parsed as output_json: ${tooDeepMessage(v.path, DEFAULT_MAX_JSON_DEPTH)}`);
    return v === NO_JSON ? undefined : v;
  }
  let v: unknown = NO_JSON;
  if (typeof s.output_text === 'string' && s.output_text.length <= 16 * 1024 * 1024) {
    const deep = scanJson(s.output_text, { maxDepth: DEFAULT_MAX_JSON_DEPTH }).tooDeep;
    if (deep) v = new TooDeep(deep.path);
    else {
      try {
        v = JSON.parse(s.output_text);
      } catch {
        v = NO_JSON;
      }
    }
  }
  parsedJson.set(s, v);
  if (v instanceof TooDeep)
    throw new GradeFailure('limit_exceeded', `sample.output_text parsed as output_json: ${tooDeepMessage(v.path, DEFAULT_MAX_JSON_DEPTH)}`);
  return v === NO_JSON ? undefined : v;
}

/** What an object does hold, for a missing key: the closest key, or the first few keys. */
function keysHint(obj: object, missing: string): string {
  if (Array.isArray(obj)) return ` (it has ${obj.length} element${obj.length === 1 ? '' : 's'})`;
  const keys = Object.keys(obj);
  if (keys.length === 0) return ' (it is empty)';
  const near = closest(missing, keys);
  if (near !== undefined) return ` (did you mean "${near}"?)`;
  const shown = keys.slice(0, 12).map((k) => JSON.stringify(k));
  return ` (its keys: ${shown.join(', ')}${keys.length > 12 ? `, and ${keys.length - 12} more` : ''})`;
}

/** Resolves a variable; throws GradeFailure('template_error') when any step is missing. */
export function resolveVar(v: TemplateVar, input: GradeInput): unknown {
  let cur: unknown = v.root === 'item' ? input.item : input.sample;
  for (let i = 0; i < v.path.length; i++) {
    const seg = v.path[i]!;
    if (v.root === 'sample' && i === 0 && seg === 'output_json') {
      cur = sampleOutputJson(input);
      if (cur === undefined)
        throw new GradeFailure('template_error', `missing variable {{${v.expr}}}: sample has no output_json and output_text is not valid JSON`);
      continue;
    }
    if (cur === null || typeof cur !== 'object') {
      throw new GradeFailure('template_error', `missing variable {{${v.expr}}}: ${v.root}${pathText(v.path.slice(0, i))} is not an object`);
    }
    const next: unknown = (cur as Record<string | number, unknown>)[seg];
    if (next === undefined || !Object.hasOwn(cur, seg)) {
      throw new GradeFailure(
        'template_error',
        `missing variable {{${v.expr}}}: no "${seg}" in ${v.root}${pathText(v.path.slice(0, i))}${keysHint(cur, String(seg))}`,
      );
    }
    cur = next;
  }
  return cur;
}

function pathText(p: Segment[]): string {
  return p.map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`)).join('');
}

function stringify(x: unknown): string {
  if (typeof x === 'string') return x;
  if (x === null || typeof x !== 'object') return String(x);
  return stringifyExact(x); // integers past 2^53 (BigInt) as their digits
}

/** Renders to a raw value (single placeholder) or a string. */
export function renderValue(t: Template, input: GradeInput): unknown {
  if (t.single) return resolveVar(t.single, input);
  if (t.vars.length === 0) return t.source;
  let out = '';
  for (const p of t.parts) out += typeof p === 'string' ? p : stringify(resolveVar(p, input));
  return out;
}

/** Renders and coerces to text (objects become JSON). */
export function renderString(t: Template, input: GradeInput): string {
  return stringify(renderValue(t, input));
}

/**
 * A config field that may be a template string or a literal JSON value (array, object, number).
 * Strings are compiled; everything else is passed through as-is, with templates inside nested
 * strings compiled too (so `[{"role": "user", "content": "{{item.q}}"}]` works).
 */
export type ValueTemplate =
  | { kind: 'literal'; value: unknown }
  | { kind: 'template'; t: Template }
  | { kind: 'array'; items: ValueTemplate[] }
  | { kind: 'object'; entries: [string, ValueTemplate][] };

export function compileValue(v: unknown, notes?: string[]): ValueTemplate {
  if (typeof v === 'string') {
    const t = compileTemplate(v, notes);
    return t.vars.length ? { kind: 'template', t } : { kind: 'literal', value: v };
  }
  if (Array.isArray(v)) {
    const items = v.map((x) => compileValue(x, notes));
    return items.every((x) => x.kind === 'literal') ? { kind: 'literal', value: v } : { kind: 'array', items };
  }
  if (v && typeof v === 'object') {
    const entries = Object.entries(v).map(([k, x]) => [k, compileValue(x, notes)] as [string, ValueTemplate]);
    return entries.every(([, x]) => x.kind === 'literal') ? { kind: 'literal', value: v } : { kind: 'object', entries };
  }
  return { kind: 'literal', value: v };
}

export function renderCompiled(v: ValueTemplate, input: GradeInput): unknown {
  switch (v.kind) {
    case 'literal':
      return v.value;
    case 'template':
      return renderValue(v.t, input);
    case 'array':
      return v.items.map((x) => renderCompiled(x, input));
    case 'object':
      return Object.fromEntries(v.entries.map(([k, x]) => [k, renderCompiled(x, input)]));
  }
}
