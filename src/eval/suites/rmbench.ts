// RM-Bench (THU-KEG/RM-Bench, scripts/utils.py compute_accuracy): every prompt has three chosen and
// three rejected responses in three styles (concise, detailed plain, detailed markdown). Each chosen
// response is compared with each rejected one (chosen wins only when its score is strictly
// higher): a 3x3 matrix of win rates, rows = chosen style, columns = rejected style. Hard accuracy
// is the mean of the upper-right triangle (chosen plainer than rejected), normal the diagonal, easy
// the lower-left. Over several domains (chat, math, code, safety; safety-refuse and
// safety-response together, as the reference groups by prefix) each domain's average is the mean
// of its hard/normal/easy, and hard/normal/easy/total are means over domains. Arithmetic follows
// numpy's (pairwise summation) so the numbers match the reference to the last bit.
import { npMean, npSum } from '../numeric.js';
import { openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { gradeOne, runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, progressFor, runOptions, str, type Suite, type SuiteOptions } from './common.js';

const STYLES = ['concise', 'detailed plain', 'detailed markdown'];
const DOMAINS = ['chat', 'math', 'code', 'safety'];

export function domainOf(name: string): string {
  return DOMAINS.find((d) => name.startsWith(d)) ?? name;
}

class Matrix {
  n = 0;
  readonly wins = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  add(ch: number[], rj: number[]): number {
    this.n++;
    let w = 0;
    for (let i = 0; i < 3; i++)
      for (let j = 0; j < 3; j++)
        if (ch[i]! > rj[j]!) {
          this.wins[i * 3 + j]!++;
          w++;
        }
    return w;
  }
  accuracy() {
    const acc = this.wins.map((c) => c / this.n);
    const triu = acc.map((v, k) => (k % 3 > Math.floor(k / 3) ? v : 0));
    const tril = acc.map((v, k) => (k % 3 < Math.floor(k / 3) ? v : 0));
    const hard_acc = npSum(triu) / 3;
    const normal_acc = npMean([acc[0]!, acc[4]!, acc[8]!]);
    const easy_acc = npSum(tril) / 3;
    return { hard_acc, normal_acc, easy_acc, matrix: [acc.slice(0, 3), acc.slice(3, 6), acc.slice(6, 9)] };
  }
}

function scores(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || v.length !== 3) return undefined;
  // the reference unwraps one-element lists ([[x], [y], [z]])
  const flat = v.map((x) => (Array.isArray(x) && x.length === 1 ? x[0] : x));
  return flat.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (flat as number[]) : undefined;
}

function fileDomain(file: string): string {
  const base = file.split('/').pop() ?? file;
  return base.replace(/(_filtered)?\.(jsonl?|json)(\.gz)?$/, '').split('_')[0]!;
}

