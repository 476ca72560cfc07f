// The environment contract every agent environment family implements (the families are under
// src/envs/, listed in src/envs/families.ts): a family creates episodes; an episode is reset, then
// stepped with the agent's actions, answering OpenEnv-style {observation, reward, done, info}, and
// keeps its trajectory as OpenAI chat messages, which is what the graders read. Families register
// here; the HTTP server (serve.ts) and the rollout runner (rollout.ts) know only this interface.
import type { AgentMessage } from './trajectory.js';

/** An OpenAI function tool, as sent to the policy in `tools`. */
export interface ToolSchema {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ResetResult {
  observation: string;
  info: Record<string, unknown>;
}

export interface StepResult {
  observation: string;
  /** The environment's reward for this step (its final reward when done, else 0); null when the episode ended unscored (see info.error). */
  reward: number | null;
  done: boolean;
  info: Record<string, unknown>;
}

export interface Episode {
  /** Family and options, for /state and trajectory records. */
  readonly env: string;
  readonly tools: readonly ToolSchema[];
  /** The system prompt the policy is given (tau-bench: the domain policy, wiki.md). */
  readonly systemPrompt: string;
  reset(signal?: AbortSignal): Promise<ResetResult>;
  /**
   * One agent turn: an assistant message (tool calls and/or text) or a single action
   * `{name, arguments}`. Never throws for bad actions (they are error observations); rejects only
   * for failures of the environment itself (the user simulator's model server, an abort).
   */
  step(action: unknown, signal?: AbortSignal): Promise<StepResult>;
  /** The episode so far: trajectory messages, done, reward, per-turn credit. */
  state(): EpisodeState;
  close(): void;
}

export interface EpisodeState {
  env: string;
  done: boolean;
  reward: number | null;
  turns: number;
  /** The trajectory as OpenAI chat messages (system, user, assistant, tool). */
  messages: AgentMessage[];
  /** The dataset item the graders take as `item` (tau-bench: the task). */
  item: Record<string, unknown>;
  /** Fields the graders read from `sample` besides `messages` (BFCL: output_turns). */
  sample?: Record<string, unknown>;
  /** Why the episode could not go on, when it ended unscored (reward null): an error kind and message. */
  error?: { kind: string; message: string };
  [key: string]: unknown;
}

/** Creates episodes of one family. `options` come from a reset request or the rollout command. */
export interface EnvFamily {
  readonly name: string;
  /** What can be asked for: domains, task counts, required options. */
  describe(): Record<string, unknown>;
  /** Tool schemas and system prompt of one configuration, without starting an episode. */
  tools(options: Record<string, unknown>): { tools: readonly ToolSchema[]; system_prompt: string };
  /** Throws EnvOptionError for options it cannot use. */
  create(options: Record<string, unknown>, deps: EnvDeps): Episode;
  /** The least and the greatest final reward an episode with these options can end with (inclusive). */
  rewardRange(options: Record<string, unknown>): readonly [min: number, max: number];
  /**
   * The options of a representative episode for `seed` (the same every call): the contract suite
   * (test/agents/env-contract.test.ts) plays these for every registered family.
   */
  example(seed: number): Record<string, unknown>;
}

/** What a family may need from its host: a user simulator factory for conversational tasks. */
export interface EnvDeps {
  /** Makes the simulated user of one episode; absent when the host has none configured. */
  user?: () => UserSimulator;
}

/** A simulated user (tau-bench's user model): first message from an instruction, then replies. */
export interface UserSimulator {
  reset(instruction: string, signal?: AbortSignal): Promise<string>;
  step(agentMessage: string, signal?: AbortSignal): Promise<string>;
}

/** A reset request the environment cannot serve (unknown domain, task index out of range…). */
export class EnvOptionError extends Error {
  override name = 'EnvOptionError';
}

/** The environment's own data cannot be found or read (a setup problem of the host, not the request's). */
export class EnvDataError extends Error {
  override name = 'EnvDataError';
}

const families = new Map<string, EnvFamily>();

export function registerEnv(f: EnvFamily): void {
  if (families.has(f.name)) throw new Error(`environment "${f.name}" is already registered`);
  families.set(f.name, f);
}

export function getEnv(name: string): EnvFamily | undefined {
  return families.get(name);
}

export function listEnvs(): EnvFamily[] {
  return [...families.values()].sort((a, b) => a.name.localeCompare(b.name));
}
