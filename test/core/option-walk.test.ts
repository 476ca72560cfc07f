// Every option of every command, read from the CLI definition itself, is held to evidence that it
// takes effect: a named test file that passes the flag to that command and asserts what its help
// says (option-effects tests, or the feature's own tests). An option added without such a test, or
// evidence left behind for an option that is gone, fails here. The eval suites' shared options are
// one mechanism each (src/cli/commands/eval.ts adds them, src/eval/run.ts runs units): each suite that
// takes one must read it, and the mechanism has its test.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { commandsFor } from '../../dist/cli/commands/index.js';
import type { SHARED_OPTIONS } from '../../dist/eval/suites/common.js';
import { SUITE_NAMES } from '../../dist/eval/suites/index.js';
import { ROOT } from '../helpers/cli.js';

/** `command --flag` → the test file that shows its effect. */
const EVIDENCE: Record<string, string> = {
  'score --grader': 'test/core/cli-score.test.ts',
  'score --output': 'test/core/option-effects.test.ts',
  'score --concurrency': 'test/core/cli-score.test.ts',
  'score --resume': 'test/core/cli-score.test.ts',
  'score --summary-json': 'test/group/pipeline.test.ts',
  'score --max-json-depth': 'test/core/hostile-input.test.ts',
  'score --keep': 'test/group/pipeline.test.ts',
  'score --group-by': 'test/group/pipeline.test.ts',
  'score --group-size': 'test/group/pipeline.test.ts',
  'score --advantages': 'test/group/pipeline.test.ts',
  'score --monitor': 'test/group/pipeline.test.ts',
  'score --no-progress': 'test/core/progress.test.ts',
  'score --progress': 'test/core/progress.test.ts',
  'score --max-invalid': 'test/core/cli-score.test.ts',
  'score --stop-after-errors': 'test/core/cli-score.test.ts',
  'score --unsafe-no-sandbox': 'test/core/option-effects.test.ts',
  'score --image-dir': 'test/images/cli.test.ts',
  'score --image-url': 'test/images/cli.test.ts',
  'score --verbose': 'test/core/cli-startup.test.ts',
  'validate --as': 'test/core/examples.test.ts',

  'serve --grader': 'test/server/cli.test.ts',
  'serve --default-grader': 'test/server/cli.test.ts',
  'serve --host': 'test/server/cli.test.ts',
  'serve --port': 'test/server/serve-process.ts',
  'serve --token': 'test/server/option-effects.test.ts',
  'serve --insecure': 'test/server/option-effects.test.ts',
  'serve --allow-inline-graders': 'test/server/inline-policy.test.ts',
  'serve --inline-allow-network': 'test/server/inline-policy.test.ts',
  'serve --body-limit': 'test/server/option-effects.test.ts',
  'serve --headers-timeout-ms': 'test/server/connections.test.ts',
  'serve --request-timeout-ms': 'test/server/connections.test.ts',
  'serve --keep-alive-timeout-ms': 'test/server/connections.test.ts',
  'serve --max-connections': 'test/server/connections.test.ts',
  'serve --max-json-depth': 'test/hostile/budgets.test.ts',
  'serve --deadline-ms': 'test/queue/cli.test.ts',
  'serve --concurrency': 'test/server/option-effects.test.ts',
  'serve --max-queue': 'test/server/option-effects.test.ts',
  'serve --max-batch': 'test/queue/recovery.test.ts',
  'serve --fallback-reward': 'test/server/cli.test.ts',
  'serve --reward-format': 'test/server/option-effects.test.ts',
  'serve --eos-token': 'test/server/option-effects.test.ts',
  'serve --no-default-eos': 'test/server/option-effects.test.ts',
  'serve --monitor-window': 'test/server/option-effects.test.ts',
  'serve --queue': 'test/queue/cli.test.ts',
  'serve --queue-prefix': 'test/server/option-effects.test.ts',
  'serve --image-dir': 'test/images/cli.test.ts',
  'serve --image-url': 'test/images/cli.test.ts',
  'serve --queue-batch': 'test/queue/cli.test.ts',
  'serve --queue-max-depth': 'test/queue/cli.test.ts',
  'serve --log-level': 'test/server/option-effects.test.ts',
  'serve --unsafe-no-sandbox': 'test/server/option-effects.test.ts',
  'serve --sandbox-api': 'test/integrations/verl-sandbox.test.ts',
  'serve --sandbox-api-max-timeout-s': 'test/server/option-effects.test.ts',
  'serve --sandbox-api-max-memory-mb': 'test/server/option-effects.test.ts',
  'serve --sandbox-api-max-output-bytes': 'test/server/option-effects.test.ts',

  'worker --queue': 'test/queue/cli.test.ts',
  'worker --grader': 'test/queue/cli.test.ts',
  'worker --prefix': 'test/queue/option-effects.test.ts',
  'worker --jobs': 'test/queue/scale.test.ts',
  'worker --lock-ms': 'test/queue/recovery.test.ts',
  'worker --stalled-ms': 'test/queue/recovery.test.ts',
  'worker --max-stalled': 'test/queue/option-effects.test.ts',
  'worker --heartbeat-ms': 'test/queue/cli.test.ts',
  'worker --deadline-ms': 'test/queue/defaults.test.ts',
  'worker --name': 'test/queue/option-effects.test.ts',
  'worker --events': 'test/queue/procs.ts',
  'worker --no-probe-endpoints': 'test/queue/option-effects.test.ts',
  'worker --unsafe-no-sandbox': 'test/queue/option-effects.test.ts',
  'worker --image-dir': 'test/queue/option-effects.test.ts',
  'worker --image-url': 'test/queue/option-effects.test.ts',
  'worker --verbose': 'test/core/cli-startup.test.ts',

  'advantages --config': 'test/group/pipeline.test.ts',
  'advantages --output': 'test/core/option-effects.test.ts',
  'advantages --summary-json': 'test/group/filters.test.ts',
  'monitor --samples': 'test/group/cli.test.ts',
  'monitor --json': 'test/group/cli.test.ts',
  'monitor --window': 'test/core/option-effects.test.ts',
  'monitor --format-component': 'test/core/option-effects.test.ts',
  'monitor --correct-component': 'test/core/option-effects.test.ts',
  'monitor --thresholds': 'test/group/cli.test.ts',
  'monitor --seed': 'test/core/option-effects.test.ts',
  'monitor --fail-on-alert': 'test/group/cli.test.ts',
  ...both(['select', 'pairs'], {
    '--samples': 'test/group/selection.test.ts',
    '--output': 'test/core/option-effects.test.ts',
    '--group-by': 'test/core/option-effects.test.ts',
    '--group-size': 'test/core/option-effects.test.ts',
    '--by': 'test/group/selection.test.ts',
    '--tie': 'test/group/selection.test.ts',
    '--seed': 'test/group/selection.test.ts',
    '--prompt-field': 'test/core/option-effects.test.ts',
    '--completion-field': 'test/core/option-effects.test.ts',
    '--summary-json': 'test/group/selection.test.ts',
  }),
  'select --where': 'test/group/selection.test.ts',
  'select --top': 'test/group/selection.test.ts',
  'pairs --chosen': 'test/group/selection.test.ts',
  'pairs --rejected': 'test/group/selection.test.ts',
  'pairs --pick': 'test/group/selection.test.ts',
  'pairs --margin': 'test/group/selection.test.ts',
  'pairs --max-pairs': 'test/group/selection.test.ts',

  'learn --output': 'test/learn/learn.test.ts',
  'learn --config': 'test/learn/learn.test.ts',
  'learn --l2': 'test/learn/learn.test.ts',
  'learn --holdout': 'test/learn/learn.test.ts',
  'learn --seed': 'test/learn/learn.test.ts',
  'learn --per-user': 'test/learn/learn.test.ts',
  'learn --shrinkage': 'test/learn/learn.test.ts',
  'learn --segments': 'test/learn/learn.test.ts',
  'learn --summary-json': 'test/learn/learn.test.ts',

  // options a suite declares itself
  'eval prmbench --threshold': 'test/core/option-effects.test.ts',
  'eval preference --format': 'test/eval/live.test.ts',
  ...both(['eval agreement', 'eval calibration', 'eval bon'], {
    '--format': 'test/eval/live.test.ts',
    '--label': 'test/core/option-effects.test.ts',
    '--score-field': 'test/eval/live.test.ts',
  }),
  'eval agreement --threshold': 'test/core/option-effects.test.ts',
  'eval calibration --bins': 'test/core/option-effects.test.ts',
  'eval calibration --range': 'test/core/option-effects.test.ts',
  'eval bon --group': 'test/core/option-effects.test.ts',
  'eval bon --max-n': 'test/core/option-effects.test.ts',
  'eval overopt --format': 'test/eval/overopt.test.ts',
  'eval overopt --uid': 'test/core/option-effects.test.ts',
  'eval overopt --proxy': 'test/core/option-effects.test.ts',
  'eval overopt --gold': 'test/core/option-effects.test.ts',
  'eval overopt --gold-grader': 'test/eval/overopt.test.ts',
  'eval overopt --kl': 'test/core/option-effects.test.ts',
  'eval overopt --n': 'test/eval/overopt.test.ts',
  'eval overopt --max-n': 'test/core/option-effects.test.ts',

  'report --html': 'test/eval/render.test.ts',
  'report --md': 'test/eval/cli.test.ts',
  'report --json': 'test/eval/cli.test.ts',
  'search --config': 'test/search/search.test.ts',
  'search --n': 'test/search/search.test.ts',
  'search --methods': 'test/search/search.test.ts',
  'search --token-budget': 'test/search/search.test.ts',
  'search --limit': 'test/search/search.test.ts',
  'search --json': 'test/search/search.test.ts',
  'search --plot': 'test/search/search.test.ts',
  'search --out': 'test/search/search.test.ts',
  'search --progress': 'test/search/search.test.ts',
  'search --no-progress': 'test/search/search.test.ts',
  'design --task': 'test/design/design.test.ts',
  'design --trajectories': 'test/design/design.test.ts',
  'design --preferences': 'test/design/design.test.ts',
  'design --model-url': 'test/design/design.test.ts',
  'design --model': 'test/design/design.test.ts',
  'design --iterations': 'test/design/design.test.ts',
  'design --candidates': 'test/design/design.test.ts',
  'design --fitness': 'test/design/design.test.ts',
  'design --label': 'test/design/design.test.ts',
  'design --rank': 'test/design/design.test.ts',
  'design --out': 'test/design/design.test.ts',
  'design --resume': 'test/design/design.test.ts',
  'design --seed': 'test/design/design.test.ts',
  'design --temperature': 'test/design/design.test.ts',
  'design --max-tokens': 'test/design/design.test.ts',
  'design --call-timeout-ms': 'test/design/design.test.ts',
  'design --progress': 'test/design/design.test.ts',
  'design --no-progress': 'test/design/design.test.ts',
  'search --verbose': 'test/core/cli-startup.test.ts',

  'env serve --host': 'test/agents/serve.test.ts',
  'env serve --port': 'test/agents/serve.test.ts',
  'env serve --max-sessions': 'test/agents/serve.test.ts',
  'env serve --max-sessions-per-client': 'test/agents/env-capacity.test.ts',
  'env serve --max-steps-per-turn': 'test/agents/serve.test.ts',
  'env serve --user-model': 'test/agents/serve.test.ts',
  'env serve --user-base-url': 'test/agents/serve.test.ts',
  ...both(['env serve'], {
    '--token': 'test/agents/option-effects.test.ts',
    '--insecure': 'test/agents/option-effects.test.ts',
    '--session-idle-ms': 'test/agents/option-effects.test.ts',
    '--max-steps': 'test/agents/option-effects.test.ts',
    '--default-env': 'test/agents/option-effects.test.ts',
    '--body-limit': 'test/agents/option-effects.test.ts',
    '--user-concurrency': 'test/agents/option-effects.test.ts',
    '--log-level': 'test/agents/option-effects.test.ts',
  }),
  'env rollout --env': 'test/agents/bfcl-env.test.ts',
  'env rollout --domain': 'test/agents/rollout.test.ts',
  'env rollout --tasks': 'test/agents/rollout.test.ts',
  'env rollout --category': 'test/agents/bfcl-env.test.ts',
  'env rollout --entries': 'test/agents/bfcl-env.test.ts',
  'env rollout --mode': 'test/agents/option-effects.test.ts',
  'env rollout --max-steps-per-turn': 'test/agents/option-effects.test.ts',
  'env rollout --trials': 'test/agents/rollout.test.ts',
  'env rollout --policy-model': 'test/agents/rollout.test.ts',
  'env rollout --policy-base-url': 'test/agents/rollout.test.ts',
  'env rollout --steps-output': 'test/agents/rollout.test.ts',
  'env rollout --concurrency': 'test/agents/rollout.test.ts',
  'env rollout --user-model': 'test/agents/rollout.test.ts',
  'env rollout --user-base-url': 'test/agents/rollout.test.ts',
  ...both(['env rollout'], {
    '--max-steps': 'test/agents/option-effects.test.ts',
    '--policy-api-key-env': 'test/agents/option-effects.test.ts',
    '--temperature': 'test/agents/option-effects.test.ts',
    '--max-tokens': 'test/agents/option-effects.test.ts',
    '--policy-timeout-ms': 'test/agents/option-effects.test.ts',
    '--first-tool-call-only': 'test/agents/option-effects.test.ts',
    '--output': 'test/agents/option-effects.test.ts',
  }),
  ...both(['env serve', 'env rollout'], {
    '--tau-bench-dir': 'test/agents/option-effects.test.ts',
    '--bfcl-dir': 'test/agents/option-effects.test.ts',
    '--user-api-key-env': 'test/agents/option-effects.test.ts',
    '--user-temperature': 'test/agents/option-effects.test.ts',
    '--user-prompt': 'test/agents/option-effects.test.ts',
    '--user-timeout-ms': 'test/agents/option-effects.test.ts',
  }),
  'env tools --env': 'test/agents/bfcl-env.test.ts',
  'env tools --domain': 'test/agents/bfcl-env.test.ts',
  'env tools --entry-id': 'test/agents/bfcl-env.test.ts',
  'env tools --mode': 'test/agents/option-effects.test.ts',
  'env tools --tau-bench-dir': 'test/agents/option-effects.test.ts',
  'env tools --bfcl-dir': 'test/agents/option-effects.test.ts',
  'sandbox check --json': 'test/sandbox/report.test.ts',
  'sandbox check --no-languages': 'test/sandbox/report.test.ts',
};

