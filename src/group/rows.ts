// Turns one input record (a JSONL line or an HTTP list entry) into the numbers an estimator needs,
// or a masked row saying why it cannot take part: an invalid grade (`valid: false`, `score: null`)
// is left out of the statistics, a malformed field is a `bad_input` naming the line and field.
import type { ErrorKind } from '../core/result.js';
import { describe } from '../core/sample.js';
import type { AdvantageConfig } from './config.js';

/** Why a row got advantage 0 instead of one computed from its group. */
export type MaskReason =
  | 'invalid_grade'
  | 'bad_input'
  | 'single_in_group'
  | 'no_tokens'
  | 'depends_on_invalid'
  | 'limit_exceeded'
  | 'out_of_range'
  | 'filtered';

/** Most tokens one line may claim (`response_length`): token advantages are materialised. */
export const MAX_RESPONSE_TOKENS = 1 << 20;

export interface Row {
  /** The record as given (an object), or null for a line that was not one (or once it is no longer needed). */
  rec: Record<string, unknown> | null;
  /** Where the record came from, for messages: `src` "line" and `at` 3 is "line 3", "records" and 2 "records[2]". */
  src: string;
  at: number;
  /** Group key: the uid itself (a Map tells 1 from "1"). */
  group?: GroupKey;
  /** The scalar reward (verl estimators, gigpo episode return). */
  score: number;
  /** trl_grpo: one reward per function, NaN where a function gave none. */
  rewards?: number[];
  /** response_length, or -1 when absent. */
  len: number;
  /** reinforce_plus_plus: explicit per-token rewards (else the score sits on the last token). */
  tokenRewards?: number[];
  // gigpo
  traj?: GroupKey;
  anchor?: string;
  stepReward: number;
  /** The value filter_groups compares (its metric); null: not scorable. */
  fv?: number | null;
  /** The score rollout_filter_ratio ranks groups by; null: not scorable. */
  sv?: number | null;
  /** Why the row's group was dropped by a group filter ("equal_scores", "low_std", "high_std"). */
  filtered?: string;
  // streaming
  /** The JSONL text the record was parsed from. */
  text?: string;
  /** 1: the text can be extended in place (non-empty object without our fields), 2: the same for "{}", 0: re-serialise rec. */
  inPlace: 0 | 1 | 2;
  done: boolean;
  // results
  masked?: MaskReason;
  error?: { kind: ErrorKind; message: string };
  adv: number;
  /**
   * Token-level estimators: the whitening applied to this row's token values (regenerated, not
   * stored: a batch may hold hundreds of millions of tokens), token advantage = (v - mean) · inv.
   */
  whiten?: { mean: number; inv: number; values: (row: Row) => Float64Array };
}

export function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A group key: a string, a finite number, or an integer past 2^53 as its BigInt (exact: ...890 is not ...891). */
export type GroupKey = string | number | bigint;

export function key(v: unknown): GroupKey | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'bigint') return Number.isSafeInteger(Number(v)) ? Number(v) : v;
  return undefined;
}

/** "line 3" or "records[2]". */
export function whereOf(row: Row): string {
  return row.src === 'line' ? `line ${row.at}` : `${row.src}[${row.at}]`;
}

/** Canonical text of a JSON value with object keys sorted (anchor observations are compared by it). */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObj(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  }
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v) ?? 'null';
}

export function emptyRow(rec: Record<string, unknown> | null, src: string, at: number): Row {
  return { rec, src, at, score: 0, len: -1, stepReward: 0, adv: 0, inPlace: 0, done: false };
}

/** Marks a row as masked with a bad-input (or limit) error naming its place. */
export function badRow(row: Row, message: string, kind: ErrorKind = 'bad_input'): Row {
  row.masked = kind === 'limit_exceeded' ? 'limit_exceeded' : 'bad_input';
  row.error = { kind, message: `${whereOf(row)}: ${message}` };
  return row;
}

export function finiteOrNull(v: unknown): number | null | undefined {
  if (v === null) return null;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return undefined;
}

/** Checks that the row has response_length when the estimator needs it; the masked row when not. */
export function requireLength(row: Row, cfg: Pick<AdvantageConfig, 'needsLength' | 'estimator'>): Row | undefined {
  if (cfg.needsLength && row.len < 0)
    return badRow(
      row,
      `field "response_length" (the response's token count) is required by ${cfg.estimator} (arbiter score carries it with --keep response_length)`,
    );
  return undefined;
}