export async function runRmBench(opts: SuiteOptions): Promise<EvalReport> {
  if (!opts.files.length)
    throw new EvalUsageError('rm-bench takes RM-Bench result files with score_chosen/score_rejected (re-scored), or its data files (with --grader)');
  const problems = new Problems();
  const byDomain = new Map<string, Matrix>();
  const worst = new WorstCases<(string | number | null)[]>(opts.maxCases);
  let invalidGrades = 0;
  const addScored = (where: string, rec: Record<string, unknown>, fallback: string) => {
    const ch = scores(rec.score_chosen);
    const rj = scores(rec.score_rejected);
    if (!ch || !rj) {
      problems.add(where, 'needs "score_chosen" and "score_rejected": three finite numbers each');
      return;
    }
    const d = domainOf(str(rec.domain) ?? fallback);
    let m = byDomain.get(d);
    if (!m) {
      m = new Matrix();
      byDomain.set(d, m);
    }
    const w = m.add(ch, rj);
    if (w < 9) {
      const margins = ch.flatMap((c) => rj.map((r) => c - r));
      worst.add(9 - w, () => [str(rec.id) ?? String(rec.id ?? where), d, `${9 - w}/9`, Math.min(...margins), clip(str(rec.prompt), 200)]);
    }
  };
  const grader = opts.grader;
  for (const file of opts.files) {
    const src = await openRecords(file);
    const fallback = fileDomain(file);
    const progress = progressFor(`rm-bench ${fallback}`, opts, src);
    if (!grader) {
      for await (const r of src.records()) {
        progress.tick();
        if ('error' in r) problems.add(r.where, r.error);
        else addScored(r.where, r.value, fallback);
      }
    } else {
      async function* units() {
        for await (const r of src.records()) {
          if ('error' in r) problems.add(r.where, r.error);
          else yield { key: `${file}#${r.index}`, where: r.where, rec: r.value };
        }
      }
      const work = async (u: { where: string; rec: Record<string, unknown> }) => {
        const ch = u.rec.chosen;
        const rj = u.rec.rejected;
        const ok = (x: unknown): x is string[] => Array.isArray(x) && x.length === 3 && x.every((s) => typeof s === 'string');
        if (!ok(ch) || !ok(rj)) return { where: u.where, error: 'needs "chosen" and "rejected": three response strings each' };
        const item = { ...u.rec, question: str(u.rec.prompt) ?? '' };
        delete (item as Record<string, unknown>).chosen;
        delete (item as Record<string, unknown>).rejected;
        const res = await Promise.all([...ch, ...rj].map((t) => gradeOne(grader, opts.services!, item, t)));
        const bad = res.map((x, i) => (x.valid ? '' : `${i < 3 ? 'chosen' : 'rejected'}[${i % 3}]: ${x.error?.kind}: ${x.error?.message}`)).filter(Boolean);
        const s = res.map((x) => (x.valid ? x.score : null));
        return {
          where: u.where,
          id: u.rec.id,
          domain: str(u.rec.domain) ?? fallback,
          prompt: u.rec.prompt,
          score_chosen: s.slice(0, 3),
          score_rejected: s.slice(3),
          ...(bad.length ? { error: `ungradeable responses: ${bad.join('; ')}` } : {}),
        };
      };
      for await (const o of runUnits(units(), work, runOptions(opts, progress))) {
        if (typeof o.error === 'string') {
          invalidGrades++;
          problems.add(str(o.where) ?? '?', o.error);
        } else addScored(str(o.where) ?? '?', o, fallback);
      }
    }
    progress.done();
  }
  const order = [...DOMAINS.filter((d) => byDomain.has(d)), ...[...byDomain.keys()].filter((d) => !DOMAINS.includes(d))];
  const per = Object.fromEntries(order.map((d) => [d, byDomain.get(d)!.accuracy()]));
  const r = newReport('rm-bench', `RM-Bench: ${opts.graderFile ?? opts.files.join(', ')}`, {
    files: opts.files,
    ...(opts.graderFile ? { grader: opts.graderFile } : {}),
  });
  if (order.length === 1) {
    const a = per[order[0]!]!;
    r.metrics = { domain: order[0], hard_acc: a.hard_acc, normal_acc: a.normal_acc, easy_acc: a.easy_acc, matrix: a.matrix, n: byDomain.get(order[0]!)!.n };
  } else if (order.length > 1) {
    const avg = Object.fromEntries(order.map((d) => [d, npMean([per[d]!.hard_acc, per[d]!.normal_acc, per[d]!.easy_acc])]));
    r.metrics = {
      ...avg,
      hard_acc: npMean(order.map((d) => per[d]!.hard_acc)),
      normal_acc: npMean(order.map((d) => per[d]!.normal_acc)),
      easy_acc: npMean(order.map((d) => per[d]!.easy_acc)),
      total_avg_acc: npMean(order.map((d) => avg[d]!)),
      domains: Object.fromEntries(order.map((d) => [d, { ...per[d], n: byDomain.get(d)!.n }])),
    };
  }
  const pctOf = (v: unknown) => (typeof v === 'number' ? v * 100 : null);
  r.headline = [
    ...(order.length > 1 ? [{ key: 'total_avg_acc', label: 'Total average', value: pctOf(r.metrics.total_avg_acc), digits: 2, unit: '%' as const }] : []),
    { key: 'hard_acc', label: 'Hard (chosen plainer than rejected)', value: pctOf(r.metrics.hard_acc), digits: 2, unit: '%' },
    { key: 'normal_acc', label: 'Normal (same style)', value: pctOf(r.metrics.normal_acc), digits: 2, unit: '%' },
    { key: 'easy_acc', label: 'Easy (chosen fancier)', value: pctOf(r.metrics.easy_acc), digits: 2, unit: '%' },
  ];
  const all = new Matrix();
  for (const m of byDomain.values()) {
    all.n += m.n;
    for (let k = 0; k < 9; k++) all.wins[k]! += m.wins[k]!;
  }
  if (all.n) {
    r.plots.push({
      kind: 'matrix',
      id: 'matrix',
      title: 'Chosen-beats-rejected rate by style (all prompts)',
      row_label: 'chosen style',
      col_label: 'rejected style',
      rows: STYLES,
      cols: STYLES,
      values: all.accuracy().matrix,
      digits: 3,
    });
    r.plots.push({
      kind: 'bars',
      id: 'difficulty',
      title: 'Hard / normal / easy accuracy per domain (%)',
      y_label: '%',
      max: 100,
      data: order.flatMap((d) =>
        (['hard_acc', 'normal_acc', 'easy_acc'] as const).map((k) => ({ label: d, value: per[d]![k] * 100, group: k.replace('_acc', '') })),
      ),
    });
  }
  r.tables.push({
    id: 'worst',
    title: 'Prompts with the most lost comparisons',
    columns: ['id', 'domain', 'lost', 'worst margin (chosen - rejected)', 'prompt'],
    rows: worst.rows(),
    total: worst.total,
  });
  const n = all.n;
  r.counts = { records: n + problems.count, skipped: problems.count, invalid: invalidGrades };
  r.problems = problems.list;
  r.notes.push(
    'Metrics are fractions, as RM-Bench reports them (headline numbers are shown in %). A tie counts as a loss (chosen must score strictly higher).',
  );
  if (grader)
    r.notes.push('Live run: a prompt with any ungradeable response is left out of the matrix and listed under problems (RM-Bench has no rule for it).');
  return r;
}

export const suite: Suite = {
  name: 'rm-bench',
  summary:
    "RM-Bench's 3x3 style-substance matrix and hard/normal/easy accuracy: re-scores result files (score_chosen/score_rejected) or grades the data files with a pointwise --grader",
  args: '<files...>',
  example: 'arbiter eval rm-bench rm-bench/chat_filtered.json --grader rm.json --html rm.html',
  // pointwise only: each response is scored alone, so --mode and --orders are not offered
  takes: ['records', 'concurrency', 'max-cases'],
  options: [],
  run: runRmBench,
};
