// Preference accuracy of any live grader on chosen/rejected pairs. Data: HH-RLHF (chosen/rejected
// dialogues sharing a prefix), LLMBar dataset.json (output_1/output_2/label), JudgeBench pairs
// (response_A/response_B/label), or JSONL {question|prompt, chosen, rejected, category?}.
// LLMBar and JudgeBench data are scored by those suites (their statistics, their tie rules); the
// rest as reward-model benchmarks do: the chosen response must win outright, a tie is a miss.
// Pairwise graders are asked in both orders (chosen shown first, then second); pointwise graders
// score each response once.
import { judgeMode, judgePair, type OrderOutcome } from '../pairs.js';
import { openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, pct, progressFor, recordedRecords, runOptions, str, type Suite, type SuiteOptions } from './common.js';
import { runJudgeBench } from './judgebench.js';
import { runLlmbar } from './llmbar.js';

export type PreferenceFormat = 'hh-rlhf' | 'llmbar' | 'judgebench' | 'pairs';

/** Splits an HH-RLHF dialogue pair into the shared prompt and the two final assistant turns. */
export function splitHh(chosen: string, rejected: string): { question: string; chosen: string; rejected: string } {
  const cut = (s: string) => {
    const i = s.lastIndexOf('\n\nAssistant:');
    return i < 0 ? { prefix: '', last: s } : { prefix: s.slice(0, i), last: s.slice(i + '\n\nAssistant:'.length).trim() };
  };
  const c = cut(chosen);
  const r = cut(rejected);
  if (c.prefix === r.prefix) return { question: c.prefix.trim(), chosen: c.last, rejected: r.last };
  return { question: '', chosen, rejected };
}

export function detectFormat(rec: Record<string, unknown>): PreferenceFormat | undefined {
  if ('output_1' in rec && 'output_2' in rec && 'label' in rec) return 'llmbar';
  if ('response_A' in rec && 'response_B' in rec && 'label' in rec) return 'judgebench';
  if (typeof rec.chosen === 'string' && typeof rec.rejected === 'string') return rec.chosen.startsWith('\n\nHuman:') ? 'hh-rlhf' : 'pairs';
  return undefined;
}

async function sniff(file: string): Promise<PreferenceFormat | undefined> {
  const src = await openRecords(file);
  for await (const r of src.records()) if (!('error' in r)) return detectFormat(r.value);
  return undefined;
}

class Acc {
  n = 0;
  correct = [0, 0];
  both = 0;
  consistent = 0;
  ties = 0;
  undecided = 0;
  add(outs: OrderOutcome[], chosenIsA: boolean[]): boolean[] {
    this.n++;
    const ok = outs.map((o, i) => o.winner === (chosenIsA[i] ? 'A' : 'B'));
    for (let i = 0; i < ok.length; i++) this.correct[i]! += ok[i] ? 1 : 0;
    if (ok.every(Boolean)) this.both++;
    if (outs.some((o) => o.winner === 'tie')) this.ties++;
    if (outs.some((o) => o.winner === null)) this.undecided++;
    // consistency: the same response wins in both orders
    if (outs.length === 2) {
      const w = outs.map((o, i) => (o.winner === null || o.winner === 'tie' ? o.winner : (o.winner === 'A') === chosenIsA[i] ? 'chosen' : 'rejected'));
      if (w[0] === w[1]) this.consistent++;
    }
    return ok;
  }
}

