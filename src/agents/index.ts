// src/agents/: what every environment family shares (the env contract and registry, the typed trajectory, rollouts, action reading, credit, the chat policy and user simulator); the families themselves are under src/envs/.
export { EnvDataError, EnvOptionError, getEnv, listEnvs, registerEnv } from './env.js';
export type { EnvDeps, EnvFamily, Episode, EpisodeState, ResetResult, StepResult, ToolSchema, UserSimulator } from './env.js';
export { assistantMessage, contentText, readActions, readArguments, readMessages, RESPOND, TrajectoryError } from './trajectory.js';
export type { Action, AgentMessage, ToolCallMessage, Trajectory, Turn } from './trajectory.js';
export { ChatPolicy } from './policy.js';
export type { ChatPolicyOptions, Policy } from './policy.js';
export { ChatUserSimulator, DEFAULT_USER_OPENING, DEFAULT_USER_PROMPT, UserSimulatorError } from './user-sim.js';
export type { ChatUserOptions } from './user-sim.js';
export { runEpisode, runRollouts, stepRecords } from './rollout.js';
export type { RolloutJob, RolloutOptions, RolloutRecord, StepRecord } from './rollout.js';
// the environments' HTTP server is in src/server/env-server.ts (exported by `arbiter/server`)
export { actionMessage, MAX_CALLS_PER_TURN } from './action.js';
export { anchorId } from './credit.js';
