// ProcessBench-style first-error evaluation (QwenLM/ProcessBench), as pure functions: a prediction
// is the index of the earliest wrong step (from 0) or -1 for "all correct"; it matches when it
// equals the label. Accuracy is taken separately over erroneous solutions (label != -1) and correct
// ones (label == -1), and their harmonic mean is the F1. A missing prediction (an invalid grade)
// never matches, as ProcessBench counts an unparsable critique.

export interface FirstErrorRecord {
  id: string;
  /** Index of the earliest wrong step from 0, or -1 when every step is right. */
  label: number;
}

export interface FirstErrorScores {
  /** Accuracy on erroneous solutions, on correct ones, and their harmonic mean (fractions in [0, 1]; -1 when a side has no records, 0 when both accuracies are 0). */
  error_acc: number;
  correct_acc: number;
  f1: number;
  erroneous: number;
  correct: number;
  /** Records without a prediction (counted as misses). */
  missing: number;
}

/** The first-error label of a record: ProcessBench's `label`, or from PRMBench-style `error_steps` (numbered from 1). */
export function firstErrorOf(row: Record<string, unknown>): number | undefined {
  if (typeof row.label === 'number' && Number.isInteger(row.label)) return row.label;
  if (Array.isArray(row.error_steps) && row.error_steps.every((k) => Number.isInteger(k))) {
    const ks = row.error_steps as number[];
    return ks.length ? Math.min(...ks) - 1 : -1;
  }
  return undefined;
}

/** The earliest step whose score is below `threshold`, or -1. */
export function predictFirstError(scores: readonly number[], threshold = 0.5): number {
  return scores.findIndex((s) => s < threshold);
}

export function firstErrorMetrics(records: readonly FirstErrorRecord[], predictions: readonly (number | null)[]): FirstErrorScores {
  if (predictions.length !== records.length) throw new RangeError(`${predictions.length} predictions for ${records.length} records`);
  let errN = 0;
  let errHit = 0;
  let corN = 0;
  let corHit = 0;
  let missing = 0;
  records.forEach((r, i) => {
    const p = predictions[i];
    if (p === null || p === undefined) missing++;
    const hit = p === r.label ? 1 : 0;
    if (r.label === -1) {
      corN++;
      corHit += hit;
    } else {
      errN++;
      errHit += hit;
    }
  });
  const error_acc = errN ? errHit / errN : -1;
  const correct_acc = corN ? corHit / corN : -1;
  const f1 = error_acc < 0 || correct_acc < 0 ? -1 : error_acc + correct_acc === 0 ? 0 : (2 * error_acc * correct_acc) / (error_acc + correct_acc);
  return { error_acc, correct_acc, f1, erroneous: errN, correct: corN, missing };
}
