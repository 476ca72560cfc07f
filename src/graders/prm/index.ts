// Public surface of process rewards: the `prm` grader type, step splitting, aggregation and the
// protocols' wire formats.
export { prm } from './grader.js';
export type { PrmConfig } from './grader.js';
export { AGGREGATES, aggregateSteps, firstBelow, pureMinForm, transformSteps, PURE_TEMPERATURE } from './aggregate.js';
export type { Aggregate, Transforms } from './aggregate.js';
export { compileSplitter, splitText, stripStepPrefix, SPLIT_RULES } from './steps.js';
export type { Piece, SplitConfig, SplitRule, Splitter } from './steps.js';
export { CRITIQUE_PROMPT, QWEN_PRM_SEPARATOR, QWEN_PRM_SYSTEM, qwenPrmText, readPoolingSteps, readTagProbability, tagPrompts, taggedParagraphs } from './protocols.js';