/** The default reward reader: `score` (a finite number; null or `valid: false` is an invalid grade). */
export function readScore(rec: Record<string, unknown>, row: Row, cfg: Pick<AdvantageConfig, 'needsLength' | 'estimator'>): Row {
  // An invalid grade is left out of the statistics: it is not a 0 reward (and needs no length).
  if (rec.valid === false) {
    row.masked = 'invalid_grade';
    return row;
  }
  const bad = requireLength(row, cfg);
  if (bad) return bad;
  if (rec.valid !== undefined && typeof rec.valid !== 'boolean') return badRow(row, `field "valid" must be a boolean, got ${describe(rec.valid)}`);
  const s = rec.score;
  if (s === null) {
    row.masked = 'invalid_grade';
    return row;
  }
  if (typeof s !== 'number' || !Number.isFinite(s)) {
    if (s === undefined && rec.scores !== undefined)
      return badRow(
        row,
        `${cfg.estimator} takes one reward per line in field "score" (got "scores"; combine several rewards with trl_grpo's reward_weights, or a grader)`,
      );
    return badRow(row, s === undefined ? 'field "score" is missing' : `field "score" must be a finite number or null, got ${describe(s)}`);
  }
  row.score = s;
  return row;
}

/**
 * The value a group filter reads: "score" is the line's score; another name is the score of that
 * component (`components.<name>.score`) or, failing that, a numeric top-level field. Null when the
 * line or that component is invalid; a string (the message) when the line does not have it.
 */
function filterValue(rec: Record<string, unknown>, metric: string): number | null | string {
  if (rec.valid === false) return null;
  if (metric === 'score') {
    const v = finiteOrNull(rec.score);
    return v === undefined ? 'filter_groups reads field "score", which is missing or not a finite number' : v;
  }
  const comps = rec.components;
  if (isObj(comps) && isObj(comps[metric])) {
    const c = comps[metric];
    if (c.valid === false) return null;
    const v = finiteOrNull(c.score);
    return v === undefined ? `component "${metric}" (filter_groups.metric) has no finite score` : v;
  }
  if (metric in rec) {
    const v = finiteOrNull(rec[metric]);
    return v === undefined ? `field "${metric}" (filter_groups.metric) must be a finite number or null, got ${describe(rec[metric])}` : v;
  }
  const known = isObj(comps) ? Object.keys(comps) : [];
  return `filter_groups.metric "${metric}" is neither a component of the line (${known.length ? `it has ${known.map((k) => `"${k}"`).join(', ')}` : 'it has none'}) nor a field of it`;
}

/** Parses one record for the configured estimator. Never throws. */
export function toRow(rec: unknown, src: string, at: number, cfg: AdvantageConfig): Row {
  if (!isObj(rec)) return badRow(emptyRow(null, src, at), `a record must be a JSON object, got ${describe(rec)}`);
  const row = emptyRow(rec, src, at);

  if (cfg.needsUid) {
    const g = key(rec.uid);
    if (g === undefined)
      return badRow(row, rec.uid === undefined ? 'field "uid" (the group) is missing' : `field "uid" must be a string or number, got ${describe(rec.uid)}`);
    row.group = g;
  }

  if (rec.response_length !== undefined) {
    const l = rec.response_length;
    if (typeof l !== 'number' || !Number.isInteger(l) || l < 0)
      return badRow(row, `field "response_length" must be a non-negative integer, got ${describe(l)}`);
    if (l > MAX_RESPONSE_TOKENS) return badRow(row, `response_length ${l} is over the limit of ${MAX_RESPONSE_TOKENS} tokens per line`, 'limit_exceeded');
    row.len = l;
  }
  const f = cfg.filters;
  if (f.equal) {
    const v = filterValue(rec, f.equal.metric);
    if (typeof v === 'string') return badRow(row, v);
    row.fv = v;
  }
  if (f.top) {
    // StarPO-S ranks the groups by the std of their scores
    const v = filterValue(rec, 'score');
    if (typeof v === 'string') return badRow(row, v.replace('filter_groups reads', 'rollout_filter_ratio reads'));
    row.sv = v;
  }
  return cfg.spec.read ? cfg.spec.read(rec, row, cfg) : readScore(rec, row, cfg);
}
