// `arbiter eval bon`: best-of-N: for each N, the expected accuracy of the candidate the grader ranks
// first among N drawn at random from a prompt's candidates (ties broken at random), against the
// oracle (any of the N correct) and a random pick. Samples are read by ./labelled.ts.
import { clip, newReport, Problems, type EvalReport } from '../report.js';
import { WorstCases } from '../worst.js';
import type { Suite, SuiteOptions } from './common.js';
import { graded, LABELLED_OPTIONS, LABELLED_TAKES } from './labelled.js';

/** P(a random n-subset of N lies inside a given set of size a). */
function inside(a: number, n: number, N: number): number {
  if (a < n) return 0;
  let p = 1;
  for (let i = 0; i < n; i++) p *= (a - i) / (N - i);
  return p;
}

/**
 * For each candidate (in the given order), the probability that it is the pick when n of the N are
 * drawn uniformly without replacement and the highest score wins, ties broken uniformly: a block
 * of equal scores is the pick's block with P(no higher candidate drawn, one of the block drawn),
 * shared equally within the block. Also read by ./overopt.ts.
 */
export function pickProbabilities(scores: readonly number[], n: number): number[] {
  const N = scores.length;
  const order = scores.map((_, i) => i).sort((x, y) => scores[y]! - scores[x]!);
  const out = new Array<number>(N).fill(0);
  let above = 0;
  for (let i = 0; i < N; ) {
    let j = i;
    while (j < N && scores[order[j]!] === scores[order[i]!]) j++;
    const size = j - i;
    const pMax = inside(N - above, n, N) - inside(N - above - size, n, N);
    for (let k = i; k < j; k++) out[order[k]!] = pMax / size;
    above += size;
    i = j;
  }
  return out;
}

/** Expected correctness of the top-scored candidate among n drawn from the group (ties at random). */
export function bestOfN(cands: { score: number; correct: boolean }[], n: number): { pick: number; oracle: number } {
  const p = pickProbabilities(
    cands.map((c) => c.score),
    n,
  );
  let pick = 0;
  cands.forEach((c, i) => {
    if (c.correct) pick += p[i]!;
  });
  const correct = cands.filter((x) => x.correct).length;
  return { pick, oracle: 1 - inside(cands.length - correct, n, cands.length) };
}

