// The server's public API, re-exported from the package root.
export { createServer } from './app.js';
export type { ArbiterServer, ListenOptions } from './app.js';
export { DEFAULT_EOS_TOKENS } from './options.js';
export type { ServerOptions, ResolvedOptions } from './options.js';
export { loadGraderSpecs, parseGraderSpec } from './grader-set.js';
export type { GraderSpec } from './grader-set.js';
export { closeOnSignals } from './shutdown.js';
export { extractResponse, stripTrailingTokens } from './formats/response-text.js';
export { errorFlags } from './formats/openai-errors.js';
export type { OpenAIErrorFlags } from './formats/openai-errors.js';
export { floatNum, floatList, floatJSON, resultJSON } from './formats/float-json.js';
export { responseOutput } from './formats/nemo-gym.js';
export { OPENAI_GRADER_PATHS } from './formats/openai.js';
export { DEFAULT_MAX_QUEUE, REWARD_FORMATS } from './options.js';
export type { RewardFormat } from './options.js';
export type { Executor, ExecutorEnv, ExecutorFactory, ExecutorRequest } from './grade-runner.js';
export { QueueFullError } from './admission.js';
