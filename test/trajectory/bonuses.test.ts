// The intrinsic bonuses against their definitions, computed in the test: count_bonus
// 1/sqrt(N(s)) with N over the run, episodic_bonus 1/sqrt(n(s)) or first visit within one
// trajectory, RLeXplore's scaling ("rms": divided by the running std, whose statistics are those
// of every value seen pooled with the prior of weight 1e-4, mean 0, var 1; "minmax"; beta and
// kappa), RND's prediction error against the fixed network; the run state saved and restored
// (state_file: written asynchronously, flushed when the services close or the process exits;
// count_bonus's max_states forgets the least recently seen); a grader-extracted state key;
// composing with an extrinsic reward in multi.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { grade, gradeGroup, loadGrader, Services, type Grader } from '../../dist/index.js';
import { registerBuiltinTypes } from '../../dist/graders/builtins.js';
import { forward, initNet } from '../../dist/graders/trajectory/rnd.js';
import { runCli, runProcess } from '../helpers/cli.js';

beforeAll(() => registerBuiltinTypes());

const tmp = () => mkdtempSync(join(tmpdir(), 'arbiter-bonus-'));
const on = (g: Grader, trajectory: unknown[], services?: Services) =>
  grade(g, { item: { trajectory }, sample: { output_text: '' } }, services ? { services } : {});
const T = '{{item.trajectory}}';
const states = (...xs: number[]) => xs.map((pos) => ({ obs: { pos } }));

/** Pooled variance of the prior (weight 1e-4, mean 0, var 1) and every value seen. */
function pooledVar(seen: number[]): number {
  const c0 = 1e-4;
  const tot = c0 + seen.length;
  const mean = seen.reduce((a, x) => a + x, 0) / tot;
  const m2 = c0 * (1 + mean ** 2) + seen.reduce((a, x) => a + (x - mean) ** 2, 0);
  return m2 / tot;
}

