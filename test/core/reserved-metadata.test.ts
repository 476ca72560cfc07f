// The runner's metadata fields (grader, type, duration_ms, passed) are reserved: a grader's own
// metadata never overwrites them and they never overwrite it. Through the CLI for the code grader
// with pass_threshold (the count and the boolean both survive), and through makeGrader for a grader
// that returns reserved keys (renamed to inner_<key>, deterministically, valid or invalid).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GradeFailure, loadGrader, makeGrader, RESERVED_METADATA_KEYS, Services } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';

let dir: string;
const services = new Services();
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-reserved-'));
});
afterAll(async () => {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('reserved runner fields', () => {
  it('arbiter score: a code grader with pass_threshold reports the boolean passed and the test counts', async () => {
    const grader = join(dir, 'code.json');
    writeFileSync(grader, JSON.stringify({ type: 'code', name: 'add', language: 'python', format: 'asserts', tests: '{{item.tests}}', pass_threshold: 0.5 }));
    const input = join(dir, 'in.jsonl');
    const tests = ['assert add(1, 2) == 3', 'assert add(2, 2) == 4', 'assert add(0, 0) == 1'];
    writeFileSync(
      input,
      [
        { id: 'good', item: { tests }, output_text: '```python\ndef add(a, b):\n    return a + b\n```' },
        { id: 'bad', item: { tests }, output_text: '```python\ndef add(a, b):\n    return 1\n```' },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n') + '\n',
    );
    const r = await runCli(['score', '--grader', grader, input, '--no-progress']);
    expect(r.code, r.stderr).toBe(0);
    const [good, bad] = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(good.metadata).toMatchObject({ grader: 'add', type: 'code', passed: true, tests_passed: 2, tests_total: 3 });
    expect(good.score).toBeCloseTo(2 / 3);
    expect(bad.metadata).toMatchObject({ grader: 'add', type: 'code', passed: false, tests_passed: 1, tests_total: 3 });
    expect(typeof good.metadata.duration_ms).toBe('number');
  });

  it("a grader returning reserved keys keeps them as inner_<key>; the runner fields stay the runner's", async () => {
    expect(RESERVED_METADATA_KEYS).toEqual(['grader', 'type', 'duration_ms', 'passed']);
    const buggy = makeGrader({ name: 'mine', type: 'custom', config: {}, pass_threshold: 0.5, capabilities: [] }, () => ({
      score: 0.4,
      metadata: { grader: 'liar', type: 'fake', duration_ms: -1, passed: 7, inner_type: 'explicit', other: 1 },
    }));
    const r = await buggy.grade({ item: {}, sample: { output_text: '' } }, { services });
    expect(r.valid).toBe(true);
    expect(r.metadata.grader).toBe('mine');
    expect(r.metadata.type).toBe('custom');
    expect(r.metadata.duration_ms).toBeGreaterThanOrEqual(0);
    expect(r.metadata.passed).toBe(false);
    // renamed; the grader's own explicit inner_type wins over the renamed `type`
    expect(r.metadata).toMatchObject({ inner_grader: 'liar', inner_type: 'explicit', inner_duration_ms: -1, inner_passed: 7, other: 1 });
    // without pass_threshold, a grader's `passed` does not pose as the runner's
    const noThreshold = makeGrader({ name: 'n', type: 'custom', config: {}, capabilities: [] }, () => ({ score: 0, metadata: { passed: true } }));
    const n = await noThreshold.grade({ item: {}, sample: { output_text: '' } }, { services });
    expect(n.metadata.passed).toBeUndefined();
    expect(n.metadata.inner_passed).toBe(true);
  });

  it('the same holds for the metadata of a GradeFailure (invalid results)', async () => {
    const g = makeGrader({ name: 'f', type: 'custom', config: {}, pass_threshold: 1, capabilities: [] }, () => {
      throw new GradeFailure('timeout', 'slow', { passed: 3, type: 'x', keep: true });
    });
    const r = await g.grade({ item: {}, sample: { output_text: '' } }, { services });
    expect(r.valid).toBe(false);
    expect(r.metadata).toMatchObject({ grader: 'f', type: 'custom', inner_passed: 3, inner_type: 'x', keep: true });
    expect(r.metadata.passed).toBeUndefined();
  });

  it("threads passes the inner result's runner fields through as inner_*, not as its own", async () => {
    const g = loadGrader({
      type: 'threads',
      name: 'outer',
      threads: 1,
      grader: { type: 'string_check', name: 'in', input: 'a', reference: 'a', operation: 'eq', pass_threshold: 1 },
    });
    const r = await g.grade({ item: {}, sample: { output_text: '' } }, { services });
    expect(r.metadata).toMatchObject({ grader: 'outer', type: 'threads', inner_grader: 'in', inner_type: 'string_check', inner_passed: true });
    expect(r.metadata.passed).toBeUndefined();
  });
});
