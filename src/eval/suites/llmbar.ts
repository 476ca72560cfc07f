// LLMBar (princeton-nlp/LLMBar, LLMEvaluator/evaluate.py): each instance is judged with the outputs
// in the given order ("swap = False") and swapped ("swap = True", its winner mapped back); the
// statistics are the accuracy in each order, their average, both-correct, positional agreement
// ("equal"), and Cohen's kappa of each order against the label, their average, and between the two
// orders, under the keys of LLMBar's statistics.json and with its formatting. As in LLMBar, the
// kappa inputs map winner "1" to 1 and anything else to 0 while labels stay 1 and 2 (a quirk of the
// reference script, kept so the numbers compare). Recorded completions are re-read with arbiter's
// pairwise parser and the winners that differ are reported.
import { parsePairwise } from '../../graders/judges/parse/index.js';
import { cohenKappa, PairCounts, pyRepr } from '../numeric.js';
import { judgeMode, judgePair, type OrderOutcome } from '../pairs.js';
import { openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport, type Table } from '../report.js';
import { runUnits } from '../run.js';
import { WorstCases } from '../worst.js';
import { EvalUsageError, progressFor, runOptions, str, type Suite, type SuiteOptions } from './common.js';

type Winner = string | null;

class Stats {
  n = 0;
  cF = 0;
  cT = 0;
  both = 0;
  equal = 0;
  readonly kF = new PairCounts();
  readonly kT = new PairCounts();
  readonly kAgree = new PairCounts();
  add(label: number, wF: Winner, wT: Winner): void {
    const l = String(label);
    this.n++;
    this.cF += wF === l ? 1 : 0;
    this.cT += wT === l ? 1 : 0;
    this.both += wF === l && wT === l ? 1 : 0;
    this.equal += wT === wF ? 1 : 0;
    const yF = wF === '0' || wF === '1' ? Number(wF) : 0;
    const yT = wT === '0' || wT === '1' ? Number(wT) : 0;
    this.kF.add(yF, label);
    this.kT.add(yT, label);
    this.kAgree.add(yF, yT);
  }
  statistics(): Record<string, string | number | null> {
    const n = this.n;
    const f = (c: number) => `${c} / ${n} = ${pyRepr((c / n) * 100)}%`;
    const kF = cohenKappa(this.kF);
    const kT = cohenKappa(this.kT);
    const num = (x: number) => (Number.isFinite(x) ? x : null);
    return {
      correct_False: f(this.cF),
      correct_True: f(this.cT),
      correct_average: `${pyRepr(((this.cF + this.cT) / 2 / n) * 100)}%`,
      correct_both: f(this.both),
      equal: f(this.equal),
      kappa_False: num(kF),
      kappa_True: num(kT),
      kappa_average: num((kF + kT) / 2),
      kappa_agreement: num(cohenKappa(this.kAgree)),
    };
  }
  numbers() {
    const n = this.n || Number.NaN;
    return {
      accuracy_False: (this.cF / n) * 100,
      accuracy_True: (this.cT / n) * 100,
      accuracy_average: ((this.cF + this.cT) / 2 / n) * 100,
      both: (this.both / n) * 100,
      equal: (this.equal / n) * 100,
    };
  }
}

function reverseLabel(w: Winner): Winner {
  return w === '1' ? '2' : w === '2' ? '1' : w;
}

/** arbiter's reading of a completion: "1"/"2" for the first/second output as shown. */
function parseWinner(text: unknown): { winner: Winner; how: string } {
  if (typeof text !== 'string') return { winner: null, how: 'no completion text' };
  const v = parsePairwise(text);
  if (!v.ok) return { winner: null, how: v.message };
  return { winner: v.value === 'A' ? '1' : v.value === 'B' ? '2' : null, how: `read ${JSON.stringify(v.matched.slice(0, 60))} (${v.format})` };
}

function completionOf(side: unknown): unknown {
  const c = (side as { completion?: unknown } | undefined)?.completion;
  return Array.isArray(c) ? c[0] : c;
}

