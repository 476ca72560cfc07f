import { describe, expect, it, vi } from 'vitest';
import { grade, gradeStream, loadGrader, registerGraderType, graderSchema, getGraderType, PURE, Services, validateGrader } from '../../dist/index.js';
import { z } from 'zod';

const sc = (operation: string, extra: Record<string, unknown> = {}) => ({
  type: 'string_check',
  input: '{{sample.output_text}}',
  reference: '{{item.answer}}',
  operation,
  ...extra,
});
const s = (out: string, answer: string) => ({ item: { answer }, sample: { output_text: out } });

// A deliberately slow grader type for timeout tests.
if (!getGraderType('test_sleep')) {
  registerGraderType({
    type: 'test_sleep',
    summary: 'test only: sleeps ms then scores 1',
    capabilities: PURE,
    schema: graderSchema({ ms: z.number() }),
    build: (cfg) => (_input, ctx) =>
      new Promise((resolve, reject) => {
        const t = setTimeout(() => resolve({ score: 1 }), cfg.ms);
        ctx.signal?.addEventListener('abort', () => {
          clearTimeout(t);
          reject(ctx.signal!.reason);
        });
      }),
  });
}

describe('string_check', () => {
  it.each([
    ['eq', 'Paris', 'Paris', 1],
    ['eq', 'paris', 'Paris', 0],
    ['ne', 'London', 'Paris', 1],
    ['ne', 'Paris', 'Paris', 0],
    ['like', 'It is Paris.', 'Paris', 1],
    ['like', 'It is paris.', 'Paris', 0],
    ['ilike', 'It is PARIS.', 'paris', 1],
    ['ilike', 'It is Rome.', 'paris', 0],
  ])('%s(%j, %j) = %d', async (op, out, ref, want) => {
    const r = await grade(loadGrader(sc(op)), s(out, ref));
    expect(r).toMatchObject({ valid: true, score: want, metadata: { type: 'string_check' } });
  });
  it('a missing item field is invalid (template_error), not a 0', async () => {
    const r = await grade(loadGrader(sc('eq')), { item: {}, sample: { output_text: 'x' } });
    expect(r.valid).toBe(false);
    expect(r.score).toBeNull();
    expect(r.error?.kind).toBe('template_error');
  });
  it('accepts the shorthand record and reports pass_threshold', async () => {
    const r = await grade(loadGrader(sc('eq', { pass_threshold: 1 })), { item: { answer: 'a' }, output_text: 'a' });
    expect(r.metadata.passed).toBe(true);
  });
  it('a malformed record is bad_input', async () => {
    const r = await grade(loadGrader(sc('eq')), { item: 3 } as never);
    expect(r.error?.kind).toBe('bad_input');
  });
  it('extract.think strip (default) compares the answer after the reasoning; keep compares the whole text', async () => {
    const out = '<think>maybe Rome</think>Paris';
    const r = await grade(loadGrader(sc('eq')), s(out, 'Paris'));
    expect(r).toMatchObject({ valid: true, score: 1, metadata: { extracted: { think: 'stripped', from: 'whole', chars: 5 } } });
    expect((await grade(loadGrader(sc('eq', { extract: { think: 'keep' } })), s(out, 'Paris'))).score).toBe(0);
    // like: a reference named only in the reasoning is not found in the answer
    expect((await grade(loadGrader(sc('like')), s('<think>Paris?</think>Rome', 'Paris'))).score).toBe(0);
    expect((await grade(loadGrader(sc('like', { extract: { think: 'keep' } })), s('<think>Paris?</think>Rome', 'Paris'))).score).toBe(1);
    // nothing stripped, nothing to report
    expect((await grade(loadGrader(sc('eq')), s('Paris', 'Paris'))).metadata.extracted).toBeUndefined();
  });
  it('a reasoning block that never closes is a valid 0 for every operation, ne included', async () => {
    for (const op of ['eq', 'ne', 'like', 'ilike']) {
      const r = await grade(loadGrader(sc(op)), s('<think>Paris or London', 'Paris'));
      expect(r, op).toMatchObject({
        valid: true,
        score: 0,
        reason: expect.stringMatching(/reasoning block never closes/),
        metadata: { extracted: { think: 'unclosed' } },
      });
    }
    // the reference is still the item's: a missing one is invalid even then
    expect((await grade(loadGrader(sc('eq')), { item: {}, sample: { output_text: '<think>x' } })).error?.kind).toBe('template_error');
  });
  it('extract.from fenced compares the last fenced block, else the whole text', async () => {
    const g = loadGrader(sc('eq', { extract: { from: 'fenced' } }));
    expect((await grade(g, s('Here:\n```\nRome\n```\nor\n```text\nParis\n```', 'Paris'))).score).toBe(1);
    expect((await grade(g, s('Paris', 'Paris'))).metadata).not.toHaveProperty('extracted');
    expect((await grade(g, s('Paris', 'Paris'))).score).toBe(1);
    expect(validateGrader(sc('eq', { extract: { from: 'answer' } })).map((i) => i.path)).toEqual(['extract.from']);
  });
});

