// Runs the configured estimator over a group or a batch of rows, with what every estimator shares:
// masked rows (invalid grades, bad input, filtered groups) never enter a statistic and keep
// advantage 0; an advantage that came out non-finite is masked `out_of_range`, never written as 0
// or clamped. Also the small helpers the estimator files use (live rows, the group-of-one mask,
// grouping by uid).
import type { AdvantageConfig } from './config.js';
import { whereOf, type GroupKey, type Row } from './rows.js';

/** The rows that take part in the statistics. */
export function live(rows: Row[]): Row[] {
  const out: Row[] = [];
  for (const r of rows) if (!r.masked) out.push(r);
  return out;
}

/** Masks the only scorable row of a group (group_of_one "zero"). */
export function single(r: Row): void {
  r.masked = 'single_in_group';
  r.adv = 0;
}

/** Splits rows by group key, keeping first-appearance order (rows without a key are skipped). */
export function byGroup(rows: Row[]): Row[][] {
  const m = new Map<GroupKey, Row[]>();
  for (const r of rows) {
    if (r.group === undefined) continue;
    let g = m.get(r.group);
    if (!g) m.set(r.group, (g = []));
    g.push(r);
  }
  return [...m.values()];
}

/**
 * Masks `out_of_range` every row whose advantage came out non-finite: its true value (or one of its
 * token advantages) is beyond the float64 range (e.g. RLOO on scores ±1e308), so no number written
 * for it would be right.
 */
function maskNonFinite(rows: Row[]): void {
  for (const r of rows) {
    if (r.masked || Number.isFinite(r.adv)) continue;
    r.masked = 'out_of_range';
    r.error = { kind: 'limit_exceeded', message: `${whereOf(r)}: the advantage is outside the float64 range (scores too far apart for this estimator)` };
    r.adv = 0;
  }
}

/** Computes one group (group-scope estimators): the rows all share a uid. */
export function computeGroup(rows: Row[], c: AdvantageConfig): void {
  const e = c.spec;
  if (!e.group || c.scope !== 'group') {
    computeBatch(rows, c);
    return;
  }
  e.group(rows, c);
  maskNonFinite(rows);
}

/** Computes a whole batch: each uid group on its own for group estimators, the batch function otherwise. */
export function computeBatch(rows: Row[], c: AdvantageConfig): void {
  const e = c.spec;
  if (e.batch) e.batch(rows, c);
  else for (const g of byGroup(rows)) e.group!(g, c);
  maskNonFinite(rows);
}
