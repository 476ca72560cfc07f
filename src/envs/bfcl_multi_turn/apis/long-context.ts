// The long-context extension data (BFCL's func_source_code/long_context.py: padding text, extra
// files, stocks, cards, bookings, cities...) that long_context entries load. arbiter does not ship
// it: long-context-export.py (beside this module, copied into dist/ by the build) exports it from a BFCL checkout to JSON, and this module reads
// that file (JSON numbers keep their int/float types), checking every constant is there.
import { readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LONG_CONTEXT_KEYS, type LongContextData } from './api.js';
import { loads } from '../../../py/json.js';
import { PY_ELLIPSIS, PyDict, type PyValue } from '../../../py/values.js';

/** The export writes Python's Ellipsis as {"__ellipsis__": true}. */
function revive(v: PyValue, depth = 0): PyValue {
  if (depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => revive(x, depth + 1));
  if (v instanceof PyDict) {
    if (v.size === 1 && v.get('__ellipsis__') === true) return PY_ELLIPSIS;
    return PyDict.of(v.entries().map(([k, x]) => [k, revive(x, depth + 1)]));
  }
  return v;
}

/** The export script (standard-library Python), where this installation has it. */
export const LONG_CONTEXT_EXPORT = fileURLToPath(new URL('./long-context-export.py', import.meta.url));

/** The environment variable naming the JSON export. */
export const LONG_CONTEXT_ENV = 'ARBITER_BFCL_LONG_CONTEXT';

const cache = new Map<string, { mtimeMs: number; size: number; data: LongContextData }>();

/** Reads and checks an export; throws Error with a message naming the problem. */
export function loadLongContext(path: string): LongContextData {
  const st = statSync(path);
  const hit = cache.get(path);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.data;
  if (st.size > 64 * 1024 * 1024) throw new Error(`${path} is over 64 MiB`);
  const v = loads(readFileSync(path, 'utf8'));
  if (!(v instanceof PyDict)) throw new Error(`${path} must hold a JSON object of long_context.py's constants`);
  const values: Record<string, PyValue> = {};
  const missing: string[] = [];
  for (const k of LONG_CONTEXT_KEYS) {
    const x = v.get(k);
    if (x === undefined) missing.push(k);
    else values[k] = revive(x);
  }
  if (missing.length) throw new Error(`${path} lacks ${missing.join(', ')} (export it with python3 ${LONG_CONTEXT_EXPORT})`);
  const data: LongContextData = { values };
  cache.set(path, { mtimeMs: st.mtimeMs, size: st.size, data });
  return data;
}
