// `arbiter eval overopt`: reward over-optimisation (Gao, Schulman & Hilton 2022, "Scaling Laws for
// Reward Model Overoptimization"). Best-of-n over n = 1..N per prompt: the expected proxy and gold
// score of the candidate the proxy ranks first among n drawn from the prompt's candidates (the
// exact expectation over all n-subsets, ties at random: ./bon.ts pickProbabilities), against
// KL_bon = log n − (n−1)/n, with Gao et al.'s BoN form gold(d) − gold(1) = d·(α − β·d), d = √KL,
// fitted by least squares; and, for a scored RL log with `global_step`, mean proxy and mean gold
// per step (and mean KL when the log has it). Proxy and gold come from fields or from graders.
// Input: JSONL {uid, proxy | score, gold, global_step?, kl?} (paths by option), or GSM8K's
// example_model_solutions.jsonl (gold = is_correct, proxy from --grader).
import type { Grader } from '../../core/grader.js';
import { loadGraderFile } from '../../config/load.js';
import { getPath, openRecords } from '../read.js';
import { clip, newReport, Problems, type EvalReport, type Headline, type PlotSpec } from '../report.js';
import { gradeOne, runUnits } from '../run.js';
import { pickProbabilities } from './bon.js';
import { EvalUsageError, progressFor, runOptions, str, type Suite, type SuiteOptions } from './common.js';
import { samplesOf } from './labelled.js';

/** The KL divergence of best-of-n from the base policy as Gao et al. use it: log n − (n−1)/n. */
export function klBon(n: number): number {
  return Math.log(n) - (n - 1) / n;
}

/** Expected proxy and gold of the proxy's pick among n drawn uniformly from the candidates. */
export function bonPick(cands: readonly { proxy: number; gold: number }[], n: number): { proxy: number; gold: number } {
  const p = pickProbabilities(
    cands.map((c) => c.proxy),
    n,
  );
  let proxy = 0;
  let gold = 0;
  cands.forEach((c, i) => {
    proxy += p[i]! * c.proxy;
    gold += p[i]! * c.gold;
  });
  return { proxy, gold };
}

export interface BonFit {
  alpha: number;
  beta: number;
  /** Sum of squared residuals over the fitted points. */
  rss: number;
  /** sqrt(rss / points). */
  rmse: number;
  /** Points fitted (n = 2..N: n = 1 is d = 0, where the form is 0 by construction). */
  points: number;
  /** Where the fitted curve peaks (α > 0, β > 0): d = α/(2β), KL = d², and the gain there α²/(4β); else null. */
  d_peak: number | null;
  kl_peak: number | null;
  gain_peak: number | null;
}

/**
 * Least squares of y on [d, d²] without intercept, y ≈ α·d − β·d² (Gao et al.'s R_bon(d) =
 * d(α − βd)), in closed form from the normal equations. Null when fewer than two points have d > 0
 * or the two columns are collinear.
 */
export function fitBon(points: readonly { d: number; y: number }[]): BonFit | null {
  const pts = points.filter((p) => p.d > 0);
  if (pts.length < 2) return null;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let u = 0;
  let v = 0;
  for (const { d, y } of pts) {
    s2 += d * d;
    s3 += d * d * d;
    s4 += d * d * d * d;
    u += d * y;
    v += d * d * y;
  }
  const det = s2 * s4 - s3 * s3;
  if (!(det > 1e-12 * s2 * s4)) return null;
  const a = (u * s4 - v * s3) / det;
  const b = (s2 * v - s3 * u) / det;
  let rss = 0;
  for (const { d, y } of pts) rss += (y - a * d - b * d * d) ** 2;
  const beta = -b;
  const peak = a > 0 && beta > 0 ? a / (2 * beta) : null;
  return {
    alpha: a,
    beta,
    rss,
    rmse: Math.sqrt(rss / pts.length),
    points: pts.length,
    d_peak: peak,
    kl_peak: peak === null ? null : peak * peak,
    gain_peak: peak === null ? null : (a * a) / (4 * beta),
  };
}

