// Group rewards: advantage estimators, group grading, and reward-hacking monitors (the public API).
export { ESTIMATORS, parseAdvantageConfig, loadAdvantageConfigFile, isAdvantageConfig } from './config.js';
export type { AdvantageConfig, EstimatorName } from './config.js';
export { computeAdvantages, advantageFile, formatAdvantageSummary } from './advantages.js';
export type { AdvantageFileOptions, AdvantageSummary } from './advantages.js';
export { AdvantageEngine, lineEngine, recordEngine } from './stream.js';
export type { AdvantageCounts } from './stream.js';
export { gradeGroup } from './group-grade.js';
export type { GradeGroupOptions, GroupResult } from './group-grade.js';
export { computeMonitors, formatMonitors, toPoint, MonitorWindow, DEFAULT_THRESHOLDS, JUDGE_ADDRESS_PATTERNS, addressesJudge, repetitionRate } from './monitors.js';
export type { MonitorPoint, MonitorReport, MonitorOptions, MonitorThresholds, PointOptions } from './monitors.js';
export type { MaskReason } from './rows.js';
