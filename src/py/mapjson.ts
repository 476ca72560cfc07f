// Python's json module over JSON data (mapvalue.ts: dicts as string-keyed Maps): loads() is the
// runtime's one parser (json.ts) building Map dicts, with a RecursionError past maxDepth; dumps()
// writes what json.dumps writes by default (", " and ": " separators, ASCII only, float repr), with
// the same string and float encoders as the general values' jsonDumps.
import { DEFAULT_MAX_JSON_DEPTH } from '../core/json.js';
import { jsonFloat, jsonString } from './format.js';
import { JsonDecodeError, parse } from './json.js';
import { PyError, type PyValue } from './mapvalue.js';

export { JsonDecodeError };

/**
 * Python json.loads(text). Throws JsonDecodeError on malformed text, PyError('RecursionError')
 * past `maxDepth` levels of nesting.
 */
export function loads(text: string, maxDepth = DEFAULT_MAX_JSON_DEPTH): PyValue {
  return parse(text, { maxDepth, tooDeep: (max) => new PyError('RecursionError', `JSON nested deeper than ${max} levels`), mapDicts: true }) as PyValue;
}

/** A JSON string literal as json.dumps writes it (ensure_ascii: everything outside ' '..'~' escaped). */
export const dumpsStr = jsonString;

/** Python json.dumps(v) with default settings. */
export function dumps(v: PyValue): string {
  const parts: string[] = [];
  write(v, parts);
  return parts.join('');
}

function write(v: PyValue, out: string[]): void {
  if (v === null) out.push('null');
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false');
  else if (typeof v === 'bigint') out.push(v.toString());
  else if (typeof v === 'number') out.push(jsonFloat(v));
  else if (typeof v === 'string') out.push(dumpsStr(v));
  else if (Array.isArray(v)) {
    out.push('[');
    for (let i = 0; i < v.length; i++) {
      if (i) out.push(', ');
      write(v[i]!, out);
    }
    out.push(']');
  } else {
    out.push('{');
    let first = true;
    for (const [k, x] of v) {
      if (!first) out.push(', ');
      first = false;
      out.push(dumpsStr(k), ': ');
      write(x, out);
    }
    out.push('}');
  }
}
