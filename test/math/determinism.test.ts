// The same sample gives the same reward on a slow and a fast machine (issue 30, item 2): the math
// verifier's outcomes are decided by counted work (steps, depth, digits), and the wall clock is only
// a safety net. Math-Verify's cases, the pair table and the response-caused limits are verified with
// the real clock and again under a fake `performance.now` that runs 10 ms per read (a machine ~1000x
// slower): every verdict is identical. A clock slow enough to reach the net is an invalid `timeout`
// naming the machine, never a floor score for a response within its step budget.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { DEFAULT_LIMITS, verifyMath } from '../../dist/graders/math/index.js';
import { Budget } from '../../dist/graders/math/limits.js';
import { dataPath } from '../helpers/data.js';

const sum3 = '\\boxed{\\sum_{a=1}^{1000}\\sum_{b=1}^{1000} ab}';

const cases: [string, string][] = [
  ...readFileSync(dataPath('math-verify/test_cases.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { gold: string; pred: string })
    .map((r): [string, string] => [r.pred, r.gold]),
  ...(JSON.parse(readFileSync(new URL('./fixtures/math500-pairs.json', import.meta.url), 'utf8')) as { output: string; reference: string }[])
    .filter((_, i) => i % 4 === 0)
    .map((p): [string, string] => [p.output, p.reference]),
  // counted limits: the answer's own evaluation over the step budget (valid 0), the reference's (invalid)
  [sum3, '5'],
  ['\\boxed{5}', '\\sum_{a=1}^{1000}\\sum_{b=1}^{1000} ab'],
  ['\\boxed{\\sum_{k=1}^{10^{9}} k}', '7'],
  [`\\boxed{${'('.repeat(70)}1${')'.repeat(70)}}`, '2'],
  ['\\boxed{\\sin(10^{100000})}', '\\frac{1}{2}'],
  ['\\boxed{2^{100000}+7-2^{100000}}', '7'],
];

/** Replaces the wall clock with one that advances `msPerRead` on every read. */
function slowClock(msPerRead: number) {
  let t = 0;
  return vi.spyOn(performance, 'now').mockImplementation(() => {
    t += msPerRead;
    return t;
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('math verdicts do not depend on the speed of the clock', () => {
  it(`${cases.length} pairs give identical verdicts with the real clock and a clock 10 ms per read`, () => {
    const normal = cases.map(([o, r]) => verifyMath(o, r));
    const spy = slowClock(10);
    const slowed = cases.map(([o, r]) => verifyMath(o, r));
    expect(spy).toHaveBeenCalled();
    expect(slowed).toEqual(normal);
    // the suite holds the cases that once depended on the clock: a step-budget floor among them
    expect(normal[cases.findIndex((c) => c[0] === sum3)]).toMatchObject({
      valid: true,
      score: 0,
      reason: expect.stringMatching(/exceeds the step budget \(max_steps 200000\)/),
    });
    expect(normal.some((v) => v.error?.kind === 'timeout')).toBe(false);
  });

  it('the math grader type with its default budget gives the same grade under the slowed clock', async () => {
    const g = loadGrader({ type: 'math', reference: '{{item.answer}}' });
    const samples = [
      { item: { answer: '5' }, output_text: sum3 },
      { item: { answer: '\\frac{1}{2}' }, output_text: 'so the answer is $\\boxed{0.5}$' },
    ];
    const strip = (r: { score: number | null; valid: boolean; reason?: string; error?: unknown }) => ({
      score: r.score,
      valid: r.valid,
      reason: r.reason,
      error: r.error,
    });
    const normal = [];
    for (const s of samples) normal.push(strip(await grade(g, s)));
    slowClock(10);
    const slowed = [];
    for (const s of samples) slowed.push(strip(await grade(g, s)));
    expect(slowed).toEqual(normal);
    expect(normal.map((r) => [r.valid, r.score])).toEqual([
      [true, 0],
      [true, 1],
    ]);
  });
});

describe('the wall-clock safety net', () => {
  it(`defaults far above the cost of a whole step budget (${DEFAULT_LIMITS.time_budget_ms} ms for ${DEFAULT_LIMITS.max_steps} steps)`, () => {
    expect(DEFAULT_LIMITS.time_budget_ms).toBeGreaterThanOrEqual(5_000);
  });

  it('past it, with steps left, a response is the machine failing: invalid timeout, never a floor score', () => {
    slowClock(1_000); // 5 reads reach the 5 s net, long before the 200,000 steps
    const v = verifyMath(sum3, '5');
    expect(v).toMatchObject({ valid: false, score: null, error: { kind: 'timeout' } });
    expect(v.reason).toMatch(
      /wall-clock safety net \(time_budget_ms 5000\) with \d+ of max_steps 200000 spent: the machine was too slow or too loaded, not the sample's doing/,
    );
    // a reference whose parse runs past it is the machine's too, not the reference's
    const r = verifyMath('\\boxed{5}', `${'1+'.repeat(900)}1`);
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' } });
  });

  it('Budget counts steps deterministically and reads the injected clock only as the net', () => {
    let now = 0;
    const b = new Budget({ ...DEFAULT_LIMITS, max_steps: 2_000, time_budget_ms: 100 }, () => now);
    b.tick(1_500);
    expect(b.used).toBe(1_500);
    expect(() => b.tick(600)).toThrow(/step budget \(2000 steps\)/);
    const c = new Budget({ ...DEFAULT_LIMITS, time_budget_ms: 100 }, () => now);
    now = 101;
    try {
      c.tick(600);
      expect.unreachable('the net must trip');
    } catch (e) {
      expect(e).toMatchObject({ kind: 'timeout', limit: 'time' });
    }
  });
});
