// The held-out set that the project builds itself (scripts/math-heldout.mjs): MATH-500's final
// answers under mechanical notation-preserving rewrites (must score 1) and value-changing rewrites
// (must score 0), generated at test time from the shared data, never stored and never tuned on.
// Kept apart from the development set (Math-Verify's suite, test/math/math-verify.test.ts).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../dist/graders/math/index.js';
import { dataPath } from '../helpers/data.js';

interface Case {
  gold: string;
  pred: string;
  expected: 0 | 1;
  rewrite: string;
  source: string;
}

const script = fileURLToPath(new URL('../../scripts/math-heldout.mjs', import.meta.url));
const run = spawnSync(process.execPath, [script, '--jsonl', '--data', dataPath('math500/test.jsonl')], { encoding: 'utf8' });
const cases = run.stdout
  .trim()
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Case);

/** The figure reported in docs/math.md ("Measured") and README.md. */
const TOTAL = 3785;
const AT_LEAST = 3785;

describe('the held-out rewrite set (scripts/math-heldout.mjs)', () => {
  const verdicts = cases.map((c) => ({ c, v: verifyMath(c.pred, c.gold, { time_budget_ms: 10_000 }) }));
  const agrees = ({ c, v }: (typeof verdicts)[number]) => v.valid && (v.score === 1 ? 1 : 0) === c.expected;

  it('is generated the same way every time, with both kinds of rewrite', () => {
    expect(run.status, run.stderr).toBe(0);
    expect(cases.length).toBe(TOTAL);
    expect(new Set(cases.filter((c) => c.expected === 1).map((c) => c.rewrite)).size).toBeGreaterThanOrEqual(15);
    expect(new Set(cases.filter((c) => c.expected === 0).map((c) => c.rewrite)).size).toBeGreaterThanOrEqual(8);
  });

  it('scores no value-changing rewrite 1', () => {
    const wrongYes = verdicts.filter(({ c, v }) => c.expected === 0 && v.score === 1).map(({ c, v }) => `${c.rewrite} ${c.source}: ${v.reason}`);
    expect(wrongYes).toEqual([]);
  });

  it(`agrees on at least ${AT_LEAST} of the ${TOTAL} cases`, () => {
    const misses = verdicts
      .filter((x) => !agrees(x))
      .map(({ c, v }) => `${c.rewrite} ${c.source}: ${JSON.stringify(c.pred)} vs ${JSON.stringify(c.gold)}: ${v.reason}`);
    expect(TOTAL - misses.length, misses.slice(0, 20).join('\n')).toBeGreaterThanOrEqual(AT_LEAST);
  });
});
