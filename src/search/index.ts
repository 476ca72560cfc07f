// Test-time search: best-of-N, majority voting, PRM-guided beam search and DVTS against an
// OpenAI-compatible generator, with accuracy-vs-N reports.
export { Generator, generatorSchema, newCost } from './generator.js';
export type { GenerationCost, Generated, GeneratorConfig } from './generator.js';
export { bestOfN, finalAnswer, majorityVote, verifyCandidates } from './select.js';
export type { Candidate, Vote } from './select.js';
export { checkBeamShape, stepSearch } from './beam.js';
export type { Beam, StepSearchOptions, StepSearchResult } from './beam.js';
export { METHODS, prepareSearch, rowInput, runSearch, searchConfigSchema, SearchConfigError, summarize } from './run.js';
export type { Attempt, Method, PreparedSearch, ProblemResult, RunSearchOptions, SearchConfig, SearchReport } from './run.js';
export { searchPlotSvg, searchTable } from './report.js';
