// Turns a model's tool calls into a list of {name, args}: chat-completion `tool_calls`
// (`{type: "function", function: {name, arguments}}`, arguments as a JSON string or object), a
// message with `tool_calls`, `{name, arguments}` objects, BFCL's `{name: {args}}` form, or text
// holding JSON (optionally fenced or in <tool_call> tags; one value, or one call per line as
// ToolRL/RLLA models write several calls in one block) or Python-style calls.
import { parseJsonExact } from '../core/json.js';
import { parsePythonCalls } from './python-call.js';
import { ParseError, type ToolCall } from './tool-call-types.js';

export { ParseError, parsePythonCalls, type ToolCall };

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function argsOf(v: unknown, name: string): Record<string, unknown> {
  if (v === undefined || v === null || v === '') return {};
  if (typeof v === 'string') {
    let parsed: unknown;
    try {
      parsed = parseJsonExact(v); // integers past 2^53 exactly (BigInt)
    } catch {
      throw new ParseError(`arguments of ${name} are not valid JSON`);
    }
    v = parsed;
  }
  if (!isObj(v)) throw new ParseError(`arguments of ${name} must be an object`);
  return v;
}

/** Reads calls from JSON-shaped data. */
export function callsFromJson(v: unknown, depth = 0): ToolCall[] {
  if (depth > 8) throw new ParseError('tool calls nested too deeply');
  if (Array.isArray(v)) return v.flatMap((x) => callsFromJson(x, depth + 1));
  if (!isObj(v)) throw new ParseError(`a tool call must be an object, got ${v === null ? 'null' : typeof v}`);
  if (Array.isArray(v.tool_calls)) return callsFromJson(v.tool_calls, depth + 1);
  if (isObj(v.function)) return callsFromJson(v.function, depth + 1);
  if (typeof v.name === 'string') return [{ name: v.name, args: argsOf(v.arguments ?? v.parameters ?? v.args, v.name) }];
  const keys = Object.keys(v);
  if (keys.length === 1 && (isObj(v[keys[0]!]) || typeof v[keys[0]!] === 'string')) return [{ name: keys[0]!, args: argsOf(v[keys[0]!], keys[0]!) }];
  throw new ParseError(`cannot read a tool call from an object with keys ${keys.slice(0, 5).join(', ') || '(none)'}`);
}

const FENCE = /^```[\w-]*\s*\n?([\s\S]*?)\n?```$/;
const TOOL_TAG = /<tool_call>([\s\S]*?)<\/tool_call>/g;

/** Reads calls from model text: JSON, fenced JSON, <tool_call> blocks, or Python-style calls. */
export function callsFromText(text: string): ToolCall[] {
  let t = text.trim();
  if (!t) return [];
  const tagged = [...t.matchAll(TOOL_TAG)];
  if (tagged.length) return tagged.flatMap((m) => callsFromText(m[1]!));
  const fenced = FENCE.exec(t);
  if (fenced) t = fenced[1]!.trim();
  if (t.startsWith('{') || (t.startsWith('[') && /^\[\s*[[{\]]/.test(t))) {
    const parsed = tryJson(t);
    if (parsed !== undefined) return callsFromJson(parsed);
    const lines = jsonLines(t);
    if (lines) return lines.flatMap((v) => callsFromJson(v));
    // A Python call list never starts with `{`: this is broken JSON, not a call to read another way.
    if (t.startsWith('{')) throw new ParseError('tool-call text starts with "{" but is neither one JSON value nor one JSON value per line');
  }
  return parsePythonCalls(t);
}

function tryJson(t: string): unknown {
  try {
    return parseJsonExact(t); // integers past 2^53 exactly (BigInt)
  } catch {
    return undefined;
  }
}

/** Several JSON values, one per non-blank line (ToolRL's form); undefined unless every line is one. */
function jsonLines(t: string): unknown[] | undefined {
  const rows = t
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (rows.length < 2) return undefined;
  const out: unknown[] = [];
  for (const row of rows) {
    const v = row.startsWith('{') || row.startsWith('[') ? tryJson(row) : undefined;
    if (v === undefined) return undefined;
    out.push(v);
  }
  return out;
}

/** Any supported form: a string is parsed as text, anything else as JSON-shaped calls. */
export function extractCalls(v: unknown): ToolCall[] {
  if (v === null || v === undefined) return [];
  if (typeof v === 'string') return callsFromText(v);
  return callsFromJson(v);
}