describe('count_bonus', () => {
  it('1/sqrt(N(s)) per step, N counting every visit this run (this one included)', async () => {
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'none' });
    const a = await on(g, states(1, 2, 1));
    expect(a.steps).toEqual([1, 1, 1 / Math.sqrt(2)]);
    const b = await on(g, states(1, 3));
    expect(b.steps).toEqual([1 / Math.sqrt(3), 1]);
    expect(b.score).toBe(1 / Math.sqrt(3) + 1);
    expect(b.metadata.distinct_states).toBe(3);
  });

  it('"rms" divides by the running std of the bonuses, "minmax" maps a trajectory to [0, 1], beta·(1-kappa)^n weighs', async () => {
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, beta: 0.5, kappa: 0.1 });
    const raw1 = [1, 1, 1 / Math.sqrt(2)];
    const raw2 = [1 / Math.sqrt(3), 1 / Math.sqrt(2)];
    const a = await on(g, states(1, 2, 1));
    const sd1 = Math.sqrt(pooledVar(raw1));
    a.steps!.forEach((x, i) => expect(x).toBeCloseTo((raw1[i]! / sd1) * 0.5, 12));
    const b = await on(g, states(1, 2));
    const sd2 = Math.sqrt(pooledVar([...raw1, ...raw2]));
    b.steps!.forEach((x, i) => expect(x).toBeCloseTo((raw2[i]! / sd2) * 0.5 * 0.9, 12));
    const m = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'minmax' });
    const mm = await on(m, states(1, 1, 1, 2));
    const raw = [1, 1 / Math.sqrt(2), 1 / Math.sqrt(3), 1];
    const lo = Math.min(...raw);
    mm.steps!.forEach((x, i) => expect(x).toBeCloseTo((raw[i]! - lo) / (1 - lo + 1e-11), 12));
  });

  it('"rms" with gamma: the std of the discounted intrinsic returns', async () => {
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, gamma: 0.5 });
    const r = await on(g, states(1, 1));
    const raw = [1, 1 / Math.sqrt(2)];
    const sd = Math.sqrt(pooledVar([1, 0.5 * 1 + raw[1]!]));
    expect(r.steps![1]).toBeCloseTo(raw[1]! / sd, 12);
  });

  it('state_file: the counts (and the scaler) are restored by a new grader and carried on', async () => {
    const dir = tmp();
    const file = join(dir, 'counts.json');
    const cfg = { type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'rms', state_file: file };
    const one = loadGrader(cfg);
    const services = new Services();
    await on(one, states(1, 2), services);
    await services.close(); // the write is asynchronous: closing the services flushes it
    expect(JSON.parse(readFileSync(file, 'utf8')).state.counts).toHaveLength(2);
    expect(readdirSync(dir)).toEqual(['counts.json']); // the temporary file was renamed over it
    const straight = loadGrader({ ...cfg, state_file: undefined });
    await on(straight, states(1, 2));
    const want = await on(straight, states(1, 5, 1));
    const two = loadGrader(cfg); // a new process, in effect: the file is all it knows
    const got = await on(two, states(1, 5, 1));
    expect(got.steps).toEqual(want.steps);
    // the file is an operator's: a config naming one is unsafe for a request's inline grader
    expect(one.capabilities.some((c) => c.capability === 'unsafe' && c.field === 'state_file')).toBe(true);
  });

  it('state_file: concurrent grades are saved together; after the flush the file holds the latest state', async () => {
    const file = join(tmp(), 'counts.json');
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'none', state_file: file });
    const services = new Services();
    await Promise.all(Array.from({ length: 20 }, (_, i) => on(g, states(i % 3, 7), services)));
    await services.close();
    const saved = JSON.parse(readFileSync(file, 'utf8')).state;
    expect(saved.graded).toBe(20);
    // obs 0 and 1 seen 7 times, 2 six times, 7 in every trajectory
    expect(saved.counts.map(([, n]: [string, number]) => n).sort((a: number, b: number) => a - b)).toEqual([6, 7, 7, 20]);
  });

  it('state_file: a process that exits without closing its services still writes the last state', async () => {
    const file = join(tmp(), 'counts.json');
    const script = `
      const { grade, loadGrader } = await import(${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)});
      const { registerBuiltinTypes } = await import(${JSON.stringify(new URL('../../dist/graders/builtins.js', import.meta.url).href)});
      registerBuiltinTypes();
      const g = loadGrader({ type: 'count_bonus', trajectory: '{{item.trajectory}}', key: { field: 'obs' }, state_file: ${JSON.stringify(file)} });
      for (let i = 0; i < 3; i++) await grade(g, { item: { trajectory: [{ obs: i }] }, sample: { output_text: '' } });
      process.exit(0);`;
    const r = await runProcess(process.execPath, ['--input-type=module', '-e', script]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(readFileSync(file, 'utf8')).state.graded).toBe(3);
  });

  it('state_file: `arbiter score` ends with every grade saved', async () => {
    const dir = tmp();
    const file = join(dir, 'counts.json');
    writeFileSync(join(dir, 'g.json'), JSON.stringify({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, state_file: file }));
    writeFileSync(
      join(dir, 'in.jsonl'),
      Array.from({ length: 30 }, (_, i) => JSON.stringify({ item: { trajectory: states(i % 4) }, output_text: '' })).join('\n'),
    );
    const r = await runCli(['score', join(dir, 'in.jsonl'), '-g', join(dir, 'g.json'), '-o', join(dir, 'out.jsonl')]);
    expect(r.code, r.stderr).toBe(0);
    const saved = JSON.parse(readFileSync(file, 'utf8')).state;
    expect(saved.graded).toBe(30);
    expect(saved.counts.map(([, n]: [string, number]) => n).sort()).toEqual([7, 7, 8, 8]);
  });

  it('state_file: a write that fails makes the later grades invalid; closing the services warns of it', async () => {
    const file = join(tmp(), 'missing-folder', 'counts.json');
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'none', state_file: file });
    const services = new Services();
    const first = await on(g, states(1), services);
    expect(first.score).toBe(1); // its score is right: only the saving failed
    const warned = new Promise<Error>((res) => process.once('warning', res));
    await services.close();
    expect((await warned).message).toMatch(/state_file .*counts\.json could not be saved: ENOENT/);
    const next = await on(g, states(1), services);
    expect(next.valid).toBe(false);
    expect(next.error?.kind).toBe('config_error');
    expect(next.error?.message).toMatch(/could not be saved/);
  });

  it('max_states: past the cap the least recently seen state is forgotten, and the evictions reported', async () => {
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'none', max_states: 2 });
    const a = await on(g, states(1, 2, 3, 1));
    // 3 evicts 1 (then 2, 3 kept), so 1 counts as new again and evicts 2
    expect(a.steps).toEqual([1, 1, 1, 1]);
    expect(a.metadata).toMatchObject({ distinct_states: 2, max_states: 2, evicted: 2, evicted_total: 2 });
    expect(a.reason).toMatch(/2 least recently seen state\(s\) forgotten at max_states 2/);
    // seeing 3 makes 1 the least recently seen: the new state 2 evicts 1, not 3 (first in)
    const b = await on(g, states(3, 2));
    expect(b.steps).toEqual([1 / Math.sqrt(2), 1]);
    const c = await on(g, states(3, 1));
    expect(c.steps).toEqual([1 / Math.sqrt(3), 1]);
    expect(c.metadata).toMatchObject({ evicted: 1, evicted_total: 4 });
    const unlimited = await on(loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'none' }), states(1));
    expect(unlimited.metadata).toMatchObject({ max_states: 100_000, evicted: 0 });
  });

  it('a state key from a grader: its score is the key', async () => {
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { grader: { type: 'feature', value: '{{sample.step.obs.pos}}' } }, normalize: 'none' });
    const r = await on(g, [{ obs: { pos: 4, noise: 1 } }, { obs: { pos: 4, noise: 2 } }]);
    expect(r.steps).toEqual([1, 1 / Math.sqrt(2)]);
    const missing = await on(loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'nope' } }), states(1));
    expect(missing.error?.kind).toBe('bad_input');
  });
});

