// JudgeBench (ScalerLab/JudgeBench, utils/metrics.py): a judge sees each response pair in both
// orders; the second order's decision is flipped back, each order counts +1 when it matches the
// label and -1 when it prefers the wrong response (a tie or no decision counts 0), and a pair is
// correct when the sum is positive. A file judged in one order (reward models, --single_game) is
// scored as plain accuracy. Scores are percentages per source category (knowledge = mmlu-pro,
// reasoning = livebench-reasoning, math = livebench-math, coding = livecodebench) and overall.
// Besides the recorded decisions, each decision is recomputed from the raw judgment with arbiter's
// own verdict parser (or from the two reward-model scores) and the differences are reported.
import { parsePairwise } from '../../graders/judges/parse/index.js';
import { pyFixed } from '../numeric.js';
import { judgeMode, judgePair, type OrderOutcome } from '../pairs.js';
import { openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, pct, progressFor, runOptions, str, type Suite, type SuiteOptions } from './common.js';

export const CATEGORIES: [string, string][] = [
  ['knowledge', 'mmlu-pro'],
  ['reasoning', 'livebench-reasoning'],
  ['math', 'livebench-math'],
  ['coding', 'livecodebench'],
];

export function categoryOf(source: string): string | undefined {
  for (const [name, prefix] of CATEGORIES) if (source.startsWith(prefix)) return name;
  return undefined;
}

export type Decision = string | null;

export function flip(d: Decision): Decision {
  return d === 'A>B' ? 'B>A' : d === 'B>A' ? 'A>B' : d;
}

class Tally {
  n = 0;
  correct = 0;
  incorrect = 0;
  tie = 0;
  all_correct = 0;
  all_incorrect = 0;
  some_correct = 0;
  inconsistent = 0;
  nulls = 0;
  /** Pair metric (two orders) or accuracy (one order), from the decisions as given. */
  add(label: string, decisions: Decision[]): boolean {
    this.n++;
    if (decisions.length === 1) {
      const ok = decisions[0] === label;
      if (ok) this.correct++;
      else this.incorrect++;
      return ok;
    }
    const d1 = decisions[0] ?? null;
    const d2 = flip(decisions[1] ?? null);
    if (d1 === null || d2 === null) this.nulls++;
    if (d1 === label && d2 === label) this.all_correct++;
    else if (d1 !== label && d2 !== label) this.all_incorrect++;
    else this.some_correct++;
    if (d1 !== d2) this.inconsistent++;
    let counter = 0;
    for (const d of [d1, d2]) {
      if (d === label) counter++;
      else if (d === flip(label)) counter--;
    }
    if (counter > 0) this.correct++;
    else if (counter < 0) this.incorrect++;
    else this.tie++;
    return counter > 0;
  }
  score(): number | null {
    return pct(this.correct, this.n);
  }
}

/** Per-category and overall tallies of one decision source (recorded or recomputed). */
class Board {
  readonly cats = new Map<string, Tally>(CATEGORIES.map(([c]) => [c, new Tally()]));
  readonly overall = new Tally();
  add(category: string | undefined, label: string, decisions: Decision[]): boolean {
    if (category) this.cats.get(category)!.add(label, decisions);
    return this.overall.add(label, decisions);
  }
  scores(): Record<string, number | null> {
    const out: Record<string, number | null> = {};
    for (const [c, t] of this.cats) out[c] = t.n ? t.score() : null;
    out.overall = this.overall.score();
    return out;
  }
}

/** arbiter's own reading of one recorded judgment. */
export function recompute(j: unknown): { decision: Decision; how: string } {
  if (!j || typeof j !== 'object') return { decision: null, how: 'no judgment (the judge call failed)' };
  const inner = (j as { judgment?: unknown }).judgment as Record<string, unknown> | undefined;
  const scores = inner?.scores;
  if (Array.isArray(scores) && scores.length === 2 && scores.every((s) => typeof s === 'number' && Number.isFinite(s))) {
    const [a, b] = scores as [number, number];
    return { decision: a > b ? 'A>B' : a < b ? 'B>A' : 'A=B', how: `scores ${a} vs ${b}${a === b ? ' (equal: a tie)' : ''}` };
  }
  const response = inner?.response;
  if (typeof response !== 'string') return { decision: null, how: 'the judgment has neither a response text nor two scores' };
  const v = parsePairwise(response);
  if (!v.ok) return { decision: null, how: `arbiter's parser: ${v.message}` };
  return {
    decision: v.value === 'A' ? 'A>B' : v.value === 'B' ? 'B>A' : 'A=B',
    how: `arbiter's parser read ${JSON.stringify(v.matched.slice(0, 80))} (${v.format})`,
  };
}

