// Start-up outside budgets (core/startup.ts): a grade that arrives while its grader is starting
// waits for it outside its timeout_ms, up to startup_timeout_ms; warmGrader starts everything a
// grader tree needs at load (tokenizers, language profiles, the worker threads of cpu_heavy types,
// the configs built in them) and reports it. Clocks are vitest's fake timers; the one real delay is
// the injected tokenizer delay that the budget must not be charged with.
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import '../../dist/graders/index.js';
import { DEFAULT_STARTUP_TIMEOUT_MS, loadedResources, warmGrader } from '../../dist/core/startup.js';
import { counts, holdWarm, releaseWarm } from '../helpers/startup-graders.js';
import '../helpers/slow-warm-grader.mjs';

const sample = { item: {}, output_text: 'hello world' };
const closing: Services[] = [];
const fresh = (opts = {}) => {
  const s = new Services(opts);
  closing.push(s);
  return s;
};
afterAll(async () => {
  for (const s of closing) await s.close();
});
afterEach(() => {
  vi.useRealTimers();
});

/** A promise's state without waiting for it. */
function track<T>(p: Promise<T>): { settled: boolean; value?: T } {
  const t: { settled: boolean; value?: T } = { settled: false };
  p.then((v) => {
    t.settled = true;
    t.value = v;
  });
  return t;
}

describe('a grade issued during start-up', () => {
  it('does not start its budget until start-up resolves', async () => {
    vi.useFakeTimers();
    holdWarm();
    const before = counts.warms;
    const g = loadGrader({ type: 'test_warm', score: 0.5, timeout_ms: 50 });
    const services = fresh();
    const r = track(grade(g, sample, { services }));
    // far past the 50 ms budget: still waiting for start-up, not timed out, not graded
    await vi.advanceTimersByTimeAsync(10_000);
    expect(r.settled).toBe(false);
    expect(counts.warms).toBe(before + 1);
    releaseWarm();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.settled).toBe(true);
    expect(r.value).toMatchObject({ valid: true, score: 0.5 });
  });

  it('past startup_timeout_ms is an invalid timeout that says start-up was at fault, not the response', async () => {
    vi.useFakeTimers();
    holdWarm(); // never released in this test
    const g = loadGrader({ type: 'test_warm', score: 1, timeout_ms: 50, startup_timeout_ms: 5_000 });
    const grades = counts.grades;
    const r = track(grade(g, sample, { services: fresh() }));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(r.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.value).toMatchObject({ valid: false, score: null, error: { kind: 'timeout' } });
    expect(r.value!.error!.message).toMatch(/start-up limit of 5000 ms \(startup_timeout_ms;.*the response is not at fault/);
    expect(counts.grades).toBe(grades); // the grade itself never ran
  });

  it('the start-up limit defaults to 120 s', async () => {
    expect(DEFAULT_STARTUP_TIMEOUT_MS).toBe(120_000);
    vi.useFakeTimers();
    holdWarm();
    const r = track(grade(loadGrader({ type: 'test_warm', score: 1 }), sample, { services: fresh() }));
    await vi.advanceTimersByTimeAsync(119_999);
    expect(r.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.value!.error!.message).toMatch(/start-up limit of 120000 ms/);
    releaseWarm();
  });

  it('a caller that gives up while start-up runs gets its abort reason', async () => {
    holdWarm();
    const ac = new AbortController();
    const p = grade(loadGrader({ type: 'test_warm', score: 1 }), sample, { services: fresh(), signal: ac.signal });
    ac.abort(new Error('client left'));
    const r = await p;
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' } });
    expect(r.error!.message).toMatch(/while its grader was starting.*client left/);
    releaseWarm();
  });
});