describe('count_bonus, scope "group"', () => {
  it('N(s) counts the visits of the whole group, whatever order its members finish in; graded alone it refuses', async () => {
    const g = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, scope: 'group', normalize: 'none', beta: 2 });
    const members = [states(1, 2), states(1, 1, 3), states(4)];
    const rs = await gradeGroup(
      g,
      members.map((trajectory, i) => ({ id: i, uid: 'p', item: { trajectory }, sample: { output_text: '' } })),
      { advantages: null },
    );
    // visits in the group: pos 1 three times, 2, 3 and 4 once each
    expect(rs.map((r) => r.steps)).toEqual([[2 / Math.sqrt(3), 2], [2 / Math.sqrt(3), 2 / Math.sqrt(3), 2], [2]]);
    expect(rs[1]!.score).toBe(2 / Math.sqrt(3) + 2 / Math.sqrt(3) + 2);
    expect(rs[0]!.metadata.keys).toBeUndefined();
    // "rms": divided by the std of all the group's bonuses pooled with the prior
    const rmsG = loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'obs' }, scope: 'group' });
    const [a] = await gradeGroup(
      rmsG,
      members.map((trajectory, i) => ({ id: i, uid: 'p', item: { trajectory }, sample: { output_text: '' } })),
      { advantages: null },
    );
    const all = [1 / Math.sqrt(3), 1, 1 / Math.sqrt(3), 1 / Math.sqrt(3), 1, 1];
    expect(a!.steps![1]).toBeCloseTo(1 / Math.sqrt(pooledVar(all)), 12);
    const alone = await on(g, states(1));
    expect(alone.error?.kind).toBe('config_error');
    expect(() => loadGrader({ type: 'multi', graders: { b: { type: 'count_bonus', key: { field: 'obs' }, scope: 'group' } } })).toThrow(
      /must be the root grader/,
    );
  });
});

describe('episodic_bonus', () => {
  it('counts within one trajectory only: 1/sqrt(n(s)), or 1 on a first visit', async () => {
    const g = loadGrader({ type: 'episodic_bonus', trajectory: T, key: { field: 'obs' }, normalize: 'none' });
    expect((await on(g, states(1, 1, 2, 1))).steps).toEqual([1, 1 / Math.sqrt(2), 1, 1 / Math.sqrt(3)]);
    expect((await on(g, states(1))).steps).toEqual([1]); // reset for the next trajectory
    const f = loadGrader({ type: 'episodic_bonus', trajectory: T, key: { field: 'obs' }, mode: 'first_visit', normalize: 'none' });
    const r = await on(f, states(1, 1, 2, 1, 3));
    expect(r.steps).toEqual([1, 0, 1, 0, 1]);
    expect(r.score).toBe(3);
  });
});

