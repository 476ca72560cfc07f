// Pairwise RM-Bench through the CLI: a pairwise judge on a protocol-faithful local server whose
// verdicts the test decides judges each prompt's 3x3 chosen/rejected pairs of slices of the four
// RM-Bench data files; the accuracies are recomputed here from RM-Bench's definition (3x3 matrix,
// hard = upper-right, normal = diagonal, easy = lower-left, domain means, safety-* grouped) with
// plain arithmetic. Also: both orders against one, a judge that always says A, a failed comparison
// leaving its prompt out, resume from a torn records file, and the refused option combinations.
import { mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/openai-test-server.js';

interface RmRecord {
  id: number;
  prompt: string;
  chosen: string[];
  rejected: string[];
}

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-rmbench-pairwise-'));
const dataDir = join(tmp, 'data');
mkdirSync(dataDir);
const FILES = ['chat', 'code', 'safety-refuse', 'safety-response'] as const;
const PER_FILE = 3;
/** The slices, under the data files' own names (the suite takes the subset from the file name). */
const slices: Record<string, RmRecord[]> = {};
const sliceFiles: string[] = [];
for (const f of FILES) {
  const all = JSON.parse(readFileSync(dataPath(`rm-bench/${f}_filtered.json`), 'utf8')) as RmRecord[];
  slices[f] = all.slice(0, PER_FILE);
  const file = join(dataDir, `${f}_filtered.json`);
  writeFileSync(file, JSON.stringify(slices[f]));
  sliceFiles.push(file);
}
const chosenTexts = new Set(Object.values(slices).flatMap((rs) => rs.flatMap((r) => r.chosen.map((t) => t.trim()))));
const rejectedTexts = new Set(Object.values(slices).flatMap((rs) => rs.flatMap((r) => r.rejected.map((t) => t.trim()))));

type Verdict = 'chosen' | 'rejected' | 'tie';
/** The test's judge: a fixed, arbitrary verdict for each (chosen text, rejected text, which is shown first). */
function decide(chosen: string, rejected: string, chosenFirst: boolean): Verdict {
  let h = 2166136261;
  for (const ch of `${chosen.trim()}\u0000${rejected.trim()}\u0000${chosenFirst ? 1 : 2}`) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
  const k = h % 5;
  return k < 2 ? 'chosen' : k < 4 ? 'rejected' : 'tie';
}

let rule: 'decide' | 'first' = 'decide';
/** A chosen text whose comparisons the judge answers with no verdict at all (a judge failure). */
let broken: string | undefined;
let server: TestServer;
const between = (text: string, a: string, b: string) => text.slice(text.indexOf(a) + a.length, text.indexOf(b));

beforeAll(async () => {
  server = await startTestServer({
    record: true,
    chat: (req: RecordedRequest) => {
      if (rule === 'first') return { content: 'The first response is better.\n[[A]]' };
      const user = String(req.body.messages.at(-1).content);
      const a = between(user, '[Response A]\n', '\n[End of Response A]').trim();
      const b = between(user, '[Response B]\n', '\n[End of Response B]').trim();
      const chosenFirst = chosenTexts.has(a);
      const [c, r] = chosenFirst ? [a, b] : [b, a];
      if (!chosenTexts.has(c) || !rejectedTexts.has(r)) return { content: 'I cannot tell which response is which.' };
      if (broken !== undefined && c === broken.trim()) return { content: 'I would rather not decide.' };
      const v = decide(c, r, chosenFirst);
      const letter = v === 'tie' ? 'C' : (v === 'chosen') === chosenFirst ? 'A' : 'B';
      return { content: `Weighing both.\n[[${letter}]]` };
    },
  });
});
afterAll(() => server.close());

function judgeFile(extra: Record<string, unknown> = {}): string {
  const f = join(tmp, `judge-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(
    f,
    JSON.stringify({
      type: 'pairwise',
      model: 'judge',
      base_url: server.url,
      cache: false,
      question: '{{item.question}}',
      response_a: '{{item.response_a}}',
      response_b: '{{item.response_b}}',
      orders: 'single',
      ...extra,
    }),
  );
  return f;
}

const pointwiseGrader = join(tmp, 'pointwise.json');
writeFileSync(pointwiseGrader, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: 'sorry', operation: 'ilike' }));

async function evalJson(args: string[]): Promise<any> {
  const out = join(tmp, `r-${Math.random().toString(36).slice(2)}.json`);
  const r = await runCli(['eval', 'rm-bench', ...args, '--json', out, '--no-progress']);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8'));
}

const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** RM-Bench's accuracies from per-comparison chosen-win values, computed from the definition. */
function expected(win: (rec: RmRecord, i: number, j: number) => number, skip: (rec: RmRecord) => boolean = () => false) {
  const hne = (recs: RmRecord[]) => {
    const acc = [0, 1, 2].map((i) => [0, 1, 2].map((j) => mean(recs.map((rec) => win(rec, i, j)))));
    const hard = (acc[0]![1]! + acc[0]![2]! + acc[1]![2]!) / 3;
    const normal = (acc[0]![0]! + acc[1]![1]! + acc[2]![2]!) / 3;
    const easy = (acc[1]![0]! + acc[2]![0]! + acc[2]![1]!) / 3;
    return { hard, normal, easy, avg: (hard + normal + easy) / 3, n: recs.length, acc };
  };
  const kept = (f: string) => slices[f]!.filter((r) => !skip(r));
  const domains = {
    chat: hne(kept('chat')),
    code: hne(kept('code')),
    safety: hne([...kept('safety-refuse'), ...kept('safety-response')]),
  };
  const ds = Object.values(domains);
  return {
    domains,
    subsets: Object.fromEntries(FILES.map((f) => [f, hne(kept(f))])),
    hard: mean(ds.map((d) => d.hard)),
    normal: mean(ds.map((d) => d.normal)),
    easy: mean(ds.map((d) => d.easy)),
    total: mean(ds.map((d) => d.avg)),
  };
}

function expectAccuracies(m: any, e: ReturnType<typeof expected>): void {
  expect(m.hard_acc).toBeCloseTo(e.hard, 12);
  expect(m.normal_acc).toBeCloseTo(e.normal, 12);
  expect(m.easy_acc).toBeCloseTo(e.easy, 12);
  expect(m.total_avg_acc).toBeCloseTo(e.total, 12);
  for (const [d, v] of Object.entries(e.domains)) {
    expect(m[d], d).toBeCloseTo(v.avg, 12);
    expect(m.domains[d].hard_acc, d).toBeCloseTo(v.hard, 12);
    expect(m.domains[d].normal_acc, d).toBeCloseTo(v.normal, 12);
    expect(m.domains[d].easy_acc, d).toBeCloseTo(v.easy, 12);
    expect(m.domains[d].n, d).toBe(v.n);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) expect(m.domains[d].matrix[i][j], `${d} ${i}${j}`).toBeCloseTo(v.acc[i]![j]!, 12);
  }
  for (const [s, v] of Object.entries(e.subsets)) {
    expect(m.subsets[s].hard_acc, s).toBeCloseTo(v.hard, 12);
    expect(m.subsets[s].normal_acc, s).toBeCloseTo(v.normal, 12);
    expect(m.subsets[s].easy_acc, s).toBeCloseTo(v.easy, 12);
    expect(m.subsets[s].avg_acc, s).toBeCloseTo(v.avg, 12);
    expect(m.subsets[s].n, s).toBe(v.n);
  }
}

const chat = (rec: RmRecord, i: number, j: number) => [rec.chosen[i]!, rec.rejected[j]!] as const;
const first = (rec: RmRecord, i: number, j: number) => (decide(...chat(rec, i, j), true) === 'chosen' ? 1 : 0);
const second = (rec: RmRecord, i: number, j: number) => (decide(...chat(rec, i, j), false) === 'chosen' ? 1 : 0);
const chatRequests = () => server.requests.filter((q) => q.path.endsWith('/chat/completions')).length;

describe('rm-bench with a pairwise judge', () => {
  it('the slices tell chosen from rejected texts (the judge identifies them by text)', () => {
    expect([...chosenTexts].filter((t) => rejectedTexts.has(t))).toEqual([]);
  });

  it('both orders (the default): 18 judgments a prompt, accuracies as RM-Bench defines them from the verdicts', async () => {
    rule = 'decide';
    broken = undefined;
    server.requests.length = 0;
    const r = await evalJson([...sliceFiles, '--grader', judgeFile()]);
    expect(chatRequests()).toBe(FILES.length * PER_FILE * 9 * 2);
    expect(r.inputs).toMatchObject({ mode: 'pairwise', orders: 2 });
    const m = r.metrics;
    expect(m).toMatchObject({ mode: 'pairwise', orders: 2, comparisons: FILES.length * PER_FILE * 9 });
    // a comparison's value is the share of its two orders the chosen response won outright
    expectAccuracies(
      m,
      expected((rec, i, j) => (first(rec, i, j) + second(rec, i, j)) / 2),
    );
    const byFirst = expected(first);
    const bySecond = expected(second);
    expect(m.by_order.chosen_first.hard_acc).toBeCloseTo(byFirst.hard, 12);
    expect(m.by_order.chosen_first.total_avg_acc).toBeCloseTo(byFirst.total, 12);
    expect(m.by_order.chosen_second.easy_acc).toBeCloseTo(bySecond.easy, 12);
    expect(m.by_order.chosen_second.total_avg_acc).toBeCloseTo(bySecond.total, 12);
    let same = 0;
    let ties = 0;
    let all = 0;
    for (const rs of Object.values(slices))
      for (const rec of rs)
        for (let i = 0; i < 3; i++)
          for (let j = 0; j < 3; j++) {
            const v1 = decide(...chat(rec, i, j), true);
            const v2 = decide(...chat(rec, i, j), false);
            all++;
            same += v1 === v2 ? 1 : 0;
            ties += (v1 === 'tie' ? 1 : 0) + (v2 === 'tie' ? 1 : 0);
          }
    expect(m.position_consistency).toBeCloseTo(same / all, 12);
    expect(m.ties).toBe(ties);
    expect(ties).toBeGreaterThan(0); // the verdicts exercise the tie rule
    expect(r.counts).toEqual({ records: FILES.length * PER_FILE, skipped: 0, invalid: 0 });
  });

  it('--orders 1: the chosen response shown first, one judgment a pair', async () => {
    rule = 'decide';
    broken = undefined;
    server.requests.length = 0;
    const r = await evalJson([...sliceFiles, '--grader', judgeFile(), '--orders', '1']);
    expect(chatRequests()).toBe(FILES.length * PER_FILE * 9);
    expect(r.metrics.orders).toBe(1);
    expect(r.metrics.by_order).toBeUndefined();
    expectAccuracies(r.metrics, expected(first));
  });

  it('a grader with orders "both" judges both orders inside one grade: same numbers as two single-order grades', async () => {
    rule = 'decide';
    broken = undefined;
    const single = await evalJson([sliceFiles[0]!, '--grader', judgeFile()]);
    server.requests.length = 0;
    const both = await evalJson([sliceFiles[0]!, '--grader', judgeFile({ orders: 'both' }), '--mode', 'pairwise']);
    expect(chatRequests()).toBe(PER_FILE * 9 * 2);
    for (const k of ['hard_acc', 'normal_acc', 'easy_acc', 'position_consistency']) expect(both.metrics[k], k).toBe(single.metrics[k]);
    expect(both.metrics.domain).toBe('chat');
  });

  it('a judge that always says A: 1 in the chosen-first order, 0 in the other, 0.5 over both, never consistent', async () => {
    rule = 'first';
    const both = await evalJson([...sliceFiles, '--grader', judgeFile()]);
    for (const k of ['hard_acc', 'normal_acc', 'easy_acc', 'total_avg_acc', 'chat', 'code', 'safety']) expect(both.metrics[k], k).toBe(0.5);
    expect(both.metrics.by_order.chosen_first).toEqual({ hard_acc: 1, normal_acc: 1, easy_acc: 1, total_avg_acc: 1 });
    expect(both.metrics.by_order.chosen_second).toEqual({ hard_acc: 0, normal_acc: 0, easy_acc: 0, total_avg_acc: 0 });
    expect(both.metrics.position_consistency).toBe(0);
    const one = await evalJson([...sliceFiles, '--grader', judgeFile(), '--orders', '1']);
    for (const k of ['hard_acc', 'normal_acc', 'easy_acc', 'total_avg_acc']) expect(one.metrics[k], k).toBe(1);
    expect(one.notes.join(' ')).toMatch(/favours the first position/);
  });

  it('a comparison the judge gives no verdict for leaves its prompt out (counted, listed), never a loss', async () => {
    rule = 'decide';
    const victim = slices.code![1]!;
    broken = victim.chosen[2];
    const r = await evalJson([...sliceFiles, '--grader', judgeFile()]);
    broken = undefined;
    expect(r.counts).toEqual({ records: FILES.length * PER_FILE, skipped: 1, invalid: 1 });
    expect(r.problems).toHaveLength(1);
    expect(r.problems[0]).toMatch(/code_filtered\.json.*ungradeable comparisons: detailed markdown vs concise, order 1/);
    expectAccuracies(
      r.metrics,
      expected(
        (rec, i, j) => (first(rec, i, j) + second(rec, i, j)) / 2,
        (rec) => rec === victim,
      ),
    );
  });

  it('resumes from a records file cut mid-line (only the rest is judged), and the records re-score to the same numbers', async () => {
    rule = 'decide';
    broken = undefined;
    const records = join(tmp, 'records.jsonl');
    const full = await evalJson([...sliceFiles, '--grader', judgeFile(), '--records', records, '--concurrency', '2']);
    const lines = readFileSync(records, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(FILES.length * PER_FILE);
    // 5 whole records and half of the 6th, as a killed run leaves them
    truncateSync(records, lines.slice(0, 5).join('\n').length + 1 + Math.floor(lines[5]!.length / 2));
    server.requests.length = 0;
    const resumed = await evalJson([...sliceFiles, '--grader', judgeFile(), '--records', records, '--resume']);
    expect(chatRequests()).toBe((FILES.length * PER_FILE - 5) * 18);
    expect(resumed.metrics).toEqual(full.metrics);
    expect(readFileSync(records, 'utf8').split('\n').filter(Boolean)).toHaveLength(FILES.length * PER_FILE);
    const rescored = await evalJson([records]);
    expect(rescored.metrics).toEqual(full.metrics);
  });
});

describe('rm-bench --mode / --orders: applied or refused', () => {
  const refused = async (args: string[], msg: RegExp) => {
    const r = await runCli(['eval', 'rm-bench', ...args, '--no-progress']);
    expect(r.stderr).toMatch(msg);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(r.code).toBe(2);
  };
  it('--mode pairwise with a pointwise grader is refused', async () => {
    await refused(
      [sliceFiles[0]!, '--grader', pointwiseGrader, '--mode', 'pairwise'],
      /--mode pairwise needs a grader that compares two responses.*type "string_check"/,
    );
  });
  it('--orders with a pointwise grader, or with --mode pointwise, is refused', async () => {
    await refused([sliceFiles[0]!, '--grader', pointwiseGrader, '--orders', '2'], /--orders is for pairwise judging; a grader of type "string_check"/);
    await refused([sliceFiles[0]!, '--grader', judgeFile(), '--mode', 'pointwise', '--orders', '1'], /--orders is for pairwise judging; with --mode pointwise/);
  });
  it('--mode or --orders without --grader (re-scoring results) is refused', async () => {
    const fixture = join(import.meta.dirname, 'fixtures/chat_result.json');
    await refused([fixture, '--mode', 'pairwise'], /--mode and --orders say how a live grader judges/);
    await refused([fixture, '--orders', '2'], /--mode and --orders say how a live grader judges/);
  });
  it('a pointwise grader still scores each response once (6 grades a prompt), the RM-Bench way', async () => {
    const r = await evalJson([sliceFiles[2]!, '--grader', pointwiseGrader, '--mode', 'pointwise']);
    const score = (t: string) => (t.toLowerCase().includes('sorry') ? 1 : 0);
    const e = expected((rec, i, j) => (score(rec.chosen[i]!) > score(rec.rejected[j]!) ? 1 : 0));
    const s = e.subsets['safety-refuse']!;
    expect(r.inputs.mode).toBe('pointwise');
    expect(r.metrics.mode).toBeUndefined();
    expect(r.metrics.domain).toBe('safety');
    expect(r.metrics.hard_acc).toBeCloseTo(s.hard, 12);
    expect(r.metrics.normal_acc).toBeCloseTo(s.normal, 12);
    expect(r.metrics.easy_acc).toBeCloseTo(s.easy, 12);
  });
});
