// Turns one input record (a JSONL line or an HTTP list entry) into the numbers an estimator needs,
// or a masked row saying why it cannot take part: an invalid grade (`valid: false`, `score: null`)
// is left out of the statistics, a malformed field is a `bad_input` naming the line and field.
import type { ErrorKind } from '../core/result.js';
import { describe } from '../core/sample.js';
import type { AdvantageConfig } from './config.js';

/** Why a row got advantage 0 instead of one computed from its group. */
export type MaskReason = 'invalid_grade' | 'bad_input' | 'single_in_group' | 'no_tokens' | 'depends_on_invalid' | 'limit_exceeded' | 'out_of_range';

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

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** A group key: a string, a finite number, or an integer past 2^53 as its BigInt (exact: ...890 is not ...891). */
export type GroupKey = string | number | bigint;

function key(v: unknown): GroupKey | undefined {
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

function finiteOrNull(v: unknown): number | null | undefined {
  if (v === null) return null;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return undefined;
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
  if (cfg.estimator === 'reinforce_plus_plus' && rec.token_level_rewards !== undefined) {
    const t = rec.token_level_rewards;
    if (!Array.isArray(t) || !t.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return badRow(row, 'field "token_level_rewards" must be a list of finite numbers');
    if (t.length > MAX_RESPONSE_TOKENS)
      return badRow(row, `token_level_rewards has ${t.length} entries, over the limit of ${MAX_RESPONSE_TOKENS}`, 'limit_exceeded');
    if (row.len >= 0 && row.len !== t.length) return badRow(row, `token_level_rewards has ${t.length} entries but response_length is ${row.len}`);
    row.len = t.length;
    row.tokenRewards = t as number[];
  }
  if (cfg.needsLength && row.len < 0) return badRow(row, `field "response_length" (the response's token count) is required by ${cfg.estimator}`);

  if (cfg.estimator === 'gigpo') {
    const t = key(rec.traj_uid);
    if (t === undefined)
      return badRow(
        row,
        rec.traj_uid === undefined
          ? 'field "traj_uid" (the trajectory) is missing'
          : `field "traj_uid" must be a string or number, got ${describe(rec.traj_uid)}`,
      );
    row.traj = t;
    if (rec.anchor_obs === undefined) return badRow(row, 'field "anchor_obs" (the observation this step acted on) is missing');
    row.anchor = canonical(rec.anchor_obs);
  }

  // An invalid grade is left out of the statistics: it is not a 0 reward. (With reward_components
  // each component is its own reward function, valid or not on its own, as in TRL.)
  const perComponent = cfg.estimator === 'trl_grpo' && cfg.rewardComponents !== undefined;
  if (rec.valid === false && !perComponent) {
    row.masked = 'invalid_grade';
    return row;
  }
  if (rec.valid !== undefined && typeof rec.valid !== 'boolean') return badRow(row, `field "valid" must be a boolean, got ${describe(rec.valid)}`);

  if (cfg.estimator === 'gigpo') {
    const er = finiteOrNull(rec.episode_return);
    const sr = finiteOrNull(rec.step_reward);
    if (er === null || sr === null) {
      row.masked = 'invalid_grade';
      return row;
    }
    if (er === undefined)
      return badRow(
        row,
        rec.episode_return === undefined
          ? 'field "episode_return" is missing'
          : `field "episode_return" must be a finite number, got ${describe(rec.episode_return)}`,
      );
    if (sr === undefined)
      return badRow(
        row,
        rec.step_reward === undefined ? 'field "step_reward" is missing' : `field "step_reward" must be a finite number, got ${describe(rec.step_reward)}`,
      );
    row.score = er;
    row.stepReward = sr;
    return row;
  }

  if (cfg.estimator === 'trl_grpo') {
    let vals: unknown[];
    let field: string;
    if (cfg.rewardComponents) {
      const comps = rec.components;
      if (!isObj(comps)) return badRow(row, 'field "components" is missing or not an object (reward_components reads components.<name>.score)');
      vals = cfg.rewardComponents.map((n) => {
        const c = comps[n];
        if (!isObj(c)) return undefined;
        return c.valid === false ? null : c.score;
      });
      const missing = cfg.rewardComponents.filter((_, i) => vals[i] === undefined);
      if (missing.length) return badRow(row, `component(s) ${missing.map((m) => `"${m}"`).join(', ')} missing from "components"`);
      field = 'components';
    } else if (rec.scores !== undefined) {
      if (!Array.isArray(rec.scores)) return badRow(row, `field "scores" must be a list (one reward per reward function), got ${describe(rec.scores)}`);
      vals = rec.scores;
      field = 'scores';
    } else {
      if (rec.score === undefined) return badRow(row, 'field "score" (or "scores") is missing');
      vals = [rec.score];
      field = 'score';
    }
    const want = cfg.rewardWeights?.length;
    if (want !== undefined && vals.length !== want) return badRow(row, `${field} has ${vals.length} reward(s) but reward_weights has ${want}`);
    const rewards = new Array<number>(vals.length);
    let any = false;
    for (let i = 0; i < vals.length; i++) {
      const v = finiteOrNull(vals[i]);
      if (v === undefined) return badRow(row, `${field}${field === 'score' ? '' : `[${i}]`} must be a finite number or null, got ${describe(vals[i])}`);
      rewards[i] = v === null ? NaN : v;
      if (v !== null) any = true;
    }
    row.rewards = rewards;
    // TRL: a completion for which every reward function returned None is unscorable
    if (!any) row.masked = 'invalid_grade';
    return row;
  }

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
