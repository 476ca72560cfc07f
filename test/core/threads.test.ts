import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { SHARED_DATA } from '../helpers/cli.js';
import './../helpers/spin-grader.mjs';

const spinModule = new URL('../helpers/spin-grader.mjs', import.meta.url).href;
const services = new Services({ workerModules: [spinModule] });
afterAll(() => services.close());

const rows = readFileSync(`${SHARED_DATA}gsm8k/example_model_solutions.jsonl`, 'utf8').trim().split('\n').slice(0, 60).map((l) => JSON.parse(l));
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
});