interface Unit {
  key: string;
  where: string;
  uid: string;
  step?: number;
  kl?: number;
  /** From the data; undefined when a grader gives it. */
  proxy?: number;
  gold?: number;
  item: Record<string, unknown>;
  output?: string;
  /** Why the record has no proxy (a scored log's valid: false line): counted invalid, not graded. */
  invalid?: string;
}

/** One scored candidate, as a records line holds it. */
interface Scored {
  where: string;
  uid: string;
  step?: number;
  kl?: number;
  proxy: number | null;
  gold: number | null;
  reason: string;
}

function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** A gold value from the data: a finite number, or a boolean / 0-1 label read as 1 or 0. */
function goldValue(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  return finite(v);
}

async function* unitsOf(
  file: string,
  opts: SuiteOptions,
  problems: Problems,
  src: Awaited<ReturnType<typeof openRecords>>,
  graders: { proxy: boolean; gold: boolean },
): AsyncGenerator<Unit> {
  const format = (opts.extra.format as string | undefined) ?? (/example_model_solutions/.test(file) ? 'gsm8k' : 'samples');
  if (format === 'gsm8k') {
    if (!graders.proxy) throw new EvalUsageError('overopt on GSM8K example solutions needs --grader (the proxy): the data hold only the gold label is_correct');
    for await (const s of samplesOf(file, opts, problems, src)) {
      yield { key: s.key, where: s.where, uid: s.group, item: s.item, output: s.output, ...(graders.gold ? {} : { gold: s.label ? 1 : 0 }) };
    }
    return;
  }
  if (format !== 'samples') throw new EvalUsageError(`--format must be "samples" or "gsm8k", not "${format}"`);
  const uidPath = (opts.extra.uid as string | undefined) ?? 'uid';
  const proxyPath = opts.extra.proxy as string | undefined;
  const goldPath = (opts.extra.gold as string | undefined) ?? 'gold';
  const klPath = (opts.extra.kl as string | undefined) ?? 'kl';
  for await (const r of src.records()) {
    if ('error' in r) {
      problems.add(r.where, r.error);
      continue;
    }
    const v = r.value;
    const uid = getPath(v, uidPath);
    if (typeof uid !== 'string' && typeof uid !== 'number') {
      problems.add(r.where, `needs the prompt id at "${uidPath}" (string or number)`);
      continue;
    }
    const u: Unit = {
      key: String(r.index),
      where: r.where,
      uid: String(uid),
      item: (v.item && typeof v.item === 'object' ? v.item : v) as Record<string, unknown>,
    };
    const stepRaw = getPath(v, 'global_step');
    if (stepRaw !== undefined && stepRaw !== null) {
      const step = finite(stepRaw);
      if (step === undefined) {
        problems.add(r.where, `"global_step" must be a number, not ${clip(JSON.stringify(stepRaw), 40)}`);
        continue;
      }
      u.step = step;
    }
    const klRaw = getPath(v, klPath);
    if (klRaw !== undefined && klRaw !== null) {
      const kl = finite(klRaw);
      if (kl === undefined) {
        problems.add(r.where, `"${klPath}" must be a finite number, not ${clip(JSON.stringify(klRaw), 40)}`);
        continue;
      }
      u.kl = kl;
    }
    if (!graders.proxy && !proxyPath && v.valid === false && getPath(v, 'proxy') === undefined) {
      // a scored log's ungradeable line (arbiter score: valid false, score null): invalid, never a score
      const e = v.error as { kind?: unknown; message?: unknown } | undefined;
      yield { ...u, invalid: clip(`proxy ${String(e?.kind ?? 'invalid')}: ${String(e?.message ?? 'the record is marked valid: false')}`, 1000) };
      continue;
    }
    if (!graders.proxy) {
      const path = proxyPath ?? (getPath(v, 'proxy') !== undefined ? 'proxy' : 'score');
      const p = finite(getPath(v, path));
      if (p === undefined) {
        problems.add(r.where, `needs a finite number for the proxy at "${path}"${proxyPath ? '' : ' ("proxy", else "score")'}, or --grader`);
        continue;
      }
      u.proxy = p;
    }
    if (!graders.gold) {
      const g = goldValue(getPath(v, goldPath));
      if (g === undefined) {
        problems.add(
          r.where,
          `needs the gold score at "${goldPath}" (a finite number or a boolean), or --gold-grader; got ${clip(JSON.stringify(getPath(v, goldPath)) ?? 'nothing', 40)}`,
        );
        continue;
      }
      u.gold = g;
    }
    if (graders.proxy || graders.gold) {
      const output = str((v.sample as { output_text?: unknown } | undefined)?.output_text) ?? str(v.output_text) ?? str(v.output) ?? str(v.response);
      if (output === undefined) {
        problems.add(r.where, 'grading needs the output ("sample.output_text", "output_text", "output" or "response")');
        continue;
      }
      u.output = output;
    }
    yield u;
  }
}

