// `tau_bench` grader: tau-bench's reward for an agent trajectory (OpenAI chat messages, tau-bench's
// ReAct records, or an action list) against a task as in tasks_test.json: the database after the
// trajectory's tool calls must equal the one after the task's gold actions (tau-bench's data hash),
// and every required output must appear in a reply. Components: state, outputs, done; `steps`:
// per-turn rewards; metadata: tool errors, progress, GiGPO anchors, replay-vs-record mismatches.
import { z } from 'zod';
import { GradeFailure, type Outcome, type Result } from '../../core/result.js';
import { graderSchema, PURE, type GraderType } from '../../core/registry.js';
import { renderCompiled, type ValueTemplate } from '../../core/template.js';
import { isDomain, TauDataError, type Domain } from './db.js';
import { readTask, TAU_DOMAINS, type TauTask } from './domain.js';
import { type Gold, goldState, rewardTrajectory, type TauOutcome } from './reward.js';
import { readActions, readMessages, TrajectoryError, type Trajectory } from '../../agents/trajectory.js';

const weights = z.strictObject({
  progress: z.number().finite().optional(),
  tool_error: z.number().finite().optional(),
  outcome: z.number().finite().optional(),
});

const schema = graderSchema({
  domain: z.enum(['airline', 'retail']),
  /** The trajectory as chat messages (default `{{sample.messages}}`). */
  messages: z.unknown().optional(),
  /** Or the trajectory as a list of actions `[{name, kwargs}]` (taken as a complete episode). */
  actions: z.unknown().optional(),
  /** The task: `{actions, outputs, ...}` as in tasks_test.json (default `{{item}}`). */
  task: z.unknown().optional(),
  /** `openai`: tool_calls and tool messages (tau-bench's tool-calling agent); `react`: tau-bench's ReAct/Act records. */
  format: z.enum(['openai', 'react']).optional(),
  /** Replay only the first tool call of each assistant message, as tau-bench's own agent executes. */
  first_tool_call_only: z.boolean().optional(),
  /** Reward 0 when the episode never ended (default true: what tau-bench records). */
  require_done: z.boolean().optional(),
  step_weights: weights.optional(),
  anchor: z.enum(['observation', 'state']).optional(),
  /** Also report tau-bench's data hashes (sha256 over each whole database; a few ms per grade). */
  report_hashes: z.boolean().optional(),
});

type Config = z.infer<typeof schema>;

function component(name: string, score: number, reason: string): Result {
  return { score, valid: true, reason, metadata: { grader: name, type: 'tau_bench', duration_ms: 0 } };
}

function stateReason(o: TauOutcome): string {
  if (o.state_match) return 'the database matches the one the gold actions produce';
  return `the database differs from the gold actions' at ${o.difference ?? '(unknown place)'} (trajectory vs gold)`;
}

function outputsReason(o: TauOutcome, task: TauTask): string {
  if (!task.outputs.length) return 'the task requires no outputs';
  const missing = task.outputs.filter((x) => !o.outputs[x]);
  if (!missing.length) return `all ${task.outputs.length} required output(s) were told to the user`;
  return `required output ${missing.map((m) => JSON.stringify(m)).join(', ')} never told to the user`;
}

const ENDED: Record<string, string> = {
  user_stop: 'the user ended the episode (###STOP###)',
  transfer: 'the agent transferred to a human agent',
  end_of_actions: 'the action list ended',
  crash: 'tau-bench would have stopped with an exception',
};

function doneReason(o: TauOutcome): string {
  if (o.crash) return `the episode crashes: ${o.crash}`;
  return o.done ? ENDED[o.ended_by!]! : 'the episode never ended (no ###STOP### from the user after a reply, no transfer to a human agent)';
}

/** The agent's trajectory is at fault before anything is replayed (over a limit, a malformed action): reward 0, valid. */
function floorResult(domain: string, why: string, limit: boolean): Outcome {
  const reason = `not replayed: ${why}`;
  return {
    score: 0,
    reason: `reward 0: ${why}`,
    components: { state: component('state', 0, reason), outputs: component('outputs', 0, reason), done: component('done', 0, reason) },
    steps: [],
    metadata: { domain, trajectory_error: why, error_type: limit ? 'trajectory_limit_exceeded' : 'trajectory_malformed' },
  };
}

