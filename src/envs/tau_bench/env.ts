// tau-bench as an environment: an episode is one task with a simulated user. reset() asks the user
// simulator for its first message; step() takes the agent's turn (an assistant message or one
// action), runs its tool calls on the episode's database or passes its reply to the user, and
// answers {observation, reward, done, info}. It ends on the user's ###STOP###, a transfer to a
// human agent, or max_steps turns (tau-bench's max_num_steps; reward 0 like the benchmark). The
// final reward is the tau_bench grader's on the episode's own messages, so serving, rollouts and
// offline grading agree; info carries the turn-level credit (progress, tool errors, anchors).
import { z } from 'zod';
import type { AgentMessage } from '../../agents/trajectory.js';
import { contentText, MAX_ACTIONS, readArguments, readMessages, RESPOND } from '../../agents/trajectory.js';
import { actionMessage, ResponseFault } from '../../agents/action.js';
import { jsonDumps as dumps } from '../../py/format.js';
import { deepCopy, PyDict } from '../../py/ops.js';
import {
  EnvOptionError,
  type EnvDeps,
  type EnvFamily,
  type Episode,
  type EpisodeState,
  type ResetResult,
  type StepResult,
  type ToolSchema,
  type UserSimulator,
} from '../../agents/env.js';
import { DOMAINS, loadBase, TauDb, type Domain } from './db.js';
import { loadTasks, loadWiki, readTask, runAction, STOP, TAU_DOMAINS, type TauDomain, type TauTask } from './domain.js';
import {
  anchorId,
  DEFAULT_STEP_WEIGHTS,
  goldState,
  progressOf,
  rewardTrajectory,
  stateSignature,
  taskFingerprint,
  type Gold,
  type StepWeights,
  type TauOutcome,
} from './reward.js';

/** tau-bench's default max_num_steps. */
export const DEFAULT_MAX_STEPS = 30;

const optionsSchema = z.strictObject({
  env: z.literal('tau_bench').optional(),
  domain: z.enum(DOMAINS as [Domain, ...Domain[]]),
  task_index: z.number().int().nonnegative().optional(),
  task: z.record(z.string(), z.unknown()).optional(),
  max_steps: z.number().int().positive().max(1000).optional(),
  first_tool_call_only: z.boolean().optional(),
});

export type TauEnvOptions = z.infer<typeof optionsSchema>;

export function parseTauOptions(o: Record<string, unknown>): TauEnvOptions {
  const r = optionsSchema.safeParse(o);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const at = i.path.length ? i.path.join('.') : '(options)';
    throw new EnvOptionError(`${at}: ${i.code === 'unrecognized_keys' ? `unknown option(s) ${i.keys.join(', ')}` : i.message}`);
  }
  if (r.data.task_index === undefined && r.data.task === undefined)
    throw new EnvOptionError('give "task_index" (a task of tasks_test.json) or "task" (a task object)');
  if (r.data.task_index !== undefined && r.data.task !== undefined) throw new EnvOptionError('give either "task_index" or "task", not both');
  return r.data;
}

export interface TurnInfo {
  turn: number;
  tool_calls: number;
  tool_errors: number;
  progress: number;
  /** progress gained × w.progress − tool errors × w.tool_error (the final reward is added at the end). */
  step_reward: number;
  /** GiGPO step-group id of the state this turn acted in. */
  anchor: string;
}

export class TauEpisode implements Episode {
  readonly env = 'tau_bench';
  readonly domain: TauDomain;
  readonly tools: readonly ToolSchema[];
  readonly systemPrompt: string;
  readonly task: TauTask;
  readonly item: Record<string, unknown>;
  private readonly user: UserSimulator;
  private readonly maxSteps: number;
  private readonly firstOnly: boolean;
  private readonly db: TauDb;
  private readonly gold: Gold;
  private readonly fp: string;
  private readonly weights: StepWeights = { ...DEFAULT_STEP_WEIGHTS };
  private messages: AgentMessage[] = [];
  private started = false;
  private done = false;
  private truncated = false;
  private reward: number | null = null;
  private outcome?: TauOutcome;
  private turns: TurnInfo[] = [];
  private lastObservation = '';
  private progress = 0;
  private actions = 0;
  private floorReason: string | undefined;
  private cachedAnchor: string | undefined;
  readonly taskIndex?: number;

