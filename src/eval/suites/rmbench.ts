// RM-Bench (THU-KEG/RM-Bench, scripts/utils.py compute_accuracy): every prompt has three chosen and
// three rejected responses in three styles (concise, detailed plain, detailed markdown). Each chosen
// response is compared with each rejected one (chosen wins only when its score is strictly
// higher): a 3x3 matrix of win rates, rows = chosen style, columns = rejected style. Hard accuracy
// is the mean of the upper-right triangle (chosen plainer than rejected), normal the diagonal, easy
// the lower-left. Over several domains (chat, math, code, safety; safety-refuse and
// safety-response together, as the reference groups by prefix) each domain's average is the mean
// of its hard/normal/easy, and hard/normal/easy/total are means over domains. Arithmetic follows
// numpy's (pairwise summation) so the numbers match the reference to the last bit.
// With a pairwise grader the same 9 comparisons per prompt are judged as pairs (chosen style i
// against rejected style j, in one or both orders): a comparison's cell value is the share of its
// orders the chosen response won outright (a tie is a loss, as an equal score is in the
// reference), and the matrix, hard/normal/easy and domain averages follow the same definition.
import { judgeMode, judgePair, type JudgeMode, type OrderOutcome } from '../pairs.js';
import { npMean, npSum } from '../numeric.js';
import { openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport, type Headline } from '../report.js';
import { gradeOne, runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, progressFor, runOptions, str, type Suite, type SuiteOptions } from './common.js';

const STYLES = ['concise', 'detailed plain', 'detailed markdown'];
const DOMAINS = ['chat', 'math', 'code', 'safety'];

export function domainOf(name: string): string {
  return DOMAINS.find((d) => name.startsWith(d)) ?? name;
}

