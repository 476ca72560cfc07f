// Live evaluation through real graders: a pairwise judge on a protocol-faithful local server over
// real HTTP (the CLI runs as a child process), resume from a torn records file, and pure graders
// (string_check, math) whose expected metrics the test computes itself from the data.
import { createReadStream, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, loadGrader } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/openai-test-server.js';

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-eval-live-'));
let server: TestServer;
/** The judge's rule: prefer the response containing "Answer: X" with the pair's marker, else the longer. */
let rule: 'longer' | 'first' = 'longer';
const between = (text: string, a: string, b: string) => text.slice(text.indexOf(a) + a.length, text.indexOf(b));

beforeAll(async () => {
  server = await startTestServer({
    record: true,
    chat: (req: RecordedRequest) => {
      const user = String(req.body.messages.at(-1).content);
      if (rule === 'first') return { content: 'The first one is better.\n[[A]]' };
      const a = between(user, '[Response A]\n', '\n[End of Response A]');
      const b = between(user, '[Response B]\n', '\n[End of Response B]');
      return { content: `Comparing lengths.\n${a.length >= b.length ? '[[A]]' : '[[B]]'}` };
    },
  });
});
afterAll(() => server.close());

function judgeFile(extra: Record<string, unknown> = {}): string {
  const f = join(tmp, `judge${Math.random().toString(36).slice(2)}.json`);
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

const PAIRS = dataPath('judgebench/judgebench_gpt-4o.jsonl');
const slice = (n: number) => {
  const f = join(tmp, `pairs${n}.jsonl`);
  writeFileSync(f, readFileSync(PAIRS, 'utf8').split('\n').filter(Boolean).slice(0, n).join('\n') + '\n');
  return f;
};
const rows = (f: string) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

/** JudgeBench's pair metric for the "longer response wins" judge, computed here from the data. */
function expectedLonger(pairs: any[]): number {
  let correct = 0;
  for (const p of pairs) {
    const first = p.response_A.length >= p.response_B.length ? 'A>B' : 'B>A'; // A shown first
    const second = p.response_B.length >= p.response_A.length ? 'A>B' : 'B>A'; // B shown first, flipped back below
    const back = second === 'A>B' ? 'B>A' : 'A>B';
    const counter = [first, back].reduce((s, d) => s + (d === p.label ? 1 : -1), 0);
    if (counter > 0) correct++;
  }
  return (100 * correct) / pairs.length;
}

async function evalJson(args: string[]): Promise<any> {
  const out = join(tmp, `r${Math.random().toString(36).slice(2)}.json`);
  const r = await runCli(['eval', ...args, '--json', out, '--no-progress']);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8'));
}

describe('judgebench with a live pairwise judge', () => {
  it('judges both orders over HTTP and scores them with the pair metric', async () => {
    rule = 'longer';
    const file = slice(24);
    server.requests.length = 0;
    const r = await evalJson(['judgebench', file, '--grader', judgeFile()]);
    expect(server.requests.filter((q) => q.path.endsWith('/chat/completions'))).toHaveLength(48);
    expect(r.metrics.overall).toBe(expectedLonger(rows(file)));
    expect(r.metrics.n_pairs.overall).toBe(24);
  });

  it('a judge that always prefers the first-shown response scores 0 and is inconsistent on every pair', async () => {
    rule = 'first';
    const r = await evalJson(['judgebench', slice(10), '--grader', judgeFile()]);
    expect(r.metrics.overall).toBe(0);
    expect(r.metrics.consistency.n_inconsistent).toBe(10);
    expect(r.metrics.consistency.n_tie).toBe(10);
  });

  it('a pairwise grader with orders "both" is graded once per pair and gives the same metric', async () => {
    rule = 'longer';
    const file = slice(12);
    server.requests.length = 0;
    const r = await evalJson(['judgebench', file, '--grader', judgeFile({ orders: 'both' })]);
    expect(server.requests).toHaveLength(24); // two orders inside each grade
    expect(r.metrics.overall).toBe(expectedLonger(rows(file)));
  });

  it('resumes from a records file cut mid-line: re-reads finished pairs, grades only the rest, same result', async () => {
    rule = 'longer';
    const file = slice(20);
    const records = join(tmp, 'records.jsonl');
    const full = await evalJson(['judgebench', file, '--grader', judgeFile(), '--records', records, '--concurrency', '4']);
    const lines = readFileSync(records, 'utf8').split('\n').filter(Boolean);
    expect(lines).toHaveLength(20);
    // keep 7 whole records and half of the 8th (a killed run)
    const keep = lines.slice(0, 7).join('\n').length + 1 + Math.floor(lines[7]!.length / 2);
    truncateSync(records, keep);
    server.requests.length = 0;
    const resumed = await evalJson(['judgebench', file, '--grader', judgeFile(), '--records', records, '--resume']);
    expect(server.requests).toHaveLength(2 * 13);
    expect(resumed.metrics.overall).toBe(full.metrics.overall);
    expect(resumed.metrics.n_pairs).toEqual(full.metrics.n_pairs);
    expect(readFileSync(records, 'utf8').split('\n').filter(Boolean)).toHaveLength(20);
    // the records are JudgeBench outputs: re-scoring them gives the same numbers
    const rescored = await evalJson(['judgebench', records]);
    expect(rescored.metrics.overall).toBe(full.metrics.overall);
  });

  it('an unreachable judge makes every decision missing (counted, listed), never a score', async () => {
    const dead = join(tmp, 'dead.json');
    writeFileSync(
      dead,
      JSON.stringify({
        type: 'pairwise',
        model: 'judge',
        base_url: 'http://127.0.0.1:9/v1',
        cache: false,
        max_retries: 0,
        question: '{{item.question}}',
        response_a: '{{item.response_a}}',
        response_b: '{{item.response_b}}',
        orders: 'single',
      }),
    );
    const r = await evalJson(['judgebench', slice(3), '--grader', dead]);
    expect(r.metrics.overall).toBe(0);
    expect(r.metrics.consistency.n_nulls).toBe(3);
    expect(r.tables.find((t: any) => t.id === 'wrong').rows[0][5]).toMatch(/judge_server_error/);
  });
});

describe('llmbar live', () => {
  it('produces LLMBar statistics from a live judge on dataset.json', async () => {
    rule = 'longer';
    const ds = JSON.parse(readFileSync(dataPath('llmbar/Adversarial/GPTOut/dataset.json'), 'utf8'));
    const r = await evalJson(['llmbar', dataPath('llmbar/Adversarial/GPTOut/dataset.json'), '--grader', judgeFile()]);
    // the longer output wins in both orders (>= keeps the first shown on equal length)
    let cF = 0;
    let cT = 0;
    for (const x of ds) {
      const wF = x.output_1.length >= x.output_2.length ? 1 : 2;
      const wT = x.output_2.length >= x.output_1.length ? 2 : 1;
      cF += wF === x.label ? 1 : 0;
      cT += wT === x.label ? 1 : 0;
    }
    expect(r.metrics.correct_False).toBe(`${cF} / ${ds.length} = ${String((cF / ds.length) * 100).replace(/^(\d+)$/, '$1.0')}%`);
    expect(r.metrics.correct_True.startsWith(`${cT} / ${ds.length} = `)).toBe(true);
  });
});

async function hhPairs(n: number): Promise<{ chosen: string; rejected: string }[]> {
  const out: { chosen: string; rejected: string }[] = [];
  const rl = createInterface({ input: createReadStream(dataPath('hh-rlhf/harmless-base-test.jsonl.gz')).pipe(createGunzip()) });
  for await (const l of rl) {
    if (out.length >= n) break;
    if (l.trim()) out.push(JSON.parse(l));
  }
  rl.close();
  return out;
}

describe('preference with a pointwise grader', () => {
  it('HH-RLHF: chosen must score strictly higher; ties are misses and counted', async () => {
    const pairs = await hhPairs(300);
    const file = join(tmp, 'hh.jsonl');
    writeFileSync(file, pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
    const g = join(tmp, 'sorry.json');
    // a pure grader: 1 when the final assistant turn does not apologise
    writeFileSync(g, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: 'sorry', operation: 'ilike' }));
    const r = await evalJson(['preference', file, '--grader', g]);
    const last = (d: string) =>
      d
        .slice(d.lastIndexOf('\n\nAssistant:') + 12)
        .trim()
        .toLowerCase()
        .includes('sorry')
        ? 1
        : 0;
    let win = 0;
    let ties = 0;
    for (const p of pairs) {
      const c = last(p.chosen);
      const j = last(p.rejected);
      if (c > j) win++;
      if (c === j) ties++;
    }
    expect(r.metrics.accuracy).toBe((100 * win) / 300);
    expect(r.metrics.ties).toBe(ties);
    expect(r.metrics.n).toBe(300);
  });
});

