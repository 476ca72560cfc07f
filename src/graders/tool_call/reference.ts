// Reads the accepted answers (BFCL `possible_answer` ground truth) and the function schemas from
// item data, accepting JSON strings and the OpenAI `{type: "function", function: {...}}` wrapper.
import { parseJsonExact } from '../../core/json.js';
import { GradeFailure } from '../../core/result.js';
import type { AcceptedCall, FunctionSchema } from './types.js';

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function fromJsonString(v: unknown, what: string): unknown {
  if (typeof v !== 'string') return v;
  try {
    return parseJsonExact(v);
  } catch {
    throw new GradeFailure('bad_input', `${what} is a string that is not JSON`);
  }
}

/** `[{fname: {param: [accepted...]}}, ...]` (or one such object); `[]` means no call is correct. */
export function readAccepted(v: unknown): AcceptedCall[] {
  v = fromJsonString(v, 'reference');
  if (v === null) return [];
  const list = Array.isArray(v) ? v : [v];
  return list.map((entry, i) => {
    if (!isObj(entry) || Object.keys(entry).length !== 1) {
      throw new GradeFailure('bad_input', `reference[${i}] must be an object with exactly one function name as key`);
    }
    const [name, params] = Object.entries(entry)[0]!;
    if (!isObj(params)) throw new GradeFailure('bad_input', `reference[${i}].${name} must map parameter names to lists of accepted values`);
    const out: Record<string, unknown[]> = {};
    for (const [p, vals] of Object.entries(params)) out[p] = Array.isArray(vals) ? vals : [vals];
    return { name, params: out };
  });
}

/** A list of function descriptions (BFCL or OpenAI tool form). */
export function readFunctions(v: unknown): FunctionSchema[] {
  v = fromJsonString(v, 'functions');
  const list = Array.isArray(v) ? v : [v];
  return list.map((f, i) => {
    const fn = isObj(f) && isObj(f.function) ? f.function : f;
    if (!isObj(fn) || typeof fn.name !== 'string') throw new GradeFailure('bad_input', `functions[${i}] must be an object with a "name"`);
    if (fn.parameters !== undefined && !isObj(fn.parameters)) throw new GradeFailure('bad_input', `functions[${i}].parameters must be an object`);
    return fn as unknown as FunctionSchema;
  });
}
