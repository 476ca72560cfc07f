// `arbiter eval calibration`: expected calibration error (equal-width bins), maximum calibration
// error, Brier score and the reliability diagram of a grader's scores read as probabilities against
// the labels. Samples are read by ./labelled.ts.
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, type Suite, type SuiteOptions } from './common.js';
import { graded, LABELLED_OPTIONS, LABELLED_TAKES } from './labelled.js';

async function runCalibration(opts: SuiteOptions): Promise<EvalReport> {
  const problems = new Problems();
  const bins = Number(opts.extra.bins ?? 10);
  if (!Number.isInteger(bins) || bins < 1 || bins > 1000) throw new EvalUsageError('--bins must be an integer from 1 to 1000');
  const range = String(opts.extra.range ?? '0,1')
    .split(',')
    .map(Number);
  if (range.length !== 2 || !range.every(Number.isFinite) || range[0]! >= range[1]!)
    throw new EvalUsageError('--range must be LO,HI with LO < HI (the score range mapped onto probabilities 0..1)');
  const [lo, hi] = range as [number, number];
  const count = new Array<number>(bins).fill(0);
  const conf = new Array<number>(bins).fill(0);
  const hits = new Array<number>(bins).fill(0);
  let n = 0;
  let brier = 0;
  let invalid = 0;
  const worst = new WorstCases<(string | number | null)[]>(opts.maxCases);
  for await (const g of graded('calibration', opts, problems, 'calibration')) {
    if (g.score === null) {
      invalid++;
      continue;
    }
    const prob = (g.score - lo) / (hi - lo);
    if (!(prob >= 0 && prob <= 1)) {
      problems.add(g.where, `score ${g.score} is outside the range [${lo}, ${hi}] (--range)`);
      continue;
    }
    const b = Math.min(bins - 1, Math.floor(prob * bins));
    const y = g.label ? 1 : 0;
    count[b]!++;
    conf[b]! += prob;
    hits[b]! += y;
    n++;
    brier += (prob - y) ** 2;
    // a mistake: the score is on the wrong side of the range's midpoint (a score at the midpoint is no call)
    if (Math.abs(prob - y) > 0.5) worst.add(Math.abs(prob - y), () => [g.where, String(g.label), g.score, clip(g.reason, 400)]);
  }
  const reliability = count.map((c, b) => ({
    bin: b,
    lower: b / bins,
    upper: (b + 1) / bins,
    n: c,
    confidence: c ? conf[b]! / c : null,
    accuracy: c ? hits[b]! / c : null,
  }));
  let ece = 0;
  let mce = 0;
  for (const x of reliability) {
    if (!x.n) continue;
    const gap = Math.abs(x.accuracy! - x.confidence!);
    ece += (x.n / n) * gap;
    mce = Math.max(mce, gap);
  }
  const r = newReport('calibration', `Calibration: ${opts.graderFile ?? opts.recorded ?? 'scores in the data'}`, {
    files: opts.files,
    grader: opts.graderFile,
    recorded: opts.recorded,
    bins,
    range: [lo, hi],
  });
  r.metrics = { ece: n ? ece : null, mce: n ? mce : null, brier: n ? brier / n : null, n, invalid, bins, reliability };
  r.headline = [
    { key: 'ece', label: 'Expected calibration error', value: n ? ece : null, digits: 4, unit: '' },
    { key: 'mce', label: 'Maximum calibration error', value: n ? mce : null, digits: 4, unit: '' },
    { key: 'brier', label: 'Brier score', value: n ? brier / n : null, digits: 4, unit: '' },
    { key: 'n', label: 'Samples', value: n, digits: 0, unit: '' },
  ];
  r.plots.push({
    kind: 'lines',
    id: 'reliability',
    title: 'Reliability diagram (accuracy against mean score, per bin)',
    x_label: 'mean score in bin',
    y_label: 'fraction correct',
    diagonal: true,
    series: [{ name: 'grader', points: reliability.filter((x) => x.n).map((x) => ({ x: x.confidence!, y: x.accuracy!, n: x.n })) }],
  });
  r.plots.push({
    kind: 'bars',
    id: 'bins',
    title: 'Samples per score bin',
    y_label: 'samples',
    data: reliability.map((x) => ({ label: `${x.lower.toFixed(2)}-${x.upper.toFixed(2)}`, value: x.n })),
  });
  r.tables.push({
    id: 'worst',
    title: 'Most confident mistakes (score on the wrong side of the midpoint)',
    columns: ['where', 'label', 'score', 'reason'],
    rows: worst.rows(),
    total: worst.total,
  });
  r.counts = { records: n + invalid + problems.count, skipped: problems.count, invalid };
  r.problems = problems.list;
  r.notes.push(
    `ECE = sum over ${bins} equal-width bins of (bin size / N) * |fraction correct - mean score|; the last bin includes 1. Scores are mapped from [${lo}, ${hi}] to [0, 1]; ungradeable samples are left out and counted.`,
  );
  return r;
}

export const suite: Suite = {
  name: 'calibration',
  summary: "expected calibration error, Brier score and the reliability diagram of a grader's scores against labels",
  args: '[file]',
  example: 'arbiter eval calibration samples.jsonl --grader judge.json --bins 10',
  takes: LABELLED_TAKES,
  options: [
    ...LABELLED_OPTIONS,
    { flags: '--bins <n>', description: 'equal-width bins (default 10)', key: 'bins', parse: 'number' },
    { flags: '--range <lo,hi>', description: 'score range mapped onto probabilities (default 0,1)', key: 'range' },
  ],
  run: runCalibration,
};
