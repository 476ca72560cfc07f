// JSON writers that emit rewards and scores as floats: JSON.stringify(1) is "1", which Python's
// json reads as an int (OpenRLHF then builds an int64 tensor and its std/var advantage code fails).
// Every trainer-facing endpoint writes its rewards with these; everything else goes through
// JSON.stringify unchanged, so the echoed data keeps its exact types.
import type { FastifyReply } from 'fastify';
import { jsonString, stringifyExact } from '../../core/json.js';
import type { Result } from '../../core/result.js';

/** One number as a JSON float: `1` -> `1.0`; non-finite values (never valid rewards) -> `null`. */
export function floatNum(x: number): string {
  if (Number.isInteger(x)) return Math.abs(x) < 1e21 ? `${x}.0` : String(x); // 1e21 prints as "1e+21"
  return Number.isFinite(x) ? String(x) : 'null'; // a non-integer always prints with "." or "e"
}

/** A list of numbers (null for missing ones) as JSON floats. */
export function floatList(xs: readonly (number | null | undefined)[]): string {
  let s = '[';
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i];
    if (i > 0) s += ',';
    s += typeof x === 'number' ? floatNum(x) : 'null';
  }
  return s + ']';
}

/**
 * OpenRLHF's /get_reward reply `{rewards, scores (= rewards), extra_logs: {arbiter_invalid, ...}}`,
 * all floats. One pass over the numbers, like the compiled schema serializer it replaces (which
 * writes 1.0 as "1"); bench/float-json.mjs compares the two.
 */
export function getRewardJSON(rewards: readonly number[], invalid: readonly number[], logs: Iterable<[string, readonly number[]]>): string {
  const list = floatList(rewards);
  let s = '{"rewards":' + list + ',"scores":' + list + ',"extra_logs":{"arbiter_invalid":' + floatList(invalid);
  for (const [k, v] of logs) if (k !== 'arbiter_invalid') s += ',' + JSON.stringify(k) + ':' + floatList(v);
  return s + '}}';
}

/** `{key: number|null}` with float values, keys in insertion order. */
export function floatMap(m: Readonly<Record<string, number | null | undefined>>): string {
  let s = '{';
  let first = true;
  for (const k of Object.keys(m)) {
    const v = m[k];
    if (v === undefined) continue;
    s += (first ? '' : ',') + JSON.stringify(k) + ':' + (typeof v === 'number' ? floatNum(v) : 'null');
    first = false;
  }
  return s + '}';
}

/** JSON texts of the short strings written lately: the grader names and types every result's metadata repeats. */
const QUOTED = new Map<string, string>();

/** JSON.stringify of a string (keys included), from QUOTED when it is short. */
function quoted(s: string): string {
  let q = QUOTED.get(s);
  if (q === undefined) {
    q = jsonString(s);
    if (s.length <= 64) {
      if (QUOTED.size >= 256) QUOTED.clear();
      QUOTED.set(s, q);
    }
  }
  return q;
}

/**
 * A result's metadata as JSON.stringify writes it (BigInt as digits). A plain object's strings,
 * numbers and booleans are written here; anything else (nested values, toJSON, another prototype)
 * through stringifyExact. JSON.stringify costs about 0.35 µs for the runner's three fields, as
 * much as a string_check grade.
 */
