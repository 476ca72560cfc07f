import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';
import './../helpers/spin-grader.mjs';
import './../helpers/hostile-graders.mjs';

const spinModule = new URL('../helpers/spin-grader.mjs', import.meta.url).href;
const hostileModule = new URL('../helpers/hostile-graders.mjs', import.meta.url).href;
const services = new Services({ workerModules: [spinModule, hostileModule] });
afterAll(() => services.close());

const rows = readFileSync(dataPath('gsm8k/example_model_solutions.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .slice(0, 60)
  .map((l) => JSON.parse(l));
const samples = rows.map((r) => ({ item: { answer: r.ground_truth }, sample: { output_text: r['175b_verification'].solution } }));

describe('threads', () => {
  it('grades in worker threads exactly as in the main thread', async () => {
    const math = { type: 'math', name: 'acc', input: '{{sample.output_text}}', reference: '{{item.answer}}' };
    const direct = loadGrader(math);
    const threaded = loadGrader({ type: 'threads', name: 'acc', threads: 2, grader: math });
    const a = await Promise.all(samples.map((s) => grade(direct, s, { services })));
    const b = await Promise.all(samples.map((s) => grade(threaded, s, { services })));
    expect(b.map((r) => r.score)).toEqual(a.map((r) => r.score));
    expect(b.map((r) => r.reason)).toEqual(a.map((r) => r.reason));
    expect(b.every((r) => r.metadata.type === 'threads' && r.metadata.inner_type === 'math')).toBe(true);
    expect(new Set(a.map((r) => r.score))).toEqual(new Set([0, 1]));
  });

  it('keeps the event loop free while workers spin, and uses several threads', async () => {
    const g = loadGrader({ type: 'threads', threads: 2, grader: { type: 'test_spin', ms: 300 } });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const rs = await Promise.all([1, 2, 3, 4].map(() => grade(g, { item: {}, output_text: '' }, { services })));
    clearInterval(timer);
    expect(rs.every((r) => r.score === 1)).toBe(true);
    expect(new Set(rs.map((r) => r.metadata.thread)).size).toBe(2);
    expect(ticks).toBeGreaterThan(20); // 4 x 300 ms of spinning did not block the timer
  });

  it('a grade stuck in an endless loop times out; its worker is replaced and grading goes on', async () => {
    const g = loadGrader({ type: 'multi', graders: { stuck: { type: 'threads', threads: 1, timeout_ms: 300, grader: { type: 'test_spin', ms: -1 } } } });
    const r = await grade(g, { item: {}, output_text: '' }, { services });
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' } });
    const ok = loadGrader({ type: 'threads', threads: 1, grader: { type: 'test_spin', ms: 1 } });
    expect((await grade(ok, { item: {}, output_text: '' }, { services })).score).toBe(1);
  });

  it('an aborted sample kills only itself: the rest of its batch is re-queued on a fresh worker', async () => {
    const { GraderPool } = await import('../../dist/workers/grader-pool.js');
    const pool = new GraderPool({ config: { type: 'test_spin', ms: 0 }, threads: 1, batch: 4, servicesOptions: { workerModules: [spinModule] } });
    try {
      const s = (ms: number) => ({ item: { ms }, sample: { output_text: '' } });
      await pool.grade(s(0)); // the worker has started: the batch below goes to it at once
      const rs = await Promise.allSettled([pool.grade(s(5)), pool.grade(s(-1), AbortSignal.timeout(400)), pool.grade(s(5)), pool.grade(s(5))]);
      expect(rs.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect(rs.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ score: number }>).value.score)).toEqual([1, 1, 1]);
      expect(pool.restarts).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('reports invalid inner results with their kind, and validates the inner config at load', async () => {
    const g = loadGrader({ type: 'threads', threads: 1, grader: { type: 'string_check', input: '{{item.missing}}', reference: 'x', operation: 'eq' } });
    const r = await grade(g, { item: {}, output_text: 'x' }, { services });
    expect(r.error?.kind).toBe('template_error');
    expect(() => loadGrader({ type: 'threads', grader: { type: 'string_check', operation: 'eq' } })).toThrow(/grader\.input/);
  });

  it('a sample that cannot be copied to a worker fails alone (deep: limit_exceeded, uncloneable: bad_input); its batch is graded', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 5000; i++) deep = [deep];
    const g = loadGrader({
      type: 'threads',
      threads: 1,
      batch: 8,
      grader: { type: 'string_check', input: '{{sample.output_text}}', reference: 'x', operation: 'eq' },
    });
    const inputs = [
      { item: {}, output_text: 'x' },
      { item: { deep }, output_text: 'x' },
      { item: { f: () => 1 }, output_text: 'x' },
      { item: {}, output_text: 'y' },
    ];
    // straight to grader.grade: grade() would refuse the deep record at its own depth check first
    const rs = await Promise.all(inputs.map(({ item, output_text }) => g.grade({ item, sample: { output_text } }, { services })));
    expect(rs.map((r) => r.score)).toEqual([1, null, null, 0]);
    expect(rs[1]).toMatchObject({
      valid: false,
      error: { kind: 'limit_exceeded', message: expect.stringMatching(/nested too deeply to hand to a worker thread/) },
    });
    expect(rs[2]).toMatchObject({
      valid: false,
      error: { kind: 'bad_input', message: expect.stringMatching(/cannot be copied to a worker thread.*DataCloneError/) },
    });
  });

  it('a result that cannot be copied back is an invalid result naming why', async () => {
    const g = loadGrader({ type: 'threads', threads: 1, grader: { type: 'test_bad_result' } });
    const r = await grade(g, { item: {}, output_text: '' }, { services });
    expect(r).toMatchObject({ valid: false, error: { kind: 'bad_input', message: expect.stringMatching(/the grade result .*cannot be copied/) } });
  });

  it('a sample that ends its worker fails alone: the rest of its batch is re-run one by one and graded', async () => {
    const { GraderPool } = await import('../../dist/workers/grader-pool.js');
    const pool = new GraderPool({ config: { type: 'test_exit' }, threads: 1, batch: 4, servicesOptions: { workerModules: [hostileModule] } });
    try {
      const s = (exit: boolean) => ({ item: { exit }, sample: { output_text: '' } });
      const rs = await Promise.allSettled([pool.grade(s(false)), pool.grade(s(true)), pool.grade(s(false)), pool.grade(s(false))]);
      expect(rs.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      expect((rs[1] as PromiseRejectedResult).reason).toMatchObject({ kind: 'internal_error', message: expect.stringMatching(/exited with code 3/) });
      expect(pool.restarts).toBe(2); // the batch, then the culprit alone
    } finally {
      await pool.close();
    }
  });

  it('workers that cannot start fail their samples with the reason instead of restarting forever', async () => {
    const broken = new URL('../helpers/broken-module.mjs', import.meta.url).href;
    const s2 = new Services({ workerModules: [broken] });
    try {
      const g = loadGrader({ type: 'threads', threads: 2, grader: { type: 'string_check', input: 'a', reference: 'a', operation: 'eq' } });
      const rs = await Promise.all([1, 2, 3].map(() => grade(g, { item: {}, output_text: '' }, { services: s2 })));
      for (const r of rs) expect(r).toMatchObject({ valid: false, error: { kind: 'internal_error', message: expect.stringMatching(/always fails to load/) } });
      const again = await grade(g, { item: {}, output_text: '' }, { services: s2 });
      expect(again.error?.message).toMatch(/grader workers cannot start: .*always fails to load/);
    } finally {
      await s2.close();
    }
  });
});

describe('cpu_heavy types run where their budget can preempt them', () => {
  it('under timeout_ms a synchronous grade that never ends is killed at the deadline, and the event loop stays free meanwhile', async () => {
    const g = loadGrader({ type: 'test_heavy_spin', ms: -1, timeout_ms: 300 });
    let ticks = 0;
    let ticksWhenDone = -1;
    const timer = setInterval(() => ticks++, 5);
    const r = await grade(g, { item: {}, output_text: '' }, { services }).finally(() => (ticksWhenDone = ticks));
    clearInterval(timer);
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout', message: expect.stringMatching(/within 300 ms/) } });
    expect(ticksWhenDone).toBeGreaterThan(0); // timers ran while the grade was in flight
  });

  it('runs in a worker only when a budget applies; inline otherwise; the result is the same either way', async () => {
    const inline = await grade(loadGrader({ type: 'test_heavy_spin', ms: 1 }), { item: {}, output_text: '' }, { services });
    const budgeted = await grade(loadGrader({ type: 'test_heavy_spin', ms: 1, timeout_ms: 20_000 }), { item: {}, output_text: '' }, { services });
    expect(inline).toMatchObject({ score: 1, metadata: { main: true, type: 'test_heavy_spin' } });
    expect(budgeted).toMatchObject({ score: 1, metadata: { main: false, type: 'test_heavy_spin', grader: 'test_heavy_spin' } });
    // an ancestor's timeout is a budget too
    const nested = await grade(
      loadGrader({ type: 'multi', timeout_ms: 20_000, graders: { s: { type: 'test_heavy_spin', ms: 1 } } }),
      { item: {}, output_text: '' },
      { services },
    );
    expect(nested.components!.s!.metadata.main).toBe(false);
  });

  it("its own timeout_ms counts from when a worker takes the sample: a fresh pool's start-up is not charged", async () => {
    const fresh = new Services({ workerModules: [hostileModule] });
    try {
      const g = loadGrader({ type: 'test_heavy_spin', ms: 20, timeout_ms: 200 });
      // four grades on a pool that is still starting its workers (loading takes longer than 200 ms here)
      const rs = await Promise.all([1, 2, 3, 4].map(() => grade(g, { item: {}, output_text: '' }, { services: fresh })));
      expect(rs.map((r) => [r.valid, r.metadata.main])).toEqual([
        [true, false],
        [true, false],
        [true, false],
        [true, false],
      ]);
    } finally {
      await fresh.close();
    }
  });

  it('an uncopyable sample for a cpu_heavy grader under a budget is an invalid result, not a crash', async () => {
    const g = loadGrader({ type: 'test_heavy_spin', ms: 0, timeout_ms: 20_000 });
    const r = await grade(g, { item: { f: Symbol('x') }, output_text: '' }, { services });
    expect(r).toMatchObject({ valid: false, error: { kind: 'bad_input' } });
  });
});