export async function runPreference(opts: SuiteOptions): Promise<EvalReport> {
  if (opts.files.length > 1 || (!opts.files.length && !opts.recorded))
    throw new EvalUsageError('preference takes one data file (or --recorded RECORDS.jsonl alone)');
  const grader = opts.grader;
  const file = opts.files[0] ?? '';
  const recorded = opts.recorded;
  if (!grader && !recorded)
    throw new EvalUsageError('preference grades pairs live: give --grader G.json, or --recorded RECORDS.jsonl to re-score a previous run');
  const fmt = recorded ? 'pairs' : ((opts.extra.format as PreferenceFormat | undefined) ?? (await sniff(file)));
  if (fmt === 'llmbar') return runLlmbar(opts);
  if (fmt === 'judgebench') return runJudgeBench(opts);
  if (fmt !== 'hh-rlhf' && fmt !== 'pairs')
    throw new EvalUsageError(
      `cannot tell the format of ${file}: expected HH-RLHF {chosen, rejected}, LLMBar {output_1, output_2, label}, JudgeBench {response_A, response_B, label} or {question, chosen, rejected}; or give --format`,
    );
  const mode = grader ? judgeMode(grader, opts.mode) : 'recorded';
  let orders: 1 | 2 = mode === 'pointwise' ? 1 : (opts.orders ?? 2);
  const src = recorded ? undefined : await openRecords(file);
  const problems = new Problems();
  const overall = new Acc();
  const cats = new Map<string, Acc>();
  const worst = new WorstCases<(string | number | null)[]>(opts.maxCases);
  const progress = progressFor('preference', opts, src, () => `accuracy ${((100 * overall.correct[0]!) / Math.max(1, overall.n)).toFixed(1)}%`);
  async function* units() {
    for await (const r of src!.records()) {
      if ('error' in r) problems.add(r.where, r.error);
      else yield { key: String(r.index), where: r.where, rec: r.value };
    }
  }
  const work = async (u: { where: string; rec: Record<string, unknown> }) => {
    const c = str(u.rec.chosen);
    const j = str(u.rec.rejected);
    if (c === undefined || j === undefined) return { where: u.where, error: 'needs string fields "chosen" and "rejected"' };
    const t = fmt === 'hh-rlhf' ? splitHh(c, j) : { question: str(u.rec.question) ?? str(u.rec.prompt) ?? '', chosen: c, rejected: j };
    // order 1 shows chosen first; order 2 shows it second
    const outs = await judgePair(grader!, mode as 'pairwise', { question: t.question, a: t.chosen, b: t.rejected, item: { ...u.rec } }, opts.services!, orders);
    return {
      where: u.where,
      category: str(u.rec.category) ?? null,
      question: clip(t.question, 300),
      outcomes: outs.map((o) => ({
        winner: o.winner === 'A' ? 'chosen' : o.winner === 'B' ? 'rejected' : o.winner,
        reason: clip(o.reason, 1000),
        ...(o.scores ? { scores: o.scores } : {}),
      })),
    };
  };
  let ordersSeen = 0;
  for await (const o of recorded ? recordedRecords(recorded, problems, progress) : runUnits(units(), work, runOptions(opts, progress))) {
    if (typeof o.error === 'string') {
      problems.add(str(o.where) ?? '?', o.error);
      continue;
    }
    if (!Array.isArray(o.outcomes) || o.outcomes.length < 1 || o.outcomes.length > 2) {
      problems.add(str(o.where) ?? '?', 'a preference record needs "outcomes" (one or two orders)');
      continue;
    }
    ordersSeen ||= o.outcomes.length;
    const outs = (o.outcomes as { winner: string | null; reason: string; scores?: number[] }[]).map(
      (x) => ({ winner: x.winner === 'chosen' ? 'A' : x.winner === 'rejected' ? 'B' : (x.winner as 'tie' | null), reason: x.reason }) as OrderOutcome,
    );
    const chosenIsA = outs.map(() => true);
    const ok = overall.add(outs, chosenIsA);
    const cat = str(o.category);
    if (cat) {
      if (!cats.has(cat)) cats.set(cat, new Acc());
      cats.get(cat)!.add(outs, chosenIsA);
    }
    const misses = ok.filter((v) => !v).length;
    if (misses)
      worst.add(misses, () => [
        str(o.where) ?? '?',
        (o.outcomes as { winner: string | null }[]).map((x) => x.winner ?? 'none').join(' | '),
        clip(o.question, 160),
        clip((o.outcomes as { reason: string }[]).map((x) => x.reason).join(' ‖ '), 500),
      ]);
  }
  progress.done();
  const r = newReport('preference', `Preference accuracy: ${opts.graderFile ?? grader?.name ?? 'recorded run'} on ${recorded ?? file}`, {
    file,
    ...(recorded ? { recorded } : { grader: opts.graderFile }),
    format: fmt,
    mode,
    orders,
  });
  const accOf = (a: Acc) => ({
    accuracy: orders === 2 ? pct(a.correct[0]! + a.correct[1]!, 2 * a.n) : pct(a.correct[0]!, a.n),
    ...(orders === 2
      ? {
          accuracy_chosen_first: pct(a.correct[0]!, a.n),
          accuracy_chosen_second: pct(a.correct[1]!, a.n),
          both_orders_correct: pct(a.both, a.n),
          position_consistency: pct(a.consistent, a.n),
        }
      : {}),
    ties: a.ties,
    undecided: a.undecided,
    n: a.n,
  });
  if (recorded && ordersSeen) orders = ordersSeen as 1 | 2;
  r.metrics = {
    ...accOf(overall),
    ...(cats.size ? { categories: Object.fromEntries([...cats].map(([k, v]) => [k, accOf(v)])) } : {}),
    tie_rule: 'a tie counts as a miss',
  };
  r.headline = [
    { key: 'accuracy', label: orders === 2 ? 'Accuracy (mean of both orders)' : 'Accuracy', value: r.metrics.accuracy as number | null, digits: 2, unit: '%' },
    ...(orders === 2
      ? [
          { key: 'accuracy_chosen_first', label: 'Chosen shown first', value: r.metrics.accuracy_chosen_first as number | null, digits: 2, unit: '%' as const },
          {
            key: 'accuracy_chosen_second',
            label: 'Chosen shown second',
            value: r.metrics.accuracy_chosen_second as number | null,
            digits: 2,
            unit: '%' as const,
          },
          { key: 'position_consistency', label: 'Position consistency', value: r.metrics.position_consistency as number | null, digits: 2, unit: '%' as const },
        ]
      : []),
    { key: 'ties', label: 'Ties', value: overall.ties, digits: 0, unit: '' },
  ];
  const groups = cats.size ? [...cats] : [['all', overall] as const];
  r.plots.push({
    kind: 'bars',
    id: 'categories',
    title: 'Accuracy (%)',
    y_label: '%',
    max: 100,
    data: groups.map(([k, a]) => ({ label: k, value: accOf(a).accuracy ?? 0 })),
  });
  if (orders === 2) {
    r.plots.push({
      kind: 'stacked',
      id: 'position',
      title: 'Position consistency',
      y_label: 'pairs',
      data: groups.flatMap(([k, a]) => {
        const one = a.correct[0]! + a.correct[1]! - 2 * a.both;
        return [
          { label: k, part: 'both orders right', value: a.both },
          { label: k, part: 'one order right', value: one },
          { label: k, part: 'both orders wrong', value: a.n - a.both - one },
        ];
      }),
    });
  }
  r.tables.push({
    id: 'worst',
    title: 'Pairs the grader got wrong',
    columns: ['where', 'winner per order', 'question', 'reasons'],
    rows: worst.rows(),
    total: worst.total,
  });
  r.counts = { records: overall.n + problems.count, skipped: problems.count, invalid: overall.undecided };
  r.problems = problems.list;
  r.notes.push('The chosen response must win outright: a tie or an ungradeable pair counts as a miss (as RewardBench-style preference benchmarks count it).');
  return r;
}

export const suite: Suite = {
  name: 'preference',
  summary:
    'accuracy of a pairwise (both orders) or pointwise grader on chosen/rejected pairs: HH-RLHF, LLMBar, JudgeBench or {question, chosen, rejected} JSONL',
  args: '[file]',
  example: 'arbiter eval preference hh-rlhf/harmless-base-test.jsonl.gz --grader judge.json --records run.jsonl --resume',
  takes: ['mode', 'orders', 'recorded', 'records', 'concurrency', 'max-cases'],
  options: [{ flags: '--format <f>', description: 'hh-rlhf, llmbar, judgebench or pairs (default: detected from the first record)', key: 'format' }],
  run: runPreference,
};
