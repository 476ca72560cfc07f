// tau-bench's reward for one trajectory, as Env.calculate_reward computes it: replay the agent's
// actions on a fresh database up to where the episode ended (the user's ###STOP### or a
// terminating tool), replay the task's gold actions (terminating tools skipped) on another, reward 1
// only when the two data hashes agree and every required output appears in one of the agent's
// replies (lowercased, commas removed, substring). Also the turn-level credit: per-turn progress
// towards the gold state, tool errors, and GiGPO anchor ids of the state each turn acted in.
import { anchorId, DEFAULT_STEP_WEIGHTS, type StepWeights } from '../../agents/credit.js';
import { jsonDumps as dumps } from '../../py/format.js';
import { hashableSha256, sameHashable } from './hash.js';
import { deepCopy, PyDict } from '../../py/ops.js';
import { RESPOND, type Action, type Trajectory } from '../../agents/trajectory.js';
import { compareDbs, loadBase, refPath, TauDb, type BaseDb } from './db.js';
import { runAction, type TauDomain, type TauTask } from './domain.js';

export { anchorId, DEFAULT_STEP_WEIGHTS, type StepWeights };

export interface RewardOptions {
  /** Reward 0 for an episode that never ended, as tau-bench records (default true). */
  requireDone?: boolean;
  weights?: Partial<StepWeights>;
  /** What the anchor of a turn covers: the database state and the last observation, or the state only. */
  anchor?: 'observation' | 'state';
  /** Also compute tau-bench's two data hashes (sha256 over the whole database; costs a few ms each). */
  hashes?: boolean;
  /** The trajectory is a bare action list: it is taken as a complete episode. */
  actionList?: boolean;
}

export interface TurnCredit {
  turn: number;
  /** Index of the turn's message in the trajectory. */
  message: number;
  tool_calls: number;
  tool_errors: number;
  /** Progress after the turn: (gold records matched − records changed that the gold leaves alone) / gold records changed. */
  progress: number;
  /** This turn's reward: progress gained × w.progress − tool errors × w.tool_error (+ final reward × w.outcome on the last turn). */
  reward: number;
  /** GiGPO step-group id of the state this turn acted in. */
  anchor: string;
}

export interface TauOutcome {
  reward: number;
  done: boolean;
  ended_by: 'user_stop' | 'transfer' | 'end_of_actions' | 'crash' | null;
  state_match: boolean;
  /** The first place where the replayed database differs from the gold one (trajectory first). */
  difference?: string;
  /** Each required output and whether a reply contained it. */
  outputs: Record<string, boolean>;
  outputs_ok: boolean;
  turns: TurnCredit[];
  tool_calls: number;
  tool_errors: number;
  first_error?: { turn: number; action: string; observation: string };
  /** Tool results in the record that differ from the replay (the record was made on another environment). */
  observation_mismatches: number;
  first_mismatch?: { turn: number; action: string; recorded: string; replayed: string };
  crash?: string;
  /** Turns or messages after the end of the episode, not replayed. */
  ignored_after_end: number;
  data_hash?: string;
  gt_data_hash?: string;
}

export interface Gold {
  db: TauDb;
  crash?: string;
  changed: { table: string; key: string }[];
}

const GOLD_CACHE_MAX = 512;
const goldCache = new Map<string, Gold>();

function taskKey(domain: string, task: TauTask): string {
  return `${domain}\n${task.actions.map((a) => `${a.name}\u0000${a.argsError ?? dumps(a.kwargs ?? new PyDict())}`).join('\n')}`;
}

/** The database after the task's gold actions (cached; gold actions are deterministic). */
export function goldState(domain: TauDomain, task: TauTask, base: BaseDb = loadBase(domain.name)): Gold {
  const key = taskKey(domain.name, task);
  const hit = goldCache.get(key);
  if (hit && hit.db.base === base) {
    goldCache.delete(key);
    goldCache.set(key, hit);
    return hit;
  }
  const db = new TauDb(base);
  let crash: string | undefined;
  for (const a of task.actions) {
    if (domain.terminate.has(a.name) || a.name === RESPOND) continue;
    // the gold replay parses nothing: give each replay its own copy of the arguments
    const out = runAction(domain, db, a.kwargs ? { ...a, kwargs: deepCopy(a.kwargs) } : a);
    if (out.crash) {
      crash = `a gold action crashed: ${out.crash}`;
      break;
    }
  }
  const gold: Gold = { db, changed: db.changed(), ...(crash ? { crash } : {}) };
  goldCache.set(key, gold);
  if (goldCache.size > GOLD_CACHE_MAX) goldCache.delete(goldCache.keys().next().value!);
  return gold;
}

/** tau-bench's output check: output.lower() in content.lower().replace(",", ""). */
export function outputFound(output: string, replies: readonly string[]): boolean {
  const o = output.toLowerCase();
  return replies.some((r) => r.toLowerCase().replaceAll(',', '').includes(o));
}

/** Progress of a state towards the gold one (see TurnCredit.progress). */
export function progressOf(db: TauDb, gold: Gold): number {
  const goldSet = new Set(gold.changed.map((r) => `${r.table}\u0000${r.key}`));
  let matched = 0;
  for (const r of gold.changed) {
    const mine = db.record(r.table, r.key);
    const want = gold.db.record(r.table, r.key);
    if (mine !== undefined && want !== undefined && sameHashable(mine, want)) matched++;
  }
  let wrong = 0;
  for (const r of db.changed()) if (!goldSet.has(`${r.table}\u0000${r.key}`)) wrong++;
  return (matched - wrong) / Math.max(1, gold.changed.length);
}

