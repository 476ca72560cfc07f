// The report of a design run, in the eval reports' form (src/eval/report.ts) so the one HTML
// renderer draws it: headline numbers, the fitness of each iteration's best and the best so far
// as lines, the count of working and failed candidates per iteration, a table of every candidate
// with its fitness or error, and the winning program whole.
import { newReport, type EvalReport } from '../eval/report.js';
import type { FitnessKind } from './fitness.js';
import type { DesignResult } from './run.js';

export function designReport(
  r: DesignResult,
  o: { fitness: FitnessKind; label: string; model: string; inputs: Record<string, unknown>; winningCode?: string },
): EvalReport {
  const rep = newReport('design', `arbiter design: ${o.fitness} fitness`, { ...o.inputs, model: o.model, fitness: o.fitness, label: o.label });
  const total = r.records.length;
  const worked = r.records.filter((c) => c.status === 'ok').length;
  rep.metrics = {
    best_fitness: r.best?.fitness ?? null,
    best_iteration: r.best?.iteration ?? null,
    best_candidate: r.best ? r.best.index + 1 : null,
    candidates: total,
    worked,
    failed: total - worked,
    execute_rate_pct: total ? (100 * worked) / total : null,
    iterations: r.iterations.map((i) => ({ iteration: i.iteration, best_fitness: i.best_fitness ?? null, worked: i.worked, failed: i.failed })),
    ...(r.best?.fitness_detail ? { best_fitness_detail: r.best.fitness_detail } : {}),
  };
  rep.headline = [
    { key: 'best_fitness', label: `best fitness (${o.fitness})`, value: r.best?.fitness ?? null, digits: 4 },
    { key: 'execute_rate_pct', label: 'candidates that ran', value: total ? (100 * worked) / total : null, digits: 1, unit: '%' },
  ];
  const pts = (f: (i: DesignResult['iterations'][number]) => number | undefined) =>
    r.iterations.flatMap((i) => {
      const y = f(i);
      return y === undefined ? [] : [{ x: i.iteration, y }];
    });
  rep.plots = [
    {
      kind: 'lines',
      id: 'fitness',
      title: 'fitness per iteration',
      x_label: 'iteration',
      y_label: `fitness (${o.fitness})`,
      series: [
        { name: 'best so far', points: pts((i) => i.best_so_far) },
        { name: "iteration's best", points: pts((i) => i.best_fitness) },
      ],
    },
    {
      kind: 'stacked',
      id: 'outcomes',
      title: 'candidates per iteration',
      y_label: 'candidates',
      data: r.iterations.flatMap((i) => [
        { label: `iteration ${i.iteration}`, part: 'ran', value: i.worked },
        { label: `iteration ${i.iteration}`, part: 'failed', value: i.failed },
      ]),
    },
  ];
  rep.tables = [
    {
      id: 'candidates',
      title: 'Candidates',
      columns: ['iteration', 'candidate', 'status', 'fitness', 'error'],
      rows: r.records.map((c) => [c.iteration, c.index + 1, c.status, c.fitness ?? null, c.error ?? '']),
      total: r.records.length,
    },
  ];
  rep.counts = { records: total, skipped: 0, invalid: total - worked };
  if (o.winningCode !== undefined && r.best)
    rep.code = [{ title: `Winning reward (iteration ${r.best.iteration}, candidate ${r.best.index + 1})`, text: o.winningCode }];
  else rep.notes.push('No candidate ran: there is no winning reward.');
  return rep;
}
