// PRMBench (ssmisya/PRMBench, task prmtest_classified): its loader and its step-level metrics, as
// pure functions. The loader turns each data row into one record per (classification, idx) and adds
// the unmodified original solution, once per idx, as a "correct" record for every row of the
// redundancy class; the metrics count a step as predicted correct when its score is above the
// threshold (0.5) and compute F1 on correct steps, negative F1 on error steps and PRMScore (their
// mean), overall (erroneous classes only, as PRMBench does) and per class.

/** One record to grade, as PRMBench's loader builds it. */
export interface PrmbenchRecord {
  /** `${classification}_${row idx}`, or `correct_${row idx}` for an added original. */
  idx: string;
  question: string;
  steps: string[];
  /** Wrong steps, numbered from 1 (empty for originals and multi_solutions). */
  error_steps: number[];
  classification: string;
}

/** The class PRMBench adds originals for, and the name it gives them. */
export const ORIGINALS_FROM = 'redundency';
export const CORRECT_CLASS = 'correct';

function strings(v: unknown, what: string): string[] {
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new TypeError(`${what} must be a list of strings`);
  return v as string[];
}

function stepNumbers(v: unknown, what: string): number[] {
  if (!Array.isArray(v) || !v.every((k) => Number.isInteger(k))) throw new TypeError(`${what} must be a list of integers`);
  return v as number[];
}

/**
 * PRMBench's load_data_function over parsed rows (in file order): for a row of the redundancy class
 * it first adds `correct_<idx>` (original question and process, no error steps) unless already
 * added; then `<classification>_<idx>` (modified question and process) unless already added. A row
 * that lacks a field it needs throws a TypeError naming the row.
 */
export function prmbenchRecords(rows: readonly unknown[]): PrmbenchRecord[] {
  const out: PrmbenchRecord[] = [];
  const seen = new Set<string>();
  rows.forEach((raw, n) => {
    const r = raw as Record<string, unknown>;
    const where = `PRMBench row ${n + 1}${typeof r?.idx === 'string' ? ` (${r.idx})` : ''}`;
    if (!r || typeof r !== 'object') throw new TypeError(`${where} is not an object`);
    if (typeof r.idx !== 'string' || typeof r.classification !== 'string' || typeof r.modified_question !== 'string') {
      throw new TypeError(`${where} lacks "idx", "classification" or "modified_question"`);
    }
    if (r.classification === ORIGINALS_FROM) {
      const cid = `${CORRECT_CLASS}_${r.idx}`;
      if (!seen.has(cid)) {
        if (typeof r.original_question !== 'string') throw new TypeError(`${where} lacks "original_question"`);
        out.push({
          idx: cid,
          question: r.original_question,
          steps: strings(r.original_process, `${where}: original_process`),
          error_steps: [],
          classification: CORRECT_CLASS,
        });
        seen.add(cid);
      }
    }
    const id = `${r.classification}_${r.idx}`;
    if (!seen.has(id)) {
      out.push({
        idx: id,
        question: r.modified_question,
        steps: strings(r.modified_process, `${where}: modified_process`),
        error_steps: stepNumbers(r.error_steps, `${where}: error_steps`),
        classification: r.classification,
      });
      seen.add(id);
    }
  });
  return out;
}

interface Counts {
  TP: number;
  FP: number;
  TN: number;
  FN: number;
}

/** One record's step verdicts against its error steps (PRMBench's eval_on_hallucination_step). */
export interface StepEval {
  counts: Counts;
  correct_step: number[];
  wrong_step: number[];
  total_step: number[];
  first_error: number[];
  /** Fraction of steps predicted correct (-1 when there are none). */
  response_acc: number;
}

/**
 * Positive = a correct step. For each predicted label (in order, as many as were predicted): a step
 * outside `errorSteps` (numbered from 1) is TP when predicted correct, else FN; an error step is FP
 * when predicted correct, else TN. first_error: whether the earliest error step was predicted wrong.
 */
export function evalSteps(errorSteps: readonly number[], labels: readonly boolean[]): StepEval {
  const wrong = new Set(errorSteps.map((k) => k - 1));
  const firstErr = errorSteps.length ? Math.min(...errorSteps) - 1 : -1;
  const c: Counts = { TP: 0, FP: 0, TN: 0, FN: 0 };
  const e: StepEval = { counts: c, correct_step: [], wrong_step: [], total_step: [], first_error: [], response_acc: -1 };
  labels.forEach((ok, i) => {
    if (i === firstErr) e.first_error.push(ok ? 0 : 1);
    if (wrong.has(i)) {
      const hit = ok ? 0 : 1;
      e.wrong_step.push(hit);
      e.total_step.push(hit);
      if (ok) c.FP++;
      else c.TN++;
    } else {
      const hit = ok ? 1 : 0;
      e.correct_step.push(hit);
      e.total_step.push(hit);
      if (ok) c.TP++;
      else c.FN++;
    }
  });
  if (labels.length) e.response_acc = labels.filter(Boolean).length / labels.length;
  return e;
}

/** The scores PRMBench reports for a set of records. Ratios with a zero denominator are -1, as in PRMBench. */
export interface PrmbenchScores {
  f1: number;
  negative_f1: number;
  PRMScore: number;
  precision: number;
  recall: number;
  negative_precision: number;
  negative_recall: number;
  correct_step_acc: number;
  wrong_step_acc: number;
  total_step_acc: number;
  first_error_acc: number;
  similarity: number;
  /** Records graded (valid predictions) and step counts behind the ratios. */
  records: number;
  TP: number;
  FP: number;
  TN: number;
  FN: number;
}

