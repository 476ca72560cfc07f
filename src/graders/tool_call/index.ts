// Library surface of the tool-call grader: parsing and BFCL-style matching.
export { toolCall } from './grader.js';
export { extractCalls, callsFromText, callsFromJson, parsePythonCalls } from '../../extract/tool-calls.js';
export { checkCall, standardizeString, pyEqual } from './check.js';
export { matchCalls } from './match.js';
export { readAccepted, readFunctions } from './reference.js';
export type { ToolCall, AcceptedCall, FunctionSchema } from './types.js';