describe('multi', () => {
  const cfg = { type: 'multi', name: 'combo', graders: { exact: sc('eq'), loose: sc('ilike') }, calculate_output: '0.7 * exact + 0.3 * loose' };
  it('combines components with the formula and reports each', async () => {
    const r = await grade(loadGrader(cfg), s('The answer: 42', '42'));
    expect(r.score).toBeCloseTo(0.3);
    expect(r.components?.exact?.score).toBe(0);
    expect(r.components?.loose?.score).toBe(1);
    expect(r.metadata.grader).toBe('combo');
  });
  it('list form uses names as variables; default is the mean', async () => {
    const g = loadGrader({ type: 'multi', graders: [sc('eq', { name: 'a' }), sc('like', { name: 'b' })] });
    const r = await grade(g, s('x42', '42'));
    expect(r.score).toBe(0.5);
    expect(Object.keys(r.components!)).toEqual(['a', 'b']);
  });
  it('an invalid component makes the result invalid with its kind, components kept', async () => {
    const g = loadGrader({ type: 'multi', graders: { a: sc('eq'), b: { ...sc('eq'), reference: '{{item.missing}}' } }, calculate_output: 'a + b' });
    const r = await grade(g, s('42', '42'));
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'template_error' } });
    expect(r.error!.message).toContain('"b"');
    expect(r.components?.a?.score).toBe(1);
  });
  it('invalid_components: zero counts an invalid component as 0', async () => {
    const g = loadGrader({
      type: 'multi',
      invalid_components: 'zero',
      graders: { a: sc('eq'), b: { ...sc('eq'), reference: '{{item.missing}}' } },
      calculate_output: 'a + b',
    });
    expect((await grade(g, s('42', '42'))).score).toBe(1);
  });
  it('a non-finite formula result is a formula_error', async () => {
    const g = loadGrader({ type: 'multi', graders: { a: sc('eq') }, calculate_output: '1 / a' });
    const r = await grade(g, s('x', '42'));
    expect(r.error?.kind).toBe('formula_error');
    expect(r.error?.message).toMatch(/Infinity/);
  });
  it('nests', async () => {
    const g = loadGrader({ type: 'multi', graders: { inner: cfg, other: sc('ne') }, calculate_output: 'inner * 2 + other' });
    expect((await grade(g, s('42', '42'))).score).toBeCloseTo(2);
  });
});

describe('gate', () => {
  it('runs then only when the gate passes', async () => {
    const g = loadGrader({ type: 'gate', gate: sc('like'), then: sc('eq'), otherwise: -1 });
    const pass = await grade(g, s('42', '42'));
    expect(pass.score).toBe(1);
    expect(pass.components?.then).toBeDefined();
    const fail = await grade(g, s('nope', '42'));
    expect(fail.score).toBe(-1);
    expect(fail.components?.then).toBeUndefined();
  });
});

describe('timeouts', () => {
  it('timeout_ms turns a slow grade into an invalid timeout result, and aborts it', async () => {
    // fake timers: the 50 ms budget must settle the grade long before the grader's own 5 s timer
    vi.useFakeTimers();
    try {
      const g = loadGrader({ type: 'test_sleep', ms: 5_000, timeout_ms: 50 });
      let settled: unknown;
      const p = grade(g, s('a', 'b')).then((r) => (settled = r));
      await vi.advanceTimersByTimeAsync(49);
      expect(settled).toBeUndefined();
      await vi.advanceTimersByTimeAsync(2);
      expect(settled).toMatchObject({ valid: false, error: { kind: 'timeout' } });
      expect(vi.getTimerCount()).toBe(0); // the grader was aborted: its 5 s timer is gone
      await p;
    } finally {
      vi.useRealTimers();
    }
  });
  it('a timeout inside multi invalidates the parent', async () => {
    const g = loadGrader({ type: 'multi', graders: { slow: { type: 'test_sleep', ms: 5_000, timeout_ms: 30 }, ok: sc('eq') } });
    const r = await grade(g, s('a', 'a'));
    expect(r.error?.kind).toBe('timeout');
  });
});

describe('gradeStream', () => {
  it('yields one result per input, in order, with bounded concurrency', async () => {
    const g = loadGrader(sc('eq'));
    const inputs = Array.from({ length: 1000 }, (_, i) => s(String(i % 3), '0'));
    const out = [];
    for await (const r of gradeStream(g, inputs, { concurrency: 7, services: new Services() })) out.push(r.score);
    expect(out).toHaveLength(1000);
    expect(out.every((v, i) => v === (i % 3 === 0 ? 1 : 0))).toBe(true);
  });

  it("yields each input's id with its result (its position from 0 when it has none), also for a bad input", async () => {
    const g = loadGrader(sc('eq'));
    async function* inputs() {
      yield { id: 'q-7', ...s('0', '0') };
      yield s('1', '0');
      yield { id: 42, ...s('1', '1') };
      yield { id: 'no-item', output_text: 'x' };
      yield { id: { nested: true }, ...s('0', '0') };
    }
    const out = [];
    for await (const r of gradeStream(g, inputs(), { concurrency: 3 })) out.push([r.id, r.score, r.valid]);
    expect(out).toEqual([
      ['q-7', 1, true],
      [1, 0, true],
      [42, 1, true],
      ['no-item', null, false],
      [4, null, false],
    ]);
  });
});
