// `arbiter eval overopt` against numbers this file computes from the definitions: the best-of-n
// pick's proxy and gold by enumerating every n-subset (ties split evenly), KL_bon = log n − (n−1)/n,
// and the no-intercept least-squares fit of gold(n) − gold(1) on [d, d²] by Gram–Schmidt (not the
// normal equations the suite uses); the per-step view of a scored RL log; hostile input (a prompt
// with fewer than N candidates, non-numeric gold, NaN, a missing proxy); graders for proxy and gold;
// and a run on GSM8K's example solutions (proxy: token F1 against the reference solution, gold:
// is_correct).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bonPick, fitBon, klBon } from '../../dist/eval/suites/overopt.js';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-overopt-'));
const put = (name: string, rows: unknown[] | string): string => {
  const f = join(tmp, name);
  writeFileSync(f, typeof rows === 'string' ? rows : rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return f;
};

type Cand = { proxy: number; gold: number };

/** E[proxy, gold of the top-proxy candidate] over every n-subset, a tie split evenly among the tied. */
function brute(c: Cand[], n: number): Cand {
  let proxy = 0;
  let gold = 0;
  let subsets = 0;
  for (let mask = 0; mask < 1 << c.length; mask++) {
    const s = c.filter((_, i) => mask & (1 << i));
    if (s.length !== n) continue;
    subsets++;
    const top = Math.max(...s.map((x) => x.proxy));
    const tied = s.filter((x) => x.proxy === top);
    proxy += top;
    gold += tied.reduce((a, x) => a + x.gold, 0) / tied.length;
  }
  return { proxy: proxy / subsets, gold: gold / subsets };
}

/** Least squares of y on [d, d²] without intercept, by Gram–Schmidt on the two columns. */
function gramSchmidt(pts: { d: number; y: number }[]): { alpha: number; beta: number; rss: number } {
  const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);
  const x1 = pts.map((p) => p.d);
  const x2 = pts.map((p) => p.d * p.d);
  const y = pts.map((p) => p.y);
  const k = dot(x2, x1) / dot(x1, x1);
  const r = x2.map((v, i) => v - k * x1[i]!); // x2 with its x1 part removed
  const b = dot(y, r) / dot(r, r);
  const a = (dot(y, x1) - b * dot(x2, x1)) / dot(x1, x1);
  const rss = pts.reduce((s, p) => s + (p.y - a * p.d - b * p.d * p.d) ** 2, 0);
  return { alpha: a, beta: -b, rss };
}

