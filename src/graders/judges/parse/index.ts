// Verdict parsers: pure functions from a judge's raw output to a verdict or a reason why not.
export { maskReasoning } from '../../../extract/think.js';
export type { Masked } from '../../../extract/think.js';
export { parseScore } from './score.js';
export type { ScoreParseOptions, ScoreValue } from './score.js';
export { parsePairwise } from './pairwise.js';
export type { PairwiseValue } from './pairwise.js';
export { parseYesNo } from './binary.js';
export { labelParser } from './label.js';
export type { LabelParser } from './label.js';
export { looksLikeRefusal, MAX_VERDICT_TEXT } from './verdict.js';
export type { ParseContext, ParseErrorCode, Verdict, VerdictErr, VerdictOk } from './verdict.js';
export { gradedStrings, maskQuoted } from './quotes.js';
export { parseFirstError } from './first-error.js';
export type { FirstErrorOptions } from './first-error.js';
