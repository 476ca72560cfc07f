// `arbiter select` and `arbiter pairs` end to end: GSM8K's real model solutions (four per question)
// graded by `arbiter score`, then best-of-N and chosen/rejected pairs, each recomputed here from the
// scored lines by the rules the help states; ties (first, shortest, seeded draw recomputed from
// SHA-256); TRL's preference format; and hostile input (no uid, invalid grades, one response, a
// samples file that does not match, nothing to write).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { scratch } from './helpers.js';

const SOLUTIONS = dataPath('gsm8k/example_model_solutions.jsonl');
type Rec = Record<string, any>;

let dir: string;
const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const jsonl = (recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join('\n') + '\n';
const parseLines = (text: string): Rec[] =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

let samples: Rec[];
let scored: Rec[];
let samplesFile: string;
let scoredFile: string;

beforeAll(async () => {
  dir = scratch();
  // the first 12 questions, each with its four model solutions (a group of 4 per uid)
  const rows = readFileSync(SOLUTIONS, 'utf8')
    .trim()
    .split('\n')
    .slice(0, 12)
    .map((l) => JSON.parse(l));
  samples = [];
  rows.forEach((row, q) => {
    const answer = String(row.ground_truth).split('A:').pop()!.trim();
    const keys = Object.keys(row).filter((k) => typeof row[k] === 'object' && row[k] && 'solution' in row[k]);
    for (const k of keys) samples.push({ id: `q${q}-${k}`, uid: `q${q}`, item: { question: row.question, answer }, sample: { output_text: row[k].solution } });
  });
  samplesFile = write('samples.jsonl', jsonl(samples));
  const grader = write(
    'grader.json',
    JSON.stringify({
      type: 'multi',
      name: 'reward',
      graders: {
        correct: { type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' },
        concise: { type: 'length', input: '{{sample.output_text}}', unit: 'chars', budget: 600, free: 150 },
      },
      calculate_output: 'correct * (0.8 + 0.2 * concise)',
    }),
  );
  scoredFile = join(dir, 'scored.jsonl');
  const r = await runCli(['score', '--grader', grader, samplesFile, '-o', scoredFile]);
  expect(r.code, r.stderr).toBe(0);
  scored = parseLines(readFileSync(scoredFile, 'utf8'));
  expect(scored).toHaveLength(samples.length);
}, 120_000);

const textOf = (id: string) => samples.find((s) => s.id === id)!.sample.output_text as string;
const groups = () => {
  const m = new Map<string, Rec[]>();
  for (const r of scored) m.set(r.uid, [...(m.get(r.uid) ?? []), r]);
  return m;
};
const comp = (r: Rec, name: string) => r.components[name].score as number;

describe('arbiter select', () => {
  it('best correct solution per question, ties to the shortest text, recomputed from the scored lines', async () => {
    const out = join(dir, 'best.jsonl');
    const r = await runCli(['select', scoredFile, '--samples', samplesFile, '--where', 'correct == 1', '--tie', 'shortest', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const got = parseLines(readFileSync(out, 'utf8'));
    // independently: valid lines with correct == 1, highest score, then fewest code points, then earliest
    const expected: Rec[] = [];
    let none = 0;
    for (const [uid, g] of groups()) {
      const pool = g.filter((x) => x.valid && comp(x, 'correct') === 1);
      if (!pool.length) {
        none++;
        continue;
      }
      const len = (x: Rec) => [...textOf(x.id)].length;
      const best = [...pool].sort((a, b) => b.score - a.score || len(a) - len(b) || g.indexOf(a) - g.indexOf(b))[0]!;
      expected.push({ uid, id: best.id, score: best.score });
    }
    expect(none).toBeGreaterThan(0); // the slice has questions no solution got right (reported, not lost)
    expect(got.map((x) => ({ uid: x.uid, id: x.id, score: x.score }))).toEqual(expected);
    for (const x of got) {
      expect(x.completion).toBe(textOf(x.id));
      expect(x.prompt).toBe(samples.find((s) => s.id === x.id)!.item.question);
      expect(x.selection).toMatchObject({ by: 'score', rank: 1, of: 4 });
    }
    expect(r.stderr).toContain(`selected ${expected.length} line(s) from 12 group(s) of 48 line(s)`);
    expect(r.stderr).toContain(`none_match=${none}`);
  });

  it('reads arbiter score output from a pipe (-), ranks by a component with --top, and by a group formula the same as by the score', async () => {
    const text = readFileSync(scoredFile, 'utf8');
    const a = await runCli(['select', '-', '--by', 'concise', '--top', '2'], { stdin: text });
    expect(a.code, a.stderr).toBe(0);
    const got = parseLines(a.stdout);
    for (const [uid, g] of groups()) {
      const want = [...g].sort((x, y) => comp(y, 'concise') - comp(x, 'concise') || g.indexOf(x) - g.indexOf(y)).slice(0, 2);
      expect(got.filter((x) => x.uid === uid).map((x) => x.id)).toEqual(want.map((x) => x.id));
    }
    // a shift by the group's mean changes no order
    const b = await runCli(['select', '-', '--by', 'score - group_mean(score)'], { stdin: text });
    const c = await runCli(['select', '-'], { stdin: text });
    expect(b.code, b.stderr).toBe(0);
    expect(parseLines(b.stdout).map((x) => x.id)).toEqual(parseLines(c.stdout).map((x) => x.id));
  });

  it('--tie random is a seeded draw: the same seed gives the same choice, recomputed from SHA-256', async () => {
    // every line equal: the tie rule alone decides
    const recs = Array.from({ length: 24 }, (_, i) => ({ id: `r${i}`, uid: `u${i % 3}`, score: 1, valid: true }));
    const input = write('ties.jsonl', jsonl(recs));
    const draw = (seed: number, uid: string, id: string) => createHash('sha256').update(`${seed}\u0000${uid}\u0000${id}`).digest().readUIntBE(0, 6) / 2 ** 48;
    for (const seed of [0, 7]) {
      const r = await runCli(['select', input, '--tie', 'random', '--seed', String(seed)]);
      expect(r.code, r.stderr).toBe(0);
      const got = parseLines(r.stdout);
      for (const uid of ['u0', 'u1', 'u2']) {
        const mine = recs.filter((x) => x.uid === uid);
        const want = [...mine].sort((a, b) => draw(seed, uid, a.id) - draw(seed, uid, b.id))[0]!;
        expect(got.find((x) => x.uid === uid)!.id).toBe(want.id);
        expect(got.find((x) => x.uid === uid)!.selection.tied).toBe(7);
      }
    }
    const first = await runCli(['select', input]);
    expect(parseLines(first.stdout).map((x) => x.id)).toEqual(['r0', 'r1', 'r2']);
  });
});

describe('arbiter pairs', () => {
  it("correct against wrong per question (Cooper's positives and negatives), in TRL's preference format, recomputed", async () => {
    const out = join(dir, 'pairs.jsonl');
    const r = await runCli(['pairs', scoredFile, '--samples', samplesFile, '--chosen', 'correct == 1', '--rejected', 'correct == 0', '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const got = parseLines(readFileSync(out, 'utf8'));
    const expected: Rec[] = [];
    for (const [uid, g] of groups()) {
      const pos = g.filter((x) => x.valid && comp(x, 'correct') === 1);
      const neg = g.filter((x) => x.valid && comp(x, 'correct') === 0);
      if (!pos.length || !neg.length) continue;
      const c = [...pos].sort((a, b) => b.score - a.score || g.indexOf(a) - g.indexOf(b))[0]!;
      const w = [...neg].sort((a, b) => a.score - b.score || g.indexOf(a) - g.indexOf(b))[0]!;
      if (c.score > w.score) expected.push({ uid, chosen_id: c.id, rejected_id: w.id, score_chosen: c.score, score_rejected: w.score });
    }
    expect(expected.length).toBeGreaterThan(3);
    expect(
      got.map((x) => ({ uid: x.uid, chosen_id: x.chosen_id, rejected_id: x.rejected_id, score_chosen: x.score_chosen, score_rejected: x.score_rejected })),
    ).toEqual(expected);
    for (const x of got) {
      expect(Object.keys(x).slice(0, 3)).toEqual(['prompt', 'chosen', 'rejected']);
      expect(x.chosen).toBe(textOf(x.chosen_id));
      expect(x.rejected).toBe(textOf(x.rejected_id));
      expect(typeof x.prompt).toBe('string');
    }
  });

  it('--pick all writes every chosen/rejected combination with a strictly higher chosen (capped by --max-pairs); equal responses make no pair', async () => {
    const recs = [
      { id: 1, uid: 'a', score: 0.9, valid: true, prompt: 'p', output_text: 'A' },
      { id: 2, uid: 'a', score: 0.5, valid: true, prompt: 'p', output_text: 'B' },
      { id: 3, uid: 'a', score: 0.5, valid: true, prompt: 'p', output_text: 'C' },
      { id: 4, uid: 'a', score: 0.1, valid: true, prompt: 'p', output_text: 'D' },
      { id: 5, uid: 'b', score: 0.5, valid: true, prompt: 'q', output_text: 'E' },
      { id: 6, uid: 'b', score: 0.5, valid: true, prompt: 'q', output_text: 'F' },
    ];
    const input = write('all.jsonl', jsonl(recs));
    const r = await runCli(['pairs', input, '--pick', 'all']);
    expect(r.code, r.stderr).toBe(0);
    const got = parseLines(r.stdout).map((x) => `${x.chosen}>${x.rejected}`);
    // every (i, j) with score_i > score_j: 3 + 2 + 2 + 0 in a, none in b
    expect(got.sort()).toEqual(['A>B', 'A>C', 'A>D', 'B>D', 'C>D'].sort());
    expect(r.stderr).toContain('no_margin=1');
    const capped = await runCli(['pairs', input, '--pick', 'all', '--max-pairs', '2']);
    expect(parseLines(capped.stdout)).toHaveLength(2);
    const margin = await runCli(['pairs', input, '--pick', 'all', '--margin', '0.5']);
    expect(parseLines(margin.stdout).map((x) => `${x.chosen}>${x.rejected}`)).toEqual(['A>D']);
  });

  it('a message-list prompt gets message-list responses (the conversational form)', async () => {
    const prompt = [{ role: 'user', content: 'Say hi' }];
    const input = write(
      'chat.jsonl',
      jsonl([
        { id: 'x', uid: 'c', score: 1, valid: true, prompt, output_text: 'hi' },
        { id: 'y', uid: 'c', score: 0, valid: true, prompt, output_text: 'no' },
      ]),
    );
    const r = await runCli(['pairs', input]);
    expect(r.code, r.stderr).toBe(0);
    expect(parseLines(r.stdout)[0]).toMatchObject({ prompt, chosen: [{ role: 'assistant', content: 'hi' }], rejected: [{ role: 'assistant', content: 'no' }] });
  });
});

describe('hostile input to select and pairs', () => {
  it('invalid grades never take part, lines without a uid are counted and named, a one-response group is reported', async () => {
    const input = write(
      'hostile.jsonl',
      [
        JSON.stringify({ id: 1, uid: 'a', score: null, valid: false, error: { kind: 'timeout', message: 'slow' }, prompt: 'p', output_text: 'T' }),
        JSON.stringify({ id: 2, uid: 'a', score: 0.2, valid: true, prompt: 'p', output_text: 'U' }),
        JSON.stringify({ id: 3, uid: 'a', score: 0.1, valid: true, prompt: 'p', output_text: 'V' }),
        JSON.stringify({ id: 4, score: 1, valid: true }),
        '{not json',
        JSON.stringify({ id: 6, uid: 'solo', score: 1, valid: true, prompt: 'q', output_text: 'W' }),
      ].join('\n') + '\n',
    );
    const s = await runCli(['select', input]);
    expect(s.code, s.stderr).toBe(0);
    expect(parseLines(s.stdout).map((x) => x.id)).toEqual([2, 6]);
    expect(s.stderr).toContain('1 invalid line(s) took no part');
    expect(s.stderr).toContain('1 line(s) without the group field (line 4)');
    expect(s.stderr).toContain('1 malformed line(s)');
    const summary = join(dir, 'summary.json');
    const p = await runCli(['pairs', input, '--summary-json', summary]);
    expect(p.code, p.stderr).toBe(0);
    expect(parseLines(p.stdout).map((x) => [x.chosen_id, x.rejected_id])).toEqual([[2, 3]]);
    const sum = JSON.parse(readFileSync(summary, 'utf8'));
    expect(sum).toMatchObject({
      lines: 6,
      groups: 2,
      written: 1,
      invalid_lines: 1,
      no_group_lines: 1,
      malformed_lines: 1,
      skipped_groups: { one_response: 1 },
    });
    expect(sum.examples.one_response).toEqual(['"solo"']);
  });

  it('a misspelt component is refused with "did you mean"; a samples file that does not match is refused naming the line', async () => {
    const bad = await runCli(['pairs', scoredFile, '--samples', samplesFile, '--chosen', 'corect == 1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('did you mean "correct"');
    const shifted = write('shifted.jsonl', jsonl(samples.slice(1)));
    const mis = await runCli(['select', scoredFile, '--samples', shifted]);
    expect(mis.code).toBe(2);
    expect(mis.stderr).toMatch(/line 1: the scored line has id "q0-[^"]+" but line 1 of --samples .* has id "q0-/);
    const noText = await runCli(['pairs', scoredFile]);
    expect(noText.code).toBe(2);
    expect(noText.stderr).toContain('pass --samples FILE');
  });

  it('nothing to write (every grade invalid) exits 6, and so does score when no record got a valid grade', async () => {
    const input = write('allbad.jsonl', jsonl([{ id: 1, uid: 'a', score: null, valid: false }]));
    const r = await runCli(['select', input]);
    expect(r.code).toBe(6);
    expect(r.stderr).toContain('no_valid=1');
    const grader = write('g.json', JSON.stringify({ type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' }));
    const s = await runCli(['score', '--grader', grader, write('nothing.jsonl', '{"id": 1}\n{"id": 2}\n')]);
    expect(s.code).toBe(6);
    expect(s.stderr).toContain('no record got a valid grade (2 invalid)');
  });
});
