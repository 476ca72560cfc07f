// Judges: LLM-judge grader types, verdict parsers and helpers (the public surface of this area).
export * from './parse/index.js';
export { logprobScore } from './logprob-score.js';
