// arbiter learn: the Newton solver against known minima; the Bradley–Terry fit recovers known
// weights from synthetic preferences drawn with logistic noise (tolerances of four to five
// standard errors at these sizes: 0.15 shared, 0.25 per user, 0.2 for segments), per user too; the fit minimises the objective it
// states (ties half-credit, L2, shrinkage); the exported grader reproduces the fit's scores; the
// segment (partial return) and regret models; TRL rows graded with feature graders; the CLI.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { registerBuiltinTypes } from '../../dist/graders/builtins.js';
import { seededRandom } from '../../dist/core/random.js';
import { choleskySolve, newton } from '../../dist/learn/newton.js';
import { fitBradleyTerry, pairLoss } from '../../dist/learn/bradley-terry.js';
import { learn, type LearnSummary } from '../../dist/learn/learn.js';
import { runCli } from '../helpers/cli.js';

const TOL = 0.15;
const TOL_USER = 0.25;
const TOL_SEGMENT = 0.2;
const tmp = () => mkdtempSync(join(tmpdir(), 'arbiter-learn-'));
const sigmoid = (s: number) => 1 / (1 + Math.exp(-s));
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

function normal(rnd: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
}

/** Rows whose sides carry features, the preference drawn as P(a ≻ b) = σ(w·(fa - fb)). */
function featureRows(w: Record<string, number>, n: number, seed: number, user?: (i: number) => [string, Record<string, number>]): string {
  const rnd = seededRandom(seed);
  const z = normal(rnd);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const [u, wu] = user ? user(i) : [undefined, w];
    const a = Object.fromEntries(Object.keys(wu).map((k) => [k, z()]));
    const b = Object.fromEntries(Object.keys(wu).map((k) => [k, z()]));
    const s = Object.keys(wu).reduce((acc, k) => acc + wu[k]! * (a[k]! - b[k]!), 0);
    const aWins = rnd() < sigmoid(s);
    lines.push(JSON.stringify({ ...(u ? { user: u } : {}), chosen: { features: aWins ? a : b }, rejected: { features: aWins ? b : a } }));
  }
  return lines.join('\n') + '\n';
}

describe('newton', () => {
  it('solves a positive definite system (Cholesky) and refuses an indefinite one', () => {
    expect(
      choleskySolve(
        [
          [4, 2],
          [2, 3],
        ],
        [2, 1],
      ),
    ).toEqual([0.5, 0]);
    expect(
      choleskySolve(
        [
          [1, 2],
          [2, 1],
        ],
        [1, 1],
      ),
    ).toBeUndefined();
  });
  it('minimises e^x + x²/2 at x = -W(1) (the omega constant) and a quadratic in one step', () => {
    const r = newton(
      (x, h) => ({ value: Math.exp(x[0]!) + x[0]! ** 2 / 2, gradient: [Math.exp(x[0]!) + x[0]!], hessian: h ? [[Math.exp(x[0]!) + 1]] : [] }),
      [3],
    );
    expect(r.converged).toBe(true);
    expect(Math.abs(r.x[0]! + 0.5671432904097838)).toBeLessThan(1e-12);
    const q = newton(
      (x, h) => ({
        value: (x[0]! - 2) ** 2 + 3 * (x[1]! + 1) ** 2,
        gradient: [2 * (x[0]! - 2), 6 * (x[1]! + 1)],
        hessian: h
          ? [
              [2, 0],
              [0, 6],
            ]
          : [],
      }),
      [10, 10],
    );
    expect(q.iterations).toBe(1);
    expect(Math.abs(q.x[0]! - 2) + Math.abs(q.x[1]! + 1)).toBeLessThan(1e-12);
  });
});

