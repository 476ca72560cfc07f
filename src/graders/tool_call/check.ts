// BFCL-style AST matching of one model call against one accepted answer: function name, required
// and unexpected parameters, type checks from the function schema (int accepted for float), and
// values against each parameter's accepted set, with BFCL's string normalisation for strings,
// lists and dicts. Also a partial credit: (name + correct parameters) / (1 + parameters judged).
import { stringifyExact } from '../../core/json.js';
import type { AcceptedCall, FunctionSchema, ParamSchema, ToolCall } from './types.js';

export interface CallCheck {
  ok: boolean;
  /** Fraction in [0, 1] for partial scoring. */
  partial: number;
  /** First mismatch, e.g. `wrong_func_name`, `missing_required`, `type_error`, `value_error`. */
  kind?: string;
  message?: string;
}

/** BFCL `standardize_string`: drop spaces and , . / - _ * ^, lowercase, ' -> ". */
export function standardizeString(s: string): string {
  return s
    .replace(/[ ,./\-_*^]/g, '')
    .toLowerCase()
    .replaceAll("'", '"');
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Python `==` on JSON-like values (True == 1, 1 == 1.0, element-wise lists, dicts by key). */
export function pyEqual(a: unknown, b: unknown): boolean {
  const num = (x: unknown) => (typeof x === 'boolean' ? Number(x) : x);
  if ((typeof a === 'number' || typeof a === 'boolean') && (typeof b === 'number' || typeof b === 'boolean')) return num(a) === num(b);
  if (typeof a === 'bigint' || typeof b === 'bigint') return exactNumEqual(num(a), num(b));
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => pyEqual(x, b[i]));
  if (isObj(a)) {
    if (!isObj(b)) return false;
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && pyEqual(a[k], b[k]));
  }
  return a === b;
}

/**
 * Python `==` of two numbers one of which is a BigInt (an integer past 2^53, parsed exactly): equal
 * only when their exact values are (9007199254740993 is not 9007199254740992).
 */
function exactNumEqual(a: unknown, b: unknown): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  const [big, other] = typeof a === 'bigint' ? [a, b] : [b as bigint, a];
  return typeof other === 'number' && Number.isInteger(other) && BigInt(other) === big;
}

const includes = (list: unknown[], v: unknown) => list.some((x) => pyEqual(v, x));

type PyType = 'str' | 'int' | 'float' | 'bool' | 'list' | 'dict';

/** BFCL's PYTHON_TYPE_MAPPING (plus JSON-schema `number`/`object`). */
function mapType(t: string | undefined): PyType | undefined {
  switch (t) {
    case 'string':
    case 'any':
      return 'str';
    case 'integer':
      return 'int';
    case 'float':
    case 'number':
      return 'float';
    case 'boolean':
      return 'bool';
    case 'array':
    case 'tuple':
      return 'list';
    case 'dict':
    case 'object':
      return 'dict';
    default:
      return undefined;
  }
}

