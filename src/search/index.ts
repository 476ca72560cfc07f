// Test-time search: best-of-N, majority voting, PRM-guided beam search and DVTS against an
// OpenAI-compatible generator, with accuracy-vs-N reports.
export { Generator } from './generator.js';
export type { GeneratorConfig } from './generator.js';
export { bestOfN, majorityVote, verifyCandidates } from './select.js';
export type { Candidate } from './select.js';
export { stepSearch } from './beam.js';
export type { Beam, StepSearchOptions, StepSearchResult } from './beam.js';
export { prepareSearch, runSearch } from './run.js';
export type { Method, PreparedSearch, SearchConfig, SearchReport } from './run.js';
export { searchPlotSvg, searchTable } from './report.js';