class SetScorer {
  readonly recorded = new Stats();
  readonly arbiter = new Stats();
  reparsed = 0;
  differ = 0;
  readonly wrong: WorstCases<(string | number | null)[]>;
  readonly diffs: WorstCases<(string | number | null)[]>;
  constructor(
    readonly name: string,
    maxCases: number,
  ) {
    this.wrong = new WorstCases(maxCases);
    this.diffs = new WorstCases(maxCases);
  }
  add(where: string, rec: Record<string, unknown>, problems: Problems): void {
    const label = rec.label;
    if (label !== 1 && label !== 2) {
      problems.add(where, `label must be 1 or 2, got ${JSON.stringify(label)}`);
      return;
    }
    const results = rec.results;
    const last = Array.isArray(results) ? (results[results.length - 1] as Record<string, unknown> | undefined) : undefined;
    if (!last || typeof last !== 'object' || !('swap = False' in last) || !('swap = True' in last)) {
      problems.add(where, 'no "results" with "swap = False" and "swap = True" entries');
      return;
    }
    const sF = last['swap = False'] as Record<string, unknown>;
    const sT = last['swap = True'] as Record<string, unknown>;
    const wF = (sF?.winner ?? null) as Winner;
    const wT = (sT?.winner ?? null) as Winner;
    this.recorded.add(label, wF, wT);
    // re-read the completions (Rating evaluators keep scores, not completions: nothing to re-read)
    const cF = completionOf(sF);
    const cT = completionOf(sT);
    if (cF !== undefined || cT !== undefined) {
      this.reparsed++;
      const pF = parseWinner(cF);
      const pTraw = parseWinner(cT);
      const pT = { winner: reverseLabel(pTraw.winner), how: pTraw.how };
      this.arbiter.add(label, pF.winner, pT.winner);
      for (const [order, rw, pw] of [
        ['swap = False', wF, pF],
        ['swap = True', wT, pT],
      ] as const) {
        if (rw !== pw.winner) {
          this.differ++;
          this.diffs.add(1, () => [where, order, rw ?? 'none', pw.winner ?? 'none', clip(pw.how, 200)]);
        }
      }
    }
    const l = String(label);
    const wrongN = (wF === l ? 0 : 1) + (wT === l ? 0 : 1);
    if (wrongN > 0)
      this.wrong.add(wrongN, () => [
        where,
        label,
        `${wF ?? 'none'} | ${wT ?? 'none'}`,
        clip(str(rec.input), 160),
        clip([completionOf(sF), completionOf(sT)].map((c) => clip(c, 300)).join(' ‖ '), 600),
      ]);
  }
}

function setName(file: string): string {
  const m = /([^/]+(?:\/[^/]+)?)\/evaluators\/([^/]+\/[^/]+)\/[^/]+$/.exec(file);
  return m ? `${m[1]} (${m[2]})` : file;
}