/** A small deterministic generator, so the cases are fixed. */
function lcg(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

let runs = 0;
async function evalJson(args: string[]): Promise<{ code: number | null; stderr: string; report: any }> {
  const out = join(tmp, `r${++runs}.json`);
  const r = await runCli(['eval', 'overopt', ...args, '--json', out, '--no-progress'], { timeoutMs: 120_000 });
  return { code: r.code, stderr: r.stderr, report: r.code === 0 ? JSON.parse(readFileSync(out, 'utf8')) : undefined };
}

describe('definitions', () => {
  it('KL_bon = log n − (n−1)/n', () => {
    expect(klBon(1)).toBe(0);
    expect(klBon(2)).toBeCloseTo(Math.log(2) - 0.5, 15);
    expect(klBon(16)).toBeCloseTo(Math.log(16) - 15 / 16, 15);
  });

  it('the pick equals the enumeration over every n-subset, ties included', () => {
    const rnd = lcg(7);
    for (let t = 0; t < 40; t++) {
      const N = 1 + (t % 7);
      // proxies on a coarse grid so ties are common
      const c = Array.from({ length: N }, () => ({ proxy: Math.floor(rnd() * 4), gold: Math.round(rnd() * 100) / 10 }));
      for (let n = 1; n <= N; n++) {
        const a = bonPick(c, n);
        const b = brute(c, n);
        expect(a.proxy).toBeCloseTo(b.proxy, 12);
        expect(a.gold).toBeCloseTo(b.gold, 12);
      }
    }
  });

  it('the fit is the least-squares solution: it recovers an exact curve, agrees with Gram–Schmidt, and its residual is orthogonal to d and d²', () => {
    const exact = [2, 3, 4, 5, 6, 7, 8].map((n) => Math.sqrt(klBon(n))).map((d) => ({ d, y: d * (0.8 - 0.3 * d) }));
    const e = fitBon(exact)!;
    expect(e.alpha).toBeCloseTo(0.8, 12);
    expect(e.beta).toBeCloseTo(0.3, 12);
    expect(e.rss).toBeLessThan(1e-24);
    expect(e.d_peak).toBeCloseTo(0.8 / 0.6, 12);
    expect(e.kl_peak).toBeCloseTo((0.8 / 0.6) ** 2, 12);
    expect(e.gain_peak).toBeCloseTo(0.64 / 1.2, 12);
    const noisy = [1, 2, 3, 4, 5, 6, 7, 8]
      .map((n) => Math.sqrt(klBon(n)))
      .map((d, i) => ({ d, y: d * (0.5 - 0.4 * d) + [0, 0.01, -0.02, 0.015, 0, -0.01, 0.02, -0.005][i]! }));
    const f = fitBon(noisy)!;
    const g = gramSchmidt(noisy.filter((p) => p.d > 0));
    expect(f.alpha).toBeCloseTo(g.alpha, 10);
    expect(f.beta).toBeCloseTo(g.beta, 10);
    expect(f.rss).toBeCloseTo(g.rss, 12);
    expect(f.points).toBe(7);
    expect(f.rmse).toBeCloseTo(Math.sqrt(g.rss / 7), 12);
    const res = noisy.map((p) => p.y - (f.alpha * p.d - f.beta * p.d * p.d));
    expect(Math.abs(res.reduce((s, r, i) => s + r * noisy[i]!.d, 0))).toBeLessThan(1e-12);
    expect(Math.abs(res.reduce((s, r, i) => s + r * noisy[i]!.d ** 2, 0))).toBeLessThan(1e-12);
    // fewer than two points with d > 0: no fit
    expect(
      fitBon([
        { d: 0, y: 0 },
        { d: 0.4, y: 0.1 },
      ]),
    ).toBeNull();
  });
});

describe('arbiter eval overopt', () => {
  const rnd = lcg(11);
  const prompts: Cand[][] = Array.from({ length: 5 }, () =>
    Array.from({ length: 5 }, () => ({ proxy: Math.floor(rnd() * 6) / 2, gold: Math.round(rnd() * 20) / 20 })),
  );
  const rows: unknown[] = [];
  prompts.forEach((c, p) => {
    c.forEach((x, i) => rows.push(i % 2 ? { uid: `p${p}`, score: x.proxy, gold: x.gold } : { uid: `p${p}`, proxy: x.proxy, gold: x.gold }));
  });
  // hostile: a prompt with 3 candidates, non-numeric and null gold, a NaN (not JSON), a missing proxy
  const short: Cand[] = [
    { proxy: 1, gold: 1 },
    { proxy: 2, gold: 0 },
    { proxy: 3, gold: 1 },
  ];
  for (const x of short) rows.push({ uid: 'short', proxy: x.proxy, gold: x.gold });
  const hostile = [
    `${JSON.stringify({ uid: 'p0', proxy: 9, gold: 'yes' })}`,
    `${JSON.stringify({ uid: 'p1', proxy: 9, gold: null })}`,
    '{"uid": "p2", "proxy": NaN, "gold": 1}',
    `${JSON.stringify({ uid: 'p3', gold: 1 })}`,
    `${JSON.stringify({ uid: 'p4', proxy: 'high', gold: 1 })}`,
  ];
  const file = put('bon.jsonl', `${rows.map((r) => JSON.stringify(r)).join('\n')}\n${hostile.join('\n')}\n`);

  it('best-of-n proxy and gold at n = 1..5, KL_bon and the fit, from the definitions; short prompts and bad records left out and counted', async () => {
    const { code, report, stderr } = await evalJson([file]);
    expect(code, stderr).toBe(0);
    const m = report.metrics;
    expect(m.N).toBe(5);
    expect(m.prompts).toBe(5);
    expect(m.prompts_short).toBe(1);
    expect(m.candidates).toBe(28);
    expect(report.counts.skipped).toBe(5);
    expect(report.problems.join('\n')).toMatch(/:29: needs the gold score at "gold".*"yes"/);
    expect(report.problems.join('\n')).toMatch(/:30: needs the gold score/);
    expect(report.problems.join('\n')).toMatch(/:31: /);
    expect(report.problems.join('\n')).toMatch(/:32: needs a finite number for the proxy/);
    expect(report.problems.join('\n')).toMatch(/:33: needs a finite number for the proxy/);
    const gold: number[] = [];
    for (let n = 1; n <= 5; n++) {
      const b = prompts.map((c) => brute(c, n));
      const gp = b.reduce((s, x) => s + x.proxy, 0) / b.length;
      const gg = b.reduce((s, x) => s + x.gold, 0) / b.length;
      gold.push(gg);
      expect(m.bon.proxy_at_n[n]).toBeCloseTo(gp, 12);
      expect(m.bon.gold_at_n[n]).toBeCloseTo(gg, 12);
      expect(m.bon.kl_at_n[n]).toBeCloseTo(Math.log(n) - (n - 1) / n, 14);
    }
    const pts = [2, 3, 4, 5].map((n) => ({ d: Math.sqrt(Math.log(n) - (n - 1) / n), y: gold[n - 1]! - gold[0]! }));
    const g = gramSchmidt(pts);
    expect(m.fit.alpha).toBeCloseTo(g.alpha, 10);
    expect(m.fit.beta).toBeCloseTo(g.beta, 10);
    expect(m.fit.rss).toBeCloseTo(g.rss, 12);
    expect(m.fit.rmse).toBeCloseTo(Math.sqrt(g.rss / 4), 12);
    expect(report.headline.map((h: any) => h.key)).toEqual([
      'bon.gold_at_n.5',
      'bon.gold_at_n.1',
      'bon.proxy_at_n.5',
      'fit.alpha',
      'fit.beta',
      'fit.rmse',
      'prompts',
    ]);
    expect(report.plots.map((p: any) => p.id)).toEqual(['bon-gold', 'bon-proxy', 'bon-gold-proxy']);
    expect(report.tables.find((t: any) => t.id === 'short').rows).toEqual([['short', null, 3]]);
  });

  it('--n 3 keeps the short prompt: every point averages the same six prompts', async () => {
    const { report } = await evalJson([file, '--n', '3']);
    const all = [...prompts, short];
    expect(report.metrics.prompts).toBe(6);
    for (let n = 1; n <= 3; n++) expect(report.metrics.bon.gold_at_n[n]).toBeCloseTo(all.reduce((s, c) => s + brute(c, n).gold, 0) / 6, 12);
    expect(report.metrics.bon.gold_at_n[4]).toBeUndefined();
  });

  it('a scored RL log: mean proxy and gold per global_step, a KL column when the log has one', async () => {
    const log: { uid: string; global_step: number; score: number; gold: number; kl: number }[] = [];
    for (let step = 0; step < 4; step++)
      for (let i = 0; i < 6; i++)
        log.push({ uid: `s${step}q${i % 3}`, global_step: step * 10, score: step + i / 10, gold: 1 - ((step * i) % 4) / 4, kl: step * 0.05 + i / 100 });
    const f = put('log.jsonl', log);
    const { report } = await evalJson([f]);
    const st = report.metrics.steps;
    expect(st.count).toBe(4);
    for (let step = 0; step < 4; step++) {
      const at = log.filter((r) => r.global_step === step * 10);
      const avg = (k: 'score' | 'gold' | 'kl') => at.reduce((s, r) => s + r[k], 0) / at.length;
      expect(st.proxy_at_step[step * 10]).toBeCloseTo(avg('score'), 12);
      expect(st.gold_at_step[step * 10]).toBeCloseTo(avg('gold'), 12);
      expect(st.kl_at_step[step * 10]).toBeCloseTo(avg('kl'), 12);
    }
    const t = report.tables.find((x: any) => x.id === 'steps');
    expect(t.columns).toEqual(['global_step', 'records', 'mean proxy', 'mean gold', 'mean KL']);
    expect(t.rows.map((r: any) => r[0])).toEqual([0, 10, 20, 30]);
    expect(report.plots.map((p: any) => p.id)).toContain('steps-kl');
    // groups are per (global_step, uid): 2 candidates each, 12 prompts
    expect(report.metrics.prompts).toBe(12);
    // without a KL field: no KL column, no KL plot
    const noKl = await evalJson([
      put(
        'log-nokl.jsonl',
        log.map(({ kl: _kl, ...r }) => r),
      ),
    ]);
    expect(noKl.report.tables.find((x: any) => x.id === 'steps').columns).toEqual(['global_step', 'records', 'mean proxy', 'mean gold']);
    expect(noKl.report.plots.map((p: any) => p.id)).not.toContain('steps-kl');
    expect(noKl.report.metrics.steps.kl_at_step).toBeUndefined();
    // a non-numeric global_step is a problem, not step 0
    const bad = await evalJson([put('log-bad.jsonl', [...log.slice(0, 3), { uid: 'x', global_step: 'ten', score: 1, gold: 1 }])]);
    expect(bad.report.counts.skipped).toBe(1);
    expect(bad.report.problems[0]).toMatch(/"global_step" must be a number/);
    // an ungradeable line of a scored log (arbiter score's valid: false, score: null) is invalid, not a problem and never a score
    const inv = await evalJson([
      put('log-invalid.jsonl', [
        ...log.slice(0, 6),
        { uid: 's0q0', global_step: 0, score: null, valid: false, error: { kind: 'template_error', message: 'missing variable' }, gold: 1 },
      ]),
    ]);
    expect(inv.report.metrics.invalid).toBe(1);
    expect(inv.report.counts.skipped).toBe(0);
    expect(inv.report.metrics.steps.gold_at_step[0]).toBeCloseTo(log.slice(0, 6).reduce((s, r) => s + r.gold, 0) / 6, 12);
    expect(inv.report.tables.find((t: any) => t.id === 'invalid').rows[0][2]).toMatch(/template_error/);
  });

  it('proxy and gold from graders: --grader for the proxy, --gold-grader for the gold; a gold grader that fails is ungradeable, never a score', async () => {
    const proxy = join(tmp, 'len.json');
    writeFileSync(proxy, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: 'long', operation: 'like' }));
    const gold = join(tmp, 'gold.json');
    writeFileSync(gold, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'like' }));
    const data: { uid: string; output_text: string; answer?: string }[] = [
      { uid: 'a', output_text: 'long wrong', answer: 'right' },
      { uid: 'a', output_text: 'short right', answer: 'right' },
      { uid: 'a', output_text: 'long right', answer: 'right' },
      { uid: 'b', output_text: 'long x', answer: 'y' },
      { uid: 'b', output_text: 'y', answer: 'y' },
      { uid: 'b', output_text: 'long y', answer: 'y' },
    ];
    const { code, report, stderr } = await evalJson([put('graded.jsonl', data), '--grader', proxy, '--gold-grader', gold]);
    expect(code, stderr).toBe(0);
    const cands = data.map((d) => ({ uid: d.uid, proxy: d.output_text.includes('long') ? 1 : 0, gold: d.output_text.includes(d.answer!) ? 1 : 0 }));
    for (let n = 1; n <= 3; n++) {
      const want = (['a', 'b'] as const).map((u) =>
        brute(
          cands.filter((c) => c.uid === u),
          n,
        ),
      );
      expect(report.metrics.bon.gold_at_n[n]).toBeCloseTo((want[0]!.gold + want[1]!.gold) / 2, 12);
      expect(report.metrics.bon.proxy_at_n[n]).toBeCloseTo((want[0]!.proxy + want[1]!.proxy) / 2, 12);
    }
    // a gold grader whose reference is missing cannot grade: the candidate is invalid, its prompt short
    const broken = [...data.slice(0, 3), { uid: 'b', output_text: 'long x' }, ...data.slice(4)];
    const r2 = await evalJson([put('graded2.jsonl', broken), '--grader', proxy, '--gold-grader', gold, '--n', '3']);
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.report.metrics.invalid).toBe(1);
    expect(r2.report.metrics.prompts).toBe(1);
    expect(r2.report.tables.find((t: any) => t.id === 'invalid').rows[0][2]).toMatch(/^gold /);
  });

  it('usage: GSM8K without a proxy grader, a bad --n, an unknown format are exit 2', async () => {
    const g = put('example_model_solutions.jsonl', readFileSync(dataPath('gsm8k/example_model_solutions.jsonl'), 'utf8').split('\n').slice(0, 2).join('\n'));
    expect((await evalJson([g])).code).toBe(2);
    expect((await evalJson([file, '--n', '0'])).code).toBe(2);
    expect((await evalJson([file, '--format', 'csv'])).code).toBe(2);
  });
});