  constructor(options: TauEnvOptions, user: UserSimulator) {
    this.domain = TAU_DOMAINS[options.domain];
    let raw: unknown;
    if (options.task_index !== undefined) {
      const tasks = loadTasks(options.domain);
      if (options.task_index >= tasks.length)
        throw new EnvOptionError(`task_index ${options.task_index} is out of range: ${options.domain} has ${tasks.length} test tasks`);
      raw = tasks[options.task_index];
      this.taskIndex = options.task_index;
    } else raw = options.task;
    try {
      this.task = readTask(raw);
    } catch (e) {
      throw new EnvOptionError((e as Error).message);
    }
    if (this.task.instruction === undefined) throw new EnvOptionError('task.instruction is required: the user simulator plays it');
    this.item = raw as Record<string, unknown>;
    this.tools = this.domain.schemas;
    this.systemPrompt = loadWiki(options.domain);
    this.user = user;
    this.maxSteps = options.max_steps ?? DEFAULT_MAX_STEPS;
    this.firstOnly = options.first_tool_call_only ?? false;
    const base = loadBase(options.domain);
    this.db = new TauDb(base);
    this.gold = goldState(this.domain, this.task, base);
    // a task whose gold actions tau-bench could not run cannot be graded, whatever the agent does
    if (this.gold.crash) throw new EnvOptionError(`task: ${this.gold.crash}`);
    this.fp = taskFingerprint(this.domain, this.task);
  }

  async reset(signal?: AbortSignal): Promise<ResetResult> {
    if (this.started) throw new EnvOptionError('the episode was already reset; start a new one');
    const first = await this.user.reset(this.task.instruction!, signal);
    this.started = true;
    this.messages = [
      { role: 'system', content: this.systemPrompt },
      { role: 'user', content: first },
    ];
    this.lastObservation = first;
    return {
      observation: first,
      info: {
        env: this.env,
        domain: this.domain.name,
        task_index: this.taskIndex ?? null,
        tools: this.tools,
        system_prompt: this.systemPrompt,
        anchor: this.anchor(),
        max_steps: this.maxSteps,
      },
    };
  }

  /** The anchor of the current state, computed once per state (a step's next_anchor is the next step's anchor). */
  private anchor(): string {
    this.cachedAnchor ??= anchorId([this.fp, stateSignature(this.db), this.lastObservation]);
    return this.cachedAnchor;
  }

  async step(action: unknown, signal?: AbortSignal): Promise<StepResult> {
    if (!this.started) throw new EnvOptionError('call reset before step');
    if (this.done) throw new EnvOptionError('the episode is done');
    const turn = this.turns.length;
    let msg: AgentMessage;
    try {
      msg = actionMessage(action, turn);
    } catch (e) {
      if (!(e instanceof ResponseFault)) throw e;
      return this.endAtFloor(`the agent's action is at fault: ${e.message}`);
    }
    const anchor = this.anchor();
    this.cachedAnchor = undefined; // the step changes what the anchor covers
    const count = msg.tool_calls?.length ? (this.firstOnly ? 1 : msg.tool_calls.length) : 1;
    if (this.actions + count > MAX_ACTIONS) {
      // the trajectory would pass what the grader replays: the episode ends here, unplayed
      this.done = true;
      this.truncated = true;
      this.finish();
      return {
        observation: '',
        reward: this.reward!,
        done: true,
        info: { truncated: true, reason: `the episode reached the limit of ${MAX_ACTIONS} actions`, messages: [], reward_info: this.rewardInfo() },
      };
    }
    this.actions += count;
    const added: AgentMessage[] = [];
    let errors = 0;
    let calls = 0;
    let terminal = false;
    let stopped = false;
    const toolCalls = msg.tool_calls?.length ? (this.firstOnly ? msg.tool_calls.slice(0, 1) : msg.tool_calls) : undefined;
    if (toolCalls) {
      if (this.firstOnly) msg.tool_calls = toolCalls;
      // a call named "respond" is a reply to the user and ends the turn; the user answers first,
      // so a failing user simulator leaves nothing half done
      const r = toolCalls.findIndex((c) => c.function.name === RESPOND);
      let reply: string | undefined;
      if (r >= 0) {
        const args = readArguments(toolCalls[r]!.function.arguments).kwargs?.get('content');
        reply = await this.user.step(typeof args === 'string' ? args : '', signal);
      }
      for (const c of r >= 0 ? toolCalls.slice(0, r) : toolCalls) {
        calls++;
        const out = runAction(this.domain, this.db, { name: c.function.name, ...readArguments(c.function.arguments) });
        if (out.error) errors++;
        added.push({ role: 'tool', tool_call_id: c.id, name: c.function.name, content: out.observation });
        this.lastObservation = out.observation;
        if (out.terminal || out.crash) {
          terminal = true;
          break;
        }
      }
      if (reply !== undefined && !terminal) {
        added.push({ role: 'user', content: reply });
        this.lastObservation = reply;
        stopped = reply.includes(STOP);
      }
    } else {
      // a reply to the user: nothing is committed unless the user simulator answers
      const reply = await this.user.step(contentText(msg.content), signal);
      added.push({ role: 'user', content: reply });
      this.lastObservation = reply;
      stopped = reply.includes(STOP);
    }
    this.messages.push(msg, ...added);
    const progress = progressOf(this.db, this.gold);
    const info: TurnInfo = {
      turn,
      tool_calls: calls,
      tool_errors: errors,
      progress,
      step_reward: this.weights.progress * (progress - this.progress) - this.weights.tool_error * errors,
      anchor,
    };
    this.progress = progress;
    this.turns.push(info);
    if (terminal || stopped || this.turns.length >= this.maxSteps) {
      this.done = true;
      this.truncated = !terminal && !stopped;
      this.finish();
    }
    const observation = contentText(added[added.length - 1]?.content);
    const out: StepResult = {
      observation,
      reward: this.done ? this.reward! : 0,
      done: this.done,
      info: { ...info, messages: added, next_anchor: this.done ? null : this.anchor() },
    };
    if (this.done) {
      out.info.truncated = this.truncated;
      out.info.reward_info = this.rewardInfo();
    }
    return out;
  }