export function stateSignature(db: TauDb): string {
  return db
    .changed()
    .map((r) => {
      const v = db.record(r.table, r.key);
      return `${refPath(r)}=${v === undefined ? '-' : hashableSha256(v)}`;
    })
    .join('\n');
}

/** A stable id of a task (domain, instruction, gold actions) for anchors and records. */
export function taskFingerprint(domain: TauDomain, task: TauTask): string {
  return anchorId([domain.name, task.instruction ?? '', taskKey(domain.name, task)]);
}

/** Grades one trajectory against one task. Throws only for environment bugs (never for bad actions). */
export function rewardTrajectory(domain: TauDomain, task: TauTask, traj: Trajectory, opts: RewardOptions = {}): TauOutcome {
  const base = loadBase(domain.name);
  const w = { ...DEFAULT_STEP_WEIGHTS, ...opts.weights };
  const gold = goldState(domain, task, base);
  const db = new TauDb(base);
  const fp = taskFingerprint(domain, task);
  const replies: string[] = [];
  const turns: TurnCredit[] = [];
  let toolCalls = 0;
  let toolErrors = 0;
  let firstError: TauOutcome['first_error'];
  let mismatches = 0;
  let firstMismatch: TauOutcome['first_mismatch'];
  let endedBy: TauOutcome['ended_by'] = null;
  let crash: string | undefined = gold.crash;
  let prevProgress = 0;
  let ignored = traj.ignoredAfterEnd;
  let lastObservation = traj.first ?? '';
  // state signature and progress change only when a tool takes a record to change it
  let seen = -1;
  let signature = '';
  let progress = 0;
  const refresh = () => {
    if (db.version === seen) return;
    seen = db.version;
    signature = stateSignature(db);
    progress = progressOf(db, gold);
  };

  for (let t = 0; t < traj.turns.length && !crash; t++) {
    const turn = traj.turns[t]!;
    refresh();
    const anchor = anchorId([fp, signature, opts.anchor === 'state' ? '' : lastObservation]);
    let errors = 0;
    let calls = 0;
    let terminal = false;
    for (let k = 0; k < turn.actions.length; k++) {
      const a: Action = turn.actions[k]!;
      if (a.name === RESPOND) {
        const c = a.kwargs?.get('content');
        if (typeof c !== 'string') {
          crash =
            a.kwargs && !a.kwargs.has('content')
              ? 'a respond action without "content" (KeyError: \'content\' in tau-bench)'
              : 'a respond action whose content is not a string';
          break;
        }
        replies.push(c);
        lastObservation = turn.reply ?? '';
        continue;
      }
      calls++;
      // the database may keep argument objects (a booking keeps its passenger list): use a copy
      const out = runAction(domain, db, a.kwargs ? { ...a, kwargs: deepCopy(a.kwargs) } : a);
      if (out.crash) {
        crash = out.crash;
        break;
      }
      if (out.error) {
        errors++;
        firstError ??= { turn: t, action: a.name, observation: out.observation.slice(0, 300) };
      }
      const rec = turn.recorded[k];
      if (rec !== undefined && rec !== out.observation) {
        mismatches++;
        firstMismatch ??= { turn: t, action: a.name, recorded: rec.slice(0, 300), replayed: out.observation.slice(0, 300) };
      }
      lastObservation = out.observation;
      if (out.terminal) {
        terminal = true;
        ignored += turn.actions.length - k - 1;
        break;
      }
    }
    toolCalls += calls;
    toolErrors += errors;
    refresh();
    turns.push({
      turn: t,
      message: turn.message,
      tool_calls: calls,
      tool_errors: errors,
      progress,
      reward: w.progress * (progress - prevProgress) - w.tool_error * errors,
      anchor,
    });
    prevProgress = progress;
    if (crash) {
      endedBy = 'crash';
      ignored += traj.turns.length - t - 1;
      break;
    }
    if (terminal) {
      endedBy = 'transfer';
      ignored += traj.turns.length - t - 1;
      break;
    }
    if (traj.stoppedAt === t) {
      endedBy = 'user_stop';
      break;
    }
  }
  if (crash) endedBy = 'crash';
  if (endedBy === null && opts.actionList) endedBy = 'end_of_actions';
  const done = endedBy !== null;

  const cmp = compareDbs(db, gold.db);
  // own properties even for an output named __proto__ (a task's outputs are request data)
  const found = task.outputs.map((o) => outputFound(o, replies));
  const outputs: Record<string, boolean> = Object.fromEntries(task.outputs.map((o, i) => [o, found[i]!]));
  const outputsOk = found.every(Boolean);
  let reward = cmp.same && outputsOk ? 1 : 0;
  if (crash || (!done && opts.requireDone !== false)) reward = 0;
  const last = turns[turns.length - 1];
  if (last) last.reward += w.outcome * reward;

  const out: TauOutcome = {
    reward,
    done,
    ended_by: endedBy,
    state_match: cmp.same,
    outputs,
    outputs_ok: outputsOk,
    turns,
    tool_calls: toolCalls,
    tool_errors: toolErrors,
    observation_mismatches: mismatches,
    ignored_after_end: ignored,
  };
  if (cmp.difference) out.difference = cmp.difference;
  if (firstError) out.first_error = firstError;
  if (firstMismatch) out.first_mismatch = firstMismatch;
  if (crash) out.crash = crash;
  if (opts.hashes) {
    out.data_hash = db.hash();
    out.gt_data_hash = gold.db.hash();
  }
  return out;
}
