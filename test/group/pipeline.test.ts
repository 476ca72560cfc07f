// The reward pipeline end to end on real GSM8K solutions (../shared/data): `arbiter score |
// arbiter advantages | arbiter monitor` as a real shell pipe of the built CLI, and the same signal
// in one command (`score --group-by uid --advantages --monitor`) for a group of 16 responses with a
// group stage. Scores, group normalisation, GRPO advantages and the collapse monitor's value are
// recomputed here from their definitions; bad input must be an error naming its line.
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGrader, RewardPipeline } from '../../dist/index.js';
import { CLI, ROOT, runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { scratch } from './helpers.js';

type Rec = Record<string, any>;
const MODELS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'] as const;
const readJsonl = (p: string): Rec[] =>
  readFileSync(p, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));

/** GSM8K's final answer line, "A: 1,234" -> 1234 (the test's own reading of correctness). */
const finalAnswer = (text: string): number | undefined => {
  const m = /A:\s*\$?(-?[\d,]*\.?\d+)\s*$/.exec(text.trim());
  return m ? Number(m[1]!.replace(/,/g, '')) : undefined;
};
const correct = (text: string, truth: string) => (finalAnswer(text) !== undefined && finalAnswer(text) === finalAnswer(truth) ? 1 : 0);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** torch.std: unbiased. */
const std = (xs: number[]) => Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1));
/** verl GRPO: (s - mean) / (std + 1e-6) within the uid group. */
const grpo = (scores: number[]) => scores.map((s) => (s - mean(scores)) / (std(scores) + 1e-6));

