// Judges: LLM-judge grader types, verdict parsers and helpers (the public surface of this area).
export * from './parse/index.js';
export { logprobScore } from './logprob-score.js';

import { labelModel } from './graders/label-model.js';
import { pairwise } from './graders/pairwise.js';
import { referenceVerify } from './graders/reference-verify.js';
import { rewardModel } from './graders/reward-model.js';
import { rubric } from './graders/rubric.js';
import { scoreModel } from './graders/score-model.js';

/** Every judge grader type, for registration. */
export const judgeGraderTypes = [scoreModel, labelModel, pairwise, rubric, referenceVerify, rewardModel];