function hasType(v: unknown, t: PyType): boolean {
  switch (t) {
    case 'str':
      return typeof v === 'string';
    case 'int':
      return (typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint';
    case 'float':
      return typeof v === 'number' || typeof v === 'bigint';
    case 'bool':
      return typeof v === 'boolean';
    case 'list':
      return Array.isArray(v);
    case 'dict':
      return isObj(v);
  }
}

function describe(v: unknown): string {
  const s = stringifyExact(v) ?? String(v);
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'float';
  if (typeof v === 'bigint') return 'integer';
  if (typeof v === 'object') return 'dict';
  return typeof v === 'string' ? 'string' : typeof v;
}

const std = (x: unknown) => (typeof x === 'string' ? standardizeString(x) : x);

function dictMatches(value: Record<string, unknown>, accepted: unknown[]): string | undefined {
  let err = 'no accepted dict';
  for (const cand of accepted) {
    if (!isObj(cand)) continue;
    err = '';
    for (const [k, v] of Object.entries(value)) {
      const opts = cand[k];
      if (!Array.isArray(opts)) {
        err = `unexpected dict key "${k}"`;
        break;
      }
      if (!includes(opts.map(std), std(v))) {
        err = `invalid value for dict key "${k}": ${describe(v)}`;
        break;
      }
    }
    if (!err) {
      for (const [k, opts] of Object.entries(cand)) {
        if (!(k in value) && !(Array.isArray(opts) && opts.includes(''))) {
          err = `missing dict key "${k}"`;
          break;
        }
      }
    }
    if (!err) return undefined;
  }
  return err;
}

/** Checks one parameter value; returns an error [kind, message] or undefined when it is accepted. */
function checkParam(fn: string, param: string, value: unknown, accepted: unknown[], schema: ParamSchema | undefined): [string, string] | undefined {
  const where = `parameter "${param}" of ${fn}`;
  const expected = mapType(schema?.type);
  const nested = schema?.type === 'array' || schema?.type === 'tuple' ? mapType(schema.items?.type) : undefined;
  let isVariable = false;
  if (expected) {
    const firstAnswer = accepted.find((x) => x !== '');
    if (firstAnswer !== undefined && !hasType(firstAnswer, expected)) isVariable = true;
    let typeOk = hasType(value, expected);
    if (typeOk && nested && Array.isArray(value)) {
      // BFCL: each item must have the schema's item type, or the type of the accepted list's items
      // (which is how BFCL lets a variable name stand for a value).
      typeOk = accepted.some((a) => {
        if (!Array.isArray(a)) return true;
        const first = a.find((x) => x !== '');
        return (value as unknown[]).every((x) => hasType(x, nested) || (first !== undefined && typeName(x) === typeName(first)));
      });
      if (!typeOk) return ['type_error', `nested type error for ${where}: expected ${schema!.type} of ${schema!.items!.type}, got ${describe(value)}`];
    }
    if (!typeOk) {
      if (firstAnswer !== undefined && typeName(value) === typeName(firstAnswer)) isVariable = true;
      else return ['type_error', `incorrect type for ${where}: expected ${schema!.type}, got ${typeName(value)} ${describe(value)}`];
    }
  }
  if (!isVariable && expected) {
    if (expected === 'dict' && isObj(value)) {
      const err = dictMatches(value, accepted);
      return err ? ['value_error', `${where}: ${err}`] : undefined;
    }
    if (expected === 'list' && nested === 'dict' && Array.isArray(value)) {
      const ok = accepted.some((a) => Array.isArray(a) && a.length === value.length && value.every((v, i) => isObj(v) && dictMatches(v, [a[i]]) === undefined));
      return ok ? undefined : ['value_error', `invalid value for ${where}: ${describe(value)}`];
    }
    if (expected === 'str') {
      return includes(accepted.filter((a) => typeof a === 'string').map(std), std(value))
        ? undefined
        : ['value_error', `invalid value for ${where}: ${describe(value)}, expected one of ${describe(accepted.filter((a) => a !== ''))}`];
    }
    if (expected === 'list') {
      const sv = (value as unknown[]).map(std);
      const ok = accepted.some((a) => Array.isArray(a) && pyEqual(sv, a.map(std)));
      return ok ? undefined : ['value_error', `invalid value for ${where}: ${describe(value)}, expected one of ${describe(accepted.filter((a) => a !== ''))}`];
    }
  }
  return includes(accepted, value)
    ? undefined
    : ['value_error', `invalid value for ${where}: ${describe(value)}, expected one of ${describe(accepted.filter((a) => a !== ''))}`];
}

/** Whether a model call's name denotes the expected function (dots may be written as `_`). */
export function sameFunction(got: string, want: string): boolean {
  return got === want || got === want.replaceAll('.', '_');
}

/** BFCL `simple_function_checker` for one call, plus partial credit. */
export function checkCall(call: ToolCall, answer: AcceptedCall, schema: FunctionSchema | undefined): CallCheck {
  const fn = answer.name;
  if (!sameFunction(call.name, fn)) {
    return { ok: false, partial: 0, kind: 'wrong_func_name', message: `wrong function name: expected ${fn}, got ${call.name}` };
  }
  const props = schema?.parameters?.properties ?? {};
  const required = schema?.parameters?.required ?? [];
  let first: [string, string] | undefined;
  let judged = 0;
  let correct = 0;
  const note = (e: [string, string] | undefined) => {
    judged++;
    if (e) first ??= e;
    else correct++;
  };
  for (const p of required) if (!(p in call.args)) note(['missing_required', `missing required parameter "${p}" of ${fn}`]);
  for (const [p, v] of Object.entries(call.args)) {
    const accepted = answer.params[p];
    if ((schema && !(p in props)) || accepted === undefined) {
      note(['unexpected_param', `unexpected parameter "${p}" in call to ${fn}`]);
      continue;
    }
    note(checkParam(fn, p, v, accepted, props[p]));
  }
  for (const [p, accepted] of Object.entries(answer.params)) {
    if (!(p in call.args) && !required.includes(p))
      note(accepted.includes('') ? undefined : ['missing_optional', `parameter "${p}" of ${fn} is not optional here but was not given`]);
  }
  const partial = (1 + correct) / (1 + judged);
  return first ? { ok: false, partial, kind: first[0], message: first[1] } : { ok: true, partial: 1 };
}
