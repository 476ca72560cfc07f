// The eval-suite contract, checked the same way for every suite on the list
// (src/eval/suites/index.ts): its module declares it under its own name with a summary, an example
// and options that do not collide; `arbiter eval NAME --help` offers exactly the shared options it
// takes plus its own, and refuses the shared ones it does not take (every option takes effect or is
// refused); a missing input file is exit 2 naming the file; and it runs on a tiny input to a report
// of its own suite with the records counted. A new suite fails this file until it has a CASES entry.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSuite, SHARED_OPTIONS, SUITE_NAMES, SUITES } from '../../dist/eval/index.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-suite-contract-'));
const put = (name: string, text: string): string => {
  const f = join(tmp, name);
  writeFileSync(f, text);
  return f;
};
const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';
const firstLines = (file: string, n: number) => readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, n).join('\n') + '\n';

/** The flag each shared option adds (the first long flag of its commander definition). */
const FLAG: Record<(typeof SHARED_OPTIONS)[number], string> = {
  mode: '--mode',
  orders: '--orders',
  second: '--second',
  recorded: '--recorded',
  records: '--records',
  concurrency: '--concurrency',
  'max-cases': '--max-cases',
};
/** A value each shared option accepts, to show that one not taken is refused for being unknown. */
const VALUE: Record<(typeof SHARED_OPTIONS)[number], string[]> = {
  mode: ['pointwise'],
  orders: ['1'],
  second: [join(ROOT, 'examples/arithmetic/grader.json')],
  recorded: [join(tmp, 'r.jsonl')],
  records: [join(tmp, 'r.jsonl')],
  concurrency: ['2'],
  'max-cases': ['3'],
};

const labelled = jsonl([
  { output_text: 'x', label: true, p: 0.9, group: 'a' },
  { output_text: 'y', label: false, p: 0.2, group: 'a' },
  { output_text: 'z', label: true, p: 0.6, group: 'b' },
  { output_text: 'w', label: false, p: 0.7, group: 'b' },
]);
const pointwise = put('pointwise.json', JSON.stringify({ type: 'string_check', input: '{{sample.output_text}}', reference: 'good', operation: 'like' }));

/** A tiny run of each suite: its arguments (input file first). */
const CASES: Record<string, () => string[]> = {
  prmbench: () => [
    put('prm.jsonl', firstLines(dataPath('prmbench/prm800k_test_p1_4o_circular.jsonl'), 3)),
    '--grader',
    join(ROOT, 'examples/prm/prmbench-labels.json'),
  ],
  judgebench: () => [
    put(
      'jb.jsonl',
      firstLines(
        dataPath(
          'judgebench/outputs/dataset=judgebench,response_model=gpt-4o-2024-05-13,judge_name=reward_model,judge_model=internlm_internlm2-7b-reward.jsonl',
        ),
        4,
      ),
    ),
  ],
  llmbar: () => [dataPath('llmbar/Natural/evaluators/GPT-4/Vanilla/result.json')],
  'rm-bench': () => [join(ROOT, 'test/eval/fixtures/chat_result.json')],
  preference: () => [
    put('pairs.jsonl', jsonl([{ question: 'q', chosen: 'a good answer', rejected: 'a bad answer' }])),
    '--grader',
    pointwise,
    '--mode',
    'pointwise',
  ],
  agreement: () => [put('agree.jsonl', labelled), '--score-field', 'p'],
  calibration: () => [put('cal.jsonl', labelled), '--score-field', 'p', '--bins', '2'],
  bon: () => [put('bon.jsonl', labelled), '--score-field', 'p', '--max-n', '2'],
  grounding: () => [
    put(
      'grounding.jsonl',
      jsonl([{ item: { width: 100, height: 80, target: { type: 'button', box: [10, 10, 30, 20] } }, output_text: '<point>(20,15)</point>' }]),
    ),
    '--grader',
    put('grounding.json', JSON.stringify({ type: 'gui_grounding', reward: 'point_in_box' })),
  ],
  overopt: () => [
    put(
      'overopt.jsonl',
      jsonl([
        { uid: 'a', proxy: 0.9, gold: 0.1 },
        { uid: 'a', proxy: 0.2, gold: 0.7 },
        { uid: 'b', score: 0.6, gold: true },
        { uid: 'b', score: 0.7, gold: false },
      ]),
    ),
  ],
};

