// Library surface of the BFCL multi-turn grader: the grader type, its checker and input decoding.
export { bfclMultiTurn } from './grader.js';
export { checkMultiTurn, ERR as BFCL_MULTI_TURN_ERRORS, type CheckResult, type TurnResult } from './checker.js';
export { decodeTurns, decodePrompting, decodeFunctionCalling, type InputFormat } from './decode.js';
