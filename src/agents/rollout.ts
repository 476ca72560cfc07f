// The rollout runner: drives a policy through episodes of any registered environment and yields one
// trajectory record per episode, in job order, with bounded concurrency. A record is a grader input
// line ({id, item, sample: {messages}}) plus the episode's reward, per-turn credit and GiGPO step
// groups; `stepRecords` flattens it into the per-step lines the group-advantage tooling reads
// (uid, traj_uid, anchor_obs, step_reward, episode_return). A failed episode (model server down,
// bad options) is a record with `error` and reward null: never dropped, never a silent 0.
import { orderedMap } from '../core/ordered.js';
import { ModelError } from '../models/errors.js';
import { EnvOptionError, getEnv, type EnvDeps, type Episode } from './env.js';
import type { Policy } from './policy.js';
import type { AgentMessage } from './trajectory.js';

export interface RolloutJob {
  /** Trajectory id (GiGPO's traj_uid). */
  id: string;
  /** Episode group: trajectories of the same task (verl's uid). */
  group: string;
  env: string;
  options: Record<string, unknown>;
}

export interface TurnCreditRecord {
  turn: number;
  step_reward: number;
  anchor: string;
  tool_calls: number;
  tool_errors: number;
  progress: number;
  /** BFCL: the user turn the step acted in. */
  bfcl_turn?: number;
}

export interface RolloutRecord {
  id: string;
  uid: string;
  env: Record<string, unknown>;
  item: Record<string, unknown>;
  /** The grader's sample: the messages, and the family's other fields (BFCL: output_turns). */
  sample: { messages: AgentMessage[]; [field: string]: unknown };
  reward: number | null;
  done: boolean;
  truncated: boolean;
  turns: number;
  credit: TurnCreditRecord[];
  reward_info?: unknown;
  error?: { kind: string; message: string };
}

export interface StepRecord {
  id: string;
  uid: string;
  traj_uid: string;
  turn: number;
  anchor_obs: string;
  step_reward: number;
  episode_return: number;
}

/** Runs one episode to its end (or its step limit). */
export async function runEpisode(episode: Episode, policy: Policy, signal?: AbortSignal): Promise<void> {
  await episode.reset(signal);
  for (;;) {
    const st = episode.state();
    if (st.done) return;
    const msg = await policy.act(st.messages, episode.tools, signal);
    const r = await episode.step(msg, signal);
    if (r.done) return;
  }
}

function errorOf(e: unknown): { kind: string; message: string } {
  if (e instanceof ModelError) return { kind: e.kind, message: e.message };
  if (e instanceof EnvOptionError) return { kind: 'bad_input', message: e.message };
  if ((e as Error)?.name === 'UserSimulatorError') return { kind: 'judge_server_error', message: (e as Error).message };
  if ((e as Error)?.name === 'AbortError' || (e as Error)?.name === 'TimeoutError') return { kind: 'timeout', message: (e as Error).message };
  return { kind: 'internal_error', message: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
}

function recordOf(job: RolloutJob, episode: Episode | undefined, error?: { kind: string; message: string }): RolloutRecord {
  const st = episode?.state();
  const credit = ((st?.credit as TurnCreditRecord[] | undefined) ?? []).map((c) => ({ ...c }));
  const rec: RolloutRecord = {
    id: job.id,
    uid: job.group,
    env: { name: job.env, ...job.options },
    item: st?.item ?? {},
    sample: { ...st?.sample, messages: st?.messages ?? [] },
    reward: error ? null : (st?.reward ?? null),
    done: st?.done ?? false,
    truncated: Boolean(st?.truncated),
    turns: st?.turns ?? 0,
    credit,
  };
  if (st?.reward_info) rec.reward_info = st.reward_info;
  const failed = error ?? st?.error;
  if (failed) rec.error = failed;
  return rec;
}

export interface RolloutOptions {
  policy: Policy;
  deps: EnvDeps;
  concurrency?: number;
  signal?: AbortSignal;
}

/** Runs every job; yields records in job order. */
export async function* runRollouts(jobs: Iterable<RolloutJob> | AsyncIterable<RolloutJob>, opts: RolloutOptions): AsyncGenerator<RolloutRecord> {
  yield* orderedMap(
    jobs,
    async (job: RolloutJob) => {
      const family = getEnv(job.env);
      if (!family) return recordOf(job, undefined, { kind: 'bad_input', message: `unknown environment "${job.env}"` });
      let episode: Episode | undefined;
      try {
        episode = family.create(job.options, opts.deps);
        await runEpisode(episode, opts.policy, opts.signal);
        return recordOf(job, episode);
      } catch (e) {
        return recordOf(job, episode, errorOf(e));
      } finally {
        episode?.close();
      }
    },
    opts.concurrency ?? 4,
  );
}

/** One line per turn for step-level advantages (GiGPO: step groups are equal anchor_obs within a uid). */
export function stepRecords(rec: RolloutRecord): StepRecord[] {
  if (rec.reward === null) return [];
  return rec.credit.map((c) => ({
    id: `${rec.id}/${c.turn}`,
    uid: rec.uid,
    traj_uid: rec.id,
    turn: c.turn,
    anchor_obs: c.anchor,
    step_reward: c.step_reward,
    episode_return: rec.reward!,
  }));
}