/** Sums of the 3x3 comparison outcomes over prompts (row-major: chosen style i, rejected style j). */
class Matrix {
  n = 0;
  readonly wins = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  /** One prompt's nine cell values (1 = chosen won; a fraction = the share of orders it won). */
  add(cells: readonly number[]): void {
    this.n++;
    for (let k = 0; k < 9; k++) this.wins[k]! += cells[k]!;
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

type Accuracy = ReturnType<Matrix['accuracy']>;

/** One matrix per group (RM-Bench's domains, or the finer subsets), averaged as the reference averages. */
class Board {
  readonly groups = new Map<string, Matrix>();
  constructor(private readonly group: (name: string) => string) {}
  add(name: string, cells: readonly number[]): void {
    const g = this.group(name);
    let m = this.groups.get(g);
    if (!m) {
      m = new Matrix();
      this.groups.set(g, m);
    }
    m.add(cells);
  }
  order(): string[] {
    const keys = [...this.groups.keys()];
    return [...DOMAINS.filter((d) => this.groups.has(d)), ...keys.filter((d) => !DOMAINS.includes(d))];
  }
  per(): Record<string, Accuracy> {
    return Object.fromEntries(this.order().map((d) => [d, this.groups.get(d)!.accuracy()]));
  }
  /** compute_accuracy's output: one group's hard/normal/easy, or over several the total_dataset averages. */
  metrics(): Record<string, unknown> {
    const order = this.order();
    const per = this.per();
    if (order.length === 1) {
      const a = per[order[0]!]!;
      return { domain: order[0], hard_acc: a.hard_acc, normal_acc: a.normal_acc, easy_acc: a.easy_acc, matrix: a.matrix, n: this.groups.get(order[0]!)!.n };
    }
    if (!order.length) return {};
    const avg = Object.fromEntries(order.map((d) => [d, npMean([per[d]!.hard_acc, per[d]!.normal_acc, per[d]!.easy_acc])]));
    return {
      ...avg,
      hard_acc: npMean(order.map((d) => per[d]!.hard_acc)),
      normal_acc: npMean(order.map((d) => per[d]!.normal_acc)),
      easy_acc: npMean(order.map((d) => per[d]!.easy_acc)),
      total_avg_acc: npMean(order.map((d) => avg[d]!)),
      domains: Object.fromEntries(order.map((d) => [d, { ...per[d], n: this.groups.get(d)!.n }])),
    };
  }
  /** Every group's comparisons pooled (the plotted matrix). */
  pooled(): Matrix {
    const all = new Matrix();
    for (const m of this.groups.values()) {
      all.n += m.n;
      for (let k = 0; k < 9; k++) all.wins[k]! += m.wins[k]!;
    }
    return all;
  }
}

function scores(v: unknown): number[] | undefined {
  if (!Array.isArray(v) || v.length !== 3) return undefined;
  // the reference unwraps one-element lists ([[x], [y], [z]])
  const flat = v.map((x) => (Array.isArray(x) && x.length === 1 ? x[0] : x));
  return flat.every((x) => typeof x === 'number' && Number.isFinite(x)) ? (flat as number[]) : undefined;
}

/** A pairwise comparison's outcome in one order, in RM-Bench's terms. */
type Verdict = 'chosen' | 'rejected' | 'tie';
const VERDICTS: readonly unknown[] = ['chosen', 'rejected', 'tie'];

/** A pairwise record's verdicts: 3x3 (chosen style, rejected style), each a list of one verdict per order. */
function verdictGrid(v: unknown, orders: number): Verdict[][] | undefined {
  if (!Array.isArray(v) || v.length !== 3) return undefined;
  const out: Verdict[][] = [];
  for (const row of v) {
    if (!Array.isArray(row) || row.length !== 3) return undefined;
    for (const cell of row) {
      if (!Array.isArray(cell) || cell.length !== orders || !cell.every((x) => VERDICTS.includes(x))) return undefined;
      out.push(cell as Verdict[]);
    }
  }
  return out;
}

function fileDomain(file: string): string {
  const base = file.split('/').pop() ?? file;
  return base.replace(/(_filtered)?\.(jsonl?|json)(\.gz)?$/, '').split('_')[0]!;
}

/** How a live grader judges, from the grader and --mode/--orders; a combination that cannot apply is refused. */
export function rmBenchPlan(opts: Pick<SuiteOptions, 'grader' | 'graderFile' | 'mode' | 'orders'>): { mode?: JudgeMode; orders?: 1 | 2 } {
  const g = opts.grader;
  if (!g) {
    if (opts.mode !== undefined || opts.orders !== undefined)
      throw new EvalUsageError(
        'rm-bench: --mode and --orders say how a live grader judges: give --grader G.json (re-scored results and records keep how they were judged)',
      );
    return {};
  }
  if (opts.mode !== undefined && opts.mode !== 'pairwise' && opts.mode !== 'pointwise')
    throw new EvalUsageError(`rm-bench: --mode must be "pairwise" or "pointwise", got ${JSON.stringify(opts.mode)}`);
  if (opts.mode === 'pairwise' && g.type !== 'pairwise')
    throw new EvalUsageError(
      `rm-bench: --mode pairwise needs a grader that compares two responses (type "pairwise"); ${opts.graderFile ?? g.name} is type "${g.type}", which scores one response at a time (drop --mode, or use a pairwise grader)`,
    );
  const mode = judgeMode(g, opts.mode);
  if (mode === 'pointwise') {
    if (opts.orders !== undefined)
      throw new EvalUsageError(
        `rm-bench: --orders is for pairwise judging; ${opts.mode === 'pointwise' ? 'with --mode pointwise' : `a grader of type "${g.type}"`} scores each response once, on its own, so there is no order to choose`,
      );
    return { mode };
  }
  if (opts.orders !== undefined && opts.orders !== 1 && opts.orders !== 2) throw new EvalUsageError(`rm-bench: --orders must be 1 or 2, got ${opts.orders}`);
  return { mode, orders: opts.orders ?? 2 };
}

interface Unit {
  key: string;
  where: string;
  rec: Record<string, unknown>;
  fallback: string;
}

const isTriple = (x: unknown): x is string[] => Array.isArray(x) && x.length === 3 && x.every((s) => typeof s === 'string');

export async function runRmBench(opts: SuiteOptions): Promise<EvalReport> {
  if (!opts.files.length)
    throw new EvalUsageError('rm-bench takes RM-Bench result files with score_chosen/score_rejected (re-scored), or its data files (with --grader)');
  const plan = rmBenchPlan(opts);
  const problems = new Problems();
  const board = new Board(domainOf);
  const subsets = new Board((n) => n);
  /** Pairwise with both orders: the same comparisons, chosen shown first / second only. */
  const byOrder = [new Board(domainOf), new Board(domainOf)];
  const worst = new WorstCases<(string | number | null)[]>(opts.maxCases);
  let invalidGrades = 0;
  let kind: 'scores' | 'pairwise' | undefined;
  let orders: number | undefined;
  const pair = { comparisons: 0, consistent: 0, ties: 0 };
  const nameOf = (rec: Record<string, unknown>, fallback: string) => str(rec.domain) ?? fallback;
  const idOf = (rec: Record<string, unknown>, where: string) => {
    const v = rec.prompt_id ?? rec.id;
    return typeof v === 'string' || typeof v === 'number' ? String(v) : where;
  };
  const sameKind = (where: string, k: 'scores' | 'pairwise') => {
    kind ??= k;
    if (kind === k) return true;
    problems.add(
      where,
      `a ${k === 'pairwise' ? 'pairwise (verdicts)' : 'scored (score_chosen/score_rejected)'} record among ${kind} ones: one run is one kind`,
    );
    return false;
  };
  const addScored = (where: string, rec: Record<string, unknown>, fallback: string) => {
    const ch = scores(rec.score_chosen);
    const rj = scores(rec.score_rejected);
    if (!ch || !rj) {
      problems.add(where, 'needs "score_chosen" and "score_rejected": three finite numbers each');
      return;
    }
    if (!sameKind(where, 'scores')) return;
    const name = nameOf(rec, fallback);
    const cells = ch.flatMap((c) => rj.map((r) => (c > r ? 1 : 0)));
    board.add(name, cells);
    subsets.add(name, cells);
    const w = npSum(cells);
    if (w < 9) {
      const margins = ch.flatMap((c) => rj.map((r) => c - r));
      worst.add(9 - w, () => [idOf(rec, where), domainOf(name), `${9 - w}/9`, Math.min(...margins), clip(str(rec.prompt), 200)]);
    }
  };
  const addPairwise = (where: string, rec: Record<string, unknown>, fallback: string) => {
    const o = rec.orders;
    if (o !== 1 && o !== 2) {
      problems.add(where, 'a pairwise record needs "orders": 1 or 2');
      return;
    }
    const grid = verdictGrid(rec.verdicts, o);
    if (!grid) {
      problems.add(where, `needs "verdicts": 3x3 lists of ${o} verdict(s) each ("chosen", "rejected" or "tie")`);
      return;
    }
    if (!sameKind(where, 'pairwise')) return;
    orders ??= o;
    if (o !== orders) {
      problems.add(where, `judged in ${o} order(s) but the run is scored with ${orders}`);
      return;
    }
    const name = nameOf(rec, fallback);
    const cells = grid.map((vs) => vs.filter((v) => v === 'chosen').length / o);
    board.add(name, cells);
    subsets.add(name, cells);
    if (o === 2) {
      for (const i of [0, 1])
        byOrder[i]!.add(
          name,
          grid.map((vs) => (vs[i] === 'chosen' ? 1 : 0)),
        );
      pair.consistent += grid.filter((vs) => vs[0] === vs[1]).length;
    }
    pair.comparisons += 9;
    pair.ties += grid.reduce((t, vs) => t + vs.filter((v) => v === 'tie').length, 0);
    const lost = grid.reduce((t, vs) => t + vs.filter((v) => v !== 'chosen').length, 0);
    if (lost > 0) {
      const cellsLost = grid
        .map((vs, k) => (vs.some((v) => v !== 'chosen') ? `${STYLES[Math.floor(k / 3)]} vs ${STYLES[k % 3]}: ${vs.join('/')}` : ''))
        .filter(Boolean)
        .join('; ');
      worst.add(lost, () => [idOf(rec, where), domainOf(name), `${lost}/${9 * o}`, cellsLost, clip(str(rec.prompt), 200)]);
    }
  };
  /** A result or records line: RM-Bench scores, or the verdicts of a pairwise run. */
  const addRecord = (where: string, rec: Record<string, unknown>, fallback: string) => {
    if (typeof rec.error === 'string') {
      invalidGrades++;
      problems.add(where, rec.error);
    } else if ('verdicts' in rec) addPairwise(where, rec, fallback);
    else addScored(where, rec, fallback);
  };
  const grader = opts.grader;
  if (!grader) {
    for (const file of opts.files) {
      const src = await openRecords(file);
      const fallback = fileDomain(file);
      const progress = progressFor(`rm-bench ${fallback}`, opts, src);
      for await (const r of src.records()) {
        progress.tick();
        if ('error' in r) problems.add(r.where, r.error);
        else addRecord(r.where, r.value, fallback);
      }
      progress.done();
    }
  } else {
    // one stream over every file, so one records file holds (and resumes) them all
    let current = '';
    const progress = progressFor('rm-bench', opts, undefined, () => current);
    async function* units(): AsyncGenerator<Unit> {
      for (const file of opts.files) {
        const src = await openRecords(file);
        const fallback = fileDomain(file);
        current = fallback;
        for await (const r of src.records()) {
          if ('error' in r) problems.add(r.where, r.error);
          else yield { key: `${file}#${r.index}`, where: r.where, rec: r.value, fallback };
        }
      }
    }
    const work = async (u: Unit): Promise<Record<string, unknown>> => {
      const ch = u.rec.chosen;
      const rj = u.rec.rejected;
      // the prompt's own id is kept as prompt_id: "id" is the unit key the records file resumes by
      const head = { where: u.where, prompt_id: u.rec.id ?? null, domain: nameOf(u.rec, u.fallback), prompt: u.rec.prompt };
      if (!isTriple(ch) || !isTriple(rj)) return { ...head, error: 'needs "chosen" and "rejected": three response strings each' };
      const { chosen: _c, rejected: _r, ...rest } = u.rec;
      const item = { ...rest, question: str(u.rec.prompt) ?? '' };
      if (plan.mode === 'pointwise') {
        const res = await Promise.all([...ch, ...rj].map((t) => gradeOne(grader, opts.services!, item, t)));
        const bad = res.map((x, i) => (x.valid ? '' : `${i < 3 ? 'chosen' : 'rejected'}[${i % 3}]: ${x.error?.kind}: ${x.error?.message}`)).filter(Boolean);
        const s = res.map((x) => (x.valid ? x.score : null));
        return {
          ...head,
          score_chosen: s.slice(0, 3),
          score_rejected: s.slice(3),
          ...(bad.length ? { error: `ungradeable responses: ${bad.join('; ')}` } : {}),
        };
      }
      // chosen style i against rejected style j; the first order shows the chosen response first
      const outs: OrderOutcome[][] = await Promise.all(
        ch.flatMap((c) => rj.map((r) => judgePair(grader, 'pairwise', { question: item.question, a: c, b: r, item }, opts.services!, plan.orders!))),
      );
      const side = (o: OrderOutcome) => (o.winner === 'A' ? 'chosen' : o.winner === 'B' ? 'rejected' : o.winner);
      const verdicts = [0, 1, 2].map((i) => [0, 1, 2].map((j) => outs[i * 3 + j]!.map(side)));
      const reasons = [0, 1, 2].map((i) => [0, 1, 2].map((j) => outs[i * 3 + j]!.map((o) => clip(o.reason, 300))));
      const bad = outs.flatMap((os, k) =>
        os.map((o, n) => (o.winner === null ? `${STYLES[Math.floor(k / 3)]} vs ${STYLES[k % 3]}, order ${n + 1}: ${o.error ?? o.reason}` : '')).filter(Boolean),
      );
      return { ...head, orders: plan.orders, verdicts, reasons, ...(bad.length ? { error: `ungradeable comparisons: ${bad.join('; ')}` } : {}) };
    };
    for await (const o of runUnits(units(), work, runOptions(opts, progress))) {
      const fallback = fileDomain(str(o.id)?.replace(/#\d+$/, '') ?? '');
      addRecord(str(o.where) ?? '?', o, fallback);
    }
    progress.done();
  }
  const pairwise = kind === 'pairwise';
  const r = newReport('rm-bench', `RM-Bench: ${opts.graderFile ?? opts.files.join(', ')}`, {
    files: opts.files,
    ...(opts.graderFile ? { grader: opts.graderFile, mode: plan.mode, ...(plan.orders ? { orders: plan.orders } : {}) } : {}),
  });
  r.metrics = board.metrics();
  const fine = subsets.order();
  if (fine.some((n) => domainOf(n) !== n)) {
    const per = subsets.per();
    r.metrics.subsets = Object.fromEntries(
      fine.map((n) => [
        n,
        {
          hard_acc: per[n]!.hard_acc,
          normal_acc: per[n]!.normal_acc,
          easy_acc: per[n]!.easy_acc,
          avg_acc: npMean([per[n]!.hard_acc, per[n]!.normal_acc, per[n]!.easy_acc]),
          n: subsets.groups.get(n)!.n,
        },
      ]),
    );
  }
  if (pairwise) {
    r.metrics.mode = 'pairwise';
    r.metrics.orders = orders;
    r.metrics.comparisons = pair.comparisons;
    r.metrics.ties = pair.ties;
    if (orders === 2) {
      const pick = (m: Record<string, unknown>) => ({
        hard_acc: m.hard_acc,
        normal_acc: m.normal_acc,
        easy_acc: m.easy_acc,
        ...('total_avg_acc' in m ? { total_avg_acc: m.total_avg_acc } : {}),
      });
      r.metrics.by_order = { chosen_first: pick(byOrder[0]!.metrics()), chosen_second: pick(byOrder[1]!.metrics()) };
      r.metrics.position_consistency = pair.comparisons ? pair.consistent / pair.comparisons : null;
    }
  }
  const order = board.order();
  const per = board.per();
  const pctOf = (v: unknown) => (typeof v === 'number' ? v * 100 : null);
  r.headline = [
    ...(order.length > 1 ? [{ key: 'total_avg_acc', label: 'Total average', value: pctOf(r.metrics.total_avg_acc), digits: 2, unit: '%' as const }] : []),
    { key: 'hard_acc', label: 'Hard (chosen plainer than rejected)', value: pctOf(r.metrics.hard_acc), digits: 2, unit: '%' },
    { key: 'normal_acc', label: 'Normal (same style)', value: pctOf(r.metrics.normal_acc), digits: 2, unit: '%' },
    { key: 'easy_acc', label: 'Easy (chosen fancier)', value: pctOf(r.metrics.easy_acc), digits: 2, unit: '%' },
    ...(pairwise && orders === 2
      ? ([
          {
            key: 'position_consistency',
            label: 'Position consistency (same winner in both orders)',
            value: pctOf(r.metrics.position_consistency),
            digits: 2,
            unit: '%',
          },
        ] as Headline[])
      : []),
  ];
  const all = board.pooled();
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
    columns: pairwise
      ? ['id', 'domain', 'lost', 'lost comparisons (chosen style vs rejected style: verdict per order)', 'prompt']
      : ['id', 'domain', 'lost', 'worst margin (chosen - rejected)', 'prompt'],
    rows: worst.rows(),
    total: worst.total,
  });
  r.counts = { records: all.n + problems.count, skipped: problems.count, invalid: invalidGrades };
  r.problems = problems.list;
  r.notes.push(
    pairwise
      ? "Metrics are fractions, as RM-Bench reports them (headline numbers are shown in %). Pairwise: each prompt's 3x3 chosen/rejected pairs judged as pairs; a cell is the share of orders in which the chosen response won outright (a tie is a loss, as an equal score is in RM-Bench)."
      : 'Metrics are fractions, as RM-Bench reports them (headline numbers are shown in %). A tie counts as a loss (chosen must score strictly higher).',
  );
  if (pairwise && orders === 1)
    r.notes.push(
      'One order: the chosen response is shown first in every comparison, so a judge that favours the first position scores high; --orders 2 shows each pair both ways.',
    );
  if (grader)
    r.notes.push(
      `Live run: a prompt with any ungradeable ${plan.mode === 'pairwise' ? 'comparison' : 'response'} is left out of the matrix and listed under problems (RM-Bench has no rule for it).`,
    );
  return r;
}

export const suite: Suite = {
  name: 'rm-bench',
  summary:
    "RM-Bench's 3x3 style-substance matrix and hard/normal/easy accuracy: re-scores result files (score_chosen/score_rejected) or grades the data files with a --grader (pointwise: each response scored; pairwise: the 9 chosen/rejected pairs judged)",
  args: '<files...>',
  example: 'arbiter eval rm-bench rm-bench/chat_filtered.json --grader rm.json --html rm.html',
  // --mode and --orders apply to pairwise graders; rmBenchPlan refuses what cannot apply
  takes: ['mode', 'orders', 'records', 'concurrency', 'max-cases'],
  options: [],
  run: runRmBench,
};
