// `arbiter design` end to end against a protocol-faithful fake model server that answers each
// request (by its seed) with a scripted candidate program: broken ones (a syntax error, a hang, an
// exception, garbage printed instead of a return, NaN, a constant), a fair one and the best one.
// Checked: which candidates fail and why, that the next prompt carries the reflection and the
// errors, selection of the best, resume without repeated model calls, the exported `python`
// grader reproducing the measured rewards in `arbiter score`, that on the grid world the chosen
// reward ranks trajectories as the true reward does, the other fitnesses, and usage errors.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auc, kendallTauB, preferenceAgreement, spearman } from '../../dist/design/fitness.js';
import { runCli, ROOT } from '../helpers/cli.js';
import { startTestServer, type TestServer } from '../helpers/openai-test-server.js';

const TRAJ = join(ROOT, 'examples/design/trajectories.jsonl');
const TASK = join(ROOT, 'examples/design/task.md');
const PREFS = join(ROOT, 'examples/design/preferences.jsonl');

const fence = (code: string) => `Here is my reward.\n\n\`\`\`python\n${code}\n\`\`\`\n`;

const BEST = `def reward(trajectory):
    steps = trajectory["steps"]
    last = steps[-1]["cell"] if steps else "."
    goal = 10.0 if last == "G" else 0.0
    lava = -10.0 if last == "~" else 0.0
    cost = -0.2 * len(steps)
    return goal + lava + cost, {"goal": goal, "lava": lava, "step_cost": cost}`;
const FAIR = `def reward(trajectory):
    return -float(len(trajectory["steps"]))`;

/** The program each request gets, by the request's seed. */
const PROGRAMS: Record<number, string> = {
  // iteration 1
  0: fence('def reward(trajectory)\n    return 1.0'),
  1: fence('def reward(trajectory):\n    while True:\n        pass'),
  2: fence('def reward(trajectory):\n    return trajectory["no_such_field"]'),
  3: fence(FAIR),
  // iteration 2
  1000: fence('def reward(trajectory):\n    return float("nan")'),
  1001: fence('def reward(trajectory):\n    print("reward is", len(trajectory["steps"]), "!!@@##")'),
  1002: fence(BEST),
  1003: fence('def reward(trajectory):\n    return 0.5'),
  // iteration 3 (resume)
  2000: fence(FAIR),
  2001: 'I cannot write code today.',
  2002: fence('def reward(trajectory):\n    return [-0.1 for _ in trajectory["steps"]]'),
  2003: fence(BEST),
  // the preference / separation runs (--seed 50)
  50: fence(FAIR),
  51: fence(BEST),
};

interface Rec {
  iteration: number;
  index: number;
  status: string;
  stage?: string;
  error?: string;
  fitness?: number;
  stats?: Record<string, { mean: number; std: number; corr_with_label?: number }>;
}

const jsonl = <T>(f: string): T[] =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

const rows = jsonl<{ id: string; item: { success: boolean; return: number } }>(TRAJ);

let srv: TestServer;
let work: string;
const run = (...args: string[]) =>
  runCli(['design', '--task', TASK, '--trajectories', TRAJ, '--model-url', srv.url, '--model', 'fake-coder', ...args], { timeoutMs: 120_000 });

beforeAll(async () => {
  srv = await startTestServer({ chat: (r) => ({ content: PROGRAMS[Number(r.body?.seed)] ?? 'no program for this seed' }) });
  work = mkdtempSync(join(tmpdir(), 'arbiter-design-'));
});
afterAll(async () => {
  await srv?.close();
});

/** The grid world run with the rank fitness: `iterations` of 4 candidates into `dir`, a 0.5 s call limit. */
const rankRun = (iterations: string, dir: string, ...more: string[]) =>
  run('--iterations', iterations, '--candidates', '4', '--fitness', 'rank', '--label', 'return', '--out', dir, '--call-timeout-ms', '500', ...more);

