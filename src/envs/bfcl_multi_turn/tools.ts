// BFCL function docs as the policy sees them. For function-calling (FC) models BFCL appends its
// Python-syntax hint to each description (only to the docs present at the start: the docs a
// miss_func entry holds back are added later without it), then converts each doc to an OpenAI tool
// as convert_to_tool does for OpenAI-style models: parameters typed "object", parameter types mapped
// with GORILLA_TO_OPENAPI (unknown ones become "string", a missing type is "string", a float gets
// format "float" and a note in its description), nested properties and list items mapped the same
// way, dots in names replaced by underscores, the `response` field kept.
import type { ToolSchema } from '../../agents/env.js';
import type { FuncDoc } from './data.js';

/** BFCL's language hint for Python categories (appended to every initial description). */
export const PYTHON_HINT = ' Note that the provided function is in Python 3 syntax.';
const FLOAT_NOTE = ' This is a float type value.';

/** GORILLA_TO_OPENAPI. */
const TO_OPENAPI: Readonly<Record<string, string>> = {
  integer: 'integer',
  number: 'number',
  float: 'number',
  string: 'string',
  boolean: 'boolean',
  bool: 'boolean',
  array: 'array',
  list: 'array',
  dict: 'object',
  object: 'object',
  tuple: 'array',
  any: 'string',
  byte: 'integer',
  short: 'integer',
  long: 'integer',
  double: 'number',
  char: 'string',
  ArrayList: 'array',
  Array: 'array',
  HashMap: 'object',
  Hashtable: 'object',
  Queue: 'array',
  Stack: 'array',
  Any: 'string',
  String: 'string',
  Bigint: 'integer',
};

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);

function mapped(t: unknown, where: string): string {
  const m = typeof t === 'string' ? TO_OPENAPI[t] : undefined;
  if (m === undefined) throw new Error(`${where}: list item type ${JSON.stringify(t)} has no OpenAPI type (BFCL raises KeyError)`);
  return m;
}

/** `_cast_to_openai_type` on a properties object (mutates and returns it). */
function castProperties(props: Json, where: string): Json {
  for (const [key, v] of Object.entries(props)) {
    const p = obj(v);
    if (!p) continue;
    if (!('type' in p)) p.type = 'string';
    else {
      const t = p.type;
      if (t === 'float') {
        p.format = 'float';
        p.description = `${String(p.description ?? '')}${FLOAT_NOTE}`;
      }
      p.type = typeof t === 'string' && TO_OPENAPI[t] !== undefined ? TO_OPENAPI[t] : 'string';
    }
    if (p.type === 'array' || p.type === 'object') {
      const nested = obj(p.properties);
      const items = obj(p.items);
      if (nested) p.properties = castProperties(nested, `${where}.${key}`);
      else if (items) {
        items.type = mapped(items.type, `${where}.${key}`);
        const inner = obj(items.items);
        const innerProps = obj(items.properties);
        if (items.type === 'array' && inner) inner.type = mapped(inner.type, `${where}.${key}[]`);
        else if (items.type === 'object' && innerProps) items.properties = castProperties(innerProps, `${where}.${key}[]`);
      }
    }
  }
  return props;
}

/** A function doc with BFCL's Python hint (a copy). */
export function withHint(doc: FuncDoc): Json {
  const d = structuredClone(doc.json);
  d.description = `${String(d.description ?? '')}${PYTHON_HINT}`;
  return d;
}

/** `convert_to_tool` for OpenAI-style models, on docs as the entry holds them (a copy). */
export function toOpenAiTool(doc: Json): ToolSchema {
  const item = structuredClone(doc);
  const name = String(item.name);
  item.name = name.replace(/\./g, '_');
  const params = obj(item.parameters) ?? {};
  params.type = 'object';
  params.properties = castProperties(obj(params.properties) ?? {}, name);
  item.parameters = params;
  return { type: 'function', function: item as ToolSchema['function'] };
}
