// The evaluation suites behind `arbiter eval <suite>`: each reads benchmark data or recorded
// outputs (streaming), optionally grades live, and returns one EvalReport.
// Suites load on first use, so `arbiter --help` stays fast.
import type { EvalReport } from './report.js';
import type { SuiteOptions } from './suites/common.js';

const runJudgeBench = async (o: SuiteOptions) => (await import('./suites/judgebench.js')).runJudgeBench(o);
const runLlmbar = async (o: SuiteOptions) => (await import('./suites/llmbar.js')).runLlmbar(o);
const runRmBench = async (o: SuiteOptions) => (await import('./suites/rmbench.js')).runRmBench(o);
const runPreference = async (o: SuiteOptions) => (await import('./suites/preference.js')).runPreference(o);
const runAgreement = async (o: SuiteOptions) => (await import('./suites/labelled.js')).runAgreement(o);
const runCalibration = async (o: SuiteOptions) => (await import('./suites/labelled.js')).runCalibration(o);
const runPrmbench = async (o: SuiteOptions) => (await import('./suites/prmbench.js')).runPrmbench(o);
const runBon = async (o: SuiteOptions) => (await import('./suites/labelled.js')).runBon(o);

export interface SuiteOption {
  flags: string;
  description: string;
  /** Key in SuiteOptions.extra. */
  key: string;
  parse?: 'number';
}

export interface Suite {
  name: string;
  summary: string;
  args: string;
  example: string;
  /** Re-scores a previous run's records file with --recorded (suites whose inputs are not already recorded outputs). */
  recorded?: boolean;
  options: SuiteOption[];
  /** Takes --second (a second grader). */
  second?: boolean;
  run(opts: SuiteOptions): Promise<EvalReport>;
}

const labelled: SuiteOption[] = [
  {
    flags: '--format <f>',
    description: 'gsm8k (example_model_solutions.jsonl), math500 (test.jsonl) or samples ({item, output_text, label}); default from the file name',
    key: 'format',
  },
  { flags: '--label <path>', description: 'where the correct/incorrect label is in a samples record (default "label")', key: 'label' },
  { flags: '--score-field <path>', description: 'use the score already in each record at this path instead of grading', key: 'scoreField' },
  { flags: '--threshold <x>', description: 'pass when score >= x (when the grader has no pass_threshold; default 0.5)', key: 'threshold', parse: 'number' },
];

export const SUITES: Suite[] = [
  {
    name: 'prmbench',
    summary: "PRMBench's step metrics (f1, negative_f1, PRMScore; overall and per error class) for a step-reward --grader (e.g. type prm)",
    args: '<files...>',
    example: 'arbiter eval prmbench prmbench/prm800k_test_p1_4o_circular.jsonl --grader examples/prm/prmbench-labels.json --json prm.json',
    options: [
      { flags: '--threshold <x>', description: 'a step is predicted correct when its score is above x (default 0.5)', key: 'threshold', parse: 'number' },
    ],
    run: runPrmbench,
  },
  {
    name: 'judgebench',
    summary:
      "JudgeBench's pair metric per category (knowledge, reasoning, math, coding) and overall; re-scores an outputs file, or judges a pairs file with --grader",
    args: '<file>',
    example:
      'arbiter eval judgebench "judgebench/outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl" --html jb.html',
    options: [],
    run: runJudgeBench,
  },
  {
    name: 'llmbar',
    summary:
      "LLMBar's statistics (accuracy per order, both-correct, positional agreement, Cohen's kappa) from result.json files, or live on dataset.json with --grader",
    args: '<files...>',
    example: 'arbiter eval llmbar llmbar/Natural/evaluators/GPT-4/Vanilla/result.json --json out.json',
    options: [],
    run: runLlmbar,
  },
  {
    name: 'rm-bench',
    summary:
      "RM-Bench's 3x3 style-substance matrix and hard/normal/easy accuracy: re-scores result files (score_chosen/score_rejected) or grades the data files with a pointwise --grader",
    args: '<files...>',
    example: 'arbiter eval rm-bench rm-bench/chat_filtered.json --grader rm.json --html rm.html',
    options: [],
    run: runRmBench,
  },
  {
    name: 'preference',
    recorded: true,
    summary:
      'accuracy of a pairwise (both orders) or pointwise grader on chosen/rejected pairs: HH-RLHF, LLMBar, JudgeBench or {question, chosen, rejected} JSONL',
    args: '[file]',
    example: 'arbiter eval preference hh-rlhf/harmless-base-test.jsonl.gz --grader judge.json --records run.jsonl --resume',
    options: [{ flags: '--format <f>', description: 'hh-rlhf, llmbar, judgebench or pairs (default: detected from the first record)', key: 'format' }],
    run: runPreference,
  },
  {
    name: 'agreement',
    recorded: true,
    summary: 'a verifier against labels (GSM8K is_correct, MATH-500): confusion matrix, FP/FN with reasons, kappa, and agreement with --second',
    args: '[file]',
    example: 'arbiter eval agreement gsm8k/example_model_solutions.jsonl --grader examples/arithmetic/grader.json --html agree.html',
    options: labelled,
    second: true,
    run: runAgreement,
  },
  {
    name: 'calibration',
    recorded: true,
    summary: "expected calibration error, Brier score and the reliability diagram of a grader's scores against labels",
    args: '[file]',
    example: 'arbiter eval calibration samples.jsonl --grader judge.json --bins 10',
    options: [
      ...labelled,
      { flags: '--bins <n>', description: 'equal-width bins (default 10)', key: 'bins', parse: 'number' },
      { flags: '--range <lo,hi>', description: 'score range mapped onto probabilities (default 0,1)', key: 'range' },
    ],
    run: runCalibration,
  },
  {
    name: 'bon',
    recorded: true,
    summary: 'best-of-N: expected accuracy of the top-scored candidate among N against N, with the oracle and a random pick',
    args: '[file]',
    example: 'arbiter eval bon gsm8k/example_model_solutions.jsonl --grader rm.json --html bon.html',
    options: [
      ...labelled,
      { flags: '--group <path>', description: 'the field grouping candidates of one prompt (consecutive lines; default "group")', key: 'group' },
      { flags: '--max-n <n>', description: 'largest N on the curve (default 64)', key: 'maxN', parse: 'number' },
    ],
    run: runBon,
  },
];

export type { EvalReport } from './report.js';
export type { SuiteOptions } from './suites/common.js';