  /** Ends the episode with reward 0 for what the agent's own action caused (valid: the floor, with the reason). */
  private endAtFloor(reason: string): StepResult {
    this.done = true;
    this.truncated = true;
    this.reward = 0;
    this.floorReason = reason;
    return { observation: '', reward: 0, done: true, info: { truncated: true, reason, messages: [], reward_info: this.rewardInfo() } };
  }

  /** The final reward: the grader's, on this episode's own messages. */
  private finish(): void {
    const o = rewardTrajectory(this.domain, this.task, readMessages(this.messages, 'openai', { firstToolCallOnly: this.firstOnly }));
    this.outcome = o;
    this.reward = o.reward;
    // the grader's per-turn rewards include the outcome on the last turn; keep them in step
    o.turns.forEach((t, i) => {
      if (this.turns[i]) this.turns[i]!.step_reward = t.reward;
    });
  }

  private rewardInfo(): Record<string, unknown> | undefined {
    if (this.floorReason !== undefined)
      return { reward: 0, reason: this.floorReason, state_match: null, difference: null, outputs: null, ended_by: 'agent_fault', crash: null };
    const o = this.outcome;
    if (!o) return undefined;
    return { reward: o.reward, state_match: o.state_match, difference: o.difference ?? null, outputs: o.outputs, ended_by: o.ended_by, crash: o.crash ?? null };
  }

  state(): EpisodeState {
    return {
      env: this.env,
      domain: this.domain.name,
      task_index: this.taskIndex ?? null,
      done: this.done,
      truncated: this.truncated,
      reward: this.reward,
      turns: this.turns.length,
      messages: this.messages,
      item: this.item,
      credit: this.turns,
      reward_info: this.rewardInfo() ?? null,
    };
  }

  close(): void {
    this.done = true;
  }
}

export const tauBenchEnv: EnvFamily = {
  name: 'tau_bench',
  describe() {
    const domains: Record<string, unknown> = {};
    for (const d of DOMAINS) {
      let tasks: number | null = null;
      try {
        tasks = loadTasks(d).length;
      } catch {
        tasks = null;
      }
      domains[d] = { tasks, tools: TAU_DOMAINS[d].tools.map((t) => t.name) };
    }
    return { domains, options: ['domain', 'task_index | task', 'max_steps', 'first_tool_call_only'], needs: 'a user simulator' };
  },
  tools(options) {
    const d = options.domain;
    if (typeof d !== 'string' || !DOMAINS.includes(d as Domain)) throw new EnvOptionError(`domain must be one of ${DOMAINS.join(', ')}`);
    return { tools: TAU_DOMAINS[d as Domain].schemas, system_prompt: loadWiki(d as Domain) };
  },
  rewardRange(options) {
    parseTauOptions(options);
    return [0, 1];
  },
  example(seed) {
    // both domains have at least 50 test tasks
    return { domain: seed % 2 === 0 ? 'airline' : 'retail', task_index: Math.floor(seed / 2) % 50, max_steps: 4 };
  },
  create(options: Record<string, unknown>, deps: EnvDeps): Episode {
    const o = parseTauOptions(options);
    if (!deps.user) throw new EnvOptionError('tau_bench episodes need a user simulator (start the server with --user-model and --user-base-url)');
    return new TauEpisode(o, deps.user());
  },
};

/** A task's gold actions as assistant tool-call messages (for scripted policies in tests and demos). */
export function goldCalls(task: TauTask): AgentMessage[] {
  return task.actions.map((a, i) => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `gold_${i}`, type: 'function', function: { name: a.name, arguments: dumps(deepCopy(a.kwargs ?? new PyDict())) } }],
  }));
}
