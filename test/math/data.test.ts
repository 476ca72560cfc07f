// Accuracy on public data: GSM8K labelled model solutions, MATH-500 self-verification, and the
// MATH-500 pair table (equivalent rewritings and near misses, built by build-pairs.mjs).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../dist/graders/math/index.js';
import { dataPath } from '../helpers/data.js';

const shared = dataPath;
const jsonl = (p: string) =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

describe('GSM8K example model solutions', () => {
  it('agrees with every one of the 5,276 is_correct labels', () => {
    const rows = jsonl(shared('gsm8k/example_model_solutions.jsonl'));
    const fields = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];
    let n = 0;
    let correct = 0;
    const disagreements: string[] = [];
    for (const r of rows) {
      for (const f of fields) {
        const s = r[f] as { solution: string; is_correct: boolean };
        n++;
        if (s.is_correct) correct++;
        const v = verifyMath(s.solution, r.ground_truth);
        if (!v.valid || (v.score === 1) !== s.is_correct) disagreements.push(`${f}: label ${s.is_correct}, ${v.reason}`);
      }
    }
    expect(n).toBe(5276);
    expect(correct).toBeGreaterThan(500); // both labels are well represented
    expect(disagreements).toEqual([]);
  });
});

describe('MATH-500 references', () => {
  const rows = jsonl(shared('math500/test.jsonl')) as { answer: string }[];
  const finals = rows.map((r) => r.answer.split('The answer is: ').pop()!.trim());

  it('each final answer verifies against its own full solution, both ways', () => {
    const bad: string[] = [];
    rows.forEach((r, i) => {
      const a = verifyMath(r.answer, finals[i]!);
      const b = verifyMath(finals[i]!, r.answer);
      if (a.score !== 1 || b.score !== 1) bad.push(`#${i} ${finals[i]}: ${a.reason} / ${b.reason}`);
    });
    expect(rows.length).toBe(500);
    expect(bad).toEqual([]);
  });

  it("each final answer is rejected against the next problem's solution unless they are the same value", () => {
    let rejected = 0;
    for (let i = 0; i < rows.length; i++) {
      const other = rows[(i + 1) % rows.length]!;
      const same = verifyMath(finals[(i + 1) % rows.length]!, finals[i]!).score === 1;
      const v = verifyMath(other.answer, finals[i]!);
      expect(v.valid).toBe(true);
      if (!same) {
        expect(v.score, `#${i}: ${v.reason}`).toBe(0);
        rejected++;
      }
    }
    expect(rejected).toBeGreaterThan(400);
  });
});

interface Pair {
  category: string;
  reference: string;
  output: string;
  equivalent: boolean;
  source: string;
}

// The wall-clock budget is a backstop against hostile input; on a loaded machine it could end a
// legitimate series or integral early, so the tables (deterministic by steps) run with a wide one.
const DET = { time_budget_ms: 10_000 };

describe('MATH-500 pair table', () => {
  const pairs = JSON.parse(readFileSync(fileURLToPath(new URL('./fixtures/math500-pairs.json', import.meta.url)), 'utf8')) as Pair[];

  it('has at least 300 equivalent and 300 near-miss pairs over every category, each with near misses', () => {
    const catsOf = (eq: boolean) => new Set(pairs.filter((p) => p.equivalent === eq).map((p) => p.category.replace(/_near_miss$/, '')));
    const withoutNearMiss = [...catsOf(true)].filter((c) => !catsOf(false).has(c));
    expect(withoutNearMiss).toEqual([]);
    expect(pairs.filter((p) => p.equivalent).length).toBeGreaterThanOrEqual(300);
    expect(pairs.filter((p) => !p.equivalent).length).toBeGreaterThanOrEqual(300);
    const cats = new Set(pairs.map((p) => p.category.replace(/_near_miss$/, '')));
    for (const c of [
      'integer',
      'fraction',
      'decimal',
      'scientific',
      'percent',
      'thousands',
      'sqrt',
      'nth_root',
      'operators',
      'pi',
      'e',
      'complex',
      'infinity',
      'trig',
      'log',
      'factorial',
      'binomial',
      'degrees',
      'units',
      'text',
      'pm',
      'mixed',
      'base',
      'tuple',
      'interval',
      'set',
      'matrix',
      'vector',
      'equation',
      'inequality',
      'list',
      'polynomial',
      'choice',
      'think',
      'extraction',
      // issue 13 families
      'rounded_decimal',
      'labelled',
      'chain',
      'equation_not_value',
      'ratio',
      'time',
      'decimal_comma',
      'set_operation',
      'inequality_set',
      'matrix_arithmetic',
      'sum_product',
      'series',
      'integral',
      'limit',
      'mod',
      'operatorname',
      'prose_answer',
      'final_after_box',
      'languages',
      'choice_in_sentence',
      'joined_answers',
      'double_escaped',
      'overflow',
      'malformed_inline',
      'set_builder',
      'compound_units',
      'pm_value',
      'prose_list',
    ]) {
      expect(cats.has(c), c).toBe(true);
    }
  });

  it('accepts every equivalent rewriting', () => {
    const wrong = pairs
      .filter((p) => p.equivalent)
      .map((p) => ({ p, v: verifyMath(p.output, p.reference, DET) }))
      .filter(({ v }) => v.score !== 1);
    expect(wrong.map(({ p, v }) => `${p.category}: ${p.output} vs ${p.reference}: ${v.reason}`)).toEqual([]);
  });

  it('rejects every near miss', () => {
    const wrong = pairs
      .filter((p) => !p.equivalent)
      .map((p) => ({ p, v: verifyMath(p.output, p.reference, DET) }))
      .filter(({ v }) => v.score !== 0 || !v.valid);
    expect(wrong.map(({ p, v }) => `${p.category}: ${p.output} vs ${p.reference}: ${v.reason}`)).toEqual([]);
  });
});
