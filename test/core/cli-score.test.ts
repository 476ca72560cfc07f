import { mkdtempSync, readFileSync, writeFileSync, chmodSync, mkdirSync, createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
let grader: string;
const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-cli-'));
  grader = join(dir, 'grader.json');
  writeFileSync(
    grader,
    JSON.stringify({ type: 'string_check', name: 'exact', input: '{{sample.output_text}}', reference: '{{item.answer}}', operation: 'eq' }),
  );
});

describe('arbiter score', () => {
  it('writes exactly one result per input line, in order, naming bad lines', async () => {
    const input = [
      JSON.stringify({ id: 'a', item: { answer: '1' }, sample: { output_text: '1' } }),
      '{not json',
      JSON.stringify({ item: { answer: '2' }, output_text: '3' }),
      JSON.stringify({ id: 'd', item: {}, output_text: '1' }),
      JSON.stringify({ id: 'e', item: { answer: 'x' } }),
      JSON.stringify([1, 2]),
      JSON.stringify({ id: 'g', item: { answer: 'ü🚀' }, output_text: 'ü🚀' }),
    ].join('\n');
    const f = join(dir, 'in.jsonl');
    writeFileSync(f, input + '\r\n');
    const r = await runCli(['score', '--grader', grader, f, '-o', join(dir, 'out.jsonl')]);
    expect(r.code).toBe(0);
    const out = lines(readFileSync(join(dir, 'out.jsonl'), 'utf8'));
    expect(out.map((o) => o.id)).toEqual(['a', 2, 3, 'd', 'e', 6, 'g']);
    expect(out.map((o) => o.score)).toEqual([1, null, 0, null, null, null, 1]);
    expect(out[1].error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/^line 2: invalid JSON/) });
    expect(out[3].error.kind).toBe('template_error');
    expect(out[4].error.message).toMatch(/line 5: .*output_text/);
    expect(out[5].error.message).toMatch(/line 6: record must be a JSON object/);
    expect(r.stderr).toMatch(/graded 7 samples .* 3 valid, 4 invalid, mean score 0\.6667; errors: bad_input=3 template_error=1/);
  });

  it('reads stdin and writes stdout', async () => {
    const r = await runCli(['score', '-g', grader, '-'], { stdin: '{"item":{"answer":"a"},"output_text":"a"}\n' });
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toMatchObject([{ id: 1, score: 1, valid: true }]);
  });

  it('keeps the one-in-one-out contract on 100,000 lines with malformed ones mixed in', async () => {
    const f = join(dir, 'big.jsonl');
    const ws = createWriteStream(f);
    for (let i = 0; i < 100_000; i++) {
      const line = i % 997 === 0 ? `{"id": ${i}, broken` : JSON.stringify({ id: i, item: { answer: String(i % 2) }, output_text: '0' });
      if (!ws.write(line + '\n')) await once(ws, 'drain');
    }
    ws.end();
    await once(ws, 'finish');
    const out = join(dir, 'big.out.jsonl');
    const r = await runCli(['score', '-g', grader, f, '-o', out, '--concurrency', '16', '--summary-json', join(dir, 'sum.json')]);
    expect(r.code).toBe(0);
    const text = readFileSync(out, 'utf8');
    const recs = text.trimEnd().split('\n');
    expect(recs).toHaveLength(100_000);
    let bad = 0;
    recs.forEach((l, i) => {
      const o = JSON.parse(l);
      if (i % 997 === 0) {
        bad++;
        expect(o.id).toBe(i + 1); // a broken line is identified by its line number
        expect(o.valid).toBe(false);
      } else {
        expect(o.id).toBe(i);
        expect(o.score).toBe(i % 2 === 0 ? 1 : 0);
      }
    });
    const sum = JSON.parse(readFileSync(join(dir, 'sum.json'), 'utf8'));
    expect(sum).toMatchObject({ count: 100_000, invalid: bad, error_kinds: { bad_input: bad } });
  });

  it('grades a 10 MB output_text without stalling the run', async () => {
    const f = join(dir, 'huge.jsonl');
    const big = 'é'.repeat(5 * 1024 * 1024);
    writeFileSync(
      f,
      [JSON.stringify({ id: 1, item: { answer: 'x' }, output_text: big }), JSON.stringify({ id: 2, item: { answer: 'y' }, output_text: 'y' })].join('\n'),
    );
    // a stall shows as runCli's own kill (60 s) or the test timeout, not as a clock assertion
    const r = await runCli(['score', '-g', grader, f]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).map((o) => [o.id, o.score])).toEqual([
      [1, 0],
      [2, 1],
    ]);
  });

  it('--resume continues after the records already written (checking their ids) and repairs a torn last line', async () => {
    const f = join(dir, 'res.jsonl');
    writeFileSync(f, [1, 2, 3, 4].map((i) => JSON.stringify({ id: `r${i}`, item: { answer: 'a' }, output_text: 'a' })).join('\n'));
    const out = join(dir, 'res.out.jsonl');
    writeFileSync(out, JSON.stringify({ id: 'r1', score: 1, valid: true, metadata: {} }) + '\n' + '{"id":"r2","sco');
    const r = await runCli(['score', '-g', grader, f, '-o', out, '--resume']);
    expect(r.code).toBe(0);
    const recs = lines(readFileSync(out, 'utf8'));
    expect(recs.map((o) => o.id)).toEqual(['r1', 'r2', 'r3', 'r4']);
    expect(r.stderr).toMatch(/graded 3 samples/);
  });

  it('exits 2 with a clear message for a bad grader, unreadable input, unwritable output', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"type": "string_check",\n "input": 3}');
    let r = await runCli(['score', '-g', bad, '-']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.json[\s\S]*input: .*string/);
    writeFileSync(bad, '{"type": "string_check",\n "input": }');
    r = await runCli(['score', '-g', bad, '-']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.json:2:\d+: invalid JSON/);
    r = await runCli(['score', '-g', grader, join(dir, 'missing.jsonl')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read input .*missing\.jsonl: ENOENT/);
    r = await runCli(['score', '-g', grader, '-', '-o', join(dir, 'no/such/dir/out.jsonl')], { stdin: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot write output .*ENOENT/);
    const ro = join(dir, 'ro');
    mkdirSync(ro);
    chmodSync(ro, 0o500);
    r = await runCli(['score', '-g', join(dir, 'nope.json'), '-']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot read grader file: ENOENT/);
    r = await runCli(['score', '-g', grader, '-', '--concurrency', '0']);
    expect(r.code).toBe(2);
  });
});