function judgmentText(j: unknown): string {
  const inner = (j as { judgment?: Record<string, unknown> } | null)?.judgment;
  if (!inner) return '';
  if (Array.isArray(inner.scores)) return `scores ${JSON.stringify(inner.scores)}`;
  const r = str(inner.response) ?? '';
  return r.length > 400 ? `…${r.slice(-400)}` : r;
}

/** Accumulates JudgeBench output records (recorded or produced live). */
export class JudgeBenchScorer {
  readonly recorded = new Board();
  readonly arbiter = new Board();
  orders: number | undefined;
  decisions = 0;
  differ = 0;
  unparsed = 0;
  readonly problems = new Problems();
  readonly wrong: WorstCases<(string | number | null)[]>;
  readonly diffs: WorstCases<(string | number | null)[]>;
  judge = '';
  responseModel = '';
  constructor(maxCases: number, orders?: 1 | 2) {
    this.orders = orders;
    this.wrong = new WorstCases(maxCases);
    this.diffs = new WorstCases(maxCases);
  }

  add(where: string, rec: Record<string, unknown>): void {
    const label = rec.label;
    if (label !== 'A>B' && label !== 'B>A') {
      this.problems.add(where, `label must be "A>B" or "B>A", got ${JSON.stringify(label)}`);
      return;
    }
    const source = str(rec.source) ?? '';
    const js = rec.judgments;
    if (!Array.isArray(js) || js.length < 1 || js.length > 2) {
      this.problems.add(where, '"judgments" must be a list of one or two judgments');
      return;
    }
    this.orders ??= js.length;
    if (js.length !== this.orders) {
      this.problems.add(where, `has ${js.length} judgment(s) but the file is scored with ${this.orders} order(s)`);
      return;
    }
    if (!this.judge) {
      const first = js.find((j) => j && typeof j === 'object') as { judgment?: { judge_model?: unknown } } | undefined;
      this.judge = [str(rec.judge_name), str(first?.judgment?.judge_model)].filter(Boolean).join(' / ');
      this.responseModel = str(rec.response_model) ?? '';
    }
    const cat = categoryOf(source);
    const recorded: Decision[] = js.map((j) => (j && typeof j === 'object' ? (((j as { decision?: unknown }).decision as Decision) ?? null) : null));
    const ours = js.map((j) => recompute(j));
    const id = str(rec.pair_id) ?? where;
    for (let i = 0; i < js.length; i++) {
      this.decisions++;
      if (ours[i]!.decision === null) this.unparsed++;
      if (ours[i]!.decision !== recorded[i]) {
        this.differ++;
        this.diffs.add(1, () => [id, cat ?? source, i + 1, recorded[i] ?? 'none', ours[i]!.decision ?? 'none', clip(ours[i]!.how, 200)]);
      }
    }
    const ok = this.recorded.add(cat, label, recorded);
    this.arbiter.add(
      cat,
      label,
      ours.map((o) => o.decision),
    );
    if (!ok) {
      // severity: a pair both orders got wrong outranks a split one
      const score =
        recorded.length === 1 ? -1 : [recorded[0] ?? null, flip(recorded[1] ?? null)].reduce((s, d) => s + (d === label ? 1 : d === flip(label) ? -1 : 0), 0);
      this.wrong.add(-score, () => [
        id,
        cat ?? source,
        label,
        recorded.map((d) => d ?? 'none').join(' | '),
        clip(str(rec.question), 160),
        clip(js.map(judgmentText).join(' ‖ '), 400),
      ]);
    }
  }

