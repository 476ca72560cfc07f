// Suites over labelled samples (one graded output, a correct/incorrect label):
//   agreement   — a verifier against the labels: confusion matrix, accuracy, precision, recall, F1,
//                 Cohen's kappa, the false positives and negatives with their reasons, and
//                 agreement with a second grader;
//   calibration — expected calibration error (equal-width bins), maximum calibration error, Brier
//                 score and the reliability diagram of a grader's scores read as probabilities;
//   bon         — best-of-N: for each N, the expected accuracy of the candidate the grader ranks
//                 first among N drawn at random from a prompt's candidates (ties broken at random),
//                 against the oracle (any of the N correct) and a random pick.
// Data: GSM8K's example_model_solutions.jsonl (4 solutions a problem, `is_correct`), MATH-500
// test.jsonl (each reference solution, labelled correct), or JSONL/JSON {id?, item, sample |
// output_text, label, group?}. Scores come from a live grader, a previous run's records
// (--recorded), or a score already in the data (--score-field).
import { cohenKappa, PairCounts } from '../numeric.js';
import { getPath, openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { gradeOne, runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, progressFor, ratio, runOptions, str, type SuiteOptions } from './common.js';
import { recordedRecords } from './preference.js';

export interface LabelledSample {
  key: string;
  where: string;
  group: string;
  item: Record<string, unknown>;
  output: string;
  label: boolean;
  /** A score already in the data (--score-field). */
  score?: number | null;
}

export function asLabel(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (['true', 'yes', 'correct', '1'].includes(t)) return true;
    if (['false', 'no', 'incorrect', '0'].includes(t)) return false;
  }
  return undefined;
}

const GSM8K_MODELS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];

/** The final answer of a GSM8K example solution ("… A: 18"). */
function afterA(s: string): string {
  const i = s.lastIndexOf('A:');
  return (i < 0 ? s : s.slice(i + 2)).trim();
}

async function* samplesOf(file: string, opts: SuiteOptions, problems: Problems, src: Awaited<ReturnType<typeof openRecords>>): AsyncGenerator<LabelledSample> {
  const format = (opts.extra.format as string | undefined) ?? (/example_model_solutions/.test(file) ? 'gsm8k' : /math500/.test(file) ? 'math500' : 'samples');
  const labelPath = (opts.extra.label as string | undefined) ?? 'label';
  const groupPath = opts.extra.group as string | undefined;
  const scorePath = opts.extra.scoreField as string | undefined;
  for await (const r of src.records()) {
    if ('error' in r) {
      problems.add(r.where, r.error);
      continue;
    }
    const v = r.value;
    if (format === 'gsm8k') {
      const question = str(v.question);
      const gt = str(v.ground_truth);
      if (question === undefined || gt === undefined) {
        problems.add(r.where, 'a GSM8K example-solutions row needs "question" and "ground_truth"');
        continue;
      }
      for (const m of GSM8K_MODELS) {
        const s = v[m] as { is_correct?: unknown; solution?: unknown } | undefined;
        if (!s) continue;
        const label = asLabel(s.is_correct);
        if (label === undefined || typeof s.solution !== 'string') {
          problems.add(`${r.where} ${m}`, 'needs "solution" (string) and "is_correct" (boolean)');
          continue;
        }
        yield {
          key: `${r.index}:${m}`,
          where: `${r.where} ${m}`,
          group: String(r.index),
          item: { question, ground_truth: gt, answer: afterA(gt), model: m },
          output: s.solution,
          label,
        };
      }
      continue;
    }
    if (format === 'math500') {
      const question = str(v.question);
      const sol = str(v.answer);
      if (question === undefined || sol === undefined) {
        problems.add(r.where, 'a MATH-500 row needs "question" and "answer"');
        continue;
      }
      const final = sol.includes('The answer is:') ? sol.slice(sol.lastIndexOf('The answer is:') + 'The answer is:'.length).trim() : sol;
      yield { key: String(r.index), where: r.where, group: String(r.index), item: { question, answer: final, solution: sol }, output: sol, label: true };
      continue;
    }
    const output = str((v.sample as { output_text?: unknown } | undefined)?.output_text) ?? str(v.output_text) ?? str(v.output);
    const label = asLabel(getPath(v, labelPath));
    if (output === undefined || label === undefined) {
      problems.add(r.where, `needs the output ("sample.output_text", "output_text" or "output") and a label at "${labelPath}" (boolean or 0/1)`);
      continue;
    }
    const item = (v.item && typeof v.item === 'object' ? v.item : v) as Record<string, unknown>;
    const group = groupPath ? String(getPath(v, groupPath) ?? r.index) : String(v.group ?? v.prompt_id ?? r.index);
    const s: LabelledSample = { key: String(r.index), where: r.where, group, item, output, label };
    if (scorePath) {
      const sc = getPath(v, scorePath);
      s.score = typeof sc === 'number' && Number.isFinite(sc) ? sc : null;
    }
    yield s;
  }
}