describe('arbiter score: runs that cannot succeed say so', () => {
  const rows = (n: number, field: string, from = 1) =>
    Array.from({ length: n }, (_, i) => JSON.stringify({ id: from + i, item: { [field]: '7' }, sample: { output_text: '7' } }));

  it('stops after --stop-after-errors records in a row with the same setup error, names it once and the lines left, and --resume continues', async () => {
    const f = join(dir, 'streak.jsonl');
    const out = join(dir, 'streak-out.jsonl');
    // the grader reads item.answer; these rows carry item.label: every record is the same template_error
    writeFileSync(f, rows(30, 'label').join('\n') + '\n');
    const r = await runCli(['score', '--grader', grader, f, '-o', out]);
    expect(r.code).toBe(7);
    // one output record per line for the lines before the stop, ids in order
    expect(lines(readFileSync(out, 'utf8')).map((x) => x.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const stops = r.stderr.split('\n').filter((l) => l.startsWith('arbiter: stopped'));
    expect(stops).toEqual([expect.stringContaining('20 records in a row failed with template_error (from id 1): missing variable {{item.answer}}')]);
    expect(r.stderr).toContain('10 input lines were not graded');
    // the cause fixed (a grader reading item.label), --resume grades the rest
    const fixed = join(dir, 'label-grader.json');
    writeFileSync(fixed, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' }));
    const again = await runCli(['score', '--grader', fixed, f, '-o', out, '--resume']);
    expect(again.code).toBe(0);
    const all = lines(readFileSync(out, 'utf8'));
    expect(all.map((x) => x.id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(all.slice(20).every((x) => x.valid && x.score === 1)).toBe(true);
  });

  it('does not stop when the streak is broken, nor with --stop-after-errors 0 (then an all-invalid run exits 6)', async () => {
    const f = join(dir, 'broken.jsonl');
    writeFileSync(f, [...rows(19, 'label'), ...rows(1, 'answer', 20), ...rows(19, 'label', 21)].join('\n') + '\n');
    const r = await runCli(['score', '--grader', grader, f]);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(39);
    const g = join(dir, 'never.jsonl');
    writeFileSync(g, rows(30, 'label').join('\n') + '\n');
    const never = await runCli(['score', '--grader', grader, g, '--stop-after-errors', '0']);
    expect(never.code).toBe(6);
    expect(lines(never.stdout)).toHaveLength(30);
    expect(never.stderr).not.toContain('stopped');
  });

  it('--max-invalid FRACTION exits 8 when more of the records are invalid, 0 at or under it', async () => {
    const f = join(dir, 'quarter.jsonl');
    writeFileSync(f, [...rows(3, 'answer'), ...rows(1, 'label', 4)].join('\n') + '\n');
    const over = await runCli(['score', '--grader', grader, f, '--max-invalid', '0.2']);
    expect(over.code).toBe(8);
    expect(lines(over.stdout)).toHaveLength(4);
    expect(over.stderr).toContain('1 of 4 records are invalid (25.0%), more than --max-invalid 0.2');
    expect((await runCli(['score', '--grader', grader, f, '--max-invalid', '0.25'])).code).toBe(0);
    const bad = await runCli(['score', '--grader', grader, f, '--max-invalid', '5%']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('must be a number from 0 to 1');
  });
});

describe('arbiter validate / help', () => {
  it('validate exits 0 for good files and 3 listing problems for bad ones', async () => {
    const bad = join(dir, 'bad2.json');
    writeFileSync(
      bad,
      JSON.stringify({ type: 'multi', graders: { a: { type: 'string_check', input: 'x', reference: 'y', operation: 'eqq' } }, calculate_output: 'a + b' }),
    );
    expect((await runCli(['validate', grader])).code).toBe(0);
    const r = await runCli(['validate', grader, bad]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/graders\.a\.operation/);
    expect(r.stderr).toMatch(/calculate_output: unknown variable\(s\) b/);
  });
  it('validate refuses an unclosed placeholder and notes a single-brace one (both would grade every sample against literal text)', async () => {
    const unclosed = join(dir, 'unclosed.json');
    writeFileSync(unclosed, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.answer', operation: 'eq' }));
    let r = await runCli(['validate', unclosed]);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/reference: unclosed "\{\{" at character 1/);
    const single = join(dir, 'single.json');
    writeFileSync(single, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: '{item.answer}', operation: 'eq' }));
    r = await runCli(['validate', single]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/note: reference: "\{item\.answer\}" has single braces, so it is literal text/);
  });
  it('--help works on every command', async () => {
    const top = await runCli(['--help']);
    expect(top.code).toBe(0);
    const cmds = [...top.stdout.matchAll(/^ {2}(\w+)/gm)].map((m) => m[1]!).filter((c) => c !== 'help');
    expect(cmds).toEqual(expect.arrayContaining(['score', 'validate', 'types']));
    for (const c of cmds) {
      const r = await runCli([c, '--help']);
      expect(r.code, c).toBe(0);
      expect(r.stdout).toMatch(/^Usage: arbiter /);
    }
  });
});
