// Integers past 2^53 and numbers past the float64 range, end to end: through the real CLI (JSONL in,
// JSONL out), the real sandbox (the Python driver) and the real server. Each case is one that
// doubles get wrong: equal after rounding, or both Infinity.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { serve, type ServeProcess } from '../server/serve-process.js';

const dir = mkdtempSync(join(tmpdir(), 'arbiter-exact-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Scores JSONL `lines` (raw text, so the numbers are exactly as written) with `grader`; returns the output records' raw lines and parsed records. */
async function score(name: string, grader: unknown, lines: string[]): Promise<{ raw: string[]; recs: Record<string, unknown>[] }> {
  const g = join(dir, `${name}.json`);
  const input = join(dir, `${name}.jsonl`);
  const out = join(dir, `${name}.out.jsonl`);
  writeFileSync(g, JSON.stringify(grader));
  writeFileSync(input, lines.join('\n') + '\n');
  const r = await runCli(['score', '--grader', g, input, '-o', out], { timeoutMs: 120_000 });
  expect(r.code, r.stderr).toBe(0);
  const raw = readFileSync(out, 'utf8').trim().split('\n');
  return { raw, recs: raw.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const fn = { type: 'code', format: 'function', entry_point: 'f', tests: '{{item.tests}}' };
/** A function-format line: the solution returns `ret` (a Python expression); the test expects the JSON literal `expected`. */
const fnLine = (id: number, ret: string, expected: string, args = '[]') =>
  `{"id": ${id}, "item": {"tests": [{"args": ${args}, "expected": ${expected}}]}, "output_text": ${JSON.stringify(`def f(*a):\n    return ${ret}`)}}`;

describe('code grader, function format: the return value is compared exactly', () => {
  it('factorial(25) + 1, 2**60 + 1 and 7**500 are not factorial(25), 2**60 and 10**400 (valid 0), and the exact values pass', async () => {
    const f25 = '15511210043330985984000000'; // 25!
    const p60 = '1152921504606846976'; // 2**60
    const t400 = '1' + '0'.repeat(400); // 10**400
    const { recs } = await score('fn', fn, [
      fnLine(1, 'math.factorial(25) + 1 if (math := __import__("math")) else 0', f25),
      fnLine(2, '2**60 + 1', p60),
      fnLine(3, '7**500', t400),
      fnLine(4, 'math.factorial(25) if (math := __import__("math")) else 0', f25),
      fnLine(5, '2**60', p60),
      fnLine(6, '10**400', t400),
    ]);
    expect(recs.map((r) => [r.id, r.valid, r.score])).toEqual([
      [1, true, 0],
      [2, true, 0],
      [3, true, 0],
      [4, true, 1],
      [5, true, 1],
      [6, true, 1],
    ]);
    // the reason shows the exact digits (not 1.5511210043330986e+25)
    expect(String(recs[0]!.reason)).toContain('15511210043330985984000001');
  });

  it('under compare: float, 7**500 is still not 10**400 (both would be Infinity as doubles)', async () => {
    const { recs } = await score('fnfloat', { ...fn, compare: 'float' }, [
      fnLine(1, '7**500', '1' + '0'.repeat(400)),
      fnLine(2, '10**400', '1' + '0'.repeat(400)),
    ]);
    expect(recs.map((r) => [r.valid, r.score])).toEqual([
      [true, 0],
      [true, 1],
    ]);
  });

  it('a correct function receives its argument 9007199254740993 exactly (valid 1)', async () => {
    const { recs } = await score('fnarg', fn, [
      fnLine(1, 'a[0] if a[0] == 9007199254740993 else -1', '9007199254740993', '[9007199254740993]'),
      fnLine(2, 'a[0] + 1', '9007199254740994', '[9007199254740993]'),
    ]);
    expect(recs.map((r) => [r.valid, r.score])).toEqual([
      [true, 1],
      [true, 1],
    ]);
  });
});

describe('code grader, stdio with compare: float', () => {
  const stdio = { type: 'code', format: 'stdio', compare: 'float', tests: '{{item.tests}}' };
  const line = (id: number, printed: string, expected: string) =>
    JSON.stringify({ id, item: { tests: [{ input: '', output: expected }] }, output_text: `print(${JSON.stringify(printed)})` });

  it('huge integers and 1e400 vs 2e400 are decided on their exact values', async () => {
    const { recs } = await score('stdio', stdio, [
      line(1, '1152921504606846977', '1152921504606846976'), // 2**60 + 1 vs 2**60: within 1e-9 relative (float compare)
      line(2, '7' + '0'.repeat(400), '1' + '0'.repeat(400)), // 7e400 vs 1e400: both Infinity as doubles
      line(3, '1e400', '2e400'),
      line(4, '1e400', '1.0e400'),
      line(5, '1e400', 'inf'),
      line(6, '-1e400', '1e400'),
    ]);
    expect(recs.map((r) => [r.id, r.valid, r.score])).toEqual([
      [1, true, 1],
      [2, true, 0],
      [3, true, 0],
      [4, true, 1],
      [5, true, 0],
      [6, true, 0],
    ]);
  });
});

describe('tool_call', () => {
  it('a user id off by one in the last digit is a wrong argument (valid 0); the exact id passes', async () => {
    const g = { type: 'tool_call', reference: '{{item.gt}}' };
    const line = (id: number, uid: string) =>
      `{"id": ${id}, "item": {"gt": [{"get_user": {"user_id": [12345678901234567890]}}]}, "output_tools": [{"type": "function", "function": {"name": "get_user", "arguments": "{\\"user_id\\": ${uid}}"}}]}`;
    const py = (id: number, uid: string) =>
      `{"id": ${id}, "item": {"gt": [{"get_user": {"user_id": [12345678901234567890]}}]}, "output_text": "get_user(user_id=${uid})"}`;
    const { recs } = await score('tool', g, [
      line(1, '12345678901234567891'),
      line(2, '12345678901234567890'),
      py(3, '12345678901234567891'),
      py(4, '12345678901234567890'),
    ]);
    expect(recs.map((r) => [r.id, r.valid, r.score])).toEqual([
      [1, true, 0],
      [2, true, 1],
      [3, true, 0],
      [4, true, 1],
    ]);
  });
});

describe('ids and uids keep their exact text', () => {
  it('`arbiter score` echoes an id past 2^53 byte-exact', async () => {
    const { raw } = await score('ids', { type: 'string_check', input: '{{sample.output_text}}', reference: 'a', operation: 'eq' }, [
      '{"id": 12345678901234567891, "item": {"n": 12345678901234567891}, "output_text": "a"}',
    ]);
    expect(raw[0]).toMatch(/^\{"id":12345678901234567891,/);
  });

  it('`arbiter advantages` keeps uids ...890 and ...891 apart (two groups) and writes records back with their digits', async () => {
    const input = join(dir, 'adv.jsonl');
    const out = join(dir, 'adv.out.jsonl');
    writeFileSync(
      input,
      [
        '{"uid": 12345678901234567890, "score": 1}',
        '{"uid": 12345678901234567890, "score": 0}',
        '{"uid": 12345678901234567891, "score": 1}',
        '{"uid": 12345678901234567891, "score": 1}',
        // an existing advantage field: the record is re-serialised, not extended in place
        '{"uid": 12345678901234567891, "score": 0, "advantage": 5, "n": 99999999999999999999}',
      ].join('\n') + '\n',
    );
    const cfg = join(dir, 'grpo.json');
    writeFileSync(cfg, '{"estimator": "grpo"}');
    const r = await runCli(['advantages', '--config', cfg, input, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/2 groups/);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    const adv = lines.map((l) => (JSON.parse(l) as { advantage: number }).advantage);
    // group ...890: [1, 0]; group ...891: [1, 1, 0]
    expect(adv[0]).toBeCloseTo(Math.SQRT1_2, 5);
    expect(adv[1]).toBeCloseTo(-Math.SQRT1_2, 5);
    expect(adv[2]).toBeCloseTo(1 / Math.sqrt(3), 5);
    expect(adv[4]).toBeCloseTo(-2 / Math.sqrt(3), 5);
    expect(lines[4]).toContain('"uid":12345678901234567891');
    expect(lines[4]).toContain('"n":99999999999999999999');
  });
});

describe('server', () => {
  let srv: ServeProcess;
  beforeAll(async () => {
    const g = join(dir, 'srv-grader.json');
    writeFileSync(g, JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.ref}}', operation: 'eq' }));
    srv = await serve(['--grader', g]);
  });
  afterAll(async () => {
    await srv?.stop();
  });

  const post = async (path: string, body: string) => {
    const res = await fetch(srv.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, text: await res.text() };
  };
  /** Every value of a float field in a JSON text: each must be written with a "." or an exponent. */
  const floatFieldValues = (text: string, keys: string[]) =>
    [...text.matchAll(new RegExp(`"(?:${keys.join('|')})":(-?[0-9][0-9.eE+-]*)`, 'g'))].map((m) => m[1]!);

  it('/v1/advantages: floats are JSON floats, uids past 2^53 stay apart and come back as sent', async () => {
    const body =
      '{"config": {"estimator": "grpo"}, "records": [' +
      '{"id": 1, "uid": 12345678901234567890, "score": 1}, {"id": 2, "uid": 12345678901234567890, "score": 0},' +
      '{"id": 3, "uid": 12345678901234567891, "score": 1}, {"id": 4, "uid": 12345678901234567891, "score": 1}]}';
    const r = await post('/v1/advantages', body);
    expect(r.status, r.text).toBe(200);
    const vals = floatFieldValues(r.text, ['score', 'advantage']);
    expect(vals.length).toBe(8);
    for (const v of vals) expect(v).toMatch(/[.eE]/);
    expect(r.text).toContain('"uid":12345678901234567890');
    expect(r.text).toContain('"uid":12345678901234567891');
    const recs = (JSON.parse(r.text) as { records: { advantage: number }[] }).records;
    expect(recs[0]!.advantage).toBeCloseTo(Math.SQRT1_2, 5);
    expect(recs[2]!.advantage).toBe(0); // group ...891 is [1, 1]
  });

  it('/v1/groups: score, advantage and mean_score are JSON floats; an id past 2^53 comes back as sent', async () => {
    const body =
      '{"samples": [' +
      '{"id": 12345678901234567891, "uid": 12345678901234567890, "item": {"ref": "a"}, "output_text": "a"},' +
      '{"id": 2, "uid": 12345678901234567890, "item": {"ref": "a"}, "output_text": "b"}]}';
    const r = await post('/v1/groups', body);
    expect(r.status, r.text).toBe(200);
    const vals = floatFieldValues(r.text, ['score', 'advantage', 'mean_score']);
    expect(vals.length).toBe(5);
    for (const v of vals) expect(v).toMatch(/[.eE]/);
    expect(r.text).toContain('"id":12345678901234567891');
    expect(r.text).toContain('"uid":12345678901234567890');
  });

  it('/v1/score: an item integer past 2^53 reaches the grader exactly and the id is echoed as sent', async () => {
    const body = '{"samples": [{"id": 9007199254740993, "item": {"ref": "x"}, "output_text": "x"}]}';
    const r = await post('/v1/score', body);
    expect(r.status, r.text).toBe(200);
    expect(r.text).toContain('"id":9007199254740993');
    expect(r.text).toMatch(/"score":1\.0/);
  });
});