interface Graded {
  where: string;
  group: string;
  label: boolean;
  score: number | null;
  passed: boolean | null;
  reason: string;
  output?: string;
  second?: { score: number | null; passed: boolean | null; reason: string };
}

function passOf(r: { valid: boolean; score: number | null; metadata?: Record<string, unknown> }, threshold: number): boolean | null {
  if (!r.valid || r.score === null) return null;
  if (typeof r.metadata?.passed === 'boolean') return r.metadata.passed;
  return r.score >= threshold;
}

/** Streams graded samples: live, from a records file, or from scores in the data. */
async function* graded(suite: string, opts: SuiteOptions, problems: Problems, progressLabel: string): AsyncGenerator<Graded> {
  const threshold = Number(opts.extra.threshold ?? 0.5);
  if (opts.recorded) {
    const progress = progressFor(progressLabel, opts);
    for await (const o of recordedRecords(opts.recorded, problems, progress)) {
      if (typeof o.label !== 'boolean' || !('score' in o)) problems.add(str(o.where) ?? '?', `not a ${suite} record (needs "label" and "score")`);
      else yield o as unknown as Graded;
    }
    progress.done();
    return;
  }
  if (opts.files.length !== 1) throw new EvalUsageError(`${suite} takes one data file`);
  const file = opts.files[0]!;
  const src = await openRecords(file);
  const progress = progressFor(progressLabel, opts, src);
  const grader = opts.grader;
  const second = opts.second;
  if (!grader) {
    if (!opts.extra.scoreField)
      throw new EvalUsageError(`${suite} needs scores: --grader G.json (live), --recorded RECORDS.jsonl, or --score-field PATH (scores in the data)`);
    for await (const s of samplesOf(file, opts, problems, src)) {
      progress.tick();
      yield {
        where: s.where,
        group: s.group,
        label: s.label,
        score: s.score ?? null,
        passed: s.score === null || s.score === undefined ? null : s.score >= threshold,
        reason: s.score === null ? `no finite number at "${opts.extra.scoreField}"` : 'score from the data',
      };
    }
    progress.done();
    return;
  }
  const keep = suite === 'agreement';
  const work = async (s: LabelledSample): Promise<Record<string, unknown>> => {
    const [r, r2] = await Promise.all([
      gradeOne(grader, opts.services!, s.item, s.output),
      second ? gradeOne(second, opts.services!, s.item, s.output) : undefined,
    ]);
    const why = (x: typeof r) => (x.valid ? (x.reason ?? '') : `${x.error?.kind}: ${x.error?.message}`);
    return {
      where: s.where,
      group: s.group,
      label: s.label,
      score: r.valid ? r.score : null,
      passed: passOf(r, threshold),
      reason: clip(why(r), 1000),
      ...(keep ? { output: clip(s.output, 600) } : {}),
      ...(r2 ? { second: { score: r2.valid ? r2.score : null, passed: passOf(r2, threshold), reason: clip(why(r2), 1000) } } : {}),
    };
  };
  for await (const o of runUnits(samplesOf(file, opts, problems, src), work, runOptions(opts, progress))) yield o as unknown as Graded;
  progress.done();
}

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

