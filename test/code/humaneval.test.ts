// HumanEval through the `code` grader: all 164 canonical solutions pass, and for every problem
// a mutated solution (comparison flip, off-by-one, swapped arithmetic, or a wrong return) fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { humanEval, loadGrader, Services, type HumanEvalItem } from './helpers.js';

const items = humanEval();
const services = new Services();
const grader = loadGrader({
  type: 'code',
  format: 'humaneval',
  prompt: '{{item.prompt}}',
  tests: '{{item.test}}',
  entry_point: '{{item.entry_point}}',
  limits: { time_ms: 20_000 },
});
type R = Awaited<ReturnType<typeof grader.grade>>;
const gradeText = (it: HumanEvalItem, output_text: string) =>
  grader.grade({ item: it as unknown as Record<string, unknown>, sample: { output_text } }, { services });

/** Operator mutations, tried in order; the first that changes the text is used. */
const OPERATORS: [RegExp, (m: string) => string][] = [
  [/ < /, () => ' <= '],
  [/ > /, () => ' >= '],
  [/ == /, () => ' != '],
  [/\b(\d+)\b/, (m) => String(Number(m) + 1)],
  [/ \+ /, () => ' - '],
  [/ - /, () => ' + '],
];

function operatorMutant(src: string): string | undefined {
  for (const [re, f] of OPERATORS) {
    const m = re.exec(src);
    if (m) return src.slice(0, m.index) + f(m[0]) + src.slice(m.index + m[0].length);
  }
  return undefined;
}

/** A wrong return: the body returns None before doing anything. */
function wrongReturn(src: string): string {
  const indent = /^([ \t]*)\S/m.exec(src)?.[1] ?? '    ';
  return `${indent}return None\n${src}`;
}

const canonical: R[] = [];
const mutantA: (R | undefined)[] = [];
const mutantB: (R | undefined)[] = [];
const fenced: R[] = [];

beforeAll(async () => {
  await Promise.all(items.map(async (it, i) => (canonical[i] = await gradeText(it, it.canonical_solution))));
  await Promise.all(
    items.map(async (it, i) => {
      const a = operatorMutant(it.canonical_solution);
      mutantA[i] = a === undefined ? undefined : await gradeText(it, a);
      // the wrong-return mutant is run when the operator mutant was missing or equivalent
      if (!mutantA[i] || mutantA[i]!.score === 1) mutantB[i] = await gradeText(it, wrongReturn(it.canonical_solution));
    }),
  );
  // A model-style answer: prose plus a fenced block holding the whole function.
  await Promise.all(
    items.slice(0, 12).map(async (it, i) => {
      const body = it.prompt.slice(it.prompt.indexOf('def ' + it.entry_point)) + it.canonical_solution;
      fenced[i] = await gradeText(it, `Here is my solution.\n\n\`\`\`python\n${body}\n\`\`\`\nIt runs in linear time.`);
    }),
  );
}, 600_000);

afterAll(() => services.close());

describe('HumanEval canonical solutions', () => {
  it('all 164 pass', () => {
    expect(items).toHaveLength(164);
    const failed = canonical.map((r, i) => [items[i]!.task_id, r] as const).filter(([, r]) => r.score !== 1);
    expect(failed.map(([id, r]) => `${id}: ${r.reason ?? r.error?.message}`)).toEqual([]);
    for (const r of canonical) expect(r.valid && r.metadata.tests_passed === 1 && r.metadata.tests_total === 1).toBe(true);
  });

  it('pass when the answer is a fenced block holding the whole function', () => {
    expect(fenced.map((r) => r.score)).toEqual(fenced.map(() => 1));
    expect(fenced.every((r) => r.metadata.code_from === 'fence')).toBe(true);
  });
});

describe('HumanEval mutated solutions', () => {
  it('every problem has a mutant that fails, with a reason', () => {
    const survivors: string[] = [];
    items.forEach((it, i) => {
      const killed = [mutantA[i], mutantB[i]].filter((r): r is R => r?.valid === true && r.score === 0);
      if (killed.length === 0) survivors.push(it.task_id);
      for (const r of killed) expect(r.reason).toMatch(/failed: (assertion failed|runtime error|timeout|exited before)/);
    });
    expect(survivors).toEqual([]);
  });

  it('most single-operator mutants are caught (equivalent mutants are rare)', () => {
    const tried = mutantA.filter((r): r is R => r !== undefined);
    const caught = tried.filter((r) => r.score === 0).length;
    expect(tried.length).toBeGreaterThan(140);
    expect(caught / tried.length).toBeGreaterThan(0.8);
  });
});