describe('agreement, calibration and best-of-N on GSM8K example solutions', () => {
  const rowsFile = join(tmp, 'gsm8k_example_model_solutions.jsonl');
  const math = { type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' };
  beforeAll(() => {
    const lines = readFileSync(dataPath('gsm8k/example_model_solutions.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 40);
    writeFileSync(rowsFile.replace('gsm8k_', ''), lines.join('\n') + '\n');
  });
  const data = () => rowsFile.replace('gsm8k_', '');

  it('agreement: confusion matrix equals grading each sample through the library', async () => {
    const g = join(tmp, 'math.json');
    writeFileSync(g, JSON.stringify(math));
    const second = join(tmp, 'contains.json');
    writeFileSync(second, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'like' }));
    const r = await evalJson(['agreement', data(), '--format', 'gsm8k', '--grader', g, '--second', second]);
    const grader = loadGrader(math);
    const c = { tp: 0, fp: 0, tn: 0, fn: 0 };
    for (const l of readFileSync(data(), 'utf8').split('\n').filter(Boolean)) {
      const row = JSON.parse(l);
      const answer = row.ground_truth.slice(row.ground_truth.lastIndexOf('A:') + 2).trim();
      for (const m of ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification']) {
        const res = await grade(grader, { item: { answer }, output_text: row[m].solution });
        const pass = res.valid && res.score! >= 0.5;
        const key = `${pass ? (row[m].is_correct ? 't' : 'f') + 'p' : (row[m].is_correct ? 'f' : 't') + 'n'}` as keyof typeof c;
        c[key]++;
      }
    }
    expect({ tp: r.metrics.tp, fp: r.metrics.fp, tn: r.metrics.tn, fn: r.metrics.fn }).toEqual(c);
    expect(r.tables.find((t: any) => t.id === 'fp').total).toBe(c.fp);
    expect(r.tables.find((t: any) => t.id === 'fn').total).toBe(c.fn);
    if (c.fn) expect(r.tables.find((t: any) => t.id === 'fn').rows[0][2]).not.toBe('');
    expect(r.metrics.between.n).toBe(160);
    expect(r.metrics.second.n + r.metrics.second.invalid).toBe(160);
  });

  it('best-of-N with the labels as scores: the pick is right whenever any candidate is', async () => {
    const f = join(tmp, 'bon.jsonl');
    const lines = readFileSync(data(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const cands = lines.flatMap((row, i) =>
      ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'].map((m) => ({
        group: i,
        output_text: row[m].solution,
        label: row[m].is_correct,
        oracle_score: row[m].is_correct ? 1 : 0,
      })),
    );
    writeFileSync(f, cands.map((c) => JSON.stringify(c)).join('\n') + '\n');
    const r = await evalJson(['bon', f, '--score-field', 'oracle_score']);
    expect(r.metrics.accuracy_at_n['4']).toBe(r.metrics.oracle_at_n['4']);
    expect(r.metrics.random).toBe(cands.filter((c) => c.label).length / cands.length);
    expect(Object.keys(r.metrics.accuracy_at_n)).toEqual(['1', '2', '3', '4']);
  });

  it('calibration: ECE, MCE and Brier by hand on four scored samples', async () => {
    const f = join(tmp, 'cal.jsonl');
    const s = [
      [0.9, true],
      [0.8, false],
      [0.2, false],
      [0.1, true],
    ];
    writeFileSync(f, s.map(([p, l]) => JSON.stringify({ output_text: 'x', label: l, p })).join('\n') + '\n');
    const r = await evalJson(['calibration', f, '--score-field', 'p', '--bins', '2']);
    expect(r.metrics.ece).toBeCloseTo(0.35, 12);
    expect(r.metrics.mce).toBeCloseTo(0.35, 12);
    expect(r.metrics.brier).toBeCloseTo((0.01 + 0.64 + 0.04 + 0.81) / 4, 12);
    expect(r.metrics.reliability.map((b: any) => b.n)).toEqual([2, 2]);
  });
});
