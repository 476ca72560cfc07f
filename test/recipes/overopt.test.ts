// docs/recipes.md, reward over-optimisation: the documented command runs as written; the figures are
// recomputed here from Gao et al.'s definitions. The proxy of each candidate is what `arbiter score`
// gives with the recipe's grader (the value under test is the best-of-n arithmetic, not F1); the gold
// is the data's own is_correct label. For each prompt and n, the expected gold (and proxy) of the
// proxy's pick over all n-subsets, ties broken uniformly; KL_bon = log n − (n − 1)/n; α, β by least
// squares of gold(n) − gold(1) on d and −d² (d = √KL_bon) over n = 2..4, solved from the 2×2 normal
// equations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { Figures, gsm8kRows, mean, RECIPES, readJsonl, runSection, workdir, writeJsonl } from './helpers.js';

const HEADING = RECIPES.overopt!;

/** The k-subsets of 0..m-1. */
function subsets(m: number, k: number): number[][] {
  if (k === 0) return [[]];
  if (m < k) return [];
  return [...subsets(m - 1, k), ...subsets(m - 1, k - 1).map((s) => [...s, m - 1])];
}

/** The expected value of `value` at the proxy's pick among a subset, ties uniform. */
function pickValue(proxy: number[], value: number[], s: number[]): number {
  const top = Math.max(...s.map((i) => proxy[i]!));
  const best = s.filter((i) => proxy[i] === top);
  return mean(best.map((i) => value[i]!));
}

describe('over-optimisation recipe', () => {
  it('the documented command: best-of-n gold and proxy, KL_bon and the fit, recomputed', async () => {
    const { dir } = runSection(HEADING);
    const report = JSON.parse(readFileSync(join(dir, 'tmp/recipes/overopt.json'), 'utf8'));
    const m = report.metrics;
    // the proxy of every candidate, from the recipe's grader
    const rows = gsm8kRows();
    const lines = rows.flatMap((r, q) =>
      r.solutions.map((s, k) => ({ id: `${q}-${k}`, item: { ground_truth: r.ground_truth }, sample: { output_text: s.text } })),
    );
    const work = workdir();
    writeJsonl(join(work, 'cands.jsonl'), lines);
    const sc = await runCli(['score', '-g', 'examples/recipes/overopt/f1.json', join(work, 'cands.jsonl'), '-o', join(work, 'proxy.jsonl')]);
    expect(sc.code, sc.stderr).toBe(0);
    const proxyAll = readJsonl(join(work, 'proxy.jsonl')).map((o) => o.score as number);
    const N = 4;
    const goldAt: number[] = [];
    const proxyAt: number[] = [];
    for (let n = 1; n <= N; n++) {
      const g: number[] = [];
      const p: number[] = [];
      rows.forEach((r, q) => {
        const proxy = proxyAll.slice(q * N, q * N + N);
        const gold = r.solutions.map((s) => (s.correct ? 1 : 0));
        const ss = subsets(N, n);
        g.push(mean(ss.map((s) => pickValue(proxy, gold, s))));
        p.push(mean(ss.map((s) => pickValue(proxy, proxy, s))));
      });
      goldAt.push(mean(g));
      proxyAt.push(mean(p));
    }
    const kl = (n: number) => Math.log(n) - (n - 1) / n;
    for (let n = 1; n <= N; n++) {
      expect(m.bon.kl_at_n[n]).toBeCloseTo(kl(n), 12);
      expect(m.bon.gold_at_n[n]).toBeCloseTo(goldAt[n - 1]!, 12);
      expect(m.bon.proxy_at_n[n]).toBeCloseTo(proxyAt[n - 1]!, 12);
    }
    // least squares: y = α·d − β·d², normal equations in (α, β) with columns u = d, v = −d²
    let uu = 0;
    let uv = 0;
    let vv = 0;
    let uy = 0;
    let vy = 0;
    for (let n = 2; n <= N; n++) {
      const d = Math.sqrt(kl(n));
      const u = d;
      const v = -d * d;
      const y = goldAt[n - 1]! - goldAt[0]!;
      uu += u * u;
      uv += u * v;
      vv += v * v;
      uy += u * y;
      vy += v * y;
    }
    const det = uu * vv - uv * uv;
    const alpha = (uy * vv - vy * uv) / det;
    const beta = (uu * vy - uv * uy) / det;
    expect(m.fit.alpha).toBeCloseTo(alpha, 9);
    expect(m.fit.beta).toBeCloseTo(beta, 9);
    const t = new Figures(HEADING);
    t.check('prompts', m.prompts);
    expect(m.prompts).toBe(rows.length);
    t.check('gold of the pick, n = 1', goldAt[0]!);
    t.check('gold of the pick, n = 2', goldAt[1]!);
    t.check('gold of the pick, n = 4', goldAt[3]!);
    t.check('proxy of the pick, n = 4', proxyAt[3]!);
    t.check('fit α', alpha);
    t.check('fit β', beta);
    t.done();
  }, 300_000);
});