/** Streams scored candidates: scores from the data, or graded live (proxy, gold or both). */
async function* scored(opts: SuiteOptions, problems: Problems, gold: Grader | undefined): AsyncGenerator<Scored> {
  if (opts.files.length !== 1) throw new EvalUsageError('overopt takes one data file');
  const file = opts.files[0]!;
  const src = await openRecords(file);
  const progress = progressFor('overopt', opts, src);
  const proxy = opts.grader;
  const base = (u: Unit) => ({ where: u.where, uid: u.uid, ...(u.step !== undefined ? { step: u.step } : {}), ...(u.kl !== undefined ? { kl: u.kl } : {}) });
  const units = unitsOf(file, opts, problems, src, { proxy: Boolean(proxy), gold: Boolean(gold) });
  if (!proxy && !gold) {
    for await (const u of units) {
      progress.tick();
      if (u.invalid) yield { ...base(u), proxy: null, gold: null, reason: u.invalid };
      else yield { ...base(u), proxy: u.proxy!, gold: u.gold!, reason: 'scores from the data' };
    }
    progress.done();
    return;
  }
  const work = async (u: Unit): Promise<Record<string, unknown>> => {
    if (u.invalid) return { ...base(u), proxy: null, gold: null, reason: u.invalid };
    const [rp, rg] = await Promise.all([
      proxy ? gradeOne(proxy, opts.services!, u.item, u.output!) : undefined,
      gold ? gradeOne(gold, opts.services!, u.item, u.output!) : undefined,
    ]);
    const why = (name: string, x: typeof rp) => (x && !x.valid ? `${name} ${x.error?.kind}: ${x.error?.message}` : '');
    const p = rp ? (rp.valid ? rp.score : null) : u.proxy!;
    const g = rg ? (rg.valid ? rg.score : null) : u.gold!;
    return { ...base(u), proxy: p, gold: g, reason: clip([why('proxy', rp), why('gold', rg)].filter(Boolean).join('; ') || 'graded', 1000) };
  };
  for await (const o of runUnits(units, work, runOptions(opts, progress))) yield o as unknown as Scored;
  progress.done();
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function runOveropt(opts: SuiteOptions): Promise<EvalReport> {
  const problems = new Problems();
  const goldFile = opts.extra.goldGrader as string | undefined;
  const goldGrader = goldFile ? await loadGraderFile(goldFile) : undefined;
  const maxN = Number(opts.extra.maxN ?? 64);
  const wantN = opts.extra.n === undefined ? undefined : Number(opts.extra.n);
  if (wantN !== undefined && !(Number.isInteger(wantN) && wantN >= 1)) throw new EvalUsageError(`--n must be a positive integer, not ${opts.extra.n}`);
  if (!(Number.isInteger(maxN) && maxN >= 1)) throw new EvalUsageError(`--max-n must be a positive integer, not ${opts.extra.maxN}`);
  const groups = new Map<string, { uid: string; step?: number; cands: { proxy: number; gold: number }[] }>();
  const steps = new Map<number, { proxy: number[]; gold: number[]; kl: number[] }>();
  let candidates = 0;
  let invalid = 0;
  let noStep = 0;
  const invalidRows: (string | number | null)[][] = [];
  for await (const s of scored(opts, problems, goldGrader)) {
    if (s.proxy === null || s.gold === null || !Number.isFinite(s.proxy) || !Number.isFinite(s.gold)) {
      invalid++;
      if (invalidRows.length < opts.maxCases) invalidRows.push([s.where, s.uid, s.reason]);
      continue;
    }
    candidates++;
    const key = JSON.stringify([s.step ?? null, s.uid]);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { uid: s.uid, ...(s.step !== undefined ? { step: s.step } : {}), cands: [] }));
    g.cands.push({ proxy: s.proxy, gold: s.gold });
    if (s.step === undefined) noStep++;
    else {
      let st = steps.get(s.step);
      if (!st) steps.set(s.step, (st = { proxy: [], gold: [], kl: [] }));
      st.proxy.push(s.proxy);
      st.gold.push(s.gold);
      if (s.kl !== undefined) st.kl.push(s.kl);
    }
  }

  // N: --n, else the group size most prompts have (the larger on a tie), at most --max-n
  const sizes = new Map<number, number>();
  for (const g of groups.values()) sizes.set(g.cands.length, (sizes.get(g.cands.length) ?? 0) + 1);
  let modal = 0;
  for (const [size, count] of sizes) if (count > (sizes.get(modal) ?? 0) || (count === sizes.get(modal) && size > modal)) modal = size;
  const N = Math.min(wantN ?? modal, maxN);
  const used = [...groups.values()].filter((g) => g.cands.length >= N);
  const short = [...groups.values()].filter((g) => g.cands.length < N);
  const ns = N >= 1 && used.length ? Array.from({ length: N }, (_, i) => i + 1) : [];
  const proxyAt: number[] = [];
  const goldAt: number[] = [];
  for (const n of ns) {
    let sp = 0;
    let sg = 0;
    for (const g of used) {
      const b = bonPick(g.cands, n);
      sp += b.proxy;
      sg += b.gold;
    }
    proxyAt.push(sp / used.length);
    goldAt.push(sg / used.length);
  }
  const d = ns.map((n) => Math.sqrt(klBon(n)));
  const fit = ns.length ? fitBon(ns.map((_, i) => ({ d: d[i]!, y: goldAt[i]! - goldAt[0]! }))) : null;
  const fitProxy = ns.length ? fitBon(ns.map((_, i) => ({ d: d[i]!, y: proxyAt[i]! - proxyAt[0]! }))) : null;
  const byN = (arr: readonly number[]) => Object.fromEntries(ns.map((n, i) => [String(n), arr[i]!]));

  const stepList = [...steps.keys()].sort((a, b) => a - b);
  const hasKl = stepList.some((s) => steps.get(s)!.kl.length > 0);
  const stepMean = (k: 'proxy' | 'gold' | 'kl') =>
    Object.fromEntries(stepList.map((s) => [String(s), steps.get(s)![k].length ? mean(steps.get(s)![k]) : null]));

  const r = newReport('overopt', `Reward over-optimisation: ${opts.graderFile ?? 'proxy in the data'} against ${goldFile ?? 'gold in the data'}`, {
    files: opts.files,
    grader: opts.graderFile,
    gold_grader: goldFile,
  });
  r.metrics = {
    N: ns.length ? N : null,
    prompts: used.length,
    prompts_short: short.length,
    candidates,
    invalid,
    bon: ns.length
      ? {
          kl_at_n: byN(ns.map(klBon)),
          d_at_n: byN(d),
          proxy_at_n: byN(proxyAt),
          gold_at_n: byN(goldAt),
        }
      : null,
    fit,
    fit_proxy: fitProxy,
    steps: stepList.length
      ? {
          count: stepList.length,
          records_without_step: noStep,
          proxy_at_step: stepMean('proxy'),
          gold_at_step: stepMean('gold'),
          ...(hasKl ? { kl_at_step: stepMean('kl') } : {}),
        }
      : null,
  };
  const h = (key: string, label: string, value: number | null | undefined, digits = 4): Headline => ({ key, label, value: value ?? null, digits, unit: '' });
  if (ns.length) {
    r.headline.push(
      h(`bon.gold_at_n.${N}`, `Gold of the pick at n=${N}`, goldAt[N - 1]),
      h('bon.gold_at_n.1', 'Gold at n=1 (a random candidate)', goldAt[0]),
      h(`bon.proxy_at_n.${N}`, `Proxy of the pick at n=${N}`, proxyAt[N - 1]),
      h('fit.alpha', 'Fit α (gold gain = d(α − βd))', fit?.alpha),
      h('fit.beta', 'Fit β', fit?.beta),
      h('fit.rmse', 'Fit residual (RMSE)', fit?.rmse),
      h('prompts', 'Prompts', used.length, 0),
    );
    const dMax = d[N - 1]!;
    const grid = Array.from({ length: 41 }, (_, i) => (dMax * i) / 40);
    r.plots.push({
      kind: 'lines',
      id: 'bon-gold',
      title: 'Best-of-n: gold score of the pick against KL_bon = log n − (n−1)/n',
      x_label: 'KL_bon (nats)',
      y_label: 'gold score',
      series: [
        { name: 'gold of the pick', points: ns.map((n, i) => ({ x: klBon(n), y: goldAt[i]!, n })) },
        ...(fit ? [{ name: 'fit gold(1) + d(α − βd)', points: grid.map((x) => ({ x: x * x, y: goldAt[0]! + x * (fit.alpha - fit.beta * x) })) }] : []),
      ],
    });
    r.plots.push({
      kind: 'lines',
      id: 'bon-proxy',
      title: 'Best-of-n: proxy score of the pick against KL_bon',
      x_label: 'KL_bon (nats)',
      y_label: 'proxy score',
      series: [{ name: 'proxy of the pick', points: ns.map((n, i) => ({ x: klBon(n), y: proxyAt[i]!, n })) }],
    });
    r.plots.push({
      kind: 'lines',
      id: 'bon-gold-proxy',
      title: 'Best-of-n: gold against proxy of the pick (n = 1..N)',
      x_label: 'proxy score of the pick',
      y_label: 'gold score of the pick',
      series: [{ name: 'n = 1..N', points: ns.map((n, i) => ({ x: proxyAt[i]!, y: goldAt[i]!, n })) }],
    });
    r.tables.push({
      id: 'bon',
      title: 'Best-of-n: proxy and gold of the pick',
      columns: ['n', 'KL_bon', 'd = sqrt(KL)', 'proxy of pick', 'gold of pick', 'fitted gold'],
      rows: ns.map((n, i) => [n, klBon(n), d[i]!, proxyAt[i]!, goldAt[i]!, fit ? goldAt[0]! + d[i]! * (fit.alpha - fit.beta * d[i]!) : null]),
      total: ns.length,
    });
  }
  if (stepList.length) {
    const pm = stepMean('proxy');
    const gm = stepMean('gold');
    const km = stepMean('kl');
    if (!ns.length) {
      const last = stepList[stepList.length - 1]!;
      r.headline.push(
        h(`steps.gold_at_step.${last}`, `Mean gold at step ${last}`, gm[String(last)]),
        h(`steps.proxy_at_step.${last}`, `Mean proxy at step ${last}`, pm[String(last)]),
        h('steps.count', 'Steps', stepList.length, 0),
      );
    }
    const series = (m: Record<string, number | null>, x: (s: number) => number | null) =>
      stepList.filter((s) => m[String(s)] !== null && x(s) !== null).map((s) => ({ x: x(s)!, y: m[String(s)]! }));
    const plots: PlotSpec[] = [
      {
        kind: 'lines',
        id: 'steps',
        title: 'RL run: mean proxy and mean gold per global_step',
        x_label: 'global_step',
        y_label: 'score',
        series: [
          { name: 'mean proxy', points: series(pm, (s) => s) },
          { name: 'mean gold', points: series(gm, (s) => s) },
        ],
      },
    ];
    if (hasKl)
      plots.push({
        kind: 'lines',
        id: 'steps-kl',
        title: 'RL run: mean proxy and mean gold against the mean KL of the step',
        x_label: 'mean KL',
        y_label: 'score',
        series: [
          { name: 'mean proxy', points: series(pm, (s) => km[String(s)] ?? null) },
          { name: 'mean gold', points: series(gm, (s) => km[String(s)] ?? null) },
        ],
      });
    r.plots.push(...plots);
    r.tables.push({
      id: 'steps',
      title: 'RL run: per global_step',
      columns: ['global_step', 'records', 'mean proxy', 'mean gold', ...(hasKl ? ['mean KL'] : [])],
      rows: stepList.map((s) => [s, steps.get(s)!.proxy.length, pm[String(s)] ?? null, gm[String(s)] ?? null, ...(hasKl ? [km[String(s)] ?? null] : [])]),
      total: stepList.length,
    });
  }
  if (!r.headline.length) r.headline.push(h('prompts', 'Prompts', used.length, 0));
  r.tables.push({
    id: 'short',
    title: `Prompts with fewer than N=${N} usable candidates (left out of the best-of-n curve)`,
    columns: ['uid', 'global_step', 'candidates'],
    rows: short.slice(0, opts.maxCases).map((g) => [g.uid, g.step ?? null, g.cands.length]),
    total: short.length,
  });
  r.tables.push({
    id: 'invalid',
    title: 'Candidates without a proxy or gold score (ungradeable)',
    columns: ['where', 'uid', 'reason'],
    rows: invalidRows,
    total: invalid,
  });
  r.counts = { records: candidates + invalid + problems.count, skipped: problems.count, invalid };
  r.problems = problems.list;
  r.notes.push(
    "Best-of-n at each n is the exact expectation over all n-subsets of a prompt's candidates (drawn uniformly without replacement; ties in the proxy broken uniformly) of the proxy and gold score of the candidate with the highest proxy, averaged over the prompts with at least N candidates (every point of the curve averages the same prompts). Candidates are grouped by uid (and global_step when present).",
    'KL_bon = log n − (n−1)/n (Gao et al. 2022). The fit is gold(n) − gold(1) = α·d − β·d² with d = sqrt(KL_bon), by least squares without intercept over n = 2..N (n = 1 is d = 0); rss is its sum of squared residuals, rmse = sqrt(rss / points). fit_proxy is the same form fitted to the proxy.',
  );
  if (short.length)
    r.notes.push(`${short.length} prompt(s) had fewer than N=${N} usable candidates and are left out of the curve (table "short"); --n sets N.`);
  if (stepList.length) r.notes.push("Per global_step: the plain mean of proxy and gold (and of the KL field, when present) over the step's scored records.");
  if (stepList.length && noStep) r.notes.push(`${noStep} record(s) had no global_step and are left out of the per-step view.`);
  return r;
}

