// `arbiter eval prmbench FILES... --grader PRM.json`: PRMBench's step metrics (f1, negative_f1,
// PRMScore, overall and per error class) for a step-reward grader, as an EvalReport. The metric
// arithmetic and PRMBench's loader (originals of redundancy items added) live in ../prm.ts.
import { prmbenchEval } from '../prm.js';
import { newReport, type EvalReport } from '../report.js';
import { EvalUsageError, type Suite, type SuiteOptions } from './common.js';

export async function runPrmbench(opts: SuiteOptions): Promise<EvalReport> {
  if (!opts.grader) throw new EvalUsageError('prmbench grades live: give --grader PRM.json (a grader that returns steps, e.g. type prm)');
  const threshold = typeof opts.extra.threshold === 'number' ? opts.extra.threshold : 0.5;
  const r = await prmbenchEval({
    files: opts.files,
    grader: opts.grader,
    ...(opts.services ? { services: opts.services } : {}),
    concurrency: opts.concurrency,
    threshold,
  });
  const report = newReport('prmbench', 'PRMBench step rewards', { files: opts.files, grader: opts.graderFile ?? r.grader, threshold });
  const { benchmark: _b, grader: _g, files: _f, ...metrics } = r;
  report.metrics = metrics;
  report.headline = [
    { key: 'overall.PRMScore', label: 'PRMScore', value: r.overall.PRMScore, digits: 4 },
    { key: 'overall.f1', label: 'F1 (correct steps)', value: r.overall.f1, digits: 4 },
    { key: 'overall.negative_f1', label: 'negative F1 (error steps)', value: r.overall.negative_f1, digits: 4 },
    { key: 'validity_rate', label: 'valid grades', value: r.validity_rate, digits: 4 },
  ];
  if (opts.published !== undefined) report.headline[0]!.published = opts.published;
  report.plots.push({
    kind: 'bars',
    id: 'classes',
    title: 'PRMScore per error class',
    y_label: 'PRMScore',
    max: 1,
    data: Object.entries(r.classes).map(([label, s]) => ({ label, value: s.PRMScore })),
  });
  report.counts = { records: r.records, skipped: 0, invalid: r.invalid };
  report.problems = r.invalid_examples.map((e) => `${e.idx}: ${e.kind}: ${e.message}`);
  report.notes.push(`a step is predicted correct when its score is above ${threshold}; invalid grades are left out of the metrics and counted`);
  return report;
}

export const suite: Suite = {
  name: 'prmbench',
  summary: "PRMBench's step metrics (f1, negative_f1, PRMScore; overall and per error class) for a step-reward --grader (e.g. type prm)",
  args: '<files...>',
  example: 'arbiter eval prmbench prmbench/prm800k_test_p1_4o_circular.jsonl --grader examples/prm/prmbench-labels.json --json prm.json',
  takes: ['concurrency'],
  options: [
    { flags: '--threshold <x>', description: 'a step is predicted correct when its score is above x (default 0.5)', key: 'threshold', parse: 'number' },
  ],
  run: runPrmbench,
};
