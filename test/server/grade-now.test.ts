// The synchronous path of a grade (Grader.gradeNow, RequestScope.gradeNow, whenGraded): a pure
// grader's result is returned in the same call, equal to what `grade` resolves to, with its queue
// slot given back and its metrics recorded; anything that is not ready at once (an async evaluate,
// a timeout, a queued sample, an executor) is a promise as before; the scope ends exactly once
// either way, a throw in the reply included.
import { describe, expect, it } from 'vitest';
import { GradeFailure, loadGrader, makeGrader, Services } from '../../src/index.js';
import type { Executor } from '../../src/server/grade-runner.js';
import { Admission } from '../../src/server/admission.js';
import { RequestScope } from '../../src/server/grade-runner.js';
import { ServerMetrics } from '../../src/server/metrics.js';

const opts = { name: 'g', type: 't', config: {}, capabilities: [] };
const input = { item: { label: '4' }, sample: { output_text: 'A: 4' } };
const ctx = { services: new Services() };
const strip = (r: { metadata: Record<string, unknown> }) => ({ ...r, metadata: { ...r.metadata, duration_ms: 0 } });

describe('Grader.gradeNow (makeGrader)', () => {
  it('a synchronous evaluate: the result itself, the same as grade resolves to', async () => {
    const g = makeGrader(opts, () => ({ score: 0.5, reason: 'half', metadata: { n: 1 } }));
    const now = g.gradeNow!(input, ctx);
    expect(now).not.toBeInstanceOf(Promise);
    expect(strip(now as never)).toEqual(strip((await g.grade(input, ctx)) as never));
    expect(now).toMatchObject({ score: 0.5, valid: true, reason: 'half', metadata: { grader: 'g', type: 't', n: 1 } });
  });
  it('a throw (a GradeFailure or a bug) is an invalid result, never an exception', () => {
    const failing = makeGrader(opts, () => {
      throw new GradeFailure('bad_input', 'no label');
    });
    expect(failing.gradeNow!(input, ctx)).toMatchObject({ valid: false, score: null, error: { kind: 'bad_input', message: 'no label' } });
    const buggy = makeGrader(opts, () => {
      throw new TypeError('oops');
    });
    expect(buggy.gradeNow!(input, ctx)).toMatchObject({ valid: false, error: { kind: 'internal_error', message: 'TypeError: oops' } });
  });
  it('an async evaluate: a promise, resolving as grade does; a rejection is an invalid result', async () => {
    const g = makeGrader(opts, async () => ({ score: 1 }));
    const now = g.gradeNow!(input, ctx);
    expect(now).toBeInstanceOf(Promise);
    expect(await now).toMatchObject({ score: 1, valid: true });
    const bad = makeGrader(opts, async () => {
      throw new GradeFailure('timeout', 'late');
    });
    expect(await bad.gradeNow!(input, ctx)).toMatchObject({ valid: false, error: { kind: 'timeout' } });
  });
  it('none with a timeout_ms (its grade races a timer) or with a start-up to wait for', () => {
    expect(makeGrader({ ...opts, timeout_ms: 100 }, () => ({ score: 1 })).gradeNow).toBeUndefined();
    expect(makeGrader({ ...opts, warm: async () => [] }, () => ({ score: 1 })).gradeNow).toBeUndefined();
    expect(loadGrader({ type: 'string_check', input: 'a', reference: 'a', operation: 'eq' }).gradeNow).toBeDefined();
    expect(loadGrader({ type: 'string_check', input: 'a', reference: 'a', operation: 'eq', timeout_ms: 50 }).gradeNow).toBeUndefined();
  });
});

describe('RequestScope.gradeNow and whenGraded', () => {
  const setup = (concurrency = 4, executor?: Executor) => {
    const admission = new Admission(concurrency, 100);
    const metrics = new ServerMetrics(admission, 0);
    return { admission, metrics, deps: { admission, services: new Services(), metrics, deadlineMs: 10_000, ...(executor ? { executor } : {}) } };
  };
  const pure = loadGrader({ type: 'string_check', name: 'sc', input: '{{sample.output_text}}', reference: 'A: {{item.label}}', operation: 'eq' });
  const graded = async (m: ServerMetrics) => /arbiter_grades_total\{[^}]*valid="true"[^}]*\} (\d+)/.exec(await m.text())?.[1];

  it('a pure grader with a free slot: the result in the same call, the slot given back, the grade counted', async () => {
    const { admission, metrics, deps } = setup();
    const s = new RequestScope(deps);
    const r = s.gradeNow(pure, 'sc', input);
    expect(r).not.toBeInstanceOf(Promise);
    expect(r).toMatchObject({ score: 1, valid: true });
    expect(admission.inFlight).toBe(0);
    expect(await graded(metrics)).toBe('1');
    let ended = false;
    const out = s.whenGraded([r], (rs) => {
      ended = s.ended;
      return rs.length;
    });
    expect(out).toBe(1); // not a promise
    expect(ended).toBe(false); // the reply is made before the scope ends
    expect(s.ended).toBe(true);
  });
  it('a queued sample (no free slot) is a promise, and whenGraded waits for it', async () => {
    const { admission, deps } = setup(1);
    expect(admission.acquire()).toBeUndefined(); // the only slot is taken
    const s = new RequestScope(deps);
    const r = s.gradeNow(pure, 'sc', input);
    expect(r).toBeInstanceOf(Promise);
    const out = s.whenGraded([r], (rs) => rs[0]!.score);
    expect(out).toBeInstanceOf(Promise);
    expect(s.ended).toBe(false);
    admission.release();
    expect(await out).toBe(1);
    expect(s.ended).toBe(true);
    expect(admission.inFlight).toBe(0);
  });
  it('with an executor every grade is its promise (the sample is graded elsewhere)', async () => {
    const executor: Executor = {
      grade: async () => ({ score: 0.25, valid: true, metadata: { grader: 'x', type: 'y', duration_ms: 0 } }),
      close: async () => {},
    };
    const { deps } = setup(4, executor);
    const r = new RequestScope(deps).gradeNow(pure, 'sc', input);
    expect(r).toBeInstanceOf(Promise);
    expect(await r).toMatchObject({ score: 0.25 });
  });
  it('grade still resolves to the same result; a throw in the reply ends the scope and is thrown', async () => {
    const { deps } = setup();
    const s = new RequestScope(deps);
    expect(await s.grade(pure, 'sc', input)).toMatchObject({ score: 1 });
    const r = s.gradeNow(pure, 'sc', input);
    expect(() =>
      s.whenGraded([r], () => {
        throw new Error('reply failed');
      }),
    ).toThrow('reply failed');
    expect(s.ended).toBe(true);
    const t = new RequestScope(deps);
    const late = Promise.resolve(r as never);
    await expect(
      t.whenGraded([late], () => {
        throw new Error('late reply failed');
      }),
    ).rejects.toThrow('late reply failed');
    expect(t.ended).toBe(true);
  });
});