describe('Bradley–Terry fit', () => {
  it('is the minimum of the stated objective: mean loss (ties half-credit) + λ/2‖w‖² + τ/2Σ‖δ_u‖²', () => {
    const pairs = [
      { x: [1, 0.5], y: 1, user: 'a' },
      { x: [-0.3, 2], y: 1, user: 'b' },
      { x: [0.2, -1], y: 0.5, user: 'a' },
      { x: [-1, -0.2], y: 1, user: 'b' },
      { x: [0.7, 0.1], y: 0.5 },
    ];
    const lambda = 0.1;
    const tau = 0.5;
    const fit = fitBradleyTerry(pairs, 2, { l2: lambda, shrinkage: tau });
    expect(fit.solver.converged).toBe(true);
    // the objective written out from its definition, at θ = [w, δ_a, δ_b]
    const objective = (t: number[]) => {
      const w = t.slice(0, 2);
      const d: Record<string, number[]> = { a: t.slice(2, 4), b: t.slice(4, 6) };
      let v = 0;
      for (const p of pairs) {
        const wu = p.user ? w.map((x, k) => x + d[p.user!]![k]!) : w;
        const s = dot(wu, p.x);
        v += (-p.y * Math.log(sigmoid(s)) - (1 - p.y) * Math.log(sigmoid(-s))) / pairs.length;
      }
      return v + (lambda / 2) * dot(w, w) + (tau / 2) * (dot(d.a!, d.a!) + dot(d.b!, d.b!));
    };
    const theta = [...fit.weights, ...fit.users.a!.map((x, k) => x - fit.weights[k]!), ...fit.users.b!.map((x, k) => x - fit.weights[k]!)];
    expect(Math.abs(objective(theta) - fit.solver.value)).toBeLessThan(1e-12);
    // central differences of the written-out objective vanish at the fit
    for (let i = 0; i < theta.length; i++) {
      const e = 1e-5;
      const up = [...theta];
      const dn = [...theta];
      up[i]! += e;
      dn[i]! -= e;
      expect(Math.abs((objective(up) - objective(dn)) / (2 * e))).toBeLessThan(1e-8);
    }
    // and a perturbation only raises it
    expect(objective(theta.map((x) => x + 0.01))).toBeGreaterThan(objective(theta));
    expect(pairLoss(0, 0.5)).toBeCloseTo(Math.log(2), 15);
  });

  it('ties alone pull the weights to zero', () => {
    const fit = fitBradleyTerry(
      [
        { x: [1, 2], y: 0.5 },
        { x: [-2, 1], y: 0.5 },
      ],
      2,
      { l2: 1e-3 },
    );
    expect(Math.max(...fit.weights.map(Math.abs))).toBeLessThan(1e-9);
  });
});