  report(inputs: Record<string, unknown>, published?: number): EvalReport {
    const r = newReport('judgebench', `JudgeBench: ${this.judge || 'judge'}${this.responseModel ? ` on ${this.responseModel} pairs` : ''}`, inputs);
    const scores = this.recorded.scores();
    const metric = this.orders === 1 ? 'accuracy' : 'pair';
    const o = this.recorded.overall;
    r.metrics = {
      ...scores,
      metric,
      printed: Object.fromEntries(Object.entries(scores).map(([k, v]) => [k, v === null ? null : `${pyFixed(v, 2)}%`])),
      n_pairs: { ...Object.fromEntries([...this.recorded.cats].map(([c, t]) => [c, t.n])), overall: o.n },
      ...(metric === 'pair'
        ? {
            consistency: {
              n_all_correct: o.all_correct,
              n_all_incorrect: o.all_incorrect,
              n_some_correct: o.some_correct,
              n_inconsistent: o.inconsistent,
              n_nulls: o.nulls,
              n_correct: o.correct,
              n_incorrect: o.incorrect,
              n_tie: o.tie,
            },
          }
        : {}),
      arbiter_parse: { ...this.arbiter.scores(), decisions: this.decisions, differ: this.differ, unparsed: this.unparsed },
    };
    r.headline = [
      { key: 'overall', label: 'Overall', value: scores.overall ?? null, digits: 2, unit: '%', ...(published !== undefined ? { published } : {}) },
      ...CATEGORIES.map(([c]) => ({ key: c, label: c[0]!.toUpperCase() + c.slice(1), value: scores[c] ?? null, digits: 2, unit: '%' as const })),
      { key: 'arbiter_parse.overall', label: "Overall, arbiter's parser", value: this.arbiter.scores().overall ?? null, digits: 2, unit: '%' },
      { key: 'arbiter_parse.differ', label: 'Decisions arbiter reads differently', value: this.differ, digits: 0, unit: '' },
    ];
    r.plots.push({
      kind: 'bars',
      id: 'categories',
      title: `JudgeBench ${metric === 'pair' ? 'pair score' : 'accuracy'} per category (%)`,
      y_label: '%',
      max: 100,
      data: [...CATEGORIES.map(([c]) => c), 'overall'].flatMap((c) => [
        { label: c, value: scores[c] ?? 0, group: 'recorded decisions' },
        { label: c, value: this.arbiter.scores()[c] ?? 0, group: "arbiter's parser" },
      ]),
    });
    if (metric === 'pair') {
      r.plots.push({
        kind: 'stacked',
        id: 'position',
        title: 'Position consistency: both orders right, one right, both wrong',
        y_label: 'pairs',
        data: [...this.recorded.cats, ['overall', o] as const].flatMap(([c, t]) => [
          { label: c, part: 'both orders right', value: t.all_correct },
          { label: c, part: 'one order right', value: t.some_correct },
          { label: c, part: 'both orders wrong', value: t.all_incorrect },
        ]),
      });
    }
    r.tables.push({
      id: 'wrong',
      title: 'Pairs the judge got wrong',
      columns: ['pair_id', 'category', 'label', 'decisions', 'question', 'judgment (end)'],
      rows: this.wrong.rows(),
      total: this.wrong.total,
    });
    r.tables.push({
      id: 'differ',
      title: "Decisions arbiter's parser reads differently from the recorded one",
      columns: ['pair_id', 'category', 'order', 'recorded', 'arbiter', 'why'],
      rows: this.diffs.rows(),
      total: this.diffs.total,
    });
    r.counts = { records: o.n + this.problems.count, skipped: this.problems.count, invalid: this.unparsed };
    r.problems = this.problems.list;
    r.notes.push(
      metric === 'pair'
        ? 'Pair metric as in JudgeBench: the second order is flipped back; +1 per order matching the label, -1 per order preferring the other response, 0 for a tie or no decision; a pair is correct when the sum is positive.'
        : 'One order per pair (as JudgeBench --single_game): accuracy of the recorded decision against the label.',
      "arbiter's parser: the same metric with each decision re-read from the raw judge text by arbiter's pairwise verdict parser (which takes the last verdict; JudgeBench's arena-hard parser gives no decision when the text holds several different verdicts), or from the two reward-model scores (equal scores are a tie; JudgeBench's reward-model judge records B>A for them).",
    );
    return r;
  }
}