describe('warmGrader', () => {
  it('starts a grader once per services, composite children included, and reports it', async () => {
    releaseWarm();
    holdWarm();
    const g = loadGrader({ type: 'multi', graders: { a: { type: 'test_warm', score: 1 }, b: { type: 'test_warm', score: 0 } }, calculate_output: 'a + b' });
    const services = fresh();
    const before = counts.warms;
    const warming = warmGrader(g, services);
    expect(counts.warms).toBe(before + 2); // both children started at once
    releaseWarm();
    const report = await warming;
    expect(report.items.map((i) => i.what)).toEqual(['test resource', 'test resource']);
    // done: neither a second warm nor the grade starts anything again
    await warmGrader(g, services);
    expect((await grade(g, sample, { services })).score).toBe(1);
    expect(counts.warms).toBe(before + 2);
    // other services: started again
    await warmGrader(g, fresh());
    expect(counts.warms).toBe(before + 4);
  });

  it('a grader with nothing to start has no warm-up and reports nothing', async () => {
    const g = loadGrader({ type: 'string_check', input: '{{sample.output_text}}', reference: 'x', operation: 'eq' });
    expect(g.warm).toBeUndefined();
    expect((await warmGrader(g, fresh())).items).toEqual([]);
  });

  it('ifeval loads the language profiles only when an item may ask for a language check', async () => {
    const has = () => loadedResources().some((r) => r.what.startsWith('ifeval language profiles'));
    expect(has()).toBe(false);
    await warmGrader(loadGrader({ type: 'ifeval', instruction_ids: ['punctuation:no_comma'] }), fresh());
    expect(has()).toBe(false);
    const report = await warmGrader(loadGrader({ type: 'ifeval', instruction_ids: '{{item.instruction_id_list}}', kwargs: '{{item.kwargs}}' }), fresh());
    expect(has()).toBe(true);
    expect(report.items.map((i) => i.what)).toEqual(['ifeval language profiles (langdetect)']);
  });

  it('a length grader without a budget loads its tokenizer in this thread, before the first grade', async () => {
    const has = () => loadedResources().some((r) => r.what === 'tokenizer cl100k_base');
    const g = loadGrader({ type: 'length', unit: 'tokens', encoding: 'cl100k_base', budget: 100 });
    expect(has()).toBe(false); // loading the config starts nothing
    const report = await warmGrader(g, fresh());
    expect(has()).toBe(true);
    expect(report.items.map((i) => i.what)).toEqual(['tokenizer cl100k_base']);
    expect((await grade(g, sample, { services: fresh() })).metadata.length).toBe(2);
  });

  it('a format regex under a budget: the worker threads start and build its config at load', async () => {
    const services = fresh({ preemptThreads: 2 });
    const g = loadGrader({ type: 'format', check: 'regex', pattern: 'wor', timeout_ms: 1_000 });
    const report = await warmGrader(g, services);
    expect(report.items.map((i) => i.what)).toEqual(['2 worker threads']);
    expect(services.has('workers:preempt')).toBe(true);
    const rs = await Promise.all(Array.from({ length: 12 }, () => grade(g, sample, { services })));
    expect(rs.map((r) => r.valid && r.score)).toEqual(Array(12).fill(1));
  });
});

describe('a threads grader', () => {
  it('starts its pool at load, and its workers build and warm the inner grader (not this thread)', async () => {
    const services = fresh();
    const g = loadGrader({ type: 'threads', threads: 1, grader: { type: 'length', unit: 'tokens', encoding: 'p50k_base', budget: 10 } });
    const report = await warmGrader(g, services);
    expect(report.items.map((i) => i.what)).toEqual(['1 worker thread']);
    expect(loadedResources().some((r) => r.what === 'tokenizer p50k_base')).toBe(false);
    expect((await grade(g, sample, { services })).metadata).toMatchObject({ inner_type: 'length', length: 2 });
  });
});

describe('the length tokenizer under a 2 s budget', () => {
  it('12 trivial samples graded right after load are all valid though each tokenizer load takes longer than the whole budget', async () => {
    // each worker thread's tokenizer load is made slower than the whole budget (test/helpers/slow-tokenizer.mjs)
    const services = fresh({ preemptThreads: 2, workerModules: [new URL('../helpers/slow-tokenizer.mjs', import.meta.url).href] });
    const g = loadGrader({ type: 'length', unit: 'tokens', budget: 100, timeout_ms: 2_000 });
    const rs = await Promise.all(Array.from({ length: 12 }, () => grade(g, sample, { services })));
    expect(rs.map((r) => r.error?.message ?? r.valid)).toEqual(Array(12).fill(true));
    expect(rs.map((r) => r.metadata.length)).toEqual(Array(12).fill(2));
    // the start-up was the pool's: the workers loaded the tokenizer, this thread did not
    expect(loadedResources().some((r) => r.what === 'tokenizer o200k_base')).toBe(false);
    const report = await warmGrader(g, services);
    expect(report.items.map((i) => i.what)).toEqual(['2 worker threads', 'tokenizer o200k_base (in each worker thread)']);
  });
});

describe('worker threads replaced after a timeout', () => {
  it('warm up again before they take a sample: the next grade is not charged with it', async () => {
    const services = fresh({ preemptThreads: 1, workerModules: [new URL('../helpers/slow-warm-grader.mjs', import.meta.url).href] });
    // each worker's warm-up (1.5 s) is longer than the budget (300 ms)
    const g = loadGrader({ type: 'test_slow_warm', warm_ms: 1_500, timeout_ms: 300 });
    await warmGrader(g, services);
    const stuck = await grade(g, { item: { ms: -1 }, output_text: '' }, { services });
    expect(stuck).toMatchObject({ valid: false, error: { kind: 'timeout', message: 'grader "test_slow_warm" did not finish within 300 ms' } });
    // the only worker was killed; its replacement warms up before it takes these
    const rs = await Promise.all([1, 2, 3].map(() => grade(g, { item: { ms: 0 }, output_text: '' }, { services })));
    expect(rs.map((r) => r.error?.message ?? r.score)).toEqual([1, 1, 1]);
  });
});
