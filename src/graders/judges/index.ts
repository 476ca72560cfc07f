// Judges: LLM-judge grader types, verdict parsers and helpers (the public surface of this area).
export * from './parse/index.js';
export { scoreModel } from './graders/score-model.js';
export { labelModel } from './graders/label-model.js';
export { pairwise } from './graders/pairwise.js';
export { rubric } from './graders/rubric.js';
export { referenceVerify } from './graders/reference-verify.js';
export { rewardModel } from './graders/reward-model.js';
export { logprobScore, numericToken, yesNoToken } from './logprob-score.js';
export type { LogprobScore } from './logprob-score.js';

import { labelModel } from './graders/label-model.js';
import { pairwise } from './graders/pairwise.js';
import { referenceVerify } from './graders/reference-verify.js';
import { rewardModel } from './graders/reward-model.js';
import { rubric } from './graders/rubric.js';
import { scoreModel } from './graders/score-model.js';

/** Every judge grader type, for registration. */
export const judgeGraderTypes = [scoreModel, labelModel, pairwise, rubric, referenceVerify, rewardModel];