let dir: string;
let solutions: Rec[];
beforeAll(() => {
  dir = scratch();
  solutions = readFileSync(dataPath('gsm8k/example_model_solutions.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .slice(0, 60)
    .map((l) => JSON.parse(l));
});

const write = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const jsonl = (recs: unknown[]) => recs.map((r) => JSON.stringify(r)).join('\n') + '\n';
const MATH = { type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' };

function sh(cmd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn('sh', ['-c', cmd], { cwd: ROOT });
    let stdout = '';
    let stderr = '';
    c.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    c.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    c.on('error', reject);
    c.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('score | advantages | monitor, a Unix pipe', () => {
  it('carries uid and global_step through; the advantages are GRPO on the scores; the monitors read the stream', async () => {
    // 12 GSM8K questions, the four models' solutions to each: groups of 4, two questions per step
    const samples = solutions.slice(0, 12).flatMap((q, qi) =>
      MODELS.map((m, i) => ({
        id: `q${qi}-${i}`,
        uid: `q${qi}`,
        global_step: Math.floor(qi / 2),
        item: { answer: q.ground_truth },
        output_text: q[m].solution,
      })),
    );
    const input = write('pipe-in.jsonl', jsonl(samples));
    const grader = write('pipe-grader.json', JSON.stringify({ type: 'multi', graders: { correct: MATH }, calculate_output: 'correct' }));
    const cfg = write('pipe-grpo.json', JSON.stringify({ estimator: 'grpo', group_size: 4 }));
    const mid = join(dir, 'pipe-adv.jsonl');
    const r = await sh(
      `node ${CLI} score -g ${grader} ${input} --no-progress | node ${CLI} advantages --config ${cfg} - | tee ${mid} | node ${CLI} monitor --json -`,
    );
    expect(r.code).toBe(0);
    const lines = readJsonl(mid);
    expect(lines.map((l) => l.id)).toEqual(samples.map((s) => s.id));
    // every line: its uid and step carried, a score the test's own reading of the answer agrees with
    lines.forEach((l, i) => {
      expect(l.uid).toBe(samples[i]!.uid);
      expect(l.global_step).toBe(samples[i]!.global_step);
      expect(l.score).toBe(correct(samples[i]!.output_text, samples[i]!.item.answer));
      expect(l.advantage_masked).toBeUndefined();
    });
    expect(lines.some((l) => l.score === 1) && lines.some((l) => l.score === 0)).toBe(true);
    for (let q = 0; q < 12; q++) {
      const g = lines.filter((l) => l.uid === `q${q}`);
      const s = g.map((l) => l.score as number);
      const want = new Set(s).size === 1 ? s.map(() => 0) : grpo(s);
      g.forEach((l, i) => expect(l.advantage).toBeCloseTo(want[i]!, 12));
    }
    const mon = JSON.parse(r.stdout);
    expect(mon.results).toBe(48);
    const collapse = mon.monitors.find((m: Rec) => m.monitor === 'reward_variance_collapse');
    // its value: at the last step (5), the mean over its groups of the within-group std of the reward
    const last = [10, 11].map((q) => std(lines.filter((l) => l.uid === `q${q}`).map((l) => l.score)));
    expect(collapse.value).toBeCloseTo(mean(last), 12);
    expect(collapse.details.steps).toHaveLength(6);
    const spurious = mon.monitors.find((m: Rec) => m.monitor === 'spurious_reward_control');
    expect(spurious.n).toBe(48);
  });
});

describe('score --group-by uid --advantages --monitor: the whole signal in one pass', () => {
  /** One question with 16 responses: the four models' solutions and 12 solutions to other questions. */
  const group16 = (qi: number, step: number) => {
    const q = solutions[qi]!;
    const texts = MODELS.map((m) => q[m].solution as string);
    for (let j = 1; texts.length < 16; j++) texts.push(solutions[(qi + j) % solutions.length]![MODELS[j % 4]!].solution);
    return texts.map((t, i) => ({ id: `u${qi}-${i}`, uid: `u${qi}`, global_step: step, item: { answer: q.ground_truth }, output_text: t }));
  };
  const WS = {
    type: 'weighted_sum',
    normalize: 'group',
    graders: { correct: MATH, brief: { type: 'length', input: '{{sample.output_text}}', unit: 'chars', budget: 400, free: 100 } },
    weights: { correct: 1, brief: 0.1 },
  };

  it('16 responses: group-normalised score, GRPO advantages on it and the monitors, per line, streaming in input order', async () => {
    const samples = [...group16(0, 0), ...group16(5, 1)];
    const input = write('one-in.jsonl', jsonl(samples));
    const grader = write('one-grader.json', JSON.stringify(WS));
    const cfg = write('one-grpo.json', JSON.stringify({ estimator: 'grpo', group_size: 16 }));
    const mon = write('one-mon.json', JSON.stringify({ thresholds: { min_points: 16 } }));
    const out = join(dir, 'one-out.jsonl');
    const sum = join(dir, 'one-sum.json');
    const r = await runCli(['score', '-g', grader, input, '--group-by', 'uid', '--advantages', cfg, '--monitor', mon, '-o', out, '--summary-json', sum]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/grouped by uid: 2 groups/);
    expect(r.stderr).toMatch(/advantages \(grpo\) for 32 lines: 0 masked/);
    const lines = readJsonl(out);
    expect(lines.map((l) => l.id)).toEqual(samples.map((s) => s.id));
    const summary = JSON.parse(readFileSync(sum, 'utf8'));
    const alerts = summary.pipeline.monitors[0].alerts;
    for (const uid of ['u0', 'u5']) {
      const g = lines.filter((l) => l.uid === uid);
      const inputs = samples.filter((s) => s.uid === uid);
      expect(g).toHaveLength(16);
      // the group stage by its definition: Σ w_k (x_k - mean_k) / (std_k + 1e-6) over the group
      const acc = inputs.map((s) => correct(s.output_text, s.item.answer));
      g.forEach((l, i) => expect(l.components.correct.score).toBe(acc[i]));
      const brief = g.map((l) => l.components.brief.score as number);
      const z = (xs: number[], x: number) => (x - mean(xs)) / (std(xs) + 1e-6);
      const want = g.map((_, i) => z(acc, acc[i]!) + 0.1 * z(brief, brief[i]!));
      g.forEach((l, i) => expect(l.score).toBeCloseTo(want[i]!, 12));
      // then GRPO on those final scores
      const adv = grpo(want);
      g.forEach((l, i) => expect(l.advantage).toBeCloseTo(adv[i]!, 9));
      for (const l of g) {
        expect(l.global_step).toBe(inputs[0]!.global_step);
        expect(l.monitor_alerts).toEqual(alerts);
      }
    }
    expect(summary.pipeline.monitors[0].reports.map((m: Rec) => m.monitor)).toContain('reward_variance_collapse');
    expect(summary.pipeline.advantages).toMatchObject({ estimator: 'grpo', lines: 32, groups: 2, masked: 0 });
  });

  it('bad input is an invalid result naming the line: a missing uid, a group of one, a line past the group size', async () => {
    const base = group16(1, 0).slice(0, 3);
    const recs = [
      base[0],
      base[1],
      { ...base[2], uid: undefined }, // line 3: no uid
      { ...base[2], id: 'lone', uid: 'lonely' }, // line 4: a group of one
      { ...base[2], id: 'extra' }, // line 5: a third line for u1 with --group-size 2
    ];
    const input = write('bad-in.jsonl', jsonl(recs));
    const grader = write('bad-grader.json', JSON.stringify(WS));
    const r = await runCli(['score', '-g', grader, input, '--group-by', 'uid', '--group-size', '2']);
    expect(r.code).toBe(0);
    const out = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(out.map((o) => o.id)).toEqual(['u1-0', 'u1-1', 'u1-2', 'lone', 'extra']);
    expect(out[0].valid && out[1].valid).toBe(true);
    expect(out[2]).toMatchObject({ valid: false, score: null, error: { kind: 'bad_input' } });
    expect(out[2].error.message).toBe('line 3: field "uid" (the group, --group-by uid) is missing: every line must name its group');
    expect(out[3].error.message).toMatch(/^line 4: its group \(uid "lonely"\) has only this response; grader "weighted_sum" \(weighted_sum\)/);
    expect(out[4].error.message).toMatch(/^line 5: its uid "u1" already had group_size=2 lines/);
    expect(r.stderr).toMatch(/grouped by uid: 2 groups \(1 closed with fewer than the group size\)/);
  });

  it('a component the advantage config names that the grader lacks, and conflicting group sizes, are refused before grading', async () => {
    const input = write('c-in.jsonl', jsonl(group16(2, 0)));
    const grader = write('c-grader.json', JSON.stringify(WS));
    const trl = write('c-trl.json', JSON.stringify({ estimator: 'trl_grpo', reward_components: ['correct', 'format'] }));
    const a = await runCli(['score', '-g', grader, input, '--group-by', 'uid', '--advantages', trl]);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/reward_components: names "format", but grader "weighted_sum" has the components "correct", "brief"/);
    expect(a.stdout).toBe('');
    const g8 = write('c-g8.json', JSON.stringify({ estimator: 'grpo', group_size: 8 }));
    const b = await runCli(['score', '-g', grader, input, '--group-by', 'uid', '--group-size', '16', '--advantages', g8]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--group-size 16 differs from the advantage config's group_size 8/);
    const c = await runCli(['score', '-g', grader, input, '--keep', 'score']);
    expect(c.code).not.toBe(0);
    expect(c.stderr).toMatch(/"score" is a field of every result/);
  });
});

describe('RewardPipeline (the library engine)', () => {
  it('hands out a group as soon as it is complete when the group size is known, in input order', async () => {
    const grader = loadGrader({ type: 'multi', graders: { c: MATH }, calculate_output: 'c' });
    const pipe = new RewardPipeline(grader, { groupBy: 'uid', groupSize: 2, advantages: null, monitors: null });
    const rec = (id: string, uid: string, score: number) => ({ id, uid, score, valid: true, metadata: { grader: 'g', type: 'multi', duration_ms: 0 } });
    await pipe.push(rec('a0', 'a', 1) as never, 'line', 1);
    await pipe.push(rec('b0', 'b', 1) as never, 'line', 2);
    expect(pipe.take()).toEqual([]); // a is open, and b waits behind it
    await pipe.push(rec('a1', 'a', 0) as never, 'line', 3);
    expect(pipe.take().map((r: Rec) => r.id)).toEqual(['a0']); // b0 is still open
    await pipe.push(rec('b1', 'b', 0) as never, 'line', 4);
    expect(pipe.take().map((r: Rec) => r.id)).toEqual(['b0', 'a1', 'b1']);
    await pipe.end();
    expect(pipe.summary).toMatchObject({ group_by: 'uid', groups: 2, short_groups: 0 });
  });
});
