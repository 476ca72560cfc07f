// The library API: load and validate graders, grade one sample, grade a stream or a file.
import './graders/index.js';
import type { Grader, GraderContext } from './core/grader.js';
import { GradeFailure, type Result } from './core/result.js';
import { normalizeRecord, type GradeInput } from './core/sample.js';
import { Services } from './core/services.js';
import { orderedMap } from './core/ordered.js';

export { ERROR_KINDS, GradeFailure, invalidResult, isErrorKind } from './core/result.js';
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
export type { BaseConfig, BuildContext, GraderType, LoadOptions } from './core/registry.js';
export { compileTemplate, renderString, renderValue } from './core/template.js';
export { ConfigError } from './config/errors.js';
export type { ConfigIssue } from './config/errors.js';
export { compileFormula } from './config/formula.js';
export { loadGraderFile, readGraderFile } from './config/load.js';
export { readLines } from './io/jsonl-reader.js';
export { scoreLines } from './io/score-stream.js';
export type { OutputRecord } from './io/score-stream.js';
export { IoError, ResumeError, scoreFile } from './io/score-file.js';
export { DEFAULT_MAX_JSON_DEPTH, ID_JSON, findTooDeep, parseJsonBounded, scanJson, stringifyRecord } from './core/json.js';
export type { ScoreFileOptions } from './io/score-file.js';
export type { Summary } from './io/summary.js';

let defaultServices: Services | undefined;

/**
 * Grades one sample. `input` may be `{item, sample}` or the shorthand `{item, output_text}`.
 * Never throws for bad samples: problems come back as `valid: false` results.
 */
export async function grade(grader: Grader, input: GradeInput | Record<string, unknown>, ctx?: Partial<GraderContext>): Promise<Result> {
  let gi: GradeInput;
  try {
    gi = normalizeRecord(input);
  } catch (e) {
    const kind = e instanceof GradeFailure ? e.kind : 'bad_input';
    return { score: null, valid: false, error: { kind, message: (e as Error).message }, metadata: { grader: grader.name, type: grader.type, duration_ms: 0 } };
  }
  const services = ctx?.services ?? (defaultServices ??= new Services());
  return grader.grade(gi, { ...ctx, services });
}

/** Grades an (async) iterable of inputs with bounded concurrency, yielding results in input order. */
export async function* gradeStream(
  grader: Grader,
  inputs: AsyncIterable<GradeInput | Record<string, unknown>> | Iterable<GradeInput | Record<string, unknown>>,
  opts: { concurrency?: number; services?: Services } = {},
): AsyncGenerator<Result> {
  const ctx = opts.services ? { services: opts.services } : {};
  yield* orderedMap(inputs, (x) => grade(grader, x, ctx), opts.concurrency ?? 64);
}
export { createServer, closeOnSignals, DEFAULT_EOS_TOKENS, loadGraderSpecs, parseGraderSpec } from './server/index.js';
export type { ArbiterServer, ListenOptions, ServerOptions, GraderSpec } from './server/index.js';
export { verifyMath, extractAnswer, parseMathAnswer } from './graders/math/index.js';
export type { MathOptions, MathVerdict } from './graders/math/index.js';
export { runInSandbox, SandboxPool, DEFAULT_LIMITS, LANGUAGES, compileProgram, runProgram } from './sandbox/index.js';
export type { RunRequest, RunResult, RunStatus, SandboxFile, SandboxLimits, PoolOptions, LanguageName, CompiledProgram } from './sandbox/index.js';
export { extractCode } from './graders/code/extract.js';
export { ChatClient, RewardClient, ResponseCache, ModelError, getChatClient, resolveEndpoint } from './models/index.js';
export type { ChatMessage, ChatRequest, ChatResult, ChatChoice, RewardProtocol } from './models/index.js';
export { parseScore, parsePairwise, parseYesNo, labelParser, maskReasoning, looksLikeRefusal, logprobScore } from './judges/index.js';
export type { Verdict, VerdictOk, VerdictErr, ScoreValue, PairwiseValue } from './judges/index.js';

export { computeMetric, METRICS as SIMILARITY_METRICS } from './graders/similarity/text-similarity.js';
export type { Metric as SimilarityMetric } from './graders/similarity/text-similarity.js';
export { INSTRUCTIONS as IFEVAL_INSTRUCTIONS, buildInstruction as buildIfevalInstruction, followVerdicts as ifevalVerdicts, countSentences, splitSentences } from './graders/ifeval/index.js';
export { extractCalls as extractToolCalls, matchCalls as matchToolCalls, readAccepted as readAcceptedCalls } from './graders/tools/index.js';
export {
  ChatPolicy,
  ChatUserSimulator,
  createEnvServer,
  getEnv,
  goldMessages,
  listEnvs,
  loadTasks,
  readActions,
  readMessages,
  registerEnv,
  rewardTrajectory,
  runEpisode,
  runRollouts,
  setDataDir as setTauBenchDir,
  stepRecords,
  TAU_DOMAINS,
  TauEpisode,
} from './agents/index.js';
export type { AgentMessage, EnvFamily, Episode, Policy, RolloutJob, RolloutRecord, StepRecord, StepResult, TauOutcome, ToolSchema, UserSimulator } from './agents/index.js';
