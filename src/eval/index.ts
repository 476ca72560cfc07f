// `arbiter/eval`: the evaluation suites behind `arbiter eval <suite>`: each reads benchmark data or
// recorded outputs (streaming), optionally grades live, and returns one EvalReport. The list is
// ./suites/index.ts (one module per suite); importing this entry loads every suite (SUITES), while
// loadSuite(name) loads one.
import type { Suite } from './suites/common.js';
import { loadSuites } from './suites/index.js';

/** Every suite, as each declares itself. */
export const SUITES: Suite[] = await loadSuites();

export { loadSuite, loadSuites, SUITE_NAMES } from './suites/index.js';
export { SHARED_OPTIONS } from './suites/common.js';
export type { SharedOption, Suite, SuiteOption, SuiteOptions } from './suites/common.js';
export type { EvalReport } from './report.js';
