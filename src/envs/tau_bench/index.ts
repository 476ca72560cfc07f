// src/envs/tau_bench/: the tau-bench family (airline and retail tools over their databases, tasks and wiki, the data hash and reward, the grader type tau_bench, the environment).
export { DATA_DIR_ENV, DOMAINS as TAU_DOMAIN_NAMES, loadBase, setDataDir, TauDataError, TauDb } from './db.js';
export { loadTasks, loadWiki, readTask, runAction, TAU_DOMAINS } from './domain.js';
export type { TauDomain, TauTask } from './domain.js';
export { DEFAULT_STEP_WEIGHTS, rewardTrajectory } from './reward.js';
export type { RewardOptions, StepWeights, TauOutcome, TurnCredit } from './reward.js';
export { DEFAULT_MAX_STEPS, goldCalls, tauBenchEnv, TauEpisode } from './env.js';
export { goldMessages } from './gold.js';
export { tauBench } from './grader.js';
