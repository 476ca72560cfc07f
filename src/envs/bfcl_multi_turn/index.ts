// src/envs/bfcl_multi_turn/: the BFCL multi-turn family (simulated APIs and the long-context export under apis/, input decoding, the checker, the grader type bfcl_multi_turn, the environment and its data).
export { bfclMultiTurn } from './grader.js';
export { checkMultiTurn, ERR as BFCL_MULTI_TURN_ERRORS, type CheckResult, type TurnResult } from './checker.js';
export { decodeTurns, decodePrompting, decodeFunctionCalling, type InputFormat } from './decode.js';
export { BFCL_MAX_STEPS_PER_TURN, bfclMultiTurnEnv, BfclEpisode, DEFAULT_HOLDOUT_PROMPT, DEFAULT_PROMPTING_SYSTEM } from './env.js';
export type { BfclEnvOptions, BfclStepInfo } from './env.js';
export { BFCL_CATEGORIES, BFCL_DIR_ENV, BfclDataError, categoryOfId, funcDocs, loadCategory as loadBfclCategory, setBfclDataDir } from './data.js';
export type { BfclCategory, BfclEntry } from './data.js';
export { toOpenAiTool } from './tools.js';
