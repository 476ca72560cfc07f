// How well a candidate reward fits the labels the user has (the fitness `arbiter design` selects
// by): agreement with pairwise preferences, Spearman rank correlation with a success metric (Kendall's
// tau-b beside it, or tau-b itself), or the separation of successful from failed runs (ROC AUC), and the statistics
// the reflection reports per reward component (mean, std, min, max, correlation with the label).
// The rank fitness is Spearman's rho by default, or Kendall's tau-b.
// Ties are counted the stated way: a pair the reward scores equal is half right; pairs labelled as
// ties are left out of the agreement; ranks of equal values are averaged.

export const FITNESS = ['preference', 'rank', 'separation'] as const;
export type FitnessKind = (typeof FITNESS)[number];

/** The rank correlation of the `rank` fitness. */
export const RANK_METHODS = ['spearman', 'kendall'] as const;
export type RankMethod = (typeof RANK_METHODS)[number];

export interface Preference {
  chosen: string;
  rejected: string;
  tie?: boolean;
}

export interface FitnessValue {
  /** The number candidates are ranked by (higher is better); undefined when it cannot be computed. */
  value?: number;
  /** Why there is no value (e.g. the reward is the same for every trajectory). */
  undefinedWhy?: string;
  /** The figures behind it (pairs counted, ties, Kendall's tau...). */
  detail: Record<string, number>;
}

/** Fraction of strictly labelled pairs the reward orders as labelled; equal rewards count one half. */
export function preferenceAgreement(reward: ReadonlyMap<string, number>, prefs: readonly Preference[]): FitnessValue {
  let right = 0;
  let equal = 0;
  let pairs = 0;
  let tiesLabelled = 0;
  let tiesKept = 0;
  for (const p of prefs) {
    const a = reward.get(p.chosen);
    const b = reward.get(p.rejected);
    if (a === undefined || b === undefined) continue;
    if (p.tie) {
      tiesLabelled++;
      if (a === b) tiesKept++;
      continue;
    }
    pairs++;
    if (a > b) right++;
    else if (a === b) equal++;
  }
  const detail = { pairs, ordered_right: right, scored_equal: equal, labelled_ties: tiesLabelled, labelled_ties_scored_equal: tiesKept };
  if (pairs === 0) return { undefinedWhy: 'no strictly preferred pair has both trajectories in the data', detail };
  return { value: (right + 0.5 * equal) / pairs, detail };
}

/** Ranks from 1, equal values sharing the mean of their ranks. */
export function averageRanks(xs: readonly number[]): number[] {
  const idx = xs.map((_, i) => i).sort((a, b) => xs[a]! - xs[b]!);
  const r = new Array<number>(xs.length);
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && xs[idx[j + 1]!] === xs[idx[i]!]) j++;
    for (let k = i; k <= j; k++) r[idx[k]!] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return r;
}

/** Pearson correlation; undefined when either side is constant. */
export function pearson(x: readonly number[], y: readonly number[]): number | undefined {
  const n = x.length;
  if (n < 2) return undefined;
  const mx = mean(x);
  const my = mean(y);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i]! - mx;
    const dy = y[i]! - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return undefined;
  return sxy / Math.sqrt(sxx * syy);
}

export function spearman(x: readonly number[], y: readonly number[]): number | undefined {
  return pearson(averageRanks(x), averageRanks(y));
}

/** Kendall's tau-b (ties on either side corrected for); undefined when either side is constant. */
export function kendallTauB(x: readonly number[], y: readonly number[]): number | undefined {
  let c = 0;
  let d = 0;
  let tx = 0;
  let ty = 0;
  for (let i = 0; i < x.length; i++)
    for (let j = i + 1; j < x.length; j++) {
      const a = Math.sign(x[i]! - x[j]!);
      const b = Math.sign(y[i]! - y[j]!);
      if (a === 0 && b === 0) continue;
      if (a === 0) tx++;
      else if (b === 0) ty++;
      else if (a === b) c++;
      else d++;
    }
  const den = Math.sqrt((c + d + tx) * (c + d + ty));
  return den === 0 ? undefined : (c - d) / den;
}

/** ROC AUC of the reward for separating successes from failures (Mann-Whitney; equal rewards count one half). */
export function auc(reward: readonly number[], success: readonly boolean[]): number | undefined {
  let pos = 0;
  let neg = 0;
  let wins = 0;
  for (let i = 0; i < reward.length; i++)
    for (let j = 0; j < reward.length; j++) {
      if (!success[i] || success[j]) continue;
      wins += reward[i]! > reward[j]! ? 1 : reward[i] === reward[j] ? 0.5 : 0;
    }
  for (const s of success) s ? pos++ : neg++;
  return pos === 0 || neg === 0 ? undefined : wins / (pos * neg);
}

export function mean(x: readonly number[]): number {
  let s = 0;
  for (const v of x) s += v;
  return x.length ? s / x.length : Number.NaN;
}

/** Population standard deviation. */
export function std(x: readonly number[]): number {
  const m = mean(x);
  let s = 0;
  for (const v of x) s += (v - m) * (v - m);
  return x.length ? Math.sqrt(s / x.length) : Number.NaN;
}

export interface ComponentStats {
  mean: number;
  std: number;
  min: number;
  max: number;
  /** Pearson correlation with the label (success as 1/0); absent when undefined. */
  corr_with_label?: number;
}

export function componentStats(values: readonly number[], label?: readonly number[]): ComponentStats {
  const out: ComponentStats = { mean: mean(values), std: std(values), min: Math.min(...values), max: Math.max(...values) };
  const c = label ? pearson(values, label) : undefined;
  if (c !== undefined) out.corr_with_label = c;
  return out;
}

/** The fitness of one candidate's totals (in the order of `ids`). */
export function fitnessOf(
  kind: FitnessKind,
  ids: readonly string[],
  totals: readonly number[],
  labels: { metric?: readonly number[]; success?: readonly boolean[]; prefs?: readonly Preference[] },
  rankMethod: RankMethod = 'spearman',
): FitnessValue {
  if (kind === 'preference') return preferenceAgreement(new Map(ids.map((id, i) => [id, totals[i]!])), labels.prefs ?? []);
  if (kind === 'rank') {
    const m = labels.metric ?? [];
    const rho = spearman(totals, m);
    const tau = kendallTauB(totals, m);
    const detail: Record<string, number> = { n: totals.length };
    if (rho !== undefined) detail.spearman = rho;
    if (tau !== undefined) detail.kendall_tau_b = tau;
    const value = rankMethod === 'kendall' ? tau : rho;
    if (value === undefined)
      return { undefinedWhy: new Set(totals).size === 1 ? 'the reward is the same for every trajectory (no ranking)' : 'the label is constant', detail };
    return { value, detail };
  }
  const s = labels.success ?? [];
  const a = auc(totals, s);
  const detail = { successes: s.filter(Boolean).length, failures: s.filter((x) => !x).length };
  if (a === undefined) return { undefinedWhy: 'the data has no successful or no failed run', detail };
  return { value: a, detail: { ...detail, auc: a } };
}
