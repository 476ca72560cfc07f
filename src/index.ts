// The library API: load and validate graders, grade one sample, grade a stream or a file.
import './graders/index.js';

export { ERROR_KINDS, GradeFailure, invalidResult, isErrorKind, ResponseFault } from './core/result.js';
export type { ErrorKind, GradeError, Outcome, Result, ResultMetadata } from './core/result.js';
export { normalizeRecord } from './core/sample.js';
export type { GradeInput, Item, NormalizeOptions, Sample } from './core/sample.js';
export { makeGrader, RESERVED_METADATA_KEYS } from './core/grader.js';
export { CAPABILITIES, PURE, sandboxedCode, unsafeSwitch } from './core/capabilities.js';
export type { Capability, CapabilityDeclaration, CapabilityUse } from './core/capabilities.js';
export type { Evaluate, Grader, GraderContext } from './core/grader.js';
export { Services } from './core/services.js';
export type { ServicesOptions } from './core/services.js';
export { baseFields, getGraderType, graderSchema, listGraderTypes, loadGrader, registerGraderType, validateGrader } from './core/registry.js';
export type { BaseConfig, BuildContext, GraderType, LoadOptions, WarmContext } from './core/registry.js';
export { DEFAULT_STARTUP_TIMEOUT_MS, startupResource, warmGrader } from './core/startup.js';
export type { StartupItem, StartupReport, WarmOptions } from './core/startup.js';
export { compileTemplate, renderString, renderValue } from './core/template.js';
export { ConfigError } from './core/errors.js';
export type { ConfigIssue } from './core/errors.js';
export { compileFormula } from './graders/composite/formula.js';
export { loadGraderFile, readGraderFile } from './config/load.js';
export { readLines } from './io/jsonl-reader.js';
export { scoreLines } from './io/score-stream.js';
export type { OutputRecord } from './io/score-stream.js';
export { IoError, ResumeError, scoreFile } from './io/score-file.js';
export { DEFAULT_MAX_JSON_DEPTH, ID_JSON, findTooDeep, parseJsonBounded, scanJson, stringifyRecord } from './core/json.js';
export type { ScoreFileOptions } from './io/score-file.js';
export type { Summary } from './io/summary.js';

export { grade, gradeStream } from './core/grade.js';
export type { StreamResult } from './core/grade.js';
// the HTTP server is its own entry point (`arbiter/server`), so that importing the library loads no HTTP stack
export { verifyMath, extractAnswer, parseMathAnswer } from './graders/math/index.js';
export type { MathOptions, MathVerdict } from './graders/math/index.js';
export { runInSandbox, SandboxPool, DEFAULT_LIMITS, LANGUAGES, compileProgram, runProgram } from './sandbox/index.js';
export type { RunRequest, RunResult, RunStatus, SandboxFile, SandboxLimits, PoolOptions, LanguageName, CompiledProgram } from './sandbox/index.js';
export { extractCode } from './graders/code/extract.js';
export { ChatClient, RewardClient, ResponseCache, ModelError, getChatClient, resolveEndpoint } from './models/index.js';
export type { ChatMessage, ChatRequest, ChatResult, ChatChoice, RewardProtocol } from './models/index.js';
export { parseScore, parsePairwise, parseYesNo, labelParser, maskReasoning, looksLikeRefusal, logprobScore } from './graders/judges/index.js';
export type { Verdict, VerdictOk, VerdictErr, ScoreValue, PairwiseValue } from './graders/judges/index.js';

export { computeMetric, METRICS as SIMILARITY_METRICS } from './graders/text_similarity/text-similarity.js';
export type { Metric as SimilarityMetric } from './graders/text_similarity/text-similarity.js';
export {
  INSTRUCTIONS as IFEVAL_INSTRUCTIONS,
  buildInstruction as buildIfevalInstruction,
  followVerdicts as ifevalVerdicts,
  countSentences,
  splitSentences,
} from './graders/ifeval/index.js';
export { extractCalls as extractToolCalls, matchCalls as matchToolCalls, readAccepted as readAcceptedCalls } from './graders/tool_call/index.js';

export {
  ESTIMATORS,
  parseAdvantageConfig,
  loadAdvantageConfigFile,
  computeAdvantages,
  advantageFile,
  gradeGroup,
  gradeGroupReport,
  parseMonitorConfig,
  loadMonitorConfigFile,
  RewardPipeline,
  computeMonitors,
  formatMonitors,
  toPoint as monitorPoint,
  MonitorWindow,
  DEFAULT_THRESHOLDS as MONITOR_THRESHOLDS,
  selectFile,
  pairsFile,
} from './group/index.js';
export type {
  AdvantageConfig,
  EstimatorName,
  AdvantageSummary,
  GradeGroupOptions,
  GroupResult,
  MonitorPoint,
  MonitorReport,
  MonitorOptions,
  MonitorThresholds,
  MaskReason,
  MonitorConfig,
  PipelineOptions,
  PipelineSummary,
  SelectionFileOptions,
  SelectionSummary,
  SelectOptions,
  PairOptions,
  TieRule,
  PairPick,
} from './group/index.js';
export { scheduleWeight } from './graders/composite/schedule.js';
export { overlongReward } from './graders/composite/overlong.js';

export {
  AGGREGATES as PRM_AGGREGATES,
  aggregateSteps,
  compileSplitter,
  firstBelow,
  pureMinForm,
  qwenPrmText,
  readPoolingSteps,
  readTagProbability,
  splitText,
  stripStepPrefix,
  tagPrompts,
  taggedParagraphs,
  transformSteps,
} from './graders/prm/index.js';
export type { Aggregate as PrmAggregate, PrmConfig, SplitConfig, SplitRule } from './graders/prm/index.js';
export { parseFirstError } from './graders/judges/parse/first-error.js';
export {
  evalSteps,
  firstErrorItem,
  firstErrorMetrics,
  predictFirstError,
  prmbenchEval,
  prmbenchMetrics,
  prmbenchRecords,
  processBenchEval,
  readJsonlRows,
} from './eval/prm.js';
export type {
  FirstErrorItem,
  FirstErrorScores,
  PrmbenchEvalInput,
  PrmbenchEvalReport,
  PrmbenchMetrics,
  PrmbenchRecord,
  PrmbenchScores,
  ProcessBenchEvalInput,
  ProcessBenchEvalReport,
} from './eval/prm.js';
export { bestOfN, Generator, majorityVote, prepareSearch, runSearch, searchPlotSvg, searchTable, stepSearch, verifyCandidates } from './search/index.js';
export type {
  Beam,
  Candidate,
  GeneratorConfig,
  Method as SearchMethod,
  PreparedSearch,
  SearchConfig,
  SearchReport,
  StepSearchOptions,
  StepSearchResult,
} from './search/index.js';

export {
  ChatPolicy,
  ChatUserSimulator,
  getEnv,
  listEnvs,
  readActions,
  readMessages,
  registerEnv,
  runEpisode,
  runRollouts,
  stepRecords,
} from './agents/index.js';
// importing src/envs registers every environment family
export { goldMessages, loadTasks, rewardTrajectory, setDataDir as setTauBenchDir, TAU_DOMAINS, TauEpisode } from './envs/index.js';
export type {
  AgentMessage,
  EnvFamily,
  Episode,
  Policy,
  RolloutJob,
  RolloutRecord,
  StepRecord,
  StepResult,
  ToolSchema,
  UserSimulator,
} from './agents/index.js';
export type { TauOutcome } from './envs/index.js';
