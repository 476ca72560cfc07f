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
import { parseMonitorConfig, type MonitorConfig } from './monitor-config.js';
import { compactPoint, computeMonitors, toPoint, type MonitorReport } from './monitors.js';

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
  /** Where it came from, for messages ("samples[3]", "line 7"). */
  where?: string;
}

/**
 * Runs the root grader's group stage over each uid group, then re-applies pass_threshold. A group of
 * one line cannot be scored against its group: that line becomes an invalid `bad_input` result
 * naming it (never a silent 0).
 */
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
    if (idx.length === 1) {
      const i = idx[0]!;
      const m = members[i]!;
      const r = results[i]!;
      if (!r.valid) continue; // already invalid, for its own reason
      const group = m.uid === undefined ? 'the request is one group' : `its group (uid ${JSON.stringify(String(m.uid))})`;
      results[i] = {
        score: null,
        valid: false,
        error: {
          kind: 'bad_input',
          message: `${m.where ?? `samples[${i}]`}: ${group} has only this response; grader "${grader.name}" (${grader.type}) scores a response against the other responses of its group, so a group needs at least 2`,
        },
        metadata: { grader: grader.name, type: grader.type, duration_ms: r.metadata.duration_ms },
      };
      continue;
    }
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
  /** Monitor config (as `arbiter score --monitor`): every result gets `monitor_alerts`, the reports come back from gradeGroupReport. */
  monitors?: MonitorConfig | Record<string, unknown> | null;
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
  filtered?: string;
  /** The monitors alerting on the batch (with the `monitors` option). */
  monitor_alerts?: string[];
}

/** Runs the monitors over a graded batch; each result gets the names of the monitors alerting. */
export function monitorResults(out: GroupResult[], members: GroupMember[], cfg: MonitorConfig): MonitorReport[] {
  const points = out.map((r, i) =>
    compactPoint(toPoint(r as unknown as Record<string, unknown>, cfg.point, members[i]!.input?.sample, members[i]!.input?.item)),
  );
  const reports = computeMonitors(points, cfg.options);
  const alerts = reports.filter((r) => r.alert).map((r) => r.monitor);
  for (const r of out) r.monitor_alerts = alerts;
  return reports;
}

function monitorConfig(m: MonitorConfig | Record<string, unknown> | null | undefined): MonitorConfig | null {
  if (!m) return null;
  return 'options' in m && 'point' in m ? (m as MonitorConfig) : parseMonitorConfig(m);
}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** Reads the group fields (id, uid, response_length) of a raw sample record. */
export function toMember(rec: unknown, index: number, where: string, grader: Grader): GroupMember {
  const o = isObj(rec) ? rec : {};
  const rawId = o.id;
  const m: GroupMember = { id: typeof rawId === 'string' || typeof rawId === 'number' || typeof rawId === 'bigint' ? rawId : index, where };
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
      for (const k of ['advantage', 'advantage_masked', 'advantage_mask_reason', 'advantage_error', 'token_advantages', 'filtered'] as const) {
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
  return (await gradeGroupReport(grader, samples, opts)).results;
}

/**
 * gradeGroup with the monitors' reports: `{results, monitors}` (monitors null without the
 * `monitors` option). The whole signal in one call: scores, group stage, advantages, monitors.
 */
export async function gradeGroupReport(
  grader: Grader,
  samples: readonly unknown[],
  opts: GradeGroupOptions = {},
): Promise<{ results: GroupResult[]; monitors: MonitorReport[] | null }> {
  const mon = monitorConfig(opts.monitors);
  const cfg =
    opts.advantages === null ? null : isAdvantageConfig(opts.advantages) ? opts.advantages : parseAdvantageConfig(opts.advantages ?? { estimator: 'grpo' });
  const members = samples.map((s, i) => toMember(s, i, `samples[${i}]`, grader));
  const ctx: GraderContext = groupContext({ services: opts.services ?? (defaultServices ??= new Services()), ...(opts.signal ? { signal: opts.signal } : {}) });
  const results: Result[] = [];
  for await (const r of orderedMap(members, (m) => (m.input ? grader.grade(m.input, ctx) : m.invalid!), opts.concurrency ?? 64)) results.push(r);
  await finishGroups(grader, members, results, ctx);
  const adv = cfg ? computeAdvantages(cfg, advantageRecords(members, results), 'samples') : null;
  const out = groupOutput(members, results, adv);
  return { results: out, monitors: mon ? monitorResults(out, members, mon) : null };
}
