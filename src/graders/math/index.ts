// Public surface of the math verifier: the grader type and the library functions.
export { mathGrader } from './grader.js';
export { verifyMath, checkMath, parseMathAnswer, resolveMathOptions } from './verify.js';
export type { MathOptions, MathVerdict, ResolvedMathOptions } from './verify.js';
export { extractAnswer, extractChoice, choiceLetter } from './extract.js';
export type { Extracted, ExtractMethod, ExtractOptions } from './extract.js';
export { DEFAULT_LIMITS } from './limits.js';
export type { MathLimits } from './limits.js';
