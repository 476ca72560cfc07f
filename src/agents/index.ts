// Agent environments and trajectory rewards: the environment registry (tau-bench and BFCL
// multi-turn registered here), the typed trajectory, the rollout runner, and the families' pieces.
import { registerEnv, getEnv } from './env.js';
import { tauBenchEnv } from './tau/env.js';
import { bfclMultiTurnEnv } from './bfcl/env.js';

if (!getEnv(tauBenchEnv.name)) registerEnv(tauBenchEnv);
if (!getEnv(bfclMultiTurnEnv.name)) registerEnv(bfclMultiTurnEnv);

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
export { DATA_DIR_ENV, DOMAINS as TAU_DOMAIN_NAMES, loadBase, setDataDir, TauDataError, TauDb } from './tau/db.js';
export { loadTasks, loadWiki, readTask, runAction, TAU_DOMAINS } from './tau/domain.js';
export type { TauDomain, TauTask } from './tau/domain.js';
export { DEFAULT_STEP_WEIGHTS, rewardTrajectory } from './tau/reward.js';
export type { RewardOptions, StepWeights, TauOutcome, TurnCredit } from './tau/reward.js';
export { DEFAULT_MAX_STEPS, goldCalls, tauBenchEnv, TauEpisode } from './tau/env.js';
export { goldMessages } from './tau/gold.js';
export { actionMessage, MAX_CALLS_PER_TURN } from './action.js';
export { anchorId } from './credit.js';
export { BFCL_MAX_STEPS_PER_TURN, bfclMultiTurnEnv, BfclEpisode, DEFAULT_HOLDOUT_PROMPT, DEFAULT_PROMPTING_SYSTEM } from './bfcl/env.js';
export type { BfclEnvOptions, BfclStepInfo } from './bfcl/env.js';
export { BFCL_CATEGORIES, BFCL_DIR_ENV, BfclDataError, categoryOfId, funcDocs, loadCategory as loadBfclCategory, setBfclDataDir } from './bfcl/data.js';
export type { BfclCategory, BfclEntry } from './bfcl/data.js';
export { toOpenAiTool } from './bfcl/tools.js';