export async function runAgreement(opts: SuiteOptions): Promise<EvalReport> {
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

export async function runCalibration(opts: SuiteOptions): Promise<EvalReport> {
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
    worst.add(Math.abs(prob - y), () => [g.where, String(g.label), g.score, clip(g.reason, 400)]);
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
  r.tables.push({ id: 'worst', title: 'Most confident mistakes', columns: ['where', 'label', 'score', 'reason'], rows: worst.rows(), total: worst.total });
  r.counts = { records: n + invalid + problems.count, skipped: problems.count, invalid };
  r.problems = problems.list;
  r.notes.push(
    `ECE = sum over ${bins} equal-width bins of (bin size / N) * |fraction correct - mean score|; the last bin includes 1. Scores are mapped from [${lo}, ${hi}] to [0, 1]; ungradeable samples are left out and counted.`,
  );
  return r;
}

/** P(a random n-subset of N lies inside a given set of size a). */
function inside(a: number, n: number, N: number): number {
  if (a < n) return 0;
  let p = 1;
  for (let i = 0; i < n; i++) p *= (a - i) / (N - i);
  return p;
}

/** Expected correctness of the top-scored candidate among n drawn from the group (ties at random). */
export function bestOfN(cands: { score: number; correct: boolean }[], n: number): { pick: number; oracle: number } {
  const N = cands.length;
  const sorted = [...cands].sort((x, y) => y.score - x.score);
  let pick = 0;
  let above = 0;
  for (let i = 0; i < N; ) {
    let j = i;
    let c = 0;
    while (j < N && sorted[j]!.score === sorted[i]!.score) c += sorted[j++]!.correct ? 1 : 0;
    const size = j - i;
    const pMax = inside(N - above, n, N) - inside(N - above - size, n, N);
    pick += pMax * (c / size);
    above += size;
    i = j;
  }
  const correct = cands.filter((x) => x.correct).length;
  return { pick, oracle: 1 - inside(N - correct, n, N) };
}

export async function runBon(opts: SuiteOptions): Promise<EvalReport> {
  const problems = new Problems();
  const maxN = Number(opts.extra.maxN ?? 64);
  const sumPick: number[] = [];
  const sumOracle: number[] = [];
  const groupsAt: number[] = [];
  let groups = 0;
  let invalid = 0;
  let cur: { group: string; cands: { score: number; correct: boolean; where: string; reason: string }[] } | undefined;
  const seen = new Set<string>();
  const worst = new WorstCases<(string | number | null)[]>(opts.maxCases);
  const flush = () => {
    if (!cur?.cands.length) return;
    groups++;
    const N = Math.min(cur.cands.length, maxN);
    for (let n = 1; n <= N; n++) {
      const b = bestOfN(cur.cands, n);
      sumPick[n - 1] = (sumPick[n - 1] ?? 0) + b.pick;
      sumOracle[n - 1] = (sumOracle[n - 1] ?? 0) + b.oracle;
      groupsAt[n - 1] = (groupsAt[n - 1] ?? 0) + 1;
    }
    const full = bestOfN(cur.cands, cur.cands.length);
    if (full.oracle > full.pick) {
      const top = [...cur.cands].sort((x, y) => y.score - x.score)[0]!;
      worst.add(full.oracle - full.pick, () => [
        cur!.group,
        cur!.cands.length,
        cur!.cands.filter((c) => c.correct).length,
        top.score,
        String(top.correct),
        clip(top.reason, 300),
      ]);
    }
  };
  for await (const g of graded('bon', opts, problems, 'bon')) {
    if (!cur || cur.group !== g.group) {
      flush();
      if (seen.has(g.group))
        problems.add(
          g.where,
          `group "${g.group}" appears again after other groups: a group's candidates must be consecutive (its earlier candidates were scored as their own group)`,
        );
      seen.add(g.group);
      cur = { group: g.group, cands: [] };
    }
    if (g.score === null) {
      invalid++;
      continue;
    }
    cur.cands.push({ score: g.score, correct: g.label, where: g.where, reason: g.reason });
  }
  flush();
  const ns = sumPick.map((_, i) => i + 1);
  const at = (arr: number[]) => Object.fromEntries(ns.map((n) => [String(n), arr[n - 1]! / groupsAt[n - 1]!]));
  const r = newReport('bon', `Best-of-N: ${opts.graderFile ?? opts.recorded ?? 'scores in the data'}`, {
    files: opts.files,
    grader: opts.graderFile,
    recorded: opts.recorded,
  });
  r.metrics = {
    accuracy_at_n: at(sumPick),
    oracle_at_n: at(sumOracle),
    random: ns.length ? sumPick[0]! / groupsAt[0]! : null,
    groups,
    groups_at_n: Object.fromEntries(ns.map((n) => [String(n), groupsAt[n - 1]])),
    invalid,
  };
  const last = ns.length;
  const p = (v: number | undefined) => (v === undefined ? null : v * 100);
  r.headline = [
    {
      key: `accuracy_at_n.${last}`,
      label: `Accuracy of the pick at N=${last}`,
      value: last ? p(sumPick[last - 1]! / groupsAt[last - 1]!) : null,
      digits: 2,
      unit: '%',
    },
    { key: 'random', label: 'Random pick (N=1)', value: last ? p(sumPick[0]! / groupsAt[0]!) : null, digits: 2, unit: '%' },
    {
      key: `oracle_at_n.${last}`,
      label: `Oracle at N=${last} (any correct)`,
      value: last ? p(sumOracle[last - 1]! / groupsAt[last - 1]!) : null,
      digits: 2,
      unit: '%',
    },
    { key: 'groups', label: 'Prompts', value: groups, digits: 0, unit: '' },
  ];
  r.plots.push({
    kind: 'lines',
    id: 'bon',
    title: 'Best-of-N accuracy against N',
    x_label: 'N',
    y_label: 'fraction correct',
    series: [
      { name: 'grader pick', points: ns.map((n) => ({ x: n, y: sumPick[n - 1]! / groupsAt[n - 1]! })) },
      { name: 'oracle (any correct)', points: ns.map((n) => ({ x: n, y: sumOracle[n - 1]! / groupsAt[n - 1]! })) },
      { name: 'random pick', points: ns.map((n) => ({ x: n, y: sumPick[0]! / groupsAt[0]! })) },
    ],
  });
  r.tables.push({
    id: 'worst',
    title: 'Prompts where the pick misses a correct candidate',
    columns: ['group', 'candidates', 'correct', 'top score', 'top correct', 'top reason'],
    rows: worst.rows(),
    total: worst.total,
  });
  r.counts = { records: groups + problems.count, skipped: problems.count, invalid };
  r.problems = problems.list;
  r.notes.push(
    "Accuracy at N is the expectation over all N-subsets of a prompt's candidates (drawn uniformly, ties in score broken uniformly), averaged over prompts with at least N candidates; ungradeable candidates are left out of their prompt and counted.",
  );
  return r;
}
