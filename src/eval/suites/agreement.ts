// `arbiter eval agreement`: a verifier against the labels: confusion matrix, accuracy, precision,
// recall, F1, Cohen's kappa, the false positives and negatives with their reasons, and agreement
// with a second grader (--second). Samples are read by ./labelled.ts.
import { cohenKappa, PairCounts } from '../numeric.js';
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { WorstCases } from '../worst.js';
import { ratio, type Suite, type SuiteOptions } from './common.js';
import { graded, LABELLED_OPTIONS, LABELLED_TAKES, THRESHOLD_OPTION } from './labelled.js';

class Confusion {
  tp = 0;
  fp = 0;
  tn = 0;
  fn = 0;
  invalid = 0;
  readonly kappa = new PairCounts();
  add(label: boolean, passed: boolean | null): void {
    if (passed === null) {
      this.invalid++;
      return;
    }
    if (passed && label) this.tp++;
    else if (passed) this.fp++;
    else if (label) this.fn++;
    else this.tn++;
    this.kappa.add(passed ? 1 : 0, label ? 1 : 0);
  }
  metrics() {
    const n = this.tp + this.fp + this.tn + this.fn;
    const precision = ratio(this.tp, this.tp + this.fp);
    const recall = ratio(this.tp, this.tp + this.fn);
    const k = cohenKappa(this.kappa);
    return {
      n,
      tp: this.tp,
      fp: this.fp,
      tn: this.tn,
      fn: this.fn,
      invalid: this.invalid,
      accuracy: ratio(this.tp + this.tn, n),
      precision,
      recall,
      f1: precision !== null && recall !== null && precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : null,
      false_positive_rate: ratio(this.fp, this.fp + this.tn),
      false_negative_rate: ratio(this.fn, this.fn + this.tp),
      kappa: Number.isFinite(k) ? k : null,
    };
  }
}

async function runAgreement(opts: SuiteOptions): Promise<EvalReport> {
  const problems = new Problems();
  const main = new Confusion();
  const sec = new Confusion();
  let hasSecond = false;
  const between = new PairCounts();
  let same = 0;
  let both = 0;
  const fps = new WorstCases<(string | number | null)[]>(opts.maxCases);
  const fns = new WorstCases<(string | number | null)[]>(opts.maxCases);
  const invalid = new WorstCases<(string | number | null)[]>(opts.maxCases);
  const disagree = new WorstCases<(string | number | null)[]>(opts.maxCases);
  for await (const g of graded('agreement', opts, problems, 'agreement')) {
    main.add(g.label, g.passed);
    const row = (): (string | number | null)[] => [g.where, g.score, clip(g.reason, 400), clip(g.output, 200)];
    if (g.passed === null) invalid.add(1, row);
    else if (g.passed && !g.label) fps.add(g.score ?? 0, row);
    else if (!g.passed && g.label) fns.add(-(g.score ?? 0), row);
    if (g.second) {
      hasSecond = true;
      sec.add(g.label, g.second.passed);
      if (g.passed !== null && g.second.passed !== null) {
        both++;
        between.add(g.passed ? 1 : 0, g.second.passed ? 1 : 0);
        if (g.passed === g.second.passed) same++;
        else
          disagree.add(1, () => [
            g.where,
            String(g.label),
            `${g.passed ? 'pass' : 'fail'} (${g.score})`,
            `${g.second!.passed ? 'pass' : 'fail'} (${g.second!.score})`,
            clip(g.reason, 250),
            clip(g.second!.reason, 250),
          ]);
      }
    }
  }
  const m = main.metrics();
  const r = newReport('agreement', `Agreement with labels: ${opts.graderFile ?? opts.recorded ?? 'scores in the data'}`, {
    files: opts.files,
    grader: opts.graderFile,
    second: opts.secondFile,
    recorded: opts.recorded,
  });
  const kb = cohenKappa(between);
  r.metrics = {
    ...m,
    ...(hasSecond ? { second: sec.metrics(), between: { n: both, agreement: ratio(same, both), kappa: Number.isFinite(kb) ? kb : null } } : {}),
  };
  const p = (v: number | null) => (v === null ? null : v * 100);
  r.headline = [
    { key: 'accuracy', label: 'Agreement with labels', value: p(m.accuracy), digits: 2, unit: '%' },
    { key: 'precision', label: 'Precision', value: p(m.precision), digits: 2, unit: '%' },
    { key: 'recall', label: 'Recall', value: p(m.recall), digits: 2, unit: '%' },
    { key: 'kappa', label: "Cohen's kappa", value: m.kappa, digits: 4, unit: '' },
    { key: 'fp', label: 'False positives', value: m.fp, digits: 0, unit: '' },
    { key: 'fn', label: 'False negatives', value: m.fn, digits: 0, unit: '' },
    { key: 'invalid', label: 'Ungradeable', value: m.invalid, digits: 0, unit: '' },
    ...(hasSecond ? [{ key: 'between.agreement', label: 'Agreement between the graders', value: p(ratio(same, both)), digits: 2, unit: '%' as const }] : []),
  ];
  r.plots.push({
    kind: 'matrix',
    id: 'confusion',
    title: 'Confusion matrix (counts)',
    row_label: 'label',
    col_label: 'grader',
    rows: ['correct', 'incorrect'],
    cols: ['pass', 'fail'],
    values: [
      [m.tp, m.fn],
      [m.fp, m.tn],
    ],
    digits: 0,
  });
  r.plots.push({
    kind: 'bars',
    id: 'rates',
    title: 'Accuracy, precision, recall, F1 (%)',
    y_label: '%',
    max: 100,
    data: [['grader', m] as const, ...(hasSecond ? [['second grader', sec.metrics()] as const] : [])].flatMap(([g, x]) =>
      (['accuracy', 'precision', 'recall', 'f1'] as const).map((k) => ({ label: k, value: (x[k] ?? 0) * 100, group: g })),
    ),
  });
  const cols = ['where', 'score', 'reason', 'output'];
  r.tables.push({ id: 'fp', title: 'False positives (passed, labelled incorrect)', columns: cols, rows: fps.rows(), total: fps.total });
  r.tables.push({ id: 'fn', title: 'False negatives (failed, labelled correct)', columns: cols, rows: fns.rows(), total: fns.total });
  r.tables.push({ id: 'invalid', title: 'Ungradeable samples', columns: cols, rows: invalid.rows(), total: invalid.total });
  if (hasSecond)
    r.tables.push({
      id: 'disagree',
      title: 'Samples the two graders decide differently',
      columns: ['where', 'label', 'grader', 'second grader', 'reason', 'second reason'],
      rows: disagree.rows(),
      total: disagree.total,
    });
  r.counts = { records: m.n + m.invalid + problems.count, skipped: problems.count, invalid: m.invalid };
  r.problems = problems.list;
  r.notes.push(
    `A sample passes when the grader's pass_threshold says so (metadata.passed), else when its score is at least ${Number(opts.extra.threshold ?? 0.5)} (--threshold). Ungradeable samples are counted apart, never as a pass or a fail.`,
  );
  return r;
}

export const suite: Suite = {
  name: 'agreement',
  summary: 'a verifier against labels (GSM8K is_correct, MATH-500): confusion matrix, FP/FN with reasons, kappa, and agreement with --second',
  args: '[file]',
  example: 'arbiter eval agreement gsm8k/example_model_solutions.jsonl --grader examples/arithmetic/grader.json --html agree.html',
  takes: [...LABELLED_TAKES, 'second'],
  options: [...LABELLED_OPTIONS, THRESHOLD_OPTION],
  run: runAgreement,
};