export async function runLlmbar(opts: SuiteOptions): Promise<EvalReport> {
  if (!opts.files.length) throw new EvalUsageError('llmbar takes RESULT.json files (re-scored) or dataset.json files (with --grader)');
  const problems = new Problems();
  const sets: SetScorer[] = [];
  const grader = opts.grader;
  const mode = grader ? judgeMode(grader, opts.mode) : undefined;
  for (const file of opts.files) {
    const src = await openRecords(file);
    const set = new SetScorer(setName(file), opts.maxCases);
    sets.push(set);
    const progress = progressFor(`llmbar ${set.name}`, opts, src);
    if (!grader) {
      for await (const r of src.records()) {
        progress.tick();
        if ('error' in r) problems.add(r.where, r.error);
        else set.add(r.where, r.value, problems);
      }
    } else {
      async function* units() {
        for await (const r of src.records()) {
          if ('error' in r) problems.add(r.where, r.error);
          else yield { key: `${file}#${r.index}`, where: r.where, rec: r.value };
        }
      }
      const work = async (u: { where: string; rec: Record<string, unknown> }) => {
        const a = str(u.rec.output_1);
        const b = str(u.rec.output_2);
        if (a === undefined || b === undefined) return { where: u.where, error: 'needs string fields "output_1" and "output_2"' };
        const outs = await judgePair(grader, mode!, { question: str(u.rec.input) ?? '', a, b, item: u.rec }, opts.services!, 2);
        return { where: u.where, ...u.rec, results: [{ 'swap = False': side(outs[0]!, false, mode!), 'swap = True': side(outs[1] ?? outs[0]!, true, mode!) }] };
      };
      for await (const o of runUnits(units(), work, runOptions(opts, progress))) {
        if (typeof o.error === 'string') problems.add(str(o.where) ?? '?', o.error);
        else set.add(str(o.where) ?? '?', o, problems);
      }
    }
    progress.done();
  }
  const r = newReport('llmbar', `LLMBar: ${sets.map((s) => s.name).join(', ')}`, {
    files: opts.files,
    ...(opts.graderFile ? { grader: opts.graderFile, mode } : {}),
  });
  const single = sets.length === 1;
  const statsOf = (s: SetScorer) => ({ ...s.recorded.statistics(), arbiter_parse: s.reparsed ? { ...s.arbiter.statistics(), differ: s.differ } : null });
  r.metrics = single ? statsOf(sets[0]!) : { sets: Object.fromEntries(sets.map((s) => [s.name, statsOf(s)])) };
  const prefix = (s: SetScorer) => (single ? '' : `sets.${s.name}.`);
  for (const s of sets) {
    const st = s.recorded.statistics();
    const nums = s.recorded.numbers();
    const tag = single ? '' : ` ${s.name}`;
    r.headline.push(
      { key: `${prefix(s)}correct_average`, label: `Accuracy, average of orders${tag}`, value: nums.accuracy_average, digits: 2, unit: '%' },
      { key: `${prefix(s)}correct_both`, label: `Both orders correct${tag}`, value: nums.both, digits: 2, unit: '%' },
      { key: `${prefix(s)}equal`, label: `Positional agreement${tag}`, value: nums.equal, digits: 2, unit: '%' },
      { key: `${prefix(s)}kappa_average`, label: `Cohen's kappa, average${tag}`, value: st.kappa_average as number | null, digits: 4, unit: '' },
    );
  }
  r.plots.push({
    kind: 'bars',
    id: 'accuracy',
    title: 'Accuracy per order (%)',
    y_label: '%',
    max: 100,
    data: sets.flatMap((s) => {
      const n = s.recorded.numbers();
      return [
        { label: s.name, value: n.accuracy_False, group: 'given order' },
        { label: s.name, value: n.accuracy_True, group: 'swapped' },
        { label: s.name, value: n.both, group: 'both' },
      ];
    }),
  });
  r.plots.push({
    kind: 'stacked',
    id: 'position',
    title: 'Position consistency: both orders right, one right, both wrong',
    y_label: 'instances',
    data: sets.flatMap((s) => {
      const st = s.recorded;
      const one = st.cF + st.cT - 2 * st.both;
      return [
        { label: s.name, part: 'both orders right', value: st.both },
        { label: s.name, part: 'one order right', value: one },
        { label: s.name, part: 'both orders wrong', value: st.n - st.both - one },
      ];
    }),
  });
  const tables: Table[] = [];
  for (const s of sets) {
    const tag = single ? '' : ` (${s.name})`;
    tables.push({
      id: `wrong${tables.length}`,
      title: `Instances judged wrong${tag}`,
      columns: ['where', 'label', 'winners (given | swapped)', 'input', 'completions'],
      rows: s.wrong.rows(),
      total: s.wrong.total,
    });
    tables.push({
      id: `differ${tables.length}`,
      title: `Winners arbiter's parser reads differently${tag}`,
      columns: ['where', 'order', 'recorded', 'arbiter', 'why'],
      rows: s.diffs.rows(),
      total: s.diffs.total,
    });
  }
  r.tables = tables;
  const n = sets.reduce((t, s) => t + s.recorded.n, 0);
  r.counts = { records: n + problems.count, skipped: problems.count, invalid: 0 };
  r.problems = problems.list;
  r.notes.push(
    'Statistics as LLMBar computes them (keys and string formats of its statistics.json); kappa inputs follow its script: a winner of "1" is 1, anything else 0, against labels 1/2.',
    "arbiter_parse: the same statistics with each completion re-read by arbiter's pairwise parser (LLMBar parses with its evaluator's own patterns).",
  );
  return r;
}

function side(o: OrderOutcome, swapped: boolean, mode: string): { completion: [string, string]; winner: Winner } {
  // original terms: A = output_1 -> "1"; LLMBar stores the swapped order's winner already mapped back
  let w: Winner = o.winner === 'A' ? '1' : o.winner === 'B' ? '2' : null;
  if (mode === 'pointwise' && o.winner === 'tie') w = swapped ? '1' : '2'; // LLMBar's rating rule: ties go by position
  return { completion: [o.reason, o.error ? 'error' : 'stop'], winner: w };
}

export const suite: Suite = {
  name: 'llmbar',
  summary:
    "LLMBar's statistics (accuracy per order, both-correct, positional agreement, Cohen's kappa) from result.json files, or live on dataset.json with --grader",
  args: '<files...>',
  example: 'arbiter eval llmbar llmbar/Natural/evaluators/GPT-4/Vanilla/result.json --json out.json',
  // LLMBar judges both orders by definition: --orders is not offered
  takes: ['mode', 'records', 'concurrency', 'max-cases'],
  options: [],
  run: runLlmbar,
};