export const tauBench: GraderType<Config> = {
  type: 'tau_bench',
  summary: 'tau-bench airline/retail: replays the trajectory and the gold actions, equal databases and required outputs give 1; per-turn credit',
  schema,
  capabilities: PURE,
  // a replay is synchronous work on untrusted trajectories (up to 10,000 messages, report_hashes
  // hashes a 5 MB database twice): under a time budget it runs in a killable worker thread
  cpu_heavy: true,
  build(cfg, b) {
    if (cfg.messages !== undefined && cfg.actions !== undefined) b.fail('actions', 'give either "messages" or "actions", not both');
    if (cfg.actions !== undefined && cfg.format !== undefined) b.fail('format', '"format" applies to "messages" only');
    const domain = TAU_DOMAINS[cfg.domain as Domain];
    if (!isDomain(cfg.domain)) b.fail('domain', 'unknown domain');
    const source: ValueTemplate = cfg.actions !== undefined ? b.value('actions', cfg.actions) : b.value('messages', cfg.messages ?? '{{sample.messages}}');
    const taskT: ValueTemplate = b.value('task', cfg.task ?? '{{item}}');
    const actionList = cfg.actions !== undefined;
    const format = cfg.format ?? 'openai';
    const opts = {
      requireDone: cfg.require_done ?? true,
      weights: cfg.step_weights ?? {},
      anchor: cfg.anchor ?? 'observation',
      hashes: cfg.report_hashes ?? false,
      actionList,
    } as const;

    return (s) => {
      let task: TauTask;
      try {
        task = readTask(renderCompiled(taskT, s));
      } catch (e) {
        if (e instanceof TypeError) throw new GradeFailure('bad_input', e.message);
        throw e;
      }
      let gold: Gold;
      try {
        gold = goldState(domain, task);
      } catch (e) {
        if (e instanceof TauDataError) throw new GradeFailure('config_error', e.message);
        throw e;
      }
      // a task whose gold actions tau-bench could not run is the item's fault, whatever the trajectory
      if (gold.crash) throw new GradeFailure('bad_input', `task: ${gold.crash}`);
      let traj: Trajectory;
      try {
        const raw = renderCompiled(source, s);
        traj = actionList ? readActions(raw) : readMessages(raw, format, { firstToolCallOnly: cfg.first_tool_call_only ?? false });
      } catch (e) {
        if (!(e instanceof TrajectoryError)) throw e;
        const what = `${actionList ? 'actions' : 'messages'}: ${e.message}`;
        // the record is not a trajectory: invalid; the agent's own output is at fault: the floor
        if (e.blame === 'record') throw new GradeFailure('bad_input', what);
        return floorResult(cfg.domain, e.limit ? `${what} (a limit on what arbiter replays; tau-bench stops an episode at 30 steps)` : what, e.limit);
      }
      let o: TauOutcome;
      try {
        o = rewardTrajectory(domain, task, traj, opts);
      } catch (e) {
        if (e instanceof TauDataError) throw new GradeFailure('config_error', e.message);
        throw e;
      }
      const components = {
        state: component('state', o.state_match ? 1 : 0, stateReason(o)),
        outputs: component('outputs', o.outputs_ok ? 1 : 0, outputsReason(o, task)),
        done: component('done', o.done && !o.crash ? 1 : 0, doneReason(o)),
      };
      let reason: string;
      if (o.reward === 1) reason = `reward 1: ${components.state.reason}; ${components.outputs.reason}; ${components.done.reason}`;
      else if (o.crash || (!o.done && opts.requireDone)) reason = `reward 0: ${components.done.reason}`;
      else if (!o.state_match) reason = `reward 0: ${components.state.reason}`;
      else reason = `reward 0: ${components.outputs.reason}`;
      const metadata: Record<string, unknown> = {
        domain: cfg.domain,
        ended_by: o.ended_by,
        turns: o.turns.length,
        tool_calls: o.tool_calls,
        tool_errors: o.tool_errors,
        outputs: o.outputs,
        progress: o.turns.map((t) => t.progress),
        anchors: o.turns.map((t) => t.anchor),
        observation_mismatches: o.observation_mismatches,
        ignored_after_end: o.ignored_after_end,
      };
      if (o.first_error) metadata.first_error = o.first_error;
      if (o.first_mismatch) metadata.first_mismatch = o.first_mismatch;
      if (o.data_hash) {
        metadata.data_hash = o.data_hash;
        metadata.gt_data_hash = o.gt_data_hash;
      }
      return { score: o.reward, reason, components, steps: o.turns.map((t) => t.reward), metadata };
    };
  },
};
