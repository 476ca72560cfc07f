// Shared by the recipe tests (docs/recipes.md): the doc's sections, their command lines and their
// figures tables, read from the doc itself so a test runs exactly what the doc says; a scratch
// folder where those commands run as written (with `arbiter` on PATH as the built CLI, and
// examples/ and scripts/ linked in); and the shared GSM8K / PRMBench rows, read directly for the
// tests' own handful of samples. Plain arithmetic the recipes recompute lives in each test, not here.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, runProcess } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { docWorkdir } from '../helpers/docs.js';

/** The recipes of docs/recipes.md that have a test here: test file name → the section's heading. */
export const RECIPES: Record<string, string> = {
  'sophiavl-r1': 'SophiaVL-R1: a trust-weighted thinking reward (Trust-GRPO)',
  'spurious-rewards': 'Spurious rewards: the random-reward control',
  'starpo-s': 'StarPO-S (RAGEN): the variance filter and the echo-trap monitor',
  'clip-delta': 'Clip and Delta: process rewards that cannot be farmed',
  cooper: 'Cooper: positive and negative samples for the reward model',
  'rm-r1': 'RM-R1: a reasoning reward model judged on RM-Bench',
  overopt: 'Reward over-optimisation: best-of-n against a gold reward',
  toolrl: 'ToolRL: a fine-grained tool-call reward',
  rewardagent: 'RewardAgent: preference plus verifiable signals, and DPO pairs',
  prime: 'PRIME: implicit process rewards and their advantage',
};

export const DOC = readFileSync(join(ROOT, 'docs/recipes.md'), 'utf8');

/** The `## ` sections of the doc: heading → text up to the next `## ` heading. */
export function sections(): Map<string, string> {
  const out = new Map<string, string>();
  const parts = DOC.split(/^## /m).slice(1);
  for (const p of parts) {
    const nl = p.indexOf('\n');
    out.set(p.slice(0, nl).trim(), p.slice(nl + 1));
  }
  return out;
}

export function section(heading: string): string {
  const s = sections().get(heading);
  if (s === undefined) throw new Error(`docs/recipes.md has no section "## ${heading}"`);
  return s;
}

/** The command lines of a text's ```bash blocks (blank lines and # comments left out). */
export function bashLines(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/^```bash\n([\s\S]*?)^```/gm)) {
    for (const line of m[1]!.split('\n')) if (line.trim() !== '' && !line.trim().startsWith('#')) out.push(line.trim());
  }
  return out;
}

/**
 * A section's figures table (the rows `| label | number |`). `check(label, actual)` throws unless the
 * doc's number is `actual` to the decimals it shows; `done()` throws if a row was never checked, so
 * every figure the doc states is one a test recomputes.
 */
export class Figures {
  private readonly rows = new Map<string, { value: number; decimals: number }>();
  private readonly checked = new Set<string>();
  constructor(readonly heading: string) {
    for (const m of section(heading).matchAll(/^\| ([^|]+?) \| (-?\d+(?:\.(\d+))?) \|$/gm)) {
      this.rows.set(m[1]!, { value: Number(m[2]), decimals: m[3]?.length ?? 0 });
    }
  }
  get labels(): string[] {
    return [...this.rows.keys()];
  }
  check(label: string, actual: number): void {
    const f = this.rows.get(label);
    if (!f) throw new Error(`the figures table of "${this.heading}" has no row "${label}" (rows: ${this.labels.join('; ')})`);
    this.checked.add(label);
    if (!(Math.abs(f.value - actual) <= 0.5 * 10 ** -f.decimals + 1e-9)) {
      throw new Error(`figure "${label}": the doc says ${f.value}, the run gives ${actual.toFixed(f.decimals + 3)}`);
    }
  }
  done(): void {
    const left = this.labels.filter((l) => !this.checked.has(l));
    if (left.length) throw new Error(`figures of "${this.heading}" that no test checks: ${left.join('; ')}`);
  }
}

