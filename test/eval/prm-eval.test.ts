// PRMBench and ProcessBench-style evaluation: the loader's added originals, the metrics against
// hand-computed numbers on small constructed inputs, and runs over the shared PRMBench files.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  evalSteps,
  firstErrorMetrics,
  loadGrader,
  prmbenchEval,
  prmbenchMetrics,
  prmbenchRecords,
  processBenchEval,
  readJsonlRows,
  Services,
  type PrmbenchRecord,
} from '../../dist/index.js';
import { dataPath } from '../helpers/data.js';
import { startPrmServer, type PrmServer } from '../helpers/prm-server.js';

const DIR = dataPath('prmbench');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.jsonl') && f !== 'debug.jsonl')
  .sort()
  .map((f) => join(DIR, f));

const row = (idx: string, classification: string, steps: number, error_steps: number[]) => ({
  idx,
  classification,
  original_question: `oq ${idx}`,
  modified_question: `mq ${idx}`,
  original_process: ['o1', 'o2'],
  modified_process: Array.from({ length: steps }, (_, i) => `${classification} ${idx} step ${i + 1}`),
  error_steps,
});

describe('PRMBench loader', () => {
  it('adds the original of every redundancy item once, as a "correct" record before it, and drops repeats', () => {
    const recs = prmbenchRecords([
      row('p0', 'redundency', 3, [2]),
      row('p0', 'circular', 3, [1]),
      row('p0', 'redundency', 3, [2]),
      row('p1', 'circular', 2, [2]),
    ]);
    expect(recs.map((r) => r.idx)).toEqual(['correct_p0', 'redundency_p0', 'circular_p0', 'circular_p1']);
    expect(recs[0]).toEqual({ idx: 'correct_p0', question: 'oq p0', steps: ['o1', 'o2'], error_steps: [], classification: 'correct' });
    expect(recs[1]).toMatchObject({ question: 'mq p0', error_steps: [2], classification: 'redundency' });
    expect(() => prmbenchRecords([{ idx: 'x' }])).toThrow(/row 1 \(x\) lacks/);
  });
});

describe('PRMBench metrics (hand-computed)', () => {
  // records and their step scores (a step is predicted correct when its score is > 0.5)
  const records: PrmbenchRecord[] = [
    { idx: 'circular_p0', question: '', steps: ['', '', ''], error_steps: [2], classification: 'circular' },
    { idx: 'circular_p1', question: '', steps: ['', '', '', ''], error_steps: [1, 3], classification: 'circular' },
    { idx: 'redundency_p0', question: '', steps: ['', ''], error_steps: [2], classification: 'redundency' },
    { idx: 'correct_p0', question: '', steps: ['', ''], error_steps: [], classification: 'correct' },
    { idx: 'multi_solutions_p2', question: '', steps: ['', ''], error_steps: [], classification: 'multi_solutions' },
  ];
  const scores = [[0.9, 0.8, 0.3], [0.2, 0.7, 0.4, 0.5], null, [0.6, 0.4], [0.9, 0.9]];

  it('one record: TP/FP/TN/FN with positive = a correct step', () => {
    // error step 2 predicted correct: FP; step 1 correct: TP; step 3 predicted wrong: FN
    expect(evalSteps([2], [true, true, false]).counts).toEqual({ TP: 1, FP: 1, TN: 0, FN: 1 });
    expect(evalSteps([1, 3], [false, true, false, false])).toMatchObject({ counts: { TP: 1, FP: 0, TN: 2, FN: 1 }, first_error: [1], response_acc: 0.25 });
  });

  it('overall (erroneous classes only), per class, PRMScore, similarity, validity', () => {
    const m = prmbenchMetrics(records, scores, 0.5);
    // overall = circular_p0 + circular_p1 + multi_solutions: TP 4, FP 1, TN 2, FN 2 (the original is not in the total)
    expect(m.overall).toMatchObject({ TP: 4, FP: 1, TN: 2, FN: 2, records: 3 });
    expect(m.overall.precision).toBeCloseTo(4 / 5, 12);
    expect(m.overall.recall).toBeCloseTo(4 / 6, 12);
    expect(m.overall.f1).toBeCloseTo(8 / 11, 12);
    expect(m.overall.negative_precision).toBeCloseTo(2 / 4, 12);
    expect(m.overall.negative_recall).toBeCloseTo(2 / 3, 12);
    expect(m.overall.negative_f1).toBeCloseTo(4 / 7, 12);
    expect(m.overall.PRMScore).toBeCloseTo((8 / 11 + 4 / 7) / 2, 12);
    expect(m.overall.first_error_acc).toBeCloseTo(0.5, 12);
    expect(m.overall.correct_step_acc).toBeCloseTo(4 / 6, 12);
    expect(m.overall.wrong_step_acc).toBeCloseTo(2 / 3, 12);
    expect(m.overall.total_step_acc).toBeCloseTo(6 / 9, 12);
    // circular_p0 predicts 2/3 of its steps correct, its original 1/2
    expect(m.overall.similarity).toBeCloseTo(1 / 6, 12);
    expect(m.validity_rate).toBeCloseTo(3 / 4, 12);
    expect(m.invalid).toBe(1);
    expect(m.classes.circular!.f1).toBeCloseTo(4 / 7, 12);
    expect(m.classes.circular!.PRMScore).toBeCloseTo(4 / 7, 12);
    // a class without error steps is scored by its F1 (PRMBench's report for multi_solutions)
    expect(m.classes.multi_solutions).toMatchObject({ f1: 1, negative_f1: -1, PRMScore: 1 });
    expect(m.classes.correct!.f1).toBeCloseTo(2 / 3, 12);
    expect(m.classes.correct!.PRMScore).toBeCloseTo(2 / 3, 12);
    // no graded record: PRMBench's -1
    expect(m.classes.redundency).toMatchObject({ records: 0, f1: -1, negative_f1: -1, PRMScore: -1 });
    expect(m.class_mean_PRMScore).toBeCloseTo((4 / 7 + 1) / 2, 12);
    // the threshold is strict: a score of exactly 0.5 is a wrong step
    expect(prmbenchMetrics([records[4]!], [[0.5, 0.9]]).overall).toMatchObject({ TP: 1, FN: 1 });
  });
});

