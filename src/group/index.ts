// Group rewards: advantage estimators, group grading, and reward-hacking monitors (the public API).
export { ESTIMATORS, parseAdvantageConfig, loadAdvantageConfigFile } from './config.js';
export type { AdvantageConfig, EstimatorName } from './config.js';
export { computeAdvantages, advantageFile } from './advantages.js';
export type { AdvantageSummary } from './advantages.js';
export { gradeGroup, gradeGroupReport } from './group-grade.js';
export { parseMonitorConfig, loadMonitorConfigFile } from './monitor-config.js';
export type { MonitorConfig } from './monitor-config.js';
export { RewardPipeline } from './pipeline.js';
export type { PipelineOptions, PipelineSummary } from './pipeline.js';
export type { GradeGroupOptions, GroupResult } from './group-grade.js';
export { computeMonitors, formatMonitors, toPoint, MonitorWindow, DEFAULT_THRESHOLDS } from './monitors.js';
export type { MonitorPoint, MonitorReport, MonitorOptions, MonitorThresholds } from './monitors.js';
export type { MaskReason } from './rows.js';
export { selectFile, pairsFile } from './selection-file.js';
export type { SelectionFileOptions, SelectionSummary } from './selection-file.js';
export type { SelectOptions, PairOptions, TieRule, PairPick } from './selection.js';
