// Library surface of the IFEval grader: the instruction registry and the verdict function.
export { ifeval } from './grader.js';
export { INSTRUCTIONS, buildInstruction } from './registry.js';
export { followVerdicts, looseVariants } from './evaluate.js';
export type { IfevalMode } from './evaluate.js';
export { countSentences, splitSentences } from './punkt.js';
export { wordTokenize } from './word-tokenize.js';
export { loadLanguageDetector } from './language.js';