describe('ProcessBench-style first-error metrics (hand-computed)', () => {
  it('accuracy on erroneous and on correct solutions, their harmonic mean; a missing prediction is a miss', () => {
    const recs = [-1, 2, 0, -1, 1].map((label, i) => ({ id: String(i), label }));
    const m = firstErrorMetrics(recs, [-1, 2, 1, 0, null]);
    expect(m).toMatchObject({ erroneous: 3, correct: 2, missing: 1 });
    expect(m.correct_acc).toBeCloseTo(1 / 2, 12);
    expect(m.error_acc).toBeCloseTo(1 / 3, 12);
    expect(m.f1).toBeCloseTo(2 / 5, 12);
  });
});

describe('runs over graders', () => {
  let prm: PrmServer;
  let services: Services;
  beforeAll(async () => {
    prm = await startPrmServer();
    services = new Services();
  });
  afterAll(async () => {
    await services?.close();
    await prm?.close();
  });

  it('prmbenchEval through a PRM server gives the metrics of the scores the server returned', async () => {
    // the scripted PRM doubts every step whose text ends in "step 2"
    prm.script((s) => (s.endsWith('step 2') ? 0.1 : 0.8));
    const rows = [row('p0', 'redundency', 3, [2]), row('p0', 'circular', 3, [3]), row('p1', 'confidence', 4, [2, 4])];
    const grader = loadGrader({ type: 'prm', protocol: 'vllm_pooling', model: 'prm', base_url: prm.url, question: '{{item.question}}', max_retries: 0 });
    const rep = await prmbenchEval({ grader, rows, services });
    const recs = prmbenchRecords(rows);
    const expected = prmbenchMetrics(
      recs,
      recs.map((r) => r.steps.map((s) => (s.endsWith('step 2') ? 0.1 : 0.8))),
    );
    expect(rep).toMatchObject({ benchmark: 'prmbench', grader: 'prm', invalid: 0, overall: expected.overall, classes: expected.classes });
    // the questions sent are the records' own (the originals get the original question)
    const users = prm
      .requests('pooling')
      .flatMap((q) => q.body.input as string[])
      .map((t) => /user\n([\s\S]*?)<\|im_end\|>/.exec(t)![1]);
    expect(users.sort()).toEqual(['mq p0', 'mq p0', 'mq p1', 'oq p0']);
  });

  it('processBenchEval takes the first error a judge names, else the first step under the threshold', async () => {
    prm.server.onChat(() => ({ content: 'Paragraph 1 is wrong. \\boxed{1}' }));
    const items = [
      { id: 'a', question: 'q', steps: ['x', 'y', 'z'], label: 1 },
      { id: 'b', question: 'q', steps: ['x', 'y'], label: -1 },
      { id: 'c', question: 'q', steps: ['x', 'y'], label: 0 },
    ];
    const judge = loadGrader({
      type: 'prm',
      protocol: 'judge',
      model: 'critic',
      base_url: prm.url,
      question: '{{item.question}}',
      max_retries: 0,
      cache: false,
    });
    const rep = await processBenchEval({ grader: judge, items, services });
    expect(rep).toMatchObject({ error_acc: 0.5, correct_acc: 0, f1: 0, erroneous: 2, correct: 1, invalid: 0 });
    const labels = loadGrader({ type: 'prm', protocol: 'labels', first_error: '{{item.label}}' });
    const perfect = await processBenchEval({ grader: labels, items, services });
    expect(perfect).toMatchObject({ error_acc: 1, correct_acc: 1, f1: 1 });
  });

  it('processBenchEval over the shared PRMBench rows with a first-error label grader: 1 on both sides; rows without a usable label are skipped and counted', async () => {
    const rows = (await readJsonlRows(FILES)).map((x) => x.row as { error_steps: number[]; modified_process: string[] });
    const unusable = rows.filter((r) => r.error_steps.length > 0 && Math.min(...r.error_steps) > r.modified_process.length).length;
    expect(unusable).toBeGreaterThan(0);
    const labels = loadGrader({ type: 'prm', protocol: 'labels', first_error: '{{item.label}}' });
    const rep = await processBenchEval({ grader: labels, files: FILES, services, concurrency: 64 });
    expect(rep).toMatchObject({ error_acc: 1, correct_acc: 1, f1: 1, invalid: 0, skipped: unusable, records: rows.length - unusable });
    expect(rep.skipped_examples[0]).toMatch(/no valid first-error label/);
    expect(rep.correct).toBe(rows.filter((r) => r.error_steps.length === 0).length);
  }, 60_000);

  it('sanity run over the shared PRMBench files with a step-label grader: perfect labels score 1, data faults are counted', async () => {
    const grader = loadGrader({ type: 'prm', protocol: 'labels', error_steps: '{{item.error_steps}}' });
    const rep = await prmbenchEval({ grader, files: FILES, services, concurrency: 64 });
    const rows = (await readJsonlRows(FILES)).map((x) => x.row as { idx: string; classification: string; error_steps: number[]; modified_process: string[] });
    const keys = new Set(rows.map((r) => `${r.classification}_${r.idx}`));
    const originals = new Set(rows.filter((r) => r.classification === 'redundency').map((r) => r.idx));
    expect(rep.records).toBe(keys.size + originals.size);
    // records whose error steps lie beyond their steps are bad_input for the label grader (PRMBench ignores those steps)
    const faulty = new Set(rows.filter((r) => r.error_steps.some((k) => k > r.modified_process.length)).map((r) => `${r.classification}_${r.idx}`));
    expect(faulty.size).toBeGreaterThan(0);
    expect(rep.invalid).toBe(faulty.size);
    expect(rep.invalid_kinds).toEqual({ bad_input: faulty.size });
    expect(rep.overall).toMatchObject({ f1: 1, negative_f1: 1, PRMScore: 1, FP: 0, FN: 0 });
    expect(Object.keys(rep.classes).sort()).toEqual([
      'circular',
      'confidence',
      'correct',
      'counterfactual',
      'deception',
      'domain_inconsistency',
      'missing_condition',
      'multi_solutions',
      'redundency',
      'step_contradiction',
    ]);
    for (const [c, s] of Object.entries(rep.classes)) expect(s.PRMScore, c).toBe(1);
    expect(rep.class_mean_PRMScore).toBe(1);

    // a PRM that calls every step correct: F1 from the data's counts, negative F1 0
    const recs = prmbenchRecords(rows);
    const allOk = prmbenchMetrics(
      recs,
      recs.map((r) => r.steps.map(() => 1)),
    );
    const erroneous = recs.filter((r) => r.classification !== 'correct');
    const errSteps = erroneous.reduce((a, r) => a + new Set(r.error_steps.filter((k) => k <= r.steps.length)).size, 0);
    const allSteps = erroneous.reduce((a, r) => a + r.steps.length, 0);
    expect(allOk.overall).toMatchObject({ TP: allSteps - errSteps, FP: errSteps, TN: 0, FN: 0, recall: 1, negative_f1: 0 });
    const p = (allSteps - errSteps) / allSteps;
    expect(allOk.overall.f1).toBeCloseTo((2 * p) / (p + 1), 12);
    expect(allOk.overall.PRMScore).toBeCloseTo(p / (p + 1), 12);
  }, 60_000);
});
