// `arbiter report A.json B.json`: one report comparing two runs of the same suite. Headline
// numbers show B with A and the change; bar and line plots are overlaid (A and B as groups or
// series); every metric of either run is listed with both values and the difference. Runs of
// different suites are refused: their metrics share names, not meanings or units.
import { flatMetrics, metricAt, newReport, type EvalReport, type PlotSpec } from '../report.js';

/** Two reports that cannot be compared. */
export class CompareError extends Error {}

export function compareReports(a: EvalReport, b: EvalReport, names: [string, string] = ['A', 'B']): EvalReport {
  const [na, nb] = names;
  if (a.suite !== b.suite)
    throw new CompareError(
      `cannot compare reports of different suites: ${na} is from arbiter eval ${a.suite}, ${nb} from arbiter eval ${b.suite} (their metrics differ in meaning and units); compare two runs of one suite`,
    );
  const r = newReport('compare', `${b.title} vs ${a.title}`, {
    A: { file: na, suite: a.suite, title: a.title, created: a.created },
    B: { file: nb, suite: b.suite, title: b.title, created: b.created },
  });
  const byKey = new Map(a.headline.map((h) => [h.key, h]));
  r.headline = b.headline.map((h) => {
    const ha = byKey.get(h.key);
    const av = ha?.value ?? (typeof metricAt(a, h.key) === 'number' ? (metricAt(a, h.key) as number) : null);
    return { ...h, baseline: av };
  });
  const pct = r.headline.filter((h) => h.unit === '%');
  if (pct.length) {
    r.plots.push({
      kind: 'bars',
      id: 'headline',
      title: 'Headline numbers, A and B (%)',
      y_label: '%',
      max: 100,
      data: pct.flatMap((h) => [
        { label: h.label, value: h.baseline ?? 0, group: 'A' },
        { label: h.label, value: h.value ?? 0, group: 'B' },
      ]),
    });
  }
  for (const pb of b.plots) {
    const pa = a.plots.find((p) => p.id === pb.id && p.kind === pb.kind);
    if (!pa) continue;
    let merged: PlotSpec | undefined;
    if (pb.kind === 'bars' && pa.kind === 'bars') {
      const tag = (g: string | undefined, run: string) => (g ? `${run}: ${g}` : run);
      merged = {
        ...pb,
        id: `cmp-${pb.id}`,
        data: [...pa.data.map((d) => ({ ...d, group: tag(d.group, 'A') })), ...pb.data.map((d) => ({ ...d, group: tag(d.group, 'B') }))],
      };
    } else if (pb.kind === 'lines' && pa.kind === 'lines') {
      merged = {
        ...pb,
        id: `cmp-${pb.id}`,
        series: [...pa.series.map((s) => ({ ...s, name: `A: ${s.name}` })), ...pb.series.map((s) => ({ ...s, name: `B: ${s.name}` }))],
      };
    } else if (pb.kind === 'stacked' && pa.kind === 'stacked') {
      merged = {
        ...pb,
        id: `cmp-${pb.id}`,
        data: [...pa.data.map((d) => ({ ...d, label: `A: ${d.label}` })), ...pb.data.map((d) => ({ ...d, label: `B: ${d.label}` }))],
      };
    } else if (pb.kind === 'matrix' && pa.kind === 'matrix') {
      r.plots.push({ ...pa, id: `A-${pa.id}`, title: `A: ${pa.title}` }, { ...pb, id: `B-${pb.id}`, title: `B: ${pb.title}` });
    }
    if (merged) r.plots.push(merged);
  }
  const fa = new Map(flatMetrics(a.metrics));
  const fb = new Map(flatMetrics(b.metrics));
  const keys = [...new Set([...fa.keys(), ...fb.keys()])];
  const rows = keys.map((k) => {
    const x = fa.get(k) ?? null;
    const y = fb.get(k) ?? null;
    return [k, x, y, typeof x === 'number' && typeof y === 'number' ? y - x : null] as (string | number | null)[];
  });
  const changed = rows.filter((row) => row[1] !== row[2]);
  r.tables.push({ id: 'changed', title: 'Metrics that differ', columns: ['metric', 'A', 'B', 'B - A'], rows: changed, total: changed.length });
  r.metrics = { A: a.metrics, B: b.metrics, changed: changed.length };
  r.counts = { records: b.counts.records, skipped: b.counts.skipped, invalid: b.counts.invalid };
  r.notes.push(`A = ${na}, B = ${nb}.`);
  return r;
}