/** Options src/cli/commands/eval.ts adds to every suite and handles itself, and the test of that. */
const EVAL_COMMON: Record<string, string> = {
  '--grader': 'test/eval/live.test.ts',
  '--json': 'test/eval/live.test.ts',
  '--html': 'test/eval/render.test.ts',
  '--md': 'test/eval/cli.test.ts',
  '--published': 'test/eval/cli.test.ts',
  '--progress': 'test/eval/cli.test.ts',
  '--no-progress': 'test/eval/live.test.ts',
  '--unsafe-no-sandbox': 'test/eval/suites.contract.test.ts',
  '--verbose': 'test/core/cli-startup.test.ts',
};

/** A shared option a suite takes: its flags, what in the suite's source reads it, and the mechanism's test. */
const SHARED: Record<(typeof SHARED_OPTIONS)[number], { flags: string[]; reads: RegExp; test: string }> = {
  mode: { flags: ['--mode'], reads: /opts\.mode\b/, test: 'test/eval/cli.test.ts' },
  orders: { flags: ['--orders'], reads: /opts\.orders\b/, test: 'test/eval/rmbench-pairwise.test.ts' },
  second: { flags: ['--second'], reads: /opts\.second\b/, test: 'test/eval/live.test.ts' },
  recorded: { flags: ['--recorded'], reads: /opts\.recorded\b/, test: 'test/core/option-effects.test.ts' },
  records: { flags: ['--records', '--resume'], reads: /runOptions\(|opts\.records\b/, test: 'test/eval/live.test.ts' },
  concurrency: { flags: ['--concurrency'], reads: /runOptions\(|opts\.concurrency\b/, test: 'test/core/option-effects.test.ts' },
  'max-cases': { flags: ['--max-cases'], reads: /opts\.maxCases\b/, test: 'test/eval/suites.contract.test.ts' },
};

/** The same evidence for one flag of several commands. */
function both(commands: string[], flags: Record<string, string>): Record<string, string> {
  return Object.fromEntries(commands.flatMap((c) => Object.entries(flags).map(([f, t]) => [`${c} ${f}`, t])));
}

interface Walked {
  path: string[];
  flag: string;
}

async function walk(): Promise<Walked[]> {
  const program = new Command('arbiter');
  // as `arbiter eval --help` does: every suite registered
  for (const c of await commandsFor(undefined)) await c.register(program, ['eval']);
  const out: Walked[] = [];
  const visit = (c: Command, path: string[]) => {
    for (const o of c.options) out.push({ path, flag: o.long ?? o.short! });
    for (const s of c.commands) visit(s, [...path, s.name()]);
  };
  visit(program, []);
  return out;
}

const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const passesFlag = (file: string, flag: string) => [`'${flag}'`, `"${flag}"`, `${flag}=`, `${flag} `, `\`${flag}`].some((x) => text(file).includes(x));

/** The source of an eval suite: its own file and the shared labelled reader it streams through. */
function suiteSource(name: string): string {
  const dir = join(ROOT, 'src/eval/suites');
  const own = readdirSync(dir).find((f) => readFileSync(join(dir, f), 'utf8').includes(`name: '${name}'`));
  if (!own) throw new Error(`no source file declares suite ${name}`);
  const src = readFileSync(join(dir, own), 'utf8');
  return /from '\.\/labelled\.js'/.test(src) && /\bgraded\(/.test(src) ? src + readFileSync(join(dir, 'labelled.ts'), 'utf8') : src;
}

describe('every option of every command takes effect (the CLI definition walked)', async () => {
  const all = await walk();
  const shared = new Map(Object.entries(SHARED).flatMap(([k, v]) => v.flags.map((f) => [f, k as keyof typeof SHARED])));

  it('the walk sees every command (and every eval suite)', () => {
    const commands = new Set(all.map((w) => w.path.join(' ')));
    for (const c of ['score', 'serve', 'worker', 'eval judgebench', 'eval overopt', 'env rollout', 'sandbox check']) expect(commands).toContain(c);
    expect(all.length).toBeGreaterThan(250);
  });

  it('each option has a test file that passes it and shows its effect', () => {
    const missing: string[] = [];
    const weak: string[] = [];
    for (const { path, flag } of all) {
      if (path.length === 0 || flag === '--version') continue;
      const key = `${path.join(' ')} ${flag}`;
      let file: string | undefined;
      if (path[0] === 'eval') file = EVAL_COMMON[flag] ?? (shared.has(flag) ? SHARED[shared.get(flag)!].test : EVIDENCE[key]);
      else file = EVIDENCE[key];
      if (!file) missing.push(key);
      else if (!existsSync(join(ROOT, file)) || !passesFlag(file, flag)) weak.push(`${key} → ${file}`);
    }
    expect(missing, 'options without a test of their effect').toEqual([]);
    expect(weak, 'evidence files that do not pass the flag').toEqual([]);
  });

  it('no evidence is left for an option that is gone', () => {
    const present = new Set(all.map((w) => `${w.path.join(' ')} ${w.flag}`));
    expect(Object.keys(EVIDENCE).filter((k) => !present.has(k))).toEqual([]);
  });

  it('each eval suite reads every shared option it takes, and the options eval adds for all are read by eval itself', () => {
    const unread: string[] = [];
    const suites = new Map<string, Set<string>>();
    for (const { path, flag } of all) if (path[0] === 'eval' && path[1]) suites.set(path[1], (suites.get(path[1]) ?? new Set()).add(flag));
    expect([...suites.keys()].sort()).toEqual([...SUITE_NAMES].sort());
    for (const [name, flags] of suites) {
      const src = suiteSource(name);
      for (const [opt, spec] of Object.entries(SHARED)) if (spec.flags.some((f) => flags.has(f)) && !spec.reads.test(src)) unread.push(`${name} ${opt}`);
      if (!/opts\.grader\b|\bgraded\(/.test(src)) unread.push(`${name} --grader`);
    }
    expect(unread).toEqual([]);
    const evalCli = text('src/cli/commands/eval.ts');
    for (const [flag, key] of [
      ['--json', 'o.json'],
      ['--html', 'o.html'],
      ['--md', 'o.md'],
      ['--published', 'o.published'],
      ['--progress', 'o.progress'],
      ['--unsafe-no-sandbox', 'o.unsafeNoSandbox'],
    ])
      expect(evalCli, flag).toContain(key);
  });
});