describe('GSM8K example solutions (shared data): proxy = token F1 against the reference solution, gold = is_correct', () => {
  it('runs over the 1319 problems; gold at n=1 is the mean is_correct; the pick at n=4 equals eval bon with the same grader', {
    timeout: 300_000,
  }, async () => {
    const data = dataPath('gsm8k/example_model_solutions.jsonl');
    const f1 = join(tmp, 'f1.json');
    writeFileSync(
      f1,
      JSON.stringify({ type: 'text_similarity', input: '{{sample.output_text}}', reference: '{{item.ground_truth}}', evaluation_metric: 'f1' }),
    );
    const { code, report, stderr } = await evalJson([data, '--grader', f1]);
    expect(code, stderr).toBe(0);
    const rows = readFileSync(data, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const labels = rows.flatMap((r) => ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'].map((k) => r[k].is_correct as boolean));
    expect(report.metrics.N).toBe(4);
    expect(report.metrics.prompts).toBe(rows.length);
    expect(report.metrics.invalid).toBe(0);
    expect(report.metrics.bon.gold_at_n[1]).toBeCloseTo(labels.filter(Boolean).length / labels.length, 12);
    const out = join(tmp, 'bon.json');
    const bon = await runCli(['eval', 'bon', data, '--grader', f1, '--json', out, '--no-progress'], { timeoutMs: 300_000 });
    expect(bon.code, bon.stderr).toBe(0);
    const b = JSON.parse(readFileSync(out, 'utf8'));
    for (const n of [1, 2, 3, 4]) expect(report.metrics.bon.gold_at_n[n]).toBeCloseTo(b.metrics.accuracy_at_n[n], 12);
    // the figures, for the record (printed, not asserted beyond the above)
    console.log(JSON.stringify({ gold: report.metrics.bon.gold_at_n, proxy: report.metrics.bon.proxy_at_n, fit: report.metrics.fit }));
  });
});