describe('arbiter design (rank fitness on the grid world)', () => {
  let dir: string;
  let first: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    dir = join(work, 'run');
    first = await rankRun('2', dir, '--no-progress');
  }, 180_000);

  it('fails each broken candidate with its reason and keeps the working ones', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('design:'); // --no-progress
    const recs = jsonl<Rec>(join(dir, 'candidates.jsonl'));
    expect(recs.map((r) => `${r.iteration}/${r.index}:${r.status}`)).toEqual([
      '1/0:failed',
      '1/1:failed',
      '1/2:failed',
      '1/3:ok',
      '2/0:failed',
      '2/1:failed',
      '2/2:ok',
      '2/3:failed',
    ]);
    const err = (i: number, j: number) => recs.find((r) => r.iteration === i && r.index === j)!.error!;
    expect(err(1, 0)).toMatch(/SyntaxError/);
    expect(err(1, 1)).toMatch(/timed out: call exceeded 0\.5 s/); // --call-timeout-ms 500
    expect(err(1, 2)).toMatch(/KeyError: 'no_such_field'/);
    expect(err(2, 0)).toMatch(/no JSON form.*Out of range float/);
    expect(err(2, 1)).toMatch(/returned null, not a number/);
    expect(err(2, 3)).toMatch(/fitness cannot be computed: the reward is the same for every trajectory/);
    // never a silent 0: no failed record has a fitness
    for (const r of recs.filter((x) => x.status === 'failed')) expect(r.fitness).toBeUndefined();
    // every candidate's reply and (when there was code) program are in the run folder
    expect(readFileSync(join(dir, 'iter-2/cand-2.reply.md'), 'utf8')).toBe(PROGRAMS[1002]);
    expect(readFileSync(join(dir, 'iter-2/cand-2.py'), 'utf8')).toBe(`${BEST}\n`);
  });

  it('picks the best candidate, whose fitness is the Spearman correlation with the label', () => {
    const recs = jsonl<Rec>(join(dir, 'candidates.jsonl'));
    const best = recs.find((r) => r.iteration === 2 && r.index === 2)!;
    const fair = recs.find((r) => r.iteration === 1 && r.index === 3)!;
    const ret = rows.map((r) => r.item.return);
    const fairTotals = jsonl<{ total: number }>(join(dir, 'iter-1/cand-3.rewards.jsonl')).map((x) => x.total);
    expect(fair.fitness).toBeCloseTo(spearman(fairTotals, ret)!, 12);
    expect(best.fitness).toBe(1);
    expect(fair.fitness!).toBeLessThan(0.9);
    // reward reflection statistics per component, with the label correlation
    expect(Object.keys(best.stats!)).toEqual(['total', 'goal', 'lava', 'step_cost']);
    expect(best.stats!.goal!.corr_with_label!).toBeGreaterThan(0.5);
    const h = JSON.parse(readFileSync(join(dir, 'best/history.json'), 'utf8'));
    expect(h.best).toMatchObject({ iteration: 2, index: 2, fitness: 1 });
    expect(h.history.map((x: { best_fitness: number | null }) => x.best_fitness)).toEqual([fair.fitness, 1]);
    expect(first.stdout).toContain('best: iteration 2, candidate 3, fitness (rank) 1.0000');
  });

  it('recovers a reward that ranks the grid world trajectories as the true reward does', () => {
    const totals = jsonl<{ id: string; total: number }>(join(dir, 'iter-2/cand-2.rewards.jsonl'));
    expect(totals.map((t) => t.id)).toEqual(rows.map((r) => r.id));
    const ret = rows.map((r) => r.item.return);
    // the true return and the chosen reward order the 36 trajectories alike: Spearman 1, Kendall 1
    expect(
      spearman(
        totals.map((t) => t.total),
        ret,
      ),
    ).toBeCloseTo(1, 12);
    expect(
      kendallTauB(
        totals.map((t) => t.total),
        ret,
      ),
    ).toBeCloseTo(1, 12);
  });

  it("sends the next iteration the best reply, its reflection and the failed candidates' errors", () => {
    const it2 = srv.chatRequests.filter((r) => Number(r.body.seed) >= 1000 && Number(r.body.seed) < 2000);
    expect(it2).toHaveLength(4);
    const msgs = it2[0]!.body.messages as { role: string; content: string }[];
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(msgs[1]!.content).toContain('trajectory.steps[].cell: str');
    expect(msgs[1]!.content).toContain('A good episode reaches the goal');
    expect(msgs[2]!.content).toBe(PROGRAMS[3]);
    const fb = msgs[3]!.content;
    expect(fb).toMatch(/Fitness, the Spearman rank correlation of the total with the label "return": 0\.\d+/);
    expect(fb).toMatch(/- total: mean -?\d.*std .*correlation/);
    expect(fb).toMatch(/iteration 1, candidate 1: .*SyntaxError/);
    expect(fb).toMatch(/iteration 1, candidate 2: .*timed out/);
    expect(fb).toMatch(/iteration 1, candidate 3: .*KeyError/);
    // the same request for every candidate but the seed
    for (const r of it2) expect(r.body.messages).toEqual(msgs);
    expect(it2.map((r) => r.body.seed)).toEqual([1000, 1001, 1002, 1003]);
  });

  it('writes a python grader that validates and gives, in arbiter score, exactly the measured rewards', async () => {
    const g = join(dir, 'best/grader.json');
    const v = await runCli(['validate', g]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    const cfg = JSON.parse(readFileSync(g, 'utf8'));
    expect(cfg.type).toBe('python');
    expect(cfg.description).toMatch(/best fitness per iteration: 0\.\d+, 1$/);
    const out = join(work, 'scored.jsonl');
    const s = await runCli(['score', '--grader', g, TRAJ, '-o', out], { timeoutMs: 120_000 });
    expect(s.code, s.stderr).toBe(0);
    const scored = jsonl<{ id: string; score: number; valid: boolean }>(out);
    const measured = jsonl<{ id: string; total: number }>(join(dir, 'iter-2/cand-2.rewards.jsonl'));
    expect(scored.every((x) => x.valid)).toBe(true);
    expect(scored.map((x) => [x.id, x.score])).toEqual(measured.map((x) => [x.id, x.total]));
    // and so the fitness: Spearman of the scored rewards with the label is the run's 1
    expect(
      spearman(
        scored.map((x) => x.score),
        rows.map((x) => x.item.return),
      ),
    ).toBeCloseTo(1, 12);
  }, 120_000);

  it('writes the HTML report with the fitness plot and the winning code', () => {
    const html = readFileSync(join(dir, 'report.html'), 'utf8');
    expect(html).toContain('data-plot-id="fitness"');
    expect(html).toContain('data-metric="best_fitness" data-value="1"');
    expect(html).toContain('steps[-1][&quot;cell&quot;]');
    const rep = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(rep.plots[0].series[0].points).toEqual([
      { x: 1, y: jsonl<Rec>(join(dir, 'candidates.jsonl'))[3]!.fitness },
      { x: 2, y: 1 },
    ]);
  });

  it('resumes: more iterations ask only for the new candidates; a killed run is finished without model calls', async () => {
    const before = srv.chatRequests.length;
    const r = await rankRun('3', dir, '--resume', '--progress');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/design: 100%\|#+\| 12\/12 candidates/); // --progress
    expect(srv.chatRequests.slice(before).map((q) => q.body.seed)).toEqual([2000, 2001, 2002, 2003]);
    const recs = jsonl<Rec>(join(dir, 'candidates.jsonl'));
    expect(recs).toHaveLength(12);
    expect(recs.find((x) => x.iteration === 3 && x.index === 1)).toMatchObject({ status: 'failed', stage: 'extract' });
    expect(recs.find((x) => x.iteration === 3 && x.index === 2)!.status).toBe('ok'); // per-step list
    // iteration 3's prompt starts from iteration 2's best
    const it3 = srv.chatRequests.slice(before)[0]!.body.messages as { content: string }[];
    expect(it3[2]!.content).toBe(PROGRAMS[1002]);

    // a kill leaves the record file short (and a line cut off): the rerun evaluates again what is
    // missing, from the stored replies, without asking the model
    const all = readFileSync(join(dir, 'candidates.jsonl'), 'utf8').split('\n').filter(Boolean);
    writeFileSync(join(dir, 'candidates.jsonl'), `${all.slice(0, 5).join('\n')}\n${all[5]!.slice(0, 30)}`);
    const n = srv.chatRequests.length;
    const again = await rankRun('3', dir, '--resume', '--no-progress');
    expect(again.code, again.stderr).toBe(0);
    expect(srv.chatRequests.length).toBe(n);
    const redone = jsonl<Rec>(join(dir, 'candidates.jsonl'))
      .filter((x) => x.status !== undefined)
      .map((x) => `${x.iteration}/${x.index}:${x.status}:${x.fitness ?? x.error}`)
      .sort();
    expect(redone).toEqual(recs.map((x) => `${x.iteration}/${x.index}:${x.status}:${x.fitness ?? x.error}`).sort());
    expect(again.stdout).toContain('best: iteration 2, candidate 3');
  }, 240_000);
});