const ratio = (a: number, b: number): number => (b !== 0 ? a / b : -1);
const harmonic = (p: number, r: number): number => (p + r !== 0 ? (2 * p * r) / (p + r) : -1);
const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : -1);

class Acc {
  c: Counts = { TP: 0, FP: 0, TN: 0, FN: 0 };
  correct_step: number[] = [];
  wrong_step: number[] = [];
  total_step: number[] = [];
  first_error: number[] = [];
  similarity: number[] = [];
  records = 0;
  add(e: StepEval): void {
    this.records++;
    this.c.TP += e.counts.TP;
    this.c.FP += e.counts.FP;
    this.c.TN += e.counts.TN;
    this.c.FN += e.counts.FN;
    this.correct_step.push(...e.correct_step);
    this.wrong_step.push(...e.wrong_step);
    this.total_step.push(...e.total_step);
    this.first_error.push(...e.first_error);
  }
  scores(noErrorSteps: boolean): PrmbenchScores {
    const { TP, FP, TN, FN } = this.c;
    const precision = ratio(TP, TP + FP);
    const recall = ratio(TP, TP + FN);
    const negative_precision = ratio(TN, TN + FN);
    const negative_recall = ratio(TN, TN + FP);
    const f1 = harmonic(precision, recall);
    const negative_f1 = harmonic(negative_precision, negative_recall);
    return {
      f1,
      negative_f1,
      // PRMBench's report: a class without error steps (multi_solutions) is scored by its F1 alone
      PRMScore: noErrorSteps ? f1 : 0.5 * f1 + 0.5 * negative_f1,
      precision,
      recall,
      negative_precision,
      negative_recall,
      correct_step_acc: mean(this.correct_step),
      wrong_step_acc: mean(this.wrong_step),
      total_step_acc: mean(this.total_step),
      first_error_acc: mean(this.first_error),
      similarity: mean(this.similarity),
      records: this.records,
      TP,
      FP,
      TN,
      FN,
    };
  }
}

/** Classes PRMBench scores by F1 alone (no error steps), plus the originals it adds. */
export const NO_ERROR_CLASSES: readonly string[] = ['multi_solutions', CORRECT_CLASS];

export interface PrmbenchMetrics {
  threshold: number;
  /** Over the records of erroneous classes (the added originals only count in their own class), as PRMBench totals. */
  overall: PrmbenchScores;
  classes: Record<string, PrmbenchScores>;
  /** Mean PRMScore over the classes with graded records, the added originals excluded (PRMBench's average). */
  class_mean_PRMScore: number;
  /** Non-original records with a valid prediction / all non-original records. */
  validity_rate: number;
  records: number;
  invalid: number;
}

/**
 * PRMBench's evaluate_function. `scores[i]` are record i's step scores (null: the grade was invalid,
 * which PRMBench leaves out of every metric and counts against the validity rate). A step is
 * predicted correct when its score is above `threshold`. similarity: |fraction predicted correct of
 * a modified record - that of its original|, taken only when the original's fraction is non-zero
 * (PRMBench's truthiness test).
 */
export function prmbenchMetrics(records: readonly PrmbenchRecord[], scores: readonly (readonly number[] | null)[], threshold = 0.5): PrmbenchMetrics {
  if (scores.length !== records.length) throw new RangeError(`${scores.length} predictions for ${records.length} records`);
  const total = new Acc();
  const byClass = new Map<string, Acc>();
  const cls = (c: string) => byClass.get(c) ?? byClass.set(c, new Acc()).get(c)!;
  for (const r of records) cls(r.classification);
  const originalAcc = new Map<string, number>();
  let valid = 0;
  let others = 0;
  let invalid = 0;
  // originals first, as PRMBench evaluates them before the rest (similarity needs them)
  records.forEach((r, i) => {
    if (r.classification !== CORRECT_CLASS) return;
    const s = scores[i];
    if (!s) {
      invalid++;
      return;
    }
    const e = evalSteps(
      r.error_steps,
      s.map((x) => x > threshold),
    );
    cls(CORRECT_CLASS).add(e);
    originalAcc.set(r.idx.slice(CORRECT_CLASS.length + 1), e.response_acc);
  });
  records.forEach((r, i) => {
    if (r.classification === CORRECT_CLASS) return;
    others++;
    const s = scores[i];
    if (!s) {
      invalid++;
      return;
    }
    valid++;
    const e = evalSteps(
      r.error_steps,
      s.map((x) => x > threshold),
    );
    total.add(e);
    const acc = cls(r.classification);
    acc.add(e);
    const orig = originalAcc.get(r.idx.slice(r.classification.length + 1));
    if (orig && e.response_acc !== -1) {
      const d = Math.abs(e.response_acc - orig);
      total.similarity.push(d);
      acc.similarity.push(d);
    }
  });
  const classes: Record<string, PrmbenchScores> = {};
  for (const [c, a] of [...byClass].sort(([x], [y]) => x.localeCompare(y))) classes[c] = a.scores(NO_ERROR_CLASSES.includes(c));
  const named = Object.entries(classes).filter(([c, sc]) => c !== CORRECT_CLASS && sc.records > 0);
  return {
    threshold,
    overall: total.scores(false),
    classes,
    class_mean_PRMScore: named.length ? named.reduce((a, [, s]) => a + s.PRMScore, 0) / named.length : -1,
    validity_rate: others ? valid / others : -1,
    records: records.length,
    invalid,
  };
}
