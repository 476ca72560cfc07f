// Grading a group of responses to the same prompt(s) in one call: each sample is graded with the
// group context (so root graders that normalise across the group may run), the group stage of the
// root grader (if any) finishes each uid group, and advantages are computed from the final scores.
// Shared by the library's `gradeGroup` and POST /v1/groups.
import type { Grader, GraderContext } from '../core/grader.js';
import type { Result } from '../core/result.js';
import { normalizeRecord, type GradeInput } from '../core/sample.js';
import { Services } from '../core/services.js';
import { orderedMap } from '../core/ordered.js';
import { groupContext, groupStageOf } from '../graders/composite/group-stage.js';
import { computeAdvantages } from './advantages.js';
import { isAdvantageConfig, parseAdvantageConfig, type AdvantageConfig } from './config.js';

export interface GroupMember {
  /** The sample's id (an integer past 2^53 as its BigInt), or its index. */
  id: string | number | bigint;
  /** Group key as given (undefined: the whole call is one group); an integer past 2^53 is a BigInt. */
  uid?: string | number | bigint;
  response_length?: number;
  /** GiGPO fields passed through to the estimator (traj_uid, anchor_obs, step_reward, episode_return). */
  extra?: Record<string, unknown>;
  input?: GradeInput;
  /** A record that could not be normalised: its invalid result. */
  invalid?: Result;
}

/** Runs the root grader's group stage over each uid group, then re-applies pass_threshold. */
export async function finishGroups(grader: Grader, members: GroupMember[], results: Result[], ctx: GraderContext): Promise<void> {
  const finish = groupStageOf(grader.type);
  if (!finish) return;
  const groups = new Map<string, number[]>();
  members.forEach((m, i) => {
    const k = m.uid === undefined ? '' : `${typeof m.uid}:${m.uid}`;
    let l = groups.get(k);
    if (!l) groups.set(k, (l = []));
    l.push(i);
  });
  for (const idx of groups.values()) {
    const rs = idx.map((i) => results[i]!);
    if (!rs.some((r) => r.valid && r.metadata.group_stage === 'pending')) continue;
    await finish(grader.config, rs, { inputs: idx.map((i) => members[i]!.input), ctx });
  }
  const pt = grader.config.pass_threshold;
  if (typeof pt === 'number') for (const r of results) if (r.valid && r.score !== null && r.metadata.group_stage === 'done') r.metadata.passed = r.score >= pt;
}

/** The records the advantage engine reads, built from graded members. */
export function advantageRecords(members: GroupMember[], results: Result[]): Record<string, unknown>[] {
  // without any uid the call is one group; with some, a sample lacking one is masked (bad_input)
  const anyUid = members.some((m) => m.uid !== undefined);
  return members.map((m, i) => {
    const r = results[i]!;
    const rec: Record<string, unknown> = { id: m.id, score: r.score, valid: r.valid };
    if (m.uid !== undefined) rec.uid = m.uid;
    else if (!anyUid) rec.uid = 'group';
    if (m.response_length !== undefined) rec.response_length = m.response_length;
    if (r.components) rec.components = r.components;
    if (m.extra) Object.assign(rec, m.extra);
    return rec;
  });
}

export interface GradeGroupOptions {
  /** Advantage estimator config (default {"estimator": "grpo"}); null for scores only. */
  advantages?: AdvantageConfig | Record<string, unknown> | null;
  services?: Services;
  concurrency?: number;
  signal?: AbortSignal;
}

export interface GroupResult extends Result {
  id: string | number | bigint;
  uid?: string | number | bigint;
  advantage?: number;
  advantage_masked?: true;
  advantage_mask_reason?: string;
  advantage_error?: { kind: string; message: string };
}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Reads the group fields (id, uid, response_length) of a raw sample record. */
export function toMember(rec: unknown, index: number, where: string, grader: Grader): GroupMember {
  const o = isObj(rec) ? rec : {};
  const rawId = o.id;
  const m: GroupMember = { id: typeof rawId === 'string' || typeof rawId === 'number' || typeof rawId === 'bigint' ? rawId : index };
  if (typeof o.uid === 'string' || typeof o.uid === 'number' || typeof o.uid === 'bigint') m.uid = o.uid;
  const rl = o.response_length ?? (isObj(o.sample) ? o.sample.response_length : undefined);
  if (typeof rl === 'number') m.response_length = rl;
  for (const k of ['traj_uid', 'anchor_obs', 'step_reward', 'episode_return'] as const) if (o[k] !== undefined) (m.extra ??= {})[k] = o[k];
  try {
    m.input = normalizeRecord(rec);
  } catch (e) {
    m.invalid = {
      score: null,
      valid: false,
      error: { kind: 'bad_input', message: `${where}: ${(e as Error).message}` },
      metadata: { grader: grader.name, type: grader.type, duration_ms: 0 },
    };
  }
  return m;
}

/** Merges each result with its id, uid and advantage fields. */
export function groupOutput(members: GroupMember[], results: Result[], adv: Record<string, unknown>[] | null): GroupResult[] {
  return results.map((r, i) => {
    const m = members[i]!;
    const out: GroupResult = { id: m.id, ...(m.uid !== undefined ? { uid: m.uid } : {}), ...r };
    if (adv) {
      const a = adv[i]!;
      for (const k of ['advantage', 'advantage_masked', 'advantage_mask_reason', 'advantage_error', 'token_advantages'] as const) {
        if (a[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = a[k];
      }
    }
    return out;
  });
}

let defaultServices: Services | undefined;

/**
 * Grades a group (or several, by `uid`) and returns each result with its advantage. Samples are
 * `{id?, uid?, item, sample | output_text, response_length?}`; invalid grades get advantage 0 and
 * `advantage_masked: true`. Throws ConfigError for a bad advantage config.
 */
export async function gradeGroup(grader: Grader, samples: readonly unknown[], opts: GradeGroupOptions = {}): Promise<GroupResult[]> {
  const cfg =
    opts.advantages === null ? null : isAdvantageConfig(opts.advantages) ? opts.advantages : parseAdvantageConfig(opts.advantages ?? { estimator: 'grpo' });
  const members = samples.map((s, i) => toMember(s, i, `samples[${i}]`, grader));
  const ctx: GraderContext = groupContext({ services: opts.services ?? (defaultServices ??= new Services()), ...(opts.signal ? { signal: opts.signal } : {}) });
  const results: Result[] = [];
  for await (const r of orderedMap(members, (m) => (m.input ? grader.grade(m.input, ctx) : m.invalid!), opts.concurrency ?? 64)) results.push(r);
  await finishGroups(grader, members, results, ctx);
  const adv = cfg ? computeAdvantages(cfg, advantageRecords(members, results), 'samples') : null;
  return groupOutput(members, results, adv);
}