function metadataJSON(m: unknown): string | undefined {
  if (typeof m !== 'object' || m === null || Object.getPrototypeOf(m) !== Object.prototype || 'toJSON' in m) return stringifyExact(m);
  const o = m as Record<string, unknown>;
  let s = '{';
  let first = true;
  for (const k in o) {
    if (!Object.hasOwn(o, k)) continue;
    const v = o[k];
    let enc: string | undefined;
    switch (typeof v) {
      case 'string':
        enc = quoted(v);
        break;
      case 'number':
        enc = Number.isFinite(v) ? String(v) : 'null';
        break;
      case 'boolean':
        enc = v ? 'true' : 'false';
        break;
      default:
        enc = stringifyExact(v); // undefined for undefined, functions and symbols: the key is left out
    }
    if (enc === undefined) continue;
    s += (first ? '' : ',') + quoted(k) + ':' + enc;
    first = false;
  }
  return s + '}';
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/** An id as JSON.stringify writes it. */
function idJSON(id: string | number | null | undefined): string {
  if (typeof id === 'number') return Number.isFinite(id) ? String(id) : 'null';
  return typeof id === 'string' ? jsonString(id) : JSON.stringify(id);
}

/** Encoded keys, colon included, of a Result's own fields (most results have only these): one concatenation fewer per field. */
const RESULT_KEYS = new Map(['score', 'valid', 'error', 'reason', 'components', 'steps', 'metadata'].map((k) => [k, `"${k}":`]));

/**
 * A core Result (optionally preceded by an `id`): `score`, `steps`, every component's score and (for
 * /v1/groups' results) `advantage` and `token_advantages` as floats, the other fields (metadata, error, reason) exactly as JSON.stringify writes them, in the
 * result's key order. Written for speed: /v1/score writes thousands per reply (bench/float-json.mjs).
 */
export function resultJSON(r: Result, id?: string | number | null, rawId?: string): string {
  let s = id === undefined && rawId === undefined ? '{' : '{"id":' + (rawId ?? idJSON(id)) + ',';
  let first = true;
  const rec = r as unknown as Record<string, unknown>;
  for (const k in rec) {
    if (!Object.hasOwn(rec, k)) continue;
    const v = rec[k];
    let enc: string | undefined;
    switch (k) {
      case 'score':
        enc = typeof v === 'number' ? floatNum(v) : JSON.stringify(v);
        break;
      case 'valid':
        enc = v === true ? 'true' : v === false ? 'false' : JSON.stringify(v);
        break;
      case 'steps':
      case 'token_advantages':
        enc = Array.isArray(v) ? floatList(v as number[]) : JSON.stringify(v);
        break;
      case 'advantage':
        enc = typeof v === 'number' ? floatNum(v) : JSON.stringify(v);
        break;
      case 'components':
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          enc = '{';
          let f = true;
          for (const name in v as Record<string, Result>) {
            enc += (f ? '' : ',') + JSON.stringify(name) + ':' + resultJSON((v as Record<string, Result>)[name]!);
            f = false;
          }
          enc += '}';
        } else enc = JSON.stringify(v);
        break;
      case 'metadata':
        enc = metadataJSON(v);
        break;
      default:
        enc = stringifyExact(v); // ids, uids: integers past 2^53 (BigInt) as their digits
    }
    if (enc === undefined) continue; // undefined / functions are left out, as JSON.stringify does
    s += (first ? '' : ',') + (RESULT_KEYS.get(k) ?? quoted(k) + ':') + enc;
    first = false;
  }
  return s + '}';
}

/**
 * The /v1/score reply `{grader, results: [{id, ...Result}], summary}` with scores as floats; an id
 * with a raw source text in `rawIds` is written as that text (byte-exact echo).
 */
export function scoreJSON(
  grader: string,
  results: readonly Result[],
  ids: readonly (string | number | null)[],
  summary: { count: number; valid: number; invalid: number; mean_score: number | null; error_kinds: Record<string, number> },
  rawIds: readonly (string | undefined)[] = [],
): string {
  let s = '{"grader":' + quoted(grader) + ',"results":[';
  for (let i = 0; i < results.length; i++) s += (i > 0 ? ',' : '') + resultJSON(results[i]!, ids[i], rawIds[i]);
  s += '],"summary":{"count":' + summary.count + ',"valid":' + summary.valid + ',"invalid":' + summary.invalid;
  s +=
    ',"mean_score":' +
    (typeof summary.mean_score === 'number' ? floatNum(summary.mean_score) : 'null') +
    ',"error_kinds":' +
    (hasKeys(summary.error_kinds) ? JSON.stringify(summary.error_kinds) : '{}') +
    '}}';
  return s;
}

/**
 * Any JSON value, with every number under one of `floatKeys` (at any depth below that key: lists
 * and maps of rewards) written as a float. Other numbers are written as JSON.stringify does, and a
 * BigInt as its digits.
 */
export function floatJSON(v: unknown, floatKeys: ReadonlySet<string>, inFloat = false): string | undefined {
  if (typeof v === 'number') return inFloat ? floatNum(v) : JSON.stringify(v);
  // an integer past 2^53 (parsed exactly): its digits, with ".0" under a float key
  if (typeof v === 'bigint') return inFloat ? `${v}.0` : v.toString();
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const withJSON = v as { toJSON?: () => unknown };
  if (typeof withJSON.toJSON === 'function') return floatJSON(withJSON.toJSON(), floatKeys, inFloat);
  if (Array.isArray(v)) {
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i > 0 ? ',' : '') + (floatJSON(v[i], floatKeys, inFloat) ?? 'null');
    return s + ']';
  }
  let s = '{';
  let first = true;
  for (const k of Object.keys(v)) {
    const enc = floatJSON((v as Record<string, unknown>)[k], floatKeys, inFloat || floatKeys.has(k));
    if (enc === undefined) continue;
    s += (first ? '' : ',') + JSON.stringify(k) + ':' + enc;
    first = false;
  }
  return s + '}';
}

/** Sends an already serialised JSON body (fastify passes a string with a JSON content type as is). */
export function sendJSON(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(body);
}