describe('eval suite contract (every suite on the list)', () => {
  it('every suite on the list has a contract case, and arbiter/eval exports them all', () => {
    expect(SUITE_NAMES.length).toBeGreaterThan(0);
    expect(SUITE_NAMES.filter((n) => !(n in CASES))).toEqual([]);
    expect(SUITES.map((s) => s.name)).toEqual([...SUITE_NAMES]);
  });

  it('eval --help lists every suite with its summary', async () => {
    const r = await runCli(['eval', '--help']);
    expect(r.code).toBe(0);
    for (const s of SUITES) expect(r.stdout).toContain(`  ${s.name.padEnd(12)} ${s.summary.slice(0, 40)}`);
  });

  for (const name of SUITE_NAMES) {
    describe(name, () => {
      it('declares itself: its name, a summary, an example of its own, shared options from the list, own options that do not collide', async () => {
        const s = (await loadSuite(name))!;
        expect(s.name).toBe(name);
        expect(s.summary.length).toBeGreaterThan(10);
        expect(s.example.startsWith(`arbiter eval ${name} `)).toBe(true);
        expect(s.args).toMatch(/^(<file>|<files\.\.\.>|\[file\])$/);
        for (const t of s.takes) expect(SHARED_OPTIONS).toContain(t);
        const flags = s.options.map((o) => o.flags.split(/[ ,]/).find((f) => f.startsWith('--'))!);
        const shared = [
          '--grader',
          '--json',
          '--html',
          '--md',
          '--published',
          '--progress',
          '--no-progress',
          '--unsafe-no-sandbox',
          ...Object.values(FLAG),
          '--resume',
        ];
        expect(new Set(flags).size).toBe(flags.length);
        expect(flags.filter((f) => shared.includes(f))).toEqual([]);
        expect(new Set(s.options.map((o) => o.key)).size).toBe(s.options.length);
      });

      it('--help offers exactly the shared options it takes plus its own', async () => {
        const s = (await loadSuite(name))!;
        const r = await runCli(['eval', name, '--help']);
        expect(r.code).toBe(0);
        for (const o of s.options) expect(r.stdout).toContain(o.flags);
        for (const [opt, flag] of Object.entries(FLAG)) {
          const offered = new RegExp(`\\s${flag}\\b`).test(r.stdout);
          expect(offered, `${name} ${flag}`).toBe(s.takes.includes(opt as keyof typeof FLAG));
        }
      });

      it('a shared option it does not take is refused (exit 2, unknown option)', async () => {
        const s = (await loadSuite(name))!;
        const [input] = CASES[name]!();
        for (const opt of SHARED_OPTIONS.filter((o) => !s.takes.includes(o))) {
          const r = await runCli(['eval', name, input!, FLAG[opt], ...VALUE[opt], '--no-progress']);
          expect({ opt, code: r.code, unknown: r.stderr.includes(`unknown option '${FLAG[opt]}'`) }).toEqual({ opt, code: 2, unknown: true });
        }
      });

      it('a missing input file is exit 2 naming the file', async () => {
        const [, ...rest] = CASES[name]!();
        const missing = join(tmp, `missing-${name}.jsonl`);
        const r = await runCli(['eval', name, missing, ...rest, '--no-progress']);
        expect(r.stderr).toContain(`missing-${name}.jsonl`);
        expect(r.stderr).not.toMatch(/internal error:|\n\s+at .*:\d+:\d+/);
        expect(r.code).toBe(2);
      });

      it('runs on a tiny input: exit 0, a report of this suite with its records counted', { timeout: 60_000 }, async () => {
        const out = join(tmp, `${name}.json`);
        const r = await runCli(['eval', name, ...CASES[name]!(), '--json', out, '--no-progress']);
        expect(r.code, r.stderr).toBe(0);
        const report = JSON.parse(readFileSync(out, 'utf8')) as { suite: string; counts: { records: number }; headline: unknown[] };
        expect(report.suite).toBe(name);
        expect(report.counts.records).toBeGreaterThan(0);
        expect(report.headline.length).toBeGreaterThan(0);
      });
    });
  }
});