describe('arbiter learn (library)', () => {
  const W = { helpful: 1.5, verbose: -1, safe: 0.5 };

  it(`recovers known weights within ${TOL} and the exported grader reproduces the fitted scores to 1e-12`, async () => {
    const dir = tmp();
    const input = join(dir, 'prefs.jsonl');
    writeFileSync(input, featureRows(W, 4000, 7));
    const out = join(dir, 'learned.json');
    const s: LearnSummary = await learn({ input, output: out, holdout: 0.2, seed: 3 });
    expect(s.features).toEqual(['helpful', 'verbose', 'safe']);
    expect(s.pairs).toEqual({ train: 3200, holdout: 800, ties: 0, skipped: 0 });
    for (const [k, w] of Object.entries(W)) expect(Math.abs(s.weights[k]! - w), k).toBeLessThan(TOL);
    // a model this good orders most held-out pairs right, and its log-loss beats chance (ln 2)
    expect(s.holdout.accuracy!).toBeGreaterThan(0.75);
    expect(s.holdout.log_loss!).toBeLessThan(Math.log(2) - 0.2);
    expect(s.solver.converged).toBe(true);
    const config = JSON.parse(readFileSync(out, 'utf8'));
    expect(config.type).toBe('weighted_sum');
    expect(config.weights).toEqual(s.weights);
    await registerBuiltinTypes();
    const g = loadGrader(config);
    const rows = readFileSync(input, 'utf8')
      .trim()
      .split('\n')
      .slice(0, 50)
      .map((l) => JSON.parse(l));
    for (const row of rows)
      for (const side of [row.chosen, row.rejected]) {
        const r = await grade(g, { item: {}, sample: { features: side.features } });
        const fitted = s.features.reduce((acc, k) => acc + s.weights[k]! * side.features[k], 0);
        expect(r.valid).toBe(true);
        expect(Math.abs(r.score! - fitted)).toBeLessThanOrEqual(1e-12);
        expect(r.score).toBe(fitted);
      }
  });

  it(`recovers each user's weights (per-user, shrinkage toward the shared vector) within ${TOL_USER}`, async () => {
    const users: Record<string, Record<string, number>> = { u1: { a: 2, b: -1 }, u2: { a: -1, b: 1.5 }, u3: { a: 0.5, b: 0.5 } };
    const ids = Object.keys(users);
    const dir = tmp();
    const input = join(dir, 'prefs.jsonl');
    writeFileSync(
      input,
      featureRows({}, 18000, 11, (i) => [ids[i % 3]!, users[ids[i % 3]!]!]),
    );
    const s = await learn({ input, output: join(dir, 'g.json'), holdout: 0.1, perUser: 'user', shrinkage: 1e-3 });
    expect(s.solver.converged).toBe(true);
    for (const u of ids)
      for (const k of ['a', 'b']) expect(Math.abs(s.users![u]![k]! - users[u]![k]!), `${u}.${k} ${JSON.stringify(s.users)}`).toBeLessThan(TOL_USER);
    // strong shrinkage: every user gets (nearly) the shared weights
    const tight = await learn({ input, output: join(dir, 'g2.json'), holdout: 0.1, perUser: 'user', shrinkage: 1e4 });
    for (const u of ids) for (const k of ['a', 'b']) expect(Math.abs(tight.users![u]![k]! - tight.weights[k]!)).toBeLessThan(1e-3);
    // per-user weights predict held-out pairs better than the shared ones do
    expect(s.holdout.log_loss!).toBeLessThan(tight.holdout.log_loss!);
  });

  it(`segments (within ${TOL_SEGMENT}): the partial-return model (features summed over the steps) and the regret model (with psi)`, async () => {
    const w = [1, -2];
    const rnd = seededRandom(5);
    const z = normal(rnd);
    const partial: string[] = [];
    const regret: string[] = [];
    for (let i = 0; i < 8000; i++) {
      const side = () => {
        const steps = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => ({ features: { x: z(), y: z() } }));
        return { segment: steps, psi_start: { x: z(), y: z() }, psi_end: { x: z(), y: z() } };
      };
      const a = side();
      const b = side();
      const ret = (s: ReturnType<typeof side>, withPsi: boolean) =>
        s.segment.reduce((acc, st) => acc + w[0]! * st.features.x + w[1]! * st.features.y, 0) +
        (withPsi ? w[0]! * (s.psi_end.x - s.psi_start.x) + w[1]! * (s.psi_end.y - s.psi_start.y) : 0);
      for (const [list, withPsi] of [
        [partial, false],
        [regret, true],
      ] as const) {
        const aWins = rnd() < sigmoid(ret(a, withPsi) - ret(b, withPsi));
        list.push(JSON.stringify({ chosen: aWins ? a : b, rejected: aWins ? b : a }));
      }
    }
    const dir = tmp();
    writeFileSync(join(dir, 'p.jsonl'), partial.join('\n'));
    writeFileSync(join(dir, 'r.jsonl'), regret.join('\n'));
    const p = await learn({ input: join(dir, 'p.jsonl'), output: join(dir, 'p.json'), segments: 'partial' });
    const r = await learn({ input: join(dir, 'r.jsonl'), output: join(dir, 'r.json'), segments: 'regret' });
    expect(p.model.preference).toBe('partial_return');
    expect(r.model.preference).toBe('regret');
    for (const s of [p, r]) {
      expect(Math.abs(s.weights.x! - 1)).toBeLessThan(TOL_SEGMENT);
      expect(Math.abs(s.weights.y! + 2), `${s.model.preference} ${JSON.stringify(s.weights)} ${JSON.stringify(s.solver)}`).toBeLessThan(TOL_SEGMENT);
    }
    // the regret rows read as partial returns (psi ignored) fit worse than the regret model does
    const wrong = await learn({ input: join(dir, 'r.jsonl'), output: join(dir, 'w.json'), segments: 'partial' });
    expect(wrong.holdout.log_loss!).toBeGreaterThan(r.holdout.log_loss!);
    // the exported grader sums the per-step reward over a segment, as the partial-return fit scores it
    await registerBuiltinTypes();
    const g = loadGrader(JSON.parse(readFileSync(join(dir, 'p.json'), 'utf8')));
    const seg = JSON.parse(partial[0]!).chosen.segment as { features: { x: number; y: number } }[];
    const sums = [seg.reduce((a, s) => a + s.features.x, 0), seg.reduce((a, s) => a + s.features.y, 0)];
    const res = await grade(g, { item: {}, sample: { trajectory: seg } });
    expect(res.score).toBe(0 + p.weights.x! * sums[0]! + p.weights.y! * sums[1]!);
  });

  it('TRL rows: each side graded by the feature graders the config names', async () => {
    const dir = tmp();
    const config = join(dir, 'features.json');
    writeFileSync(
      config,
      JSON.stringify({
        features: {
          polite: { type: 'string_check', input: '{{sample.output_text}}', reference: 'please', operation: 'like' },
          sorry: { type: 'string_check', input: '{{sample.output_text}}', reference: 'sorry', operation: 'like' },
        },
      }),
    );
    const rnd = seededRandom(9);
    const text = () => `${rnd() < 0.5 ? 'please ' : ''}answer${rnd() < 0.5 ? ' sorry' : ''}`;
    const has = (t: string, w: string) => (t.includes(w) ? 1 : 0);
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const a = text();
      const b = text();
      const s = 2 * (has(a, 'please') - has(b, 'please')) - 1 * (has(a, 'sorry') - has(b, 'sorry'));
      const aWins = rnd() < sigmoid(s);
      lines.push(JSON.stringify({ prompt: 'q', chosen: aWins ? a : b, rejected: aWins ? b : a }));
    }
    const input = join(dir, 'trl.jsonl');
    writeFileSync(input, lines.join('\n'));
    const s = await learn({ input, output: join(dir, 'g.json'), config });
    expect(s.kind).toBe('graders');
    expect(Math.abs(s.weights.polite! - 2)).toBeLessThan(0.25);
    expect(Math.abs(s.weights.sorry! + 1)).toBeLessThan(0.25);
    const exported = JSON.parse(readFileSync(join(dir, 'g.json'), 'utf8'));
    expect(exported.graders.polite.type).toBe('string_check');
    await registerBuiltinTypes();
    const r = await grade(loadGrader(exported), { item: { prompt: 'q' }, sample: { output_text: 'please answer sorry' } });
    expect(r.score).toBe(0 + s.weights.polite! * 1 + s.weights.sorry! * 1);
  });
});