export const suite: Suite = {
  name: 'overopt',
  summary: 'reward over-optimisation (Gao et al.): best-of-n proxy and gold of the pick against KL_bon with the d(α − βd) fit; proxy and gold per RL step',
  args: '<file>',
  example: 'arbiter eval overopt scored.jsonl --proxy score --gold gold --html overopt.html',
  takes: ['records', 'concurrency', 'max-cases'],
  options: [
    {
      flags: '--format <f>',
      description: 'samples ({uid, proxy|score, gold, global_step?, kl?}) or gsm8k (example_model_solutions.jsonl); default from the file name',
      key: 'format',
    },
    { flags: '--uid <path>', description: 'the field naming the prompt (default "uid")', key: 'uid' },
    { flags: '--proxy <path>', description: 'the proxy score field (default "proxy", else "score"); --grader grades it instead', key: 'proxy' },
    { flags: '--gold <path>', description: 'the gold score field: a number or a boolean (default "gold")', key: 'gold' },
    { flags: '--gold-grader <file>', description: 'grade the gold score live with this grader config instead of reading it', key: 'goldGrader' },
    { flags: '--kl <path>', description: 'the KL field of a scored RL log, averaged per global_step (default "kl")', key: 'kl' },
    {
      flags: '--n <n>',
      description: 'N, the largest n (default: the candidate count most prompts have); prompts with fewer are left out',
      key: 'n',
      parse: 'number',
    },
    { flags: '--max-n <n>', description: 'cap on N (default 64)', key: 'maxN', parse: 'number' },
  ],
  run: runOveropt,
};
