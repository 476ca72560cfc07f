// `arbiter eval` and `arbiter report` as users run them: help on every command, exit codes (0 ok,
// 2 usage/config/input errors), clear messages, bad records reported without stopping the run,
// progress on stderr, Markdown output and the comparison of two runs.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-eval-cli-'));
const JB = dataPath(
  'judgebench/outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=reward_model,judge_model=internlm_internlm2-7b-reward.jsonl',
);
const SUITES = ['judgebench', 'llmbar', 'rm-bench', 'preference', 'agreement', 'calibration', 'bon'];

describe('help', () => {
  it('eval lists every suite; every suite and report has --help', async () => {
    const top = await runCli(['eval', '--help']);
    expect(top.code).toBe(0);
    for (const s of SUITES) expect(top.stdout).toContain(s);
    for (const s of SUITES) {
      const h = await runCli(['eval', s, '--help']);
      expect(h.code, s).toBe(0);
      expect(h.stdout).toMatch(/Exit status/);
      expect(h.stdout).toMatch(/--html/);
    }
    const r = await runCli(['report', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/compare/);
  });
});

describe('exit codes and messages', () => {
  const cases: [string, string[], RegExp][] = [
    ['unreadable input', ['eval', 'judgebench', join(tmp, 'nope.jsonl')], /cannot read .*nope\.jsonl: no such file/],
    ['--resume without --records', ['eval', 'judgebench', JB, '--resume'], /--resume needs --records/],
    ['--records without a grader', ['eval', 'judgebench', JB, '--records', join(tmp, 'r.jsonl')], /for live runs/],
    ['bad --mode', ['eval', 'judgebench', JB, '--mode', 'both'], /must be "pairwise" or "pointwise"/],
    ['bad --orders', ['eval', 'judgebench', JB, '--orders', '3'], /must be 1 or 2/],
    ['bad grader file', ['eval', 'judgebench', JB, '--grader', join(tmp, 'bad-grader.json')], /invalid grader config|unknown grader type|type/],
    ['calibration bins', ['eval', 'calibration', join(tmp, 'cal.jsonl'), '--score-field', 'p', '--bins', '0'], /--bins must be an integer/],
    ['no scores for agreement', ['eval', 'agreement', join(tmp, 'cal.jsonl')], /needs scores: --grader/],
    ['report of a non-report', ['report', join(tmp, 'cal.jsonl'), '--md', join(tmp, 'x.md')], /invalid JSON|not an arbiter eval report/],
    ['report without output', ['report', join(tmp, 'a.json')], /nothing to write/],
    ['pairs file without a grader', ['eval', 'preference', join(tmp, 'cal.jsonl')], /give --grader/],
  ];
  writeFileSync(join(tmp, 'bad-grader.json'), JSON.stringify({ type: 'no_such_type' }));
  writeFileSync(join(tmp, 'cal.jsonl'), '{"output_text": "x", "label": true, "p": 0.5}\n');
  writeFileSync(join(tmp, 'a.json'), '{}');
  for (const [name, args, msg] of cases) {
    it(`${name}: exit 2 with a clear message`, async () => {
      const r = await runCli(args);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(/internal error:|\n\s+at .*:\d+:\d+/);
      expect(r.code).toBe(2);
    });
  }
});

describe('bad records', () => {
  it('are counted and listed with their line, and the run completes (exit 0)', async () => {
    const lines = readFileSync(JB, 'utf8').split('\n').filter(Boolean).slice(0, 5);
    const f = join(tmp, 'mixed.jsonl');
    writeFileSync(f, [lines[0], '{not json', lines[1], '{"label": "A>B", "judgments": []}', '[1,2]', lines[2]].join('\n') + '\n');
    const out = join(tmp, 'mixed.json');
    const r = await runCli(['eval', 'judgebench', f, '--json', out, '--no-progress']);
    expect(r.code).toBe(0);
    const j = JSON.parse(readFileSync(out, 'utf8'));
    expect(j.metrics.n_pairs.overall).toBe(3);
    expect(j.counts.skipped).toBe(3);
    expect(j.problems.join('\n')).toMatch(/mixed\.jsonl:2: invalid JSON/);
    expect(j.problems.join('\n')).toMatch(/mixed\.jsonl:4: "judgments" must be a list/);
    expect(j.problems.join('\n')).toMatch(/mixed\.jsonl:5: expected a JSON object/);
  });
});

describe('outputs', () => {
  it('--progress writes progress to stderr; Markdown holds the headline; report compares two runs', async () => {
    const a = join(tmp, 'a-run.json');
    const md = join(tmp, 'a.md');
    const r = await runCli(['eval', 'judgebench', JB, '--json', a, '--md', md, '--progress', '--published', '59.43']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^eval judgebench: (100%\|#{20}\| )?350 done \[\d\d:\d\d<00:00, /m);
    expect(r.stdout).toMatch(/Overall: 59\.43% \(published 59\.43\)/);
    const text = readFileSync(md, 'utf8');
    expect(text).toMatch(/\| Overall \| 59\.43% \| 59\.43 \|/);
    // B: the same run with one pair's decisions flipped
    const lines = readFileSync(JB, 'utf8').split('\n').filter(Boolean);
    const first = JSON.parse(lines[0]!);
    for (const j of first.judgments) j.decision = j.decision === 'A>B' ? 'B>A' : 'A>B';
    const f = join(tmp, 'b.jsonl');
    writeFileSync(f, [JSON.stringify(first), ...lines.slice(1)].join('\n') + '\n');
    const b = join(tmp, 'b-run.json');
    expect((await runCli(['eval', 'judgebench', f, '--json', b, '--no-progress'])).code).toBe(0);
    const cmpMd = join(tmp, 'cmp.md');
    const cmpJson = join(tmp, 'cmp.json');
    const c = await runCli(['report', a, b, '--md', cmpMd, '--json', cmpJson]);
    expect(c.code).toBe(0);
    const cj = JSON.parse(readFileSync(cmpJson, 'utf8'));
    const ja = JSON.parse(readFileSync(a, 'utf8'));
    const jb = JSON.parse(readFileSync(b, 'utf8'));
    const overall = cj.headline.find((h: any) => h.key === 'overall');
    expect(overall.baseline).toBe(ja.metrics.overall);
    expect(overall.value).toBe(jb.metrics.overall);
    expect(overall.value).not.toBe(overall.baseline);
    expect(readFileSync(cmpMd, 'utf8')).toMatch(/\| Overall \| [\d.]+% \| 59\.43 \| [+-][\d.]+ \|/);
    expect(cj.tables[0].rows.some((row: any[]) => row[0] === 'overall')).toBe(true);
  });
});