describe('rnd_bonus', () => {
  const cfg = { type: 'rnd_bonus', trajectory: T, features: ['x', 'y'], seed: 7, hidden: 8, latent_dim: 4, lr: 0.01, normalize: 'none', obs_norm: 'none' };
  const traj = [
    { x: 0.1, y: [0.5] },
    { x: -0.3, y: [1] },
  ];

  it('the raw bonus is the mean squared error of the untrained predictor against the fixed network', async () => {
    const r = await on(loadGrader(cfg), traj);
    const target = initNet(2, 8, 4, 7);
    const predictor = initNet(2, 8, 4, 8); // seed + 1
    const want = [
      [0.1, 0.5],
      [-0.3, 1],
    ].map((x) => {
      const a = forward(target, x).y;
      const b = forward(predictor, x).y;
      return a.reduce((s, v, i) => s + (v - b[i]!) ** 2, 0) / a.length;
    });
    r.steps!.forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 14));
  });

  it('training lowers the bonus of familiar observations, and a novel one keeps a higher bonus', async () => {
    const g = loadGrader({ ...cfg, epochs: 20 });
    const first = (await on(g, traj)).score!;
    let last = first;
    for (let i = 0; i < 10; i++) last = (await on(g, traj)).score!;
    expect(last).toBeLessThan(first / 4);
    const novel = await on(g, [{ x: 3, y: [-2] }]);
    expect(novel.score!).toBeGreaterThan(last / 2);
  });

  it('observation normalisation: (x - mean) / std over the run, clipped to [-5, 5]', async () => {
    const g = loadGrader({ ...cfg, obs_norm: 'rms' });
    const r = await on(g, traj);
    // after one batch of two: pooled statistics of the prior (1e-4, mean 0, var 1) and the batch
    const norm = (vals: number[]) => {
      const mean = vals.reduce((a, v) => a + v, 0) / (1e-4 + 2);
      const sd = Math.sqrt(pooledVar(vals));
      return vals.map((v) => Math.min(5, Math.max(-5, (v - mean) / sd)));
    };
    const xs = norm([0.1, -0.3]);
    const ys = norm([0.5, 1]);
    const target = initNet(2, 8, 4, 7);
    const predictor = initNet(2, 8, 4, 8);
    [0, 1].forEach((i) => {
      const a = forward(target, [xs[i]!, ys[i]!]).y;
      const b = forward(predictor, [xs[i]!, ys[i]!]).y;
      expect(r.steps![i]).toBeCloseTo(a.reduce((s, v, k) => s + (v - b[k]!) ** 2, 0) / 4, 12);
    });
  });

  it('state_file: the predictor, its optimiser and the statistics are saved and restored exactly', async () => {
    const file = join(tmp(), 'rnd.json');
    const c = { ...cfg, obs_norm: 'rms', normalize: 'rms' };
    const straight = loadGrader(c);
    await on(straight, traj);
    const want = await on(straight, [{ x: 1, y: [2] }]);
    const services = new Services();
    await on(loadGrader({ ...c, state_file: file }), traj, services);
    await services.close();
    const got = await on(loadGrader({ ...c, state_file: file }), [{ x: 1, y: [2] }]);
    expect(got.steps).toEqual(want.steps);
    const wrong = await on(loadGrader({ type: 'count_bonus', trajectory: T, key: { field: 'x' }, state_file: file }), traj);
    expect(wrong.error?.kind).toBe('config_error');
    expect(wrong.error?.message).toMatch(/is not a count_bonus state/);
  });

  it('a trajectory over the work budget is a valid floor score (the response is to blame)', async () => {
    const g = loadGrader({ ...cfg, hidden: 1024, latent_dim: 1024, epochs: 100 });
    const r = await on(
      g,
      Array.from({ length: 100 }, () => ({ x: 1, y: 1 })),
    );
    expect(r.valid).toBe(true);
    expect(r.score).toBe(0);
    expect(r.metadata.response_fault).toBe('limit_exceeded');
  });

  it('features must be finite numbers of one dimension over the run', async () => {
    const g = loadGrader(cfg);
    expect((await on(g, [{ x: 'a', y: 1 }])).error?.kind).toBe('bad_input');
    await on(g, traj);
    const r = await on(g, [{ x: 1, y: [1, 2] }]);
    expect(r.error?.message).toMatch(/the features give 3 number\(s\), the run's observations have 2/);
  });
});

describe('composing with an extrinsic reward', () => {
  it('multi: extrinsic + β · bonus', async () => {
    const g = loadGrader({
      type: 'multi',
      graders: {
        task: { type: 'feature', value: '{{item.success}}' },
        novelty: { type: 'episodic_bonus', trajectory: T, key: { field: 'obs' }, mode: 'first_visit', normalize: 'none' },
      },
      calculate_output: 'task + 0.1 * novelty',
    });
    const r = await grade(g, { item: { success: 1, trajectory: states(1, 2, 2, 3) }, sample: { output_text: '' } });
    expect(r.score).toBeCloseTo(1 + 0.1 * 3, 12);
  });
});