describe('arbiter design: the other fitnesses', () => {
  it('preference: agreement with the labelled pairs (ties left out, equal rewards half right); seed, temperature, max tokens sent', async () => {
    const dir = join(work, 'prefs');
    const before = srv.chatRequests.length;
    const r = await run(
      '--fitness',
      'preference',
      '--preferences',
      PREFS,
      '--iterations',
      '1',
      '--candidates',
      '2',
      '--seed',
      '50',
      '--temperature',
      '0.3',
      '--max-tokens',
      '999',
      '--out',
      dir,
    );
    expect(r.code, r.stderr).toBe(0);
    const sent = srv.chatRequests.slice(before).map((q) => [q.body.seed, q.body.temperature, q.body.max_tokens]);
    expect(sent).toEqual([
      [50, 0.3, 999],
      [51, 0.3, 999],
    ]);
    const prefs = jsonl<{ chosen: string; rejected: string; tie?: boolean }>(PREFS);
    const recs = jsonl<Rec & { fitness_detail: Record<string, number> }>(join(dir, 'candidates.jsonl'));
    for (const [j, rec] of recs.entries()) {
      const totals = jsonl<{ id: string; total: number }>(join(dir, `iter-1/cand-${j}.rewards.jsonl`));
      const m = new Map(totals.map((t) => [t.id, t.total]));
      // from the definition: strict pairs only, equal totals count one half
      let right = 0;
      let pairs = 0;
      for (const p of prefs.filter((x) => !x.tie)) {
        pairs++;
        right += m.get(p.chosen)! > m.get(p.rejected)! ? 1 : m.get(p.chosen) === m.get(p.rejected) ? 0.5 : 0;
      }
      expect(rec.fitness).toBe(right / pairs);
      expect(rec.fitness_detail.labelled_ties).toBe(prefs.filter((x) => x.tie).length);
      expect(preferenceAgreement(m, prefs).value).toBe(rec.fitness);
    }
    expect(recs[1]!.fitness).toBe(1); // the best reward orders every strict pair as its label
    expect(recs[0]!.fitness!).toBeLessThan(1);
  }, 120_000);

  it('rank with --rank kendall: the fitness is Kendall tau-b with the label', async () => {
    const dir = join(work, 'kendall');
    const r = await run('--fitness', 'rank', '--rank', 'kendall', '--label', 'return', '--iterations', '1', '--candidates', '1', '--seed', '50', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const rec = jsonl<Rec & { fitness_detail: Record<string, number> }>(join(dir, 'candidates.jsonl'))[0]!;
    const totals = jsonl<{ total: number }>(join(dir, 'iter-1/cand-0.rewards.jsonl')).map((t) => t.total);
    const ret = rows.map((x) => x.item.return);
    expect(rec.fitness).toBe(kendallTauB(totals, ret));
    expect(rec.fitness).not.toBe(spearman(totals, ret));
    expect(rec.fitness_detail.spearman).toBe(spearman(totals, ret));
    const prompt = JSON.parse(readFileSync(join(dir, 'iter-1/prompt.json'), 'utf8')) as { content: string }[];
    expect(prompt[1]!.content).toContain(`judged by the Kendall's tau-b rank correlation of the total with the label "return"`);
  }, 120_000);

  it('separation: the AUC of the total between successful and failed runs', async () => {
    const dir = join(work, 'sep');
    const r = await run('--fitness', 'separation', '--label', 'success', '--iterations', '1', '--candidates', '1', '--seed', '50', '--out', dir);
    expect(r.code, r.stderr).toBe(0);
    const rec = jsonl<Rec>(join(dir, 'candidates.jsonl'))[0]!;
    const totals = jsonl<{ total: number }>(join(dir, 'iter-1/cand-0.rewards.jsonl')).map((t) => t.total);
    const succ = rows.map((x) => x.item.success);
    let wins = 0;
    for (let i = 0; i < totals.length; i++)
      for (let j = 0; j < totals.length; j++) if (succ[i] && !succ[j]) wins += totals[i]! > totals[j]! ? 1 : totals[i] === totals[j] ? 0.5 : 0;
    const pos = succ.filter(Boolean).length;
    expect(rec.fitness).toBe(wins / (pos * (succ.length - pos)));
    expect(auc(totals, succ)).toBe(rec.fitness);
  }, 120_000);
});

describe('arbiter design: usage', () => {
  it('refuses a preference fitness without preferences, and an existing run without --resume', async () => {
    const a = await run('--fitness', 'preference', '--out', join(work, 'none'));
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--fitness preference needs --preferences FILE .*\nsee 'arbiter design --help'\n$/);
    expect(existsSync(join(work, 'none', 'run.json'))).toBe(false);
    const b = await run('--out', join(work, 'run'));
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/already holds a design run .*pass --resume/);
    const h = await runCli(['design', '--help']);
    expect(h.code).toBe(0);
    expect(h.stdout).toContain('--call-timeout-ms');
  });
});