/** A scratch folder laid out like the project root for the doc's commands (test/helpers/docs.ts). */
export const workdir = docWorkdir;

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command line exactly as written, with bash, in `dir`. */
export function run(dir: string, command: string): Ran {
  const r = spawnSync('bash', ['-c', command], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs every command of a section in order in a fresh work folder; throws naming the first that
 * fails. `prepare` writes what the section says the user brings (their own rollouts) first.
 */
export function runSection(heading: string, prepare?: (dir: string) => void): { dir: string; runs: Ran[] } {
  const dir = workdir();
  prepare?.(dir);
  const runs: Ran[] = [];
  for (const c of bashLines(section(heading))) {
    const r = run(dir, c);
    if (r.code !== 0) throw new Error(`\`${c}\` exited ${r.code}: ${r.stderr}`);
    runs.push(r);
  }
  return { dir, runs };
}

/** `run` without blocking the event loop (for a section whose commands call a server this test process serves). */
export function runAsync(dir: string, command: string): Promise<Ran> {
  return runProcess('bash', ['-c', command], {
    cwd: dir,
    env: { ...process.env, PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    timeoutMs: 120_000,
  });
}

/** `runSection` for a section whose commands reach a server this test process serves. */
export async function runSectionAsync(heading: string, prepare?: (dir: string) => void): Promise<{ dir: string; runs: Ran[] }> {
  const dir = workdir();
  prepare?.(dir);
  const runs: Ran[] = [];
  for (const c of bashLines(section(heading))) {
    const r = await runAsync(dir, c);
    if (r.code !== 0) throw new Error(`\`${c}\` exited ${r.code}: ${r.stderr}`);
    runs.push(r);
  }
  return { dir, runs };
}

/** The one command of a section that starts with `prefix` (e.g. "arbiter score -g examples/recipes/x/y.json"). */
export function commandOf(heading: string, prefix: string): string {
  const cs = bashLines(section(heading)).filter((c) => c.startsWith(prefix));
  if (cs.length !== 1) throw new Error(`section "${heading}" has ${cs.length} commands starting with "${prefix}"`);
  return cs[0]!;
}

/** A JSON record of the CLI's output (or a sample line), read field by field. */
export type Rec = Record<string, any>;

export const readJsonl = (path: string): Rec[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec);

export function writeJsonl(path: string, rows: object[]): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/** GSM8K's recorded solutions per question, in the data's model order, read straight from the shared file. */
export const GSM8K_MODELS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'] as const;
export interface Gsm8kRow {
  question: string;
  ground_truth: string;
  solutions: { text: string; correct: boolean }[];
}
export function gsm8kRows(): Gsm8kRow[] {
  return readJsonl(dataPath('gsm8k/example_model_solutions.jsonl')).map((r) => ({
    question: r.question,
    ground_truth: r.ground_truth,
    solutions: GSM8K_MODELS.map((m) => ({ text: r[m].solution as string, correct: r[m].is_correct as boolean })),
  }));
}

/** Checks a gsm8k sample file from scripts/recipe-samples.mjs against the shared data itself: question q's 4 solutions, labels, reference answer and step. */
export function expectGsm8kSlice(lines: Rec[], questions: number, perStep = Number.MAX_SAFE_INTEGER): void {
  const data = gsm8kRows();
  expect(lines).toHaveLength(questions * 4);
  lines.forEach((l, i) => {
    const q = Math.floor(i / 4);
    const s = data[q]!.solutions[i % 4]!;
    expect(l).toMatchObject({
      uid: `gsm8k-${q}`,
      sample: { output_text: s.text },
      item: { is_correct: s.correct, reference_solution: data[q]!.ground_truth, global_step: Math.floor(q / perStep) },
    });
    expect(data[q]!.ground_truth.trimEnd().endsWith(`A: ${l.item.answer}`)).toBe(true);
  });
}

/** PRMBench rows of one shared file. */
export const prmbenchRows = (file: string): Rec[] => readJsonl(dataPath(`prmbench/${file}`));

export const mean = (xs: number[]): number => xs.reduce((a, x) => a + x, 0) / xs.length;
/** torch.std's unbiased (n - 1) standard deviation. */
export const stdUnbiased = (xs: number[]): number => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};
/** verl's GRPO advantage of each member of one group: (r - mean) / (std + 1e-6), unbiased std. */
export const grpo = (rs: number[]): number[] => {
  const m = mean(rs);
  const s = stdUnbiased(rs);
  return rs.map((r) => (r - m) / (s + 1e-6));
};

/** Lines grouped by a key, groups in first-seen order. */
export function groupBy<T>(xs: T[], key: (x: T) => string): T[][] {
  const m = new Map<string, T[]>();
  for (const x of xs) {
    const k = key(x);
    let l = m.get(k);
    if (!l) m.set(k, (l = []));
    l.push(x);
  }
  return [...m.values()];
}
