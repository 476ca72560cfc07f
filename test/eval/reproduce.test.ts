// The benchmarks' published numbers, reproduced exactly from their published outputs by
// `arbiter eval` (through the CLI, as users run it), and RM-Bench's arithmetic checked against
// values computed by its own compute_accuracy (numpy) on the fixtures in test/eval/fixtures.
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';

const tmp = mkdtempSync(join(tmpdir(), 'arbiter-eval-'));
const JB = dataPath('judgebench/outputs');
const FIX = new URL('./fixtures/', import.meta.url).pathname;

async function evalJson(args: string[]): Promise<any> {
  const out = join(tmp, `r${Math.random().toString(36).slice(2)}.json`);
  const r = await runCli(['eval', ...args, '--json', out, '--no-progress']);
  expect(r.stderr).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  return JSON.parse(readFileSync(out, 'utf8'));
}

// SOURCES.md: "Published scores to reproduce"
const PUBLISHED: [RegExp, string][] = [
  [/judge_model=o1-mini/, '65.71'],
  [/Skywork-Reward-Gemma-2-27B/, '64.29'],
  [/internlm2-7b-reward/, '59.43'],
  [/claude-3-haiku/, '32.22'],
];

describe('JudgeBench published outputs', () => {
  const files = readdirSync(JB).filter((f) => f.endsWith('.jsonl'));
  it('has the four published files', () => expect(files).toHaveLength(4));
  for (const f of files) {
    const published = PUBLISHED.find(([re]) => re.test(f))![1];
    it(`reproduces ${published} for ${f.slice(0, 90)}`, async () => {
      const r = await evalJson(['judgebench', join(JB, f)]);
      expect(r.metrics.metric).toBe('pair');
      expect(r.metrics.printed.overall).toBe(`${published}%`);
      expect(r.metrics.overall.toFixed(2)).toBe(published);
      // every category present, each pair counted once
      const n = r.metrics.n_pairs;
      expect(n.knowledge + n.reasoning + n.math + n.coding).toBe(n.overall);
      expect(r.counts.skipped).toBe(0);
      // every recorded decision was re-read (two orders per pair)
      expect(r.metrics.arbiter_parse.decisions).toBe(2 * n.overall);
    });
  }
  it("reports decisions arbiter reads differently, with the reason (claude-3-haiku's multi-verdict judgments)", async () => {
    const r = await evalJson(['judgebench', join(JB, files.find((f) => /claude-3-haiku/.test(f))!)]);
    expect(r.metrics.arbiter_parse.differ).toBeGreaterThan(0);
    const t = r.tables.find((x: any) => x.id === 'differ');
    expect(t.total).toBe(r.metrics.arbiter_parse.differ);
    expect(t.rows[0][5]).toMatch(/arbiter|scores/);
  });
  it('a reward-model file recomputed from the two scores: equal scores are a tie, which JudgeBench recorded as B>A', async () => {
    const r = await evalJson(['judgebench', join(JB, files.find((f) => /Skywork/.test(f))!)]);
    const t = r.tables.find((x: any) => x.id === 'differ');
    expect(r.metrics.arbiter_parse.differ).toBe(t.total);
    for (const row of t.rows) {
      expect(row[3]).toBe('B>A');
      expect(row[4]).toBe('A=B');
      expect(row[5]).toMatch(/equal: a tie/);
    }
  });
});

describe('LLMBar published GPT-4 outputs', () => {
  const sets = ['Natural', 'Adversarial/Neighbor', 'Adversarial/GPTInst', 'Adversarial/GPTOut', 'Adversarial/Manual'];
  for (const set of sets) {
    for (const ev of ['Vanilla', 'Swap']) {
      it(`reproduces statistics.json of ${set} ${ev}`, async () => {
        const dir = dataPath(join('llmbar', set, 'evaluators/GPT-4', ev));
        const r = await evalJson(['llmbar', join(dir, 'result.json')]);
        const published = JSON.parse(readFileSync(join(dir, 'statistics.json'), 'utf8'));
        const { arbiter_parse, ...ours } = r.metrics;
        // same keys in the same order, same strings, same floats (to the last bit)
        expect(Object.keys(ours)).toEqual(Object.keys(published));
        expect(ours).toEqual(published);
        expect(arbiter_parse).toHaveProperty('differ');
      });
    }
  }
});

describe('RM-Bench arithmetic', () => {
  it('one domain: hard/normal/easy as compute_accuracy gives them', async () => {
    const r = await evalJson(['rm-bench', join(FIX, 'chat_result.json')]);
    // values printed by RM-Bench's compute_accuracy (numpy) on this fixture
    expect(r.metrics.hard_acc).toBe(0.5762273901808785);
    expect(r.metrics.normal_acc).toBe(0.5529715762273901);
    expect(r.metrics.easy_acc).toBe(0.5555555555555556);
    expect(r.metrics.matrix).toHaveLength(3);
  });
  it('several domains (safety-refuse + safety-response grouped as safety): the total_dataset averages', async () => {
    const r = await evalJson(['rm-bench', join(FIX, 'total_result.json')]);
    const expected = {
      chat: 0.5769980506822612,
      math: 0.5878136200716847,
      code: 0.6131191432396251,
      safety: 0.5857142857142857,
      hard_acc: 0.6104621980524572,
      normal_acc: 0.5686276596400965,
      easy_acc: 0.5936439670883389,
      total_avg_acc: 0.5909112749269643,
    };
    for (const [k, v] of Object.entries(expected)) expect(r.metrics[k], k).toBe(v);
  });
});
