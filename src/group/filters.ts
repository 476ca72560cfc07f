// Group filters applied before the advantages, as the trainers apply them before computing theirs:
//   filter_groups (verl DAPO dynamic sampling): a group whose metric is the same on every scorable
//     line is dropped (verl keeps a group when np.std of its metric is > 0 or it has one line);
//   rollout_filter_ratio (RAGEN StarPO-S): of the batch's groups, only the floor(ratio × groups)
//     with the highest (type "std") or lowest ("std_rev") unbiased score std are kept.
// A dropped line is never silently missing: it keeps its place in the output with advantage 0,
// `filtered: "<reason>"`, and is counted in the summary.
import type { AdvantageConfig } from './config.js';
import type { Row } from './rows.js';
import { stdUnbiased } from './stats.js';

function drop(g: Row[], reason: string): void {
  for (const r of g) {
    r.filtered = reason;
    if (!r.masked) r.masked = 'filtered';
    r.adv = 0;
  }
}

/** DAPO: true when every scorable value of the group is the same (compared exactly) and there are two or more. */
function allEqual(g: Row[]): boolean {
  let first: number | undefined;
  let n = 0;
  for (const r of g) {
    if (r.masked || typeof r.fv !== 'number') continue;
    if (first === undefined) first = r.fv;
    else if (r.fv !== first) return false;
    n++;
  }
  return n >= 2;
}

/** Applies filter_groups to one group; true when it was dropped. */
export function filterEqual(g: Row[], cfg: AdvantageConfig): boolean {
  if (!cfg.filters.equal || !allEqual(g)) return false;
  drop(g, 'equal_scores');
  return true;
}

/** The unbiased std of a group's scorable scores; NaN with fewer than two. */
function groupStd(g: Row[]): number {
  const xs: number[] = [];
  for (const r of g) if (!r.masked && typeof r.sv === 'number') xs.push(r.sv);
  return stdUnbiased(xs);
}

/**
 * Applies both filters to the groups of one batch (filter_groups first, then rollout_filter_ratio
 * over the groups it kept); returns the dropped groups' count by reason.
 */
export function filterBatch(groups: Row[][], cfg: AdvantageConfig): Record<string, number> {
  const out: Record<string, number> = {};
  let kept = groups;
  if (cfg.filters.equal) {
    kept = [];
    for (const g of groups) {
      if (filterEqual(g, cfg)) out.equal_scores = (out.equal_scores ?? 0) + 1;
      else kept.push(g);
    }
  }
  const top = cfg.filters.top;
  if (top) {
    // RAGEN: topk(int(ratio × num_groups)) of the in-group std; ties go to the earlier group, and a
    // group with fewer than two scorable lines (no std) ranks after every group that has one
    const k = Math.floor(top.ratio * kept.length);
    const sign = top.type === 'std' ? -1 : 1;
    const ranked = kept
      .map((g, i) => ({ g, i, sd: groupStd(g) }))
      .sort((a, b) => {
        const na = Number.isNaN(a.sd);
        const nb = Number.isNaN(b.sd);
        if (na !== nb) return na ? 1 : -1;
        if (!na && a.sd !== b.sd) return sign * (a.sd - b.sd);
        return a.i - b.i;
      });
    const reason = top.type === 'std' ? 'low_std' : 'high_std';
    for (const x of ranked.slice(k)) {
      drop(x.g, reason);
      out[reason] = (out[reason] ?? 0) + 1;
    }
  }
  return out;
}
