// The extraction layer: reading an answer out of a model output, shared by every grader. Imports
// nothing outside src/core (checked by scripts/check-layout.mjs); see docs/extract.md.
export { applyThink, maskReasoning, stripThink, type Masked, type ThinkMode } from './think.js';
export { neverCloses, readText, TEXT_SOURCES, type ReadText, type TextFrom, type TextRead } from './read.js';
export { fencedBlocks, jsonFenceBody, pickFencedBlock, type FencedBlock } from './fence.js';
export { findJsonObjects, parseJsonText, pickKey, type JsonFrom, type JsonHit, type Parsed } from './json.js';
export { normalizeForms } from './normalize.js';
export { lastBoxes, MAX_JOINED_BOXES, type Box } from './boxed.js';
export { findAnswerPhrase, hasIntlMarker, MAX_MARKER_CANDIDATES, type Phrase } from './markers.js';
export { callsFromJson, callsFromText, extractCalls, ParseError, parsePythonCalls, type ToolCall } from './tool-calls.js';
export {
  CODE_EXTRACT_ALIAS,
  extractSchema,
  FORMAT_EXTRACT_ALIAS,
  partialCreditAlias,
  partialCreditField,
  renamed,
  resolveExtract,
  SKIP_THINK_ALIAS,
  THINK_MODES,
  type ExtractSettings,
} from './options.js';