async function runBon(opts: SuiteOptions): Promise<EvalReport> {
  const problems = new Problems();
  const maxN = Number(opts.extra.maxN ?? 64);
  const sumPick: number[] = [];
  const sumOracle: number[] = [];
  const groupsAt: number[] = [];
  let groups = 0;
  let invalid = 0;
  let cur: { group: string; cands: { score: number; correct: boolean; where: string; reason: string }[] } | undefined;
  const seen = new Set<string>();
  const worst = new WorstCases<(string | number | null)[]>(opts.maxCases);
  const flush = () => {
    if (!cur?.cands.length) return;
    groups++;
    const N = Math.min(cur.cands.length, maxN);
    for (let n = 1; n <= N; n++) {
      const b = bestOfN(cur.cands, n);
      sumPick[n - 1] = (sumPick[n - 1] ?? 0) + b.pick;
      sumOracle[n - 1] = (sumOracle[n - 1] ?? 0) + b.oracle;
      groupsAt[n - 1] = (groupsAt[n - 1] ?? 0) + 1;
    }
    const full = bestOfN(cur.cands, cur.cands.length);
    if (full.oracle > full.pick) {
      const top = [...cur.cands].sort((x, y) => y.score - x.score)[0]!;
      worst.add(full.oracle - full.pick, () => [
        cur!.group,
        cur!.cands.length,
        cur!.cands.filter((c) => c.correct).length,
        top.score,
        String(top.correct),
        clip(top.reason, 300),
      ]);
    }
  };
  for await (const g of graded('bon', opts, problems, 'bon')) {
    if (!cur || cur.group !== g.group) {
      flush();
      if (seen.has(g.group))
        problems.add(
          g.where,
          `group "${g.group}" appears again after other groups: a group's candidates must be consecutive (its earlier candidates were scored as their own group)`,
        );
      seen.add(g.group);
      cur = { group: g.group, cands: [] };
    }
    if (g.score === null) {
      invalid++;
      continue;
    }
    cur.cands.push({ score: g.score, correct: g.label, where: g.where, reason: g.reason });
  }
  flush();
  const ns = sumPick.map((_, i) => i + 1);
  const at = (arr: number[]) => Object.fromEntries(ns.map((n) => [String(n), arr[n - 1]! / groupsAt[n - 1]!]));
  const r = newReport('bon', `Best-of-N: ${opts.graderFile ?? opts.recorded ?? 'scores in the data'}`, {
    files: opts.files,
    grader: opts.graderFile,
    recorded: opts.recorded,
  });
  r.metrics = {
    accuracy_at_n: at(sumPick),
    oracle_at_n: at(sumOracle),
    random: ns.length ? sumPick[0]! / groupsAt[0]! : null,
    groups,
    groups_at_n: Object.fromEntries(ns.map((n) => [String(n), groupsAt[n - 1]])),
    invalid,
  };
  const last = ns.length;
  const p = (v: number | undefined) => (v === undefined ? null : v * 100);
  r.headline = [
    {
      key: `accuracy_at_n.${last}`,
      label: `Accuracy of the pick at N=${last}`,
      value: last ? p(sumPick[last - 1]! / groupsAt[last - 1]!) : null,
      digits: 2,
      unit: '%',
    },
    { key: 'random', label: 'Random pick (N=1)', value: last ? p(sumPick[0]! / groupsAt[0]!) : null, digits: 2, unit: '%' },
    {
      key: `oracle_at_n.${last}`,
      label: `Oracle at N=${last} (any correct)`,
      value: last ? p(sumOracle[last - 1]! / groupsAt[last - 1]!) : null,
      digits: 2,
      unit: '%',
    },
    { key: 'groups', label: 'Prompts', value: groups, digits: 0, unit: '' },
  ];
  r.plots.push({
    kind: 'lines',
    id: 'bon',
    title: 'Best-of-N accuracy against N',
    x_label: 'N',
    y_label: 'fraction correct',
    series: [
      { name: 'grader pick', points: ns.map((n) => ({ x: n, y: sumPick[n - 1]! / groupsAt[n - 1]! })) },
      { name: 'oracle (any correct)', points: ns.map((n) => ({ x: n, y: sumOracle[n - 1]! / groupsAt[n - 1]! })) },
      { name: 'random pick', points: ns.map((n) => ({ x: n, y: sumPick[0]! / groupsAt[0]! })) },
    ],
  });
  r.tables.push({
    id: 'worst',
    title: 'Prompts where the pick misses a correct candidate',
    columns: ['group', 'candidates', 'correct', 'top score', 'top correct', 'top reason'],
    rows: worst.rows(),
    total: worst.total,
  });
  r.counts = { records: groups + problems.count, skipped: problems.count, invalid };
  r.problems = problems.list;
  r.notes.push(
    "Accuracy at N is the expectation over all N-subsets of a prompt's candidates (drawn uniformly, ties in score broken uniformly), averaged over prompts with at least N candidates; ungradeable candidates are left out of their prompt and counted.",
  );
  return r;
}

export const suite: Suite = {
  name: 'bon',
  summary: 'best-of-N: expected accuracy of the top-scored candidate among N against N, with the oracle and a random pick',
  args: '[file]',
  example: 'arbiter eval bon gsm8k/example_model_solutions.jsonl --grader rm.json --html bon.html',
  takes: LABELLED_TAKES,
  options: [
    ...LABELLED_OPTIONS,
    { flags: '--group <path>', description: 'the field grouping candidates of one prompt (consecutive lines; default "group")', key: 'group' },
    { flags: '--max-n <n>', description: 'largest N on the curve (default 64)', key: 'maxN', parse: 'number' },
  ],
  run: runBon,
};
