// `arbiter eval prmbench` through the real CLI: the suite reports what the library's prmbenchEval
// computes, and refuses to run without a live grader.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGrader, prmbenchEval } from '../../dist/index.js';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const FILE = dataPath('prmbench/prm800k_test_p1_4o_circular.jsonl');
const GRADER = new URL('../../examples/prm/prmbench-labels.json', import.meta.url).pathname;

describe('arbiter eval prmbench', () => {
  it('writes the metrics prmbenchEval computes, under PRMBench names', { timeout: 60_000 }, async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'arbiter-prm-')), 'prm.json');
    const r = await runCli(['eval', 'prmbench', FILE, '--grader', GRADER, '--json', out]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8'));
    const lib = await prmbenchEval({ files: [FILE], grader: loadGrader(JSON.parse(readFileSync(GRADER, 'utf8'))) });
    expect(report.suite).toBe('prmbench');
    for (const k of ['f1', 'negative_f1', 'PRMScore']) expect(report.metrics.overall[k]).toBe(lib.overall[k as 'f1']);
    expect(Object.keys(report.metrics.classes).sort()).toEqual(Object.keys(lib.classes).sort());
    expect(report.counts.records).toBe(lib.records);
  });

  it('needs --grader (exit 2 with a message)', async () => {
    const r = await runCli(['eval', 'prmbench', FILE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--grader/);
  });
});
