// Public surface of process rewards: the `prm` grader type, step splitting, aggregation and the
// protocols' wire formats.
export type { PrmConfig } from './grader.js';
export { AGGREGATES, aggregateSteps, firstBelow, pureMinForm, transformSteps } from './aggregate.js';
export type { Aggregate } from './aggregate.js';
export { compileSplitter, splitText, stripStepPrefix } from './steps.js';
export type { SplitConfig, SplitRule } from './steps.js';
export { qwenPrmText, readPoolingSteps, readTagProbability, tagPrompts, taggedParagraphs } from './protocols.js';