describe('arbiter learn (CLI)', () => {
  it('fits, prints the summary, writes the grader and --summary-json; the options take effect', async () => {
    const dir = tmp();
    const input = join(dir, 'prefs.jsonl');
    writeFileSync(
      input,
      featureRows({ a: 1, b: -1 }, 600, 2, (i) => [`u${i % 2}`, { a: 1, b: -1 }]),
    );
    const out = join(dir, 'g.json');
    const sj = join(dir, 's.json');
    const r = await runCli([
      'learn',
      input,
      '-o',
      out,
      '--holdout',
      '0.5',
      '--seed',
      '4',
      '--l2',
      '0.5',
      '--per-user',
      'user',
      '--shrinkage',
      '2',
      '--summary-json',
      sj,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/300 training \/ 300 held-out pair\(s\)/);
    expect(r.stdout).toMatch(/held-out: accuracy 0\.\d{4}, log-loss 0\.\d{4}/);
    const s = JSON.parse(readFileSync(sj, 'utf8'));
    expect(s.model).toEqual({ preference: 'bradley_terry', ties: 'half_credit', l2: 0.5, shrinkage: 2, per_user: 'user' });
    expect(Object.keys(s.users).sort()).toEqual(['u0', 'u1']);
    expect(s.seed).toBe(4);
    // a heavy L2 penalty shrinks the weights: |w| well below the true 1
    expect(Math.abs(s.weights.a)).toBeLessThan(0.5);
    expect(JSON.parse(readFileSync(out, 'utf8')).weights).toEqual(s.weights);
    // another seed splits differently
    const r2 = await runCli(['learn', input, '-o', out, '--holdout', '0.5', '--seed', '5', '--summary-json', sj]);
    expect(r2.code).toBe(0);
    expect(JSON.parse(readFileSync(sj, 'utf8')).train.log_loss).not.toBe(s.train.log_loss);
  });

  it('--segments and --config select the row kinds; misuse is a usage error naming the help', async () => {
    const dir = tmp();
    const seg = join(dir, 'seg.jsonl');
    writeFileSync(seg, `${JSON.stringify({ chosen: { segment: [{ features: { x: 1 } }] }, rejected: { segment: [{ features: { x: 0 } }] } })}\n`.repeat(3));
    const without = await runCli(['learn', seg, '-o', join(dir, 'g.json')]);
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/seg\.jsonl:1: its sides are segments: pass --segments/);
    const withSeg = await runCli(['learn', seg, '--output', join(dir, 'g.json'), '--segments', '--holdout', '0']);
    expect(withSeg.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'g.json'), 'utf8')).graders.x).toEqual({ type: 'feature', value: '{{sample.trajectory}}', field: 'features.x' });
    const trl = join(dir, 'trl.jsonl');
    writeFileSync(trl, `${JSON.stringify({ prompt: 'q', chosen: 'yes', rejected: 'no' })}\n`);
    const noConfig = await runCli(['learn', trl, '-o', join(dir, 'g.json')]);
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toMatch(/--config/);
    writeFileSync(join(dir, 'f.json'), JSON.stringify({ features: { yes: { type: 'string_chek', reference: 'yes' } } }));
    const badConfig = await runCli(['learn', trl, '-o', join(dir, 'g.json'), '--config', join(dir, 'f.json')]);
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toMatch(/features\.yes\.type.*did you mean "string_check"/);
    const shrink = await runCli(['learn', trl, '-o', join(dir, 'g.json'), '--shrinkage', '1']);
    expect(shrink.code).toBe(2);
    expect(shrink.stderr).toBe('arbiter: --shrinkage needs --per-user; see `arbiter learn --help`\n');
    const help = await runCli(['learn', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/half-credit/);
  });
});