function decisionOf(o: OrderOutcome, order: number): Decision {
  const d = o.winner === 'A' ? 'A>B' : o.winner === 'B' ? 'B>A' : o.winner === 'tie' ? 'A=B' : null;
  return order === 2 ? flip(d) : d;
}

export async function runJudgeBench(opts: SuiteOptions): Promise<EvalReport> {
  if (opts.files.length !== 1) throw new EvalUsageError('judgebench takes one file: a JudgeBench outputs file (re-scored) or a pairs file (with --grader)');
  const file = opts.files[0]!;
  const src = await openRecords(file);
  const scorer = new JudgeBenchScorer(opts.maxCases, opts.orders);
  const progress = progressFor('judgebench', opts, src, () => `overall ${pyFixed(scorer.recorded.overall.score() ?? 0, 2)}%`);
  const grader = opts.grader;
  if (!grader) {
    for await (const r of src.records()) {
      progress.tick();
      if ('error' in r) scorer.problems.add(r.where, r.error);
      else if (!Array.isArray(r.value.judgments))
        scorer.problems.add(r.where, 'no "judgments": this looks like a pairs file; give --grader G.json to judge it');
      else scorer.add(r.where, r.value);
    }
    progress.done();
    return scorer.report({ file });
  }
  const mode = judgeMode(grader, opts.mode);
  const orders: 1 | 2 = opts.orders ?? (mode === 'pointwise' ? 1 : 2);
  scorer.orders = orders;
  const services = opts.services!;
  async function* units() {
    for await (const r of src.records()) {
      if ('error' in r) {
        scorer.problems.add(r.where, r.error);
        continue;
      }
      yield { key: String(r.index), where: r.where, rec: r.value };
    }
  }
  const work = async (u: { where: string; rec: Record<string, unknown> }) => {
    const rec = u.rec;
    const a = str(rec.response_A);
    const b = str(rec.response_B);
    if (a === undefined || b === undefined) return { where: u.where, error: 'needs string fields "response_A" and "response_B"' };
    const outcomes = await judgePair(grader, mode, { question: str(rec.question) ?? '', a, b, item: rec }, services, orders);
    const judgments = outcomes.map((o, i) => {
      // JudgeBench's reward-model judges record B>A for equal scores; keep that rule for pointwise graders
      const tieAsB = mode === 'pointwise' && o.winner === 'tie';
      return {
        judgment: {
          judge_model: opts.graderFile ?? grader.name,
          ...(o.scores ? { scores: o.scores } : { response: o.reason }),
          ...(o.error ? { error: o.error } : {}),
        },
        decision: tieAsB ? 'B>A' : decisionOf(o, i + 1),
      };
    });
    const { response_A: _a, response_B: _b, ...rest } = rec;
    return { where: u.where, ...rest, judge_name: `arbiter:${grader.name}`, judgments };
  };
  for await (const out of runUnits(units(), work, runOptions(opts, progress))) {
    const o = out as Record<string, unknown>;
    if (typeof o.error === 'string') scorer.problems.add(str(o.where) ?? '?', o.error);
    else scorer.add(str(o.where) ?? '?', o);
  }
  progress.done();
  const r = scorer.report({ file, grader: opts.graderFile, mode, orders, ...(opts.records ? { records: opts.records } : {}) }, opts.published);
  r.notes.push(
    `Live run: each pair judged by ${opts.graderFile ?? grader.name} (${mode}${mode === 'pairwise' ? `, ${orders} order(s)` : ''}); the records file holds JudgeBench-format judgments and can be re-scored with \`arbiter eval judgebench RECORDS\`.`,
  );
  return r;
}

export const suite: Suite = {
  name: 'judgebench',
  summary:
    "JudgeBench's pair metric per category (knowledge, reasoning, math, coding) and overall; re-scores an outputs file, or judges a pairs file with --grader",
  args: '<file>',
  example:
    'arbiter eval judgebench "judgebench/outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=arena_hard,judge_model=o1-mini-2024-09-12.jsonl" --html jb.html',
  takes: ['mode', 'orders', 'records', 'concurrency', 'max-cases'],
  options: [],
  run: runJudgeBench,
};
