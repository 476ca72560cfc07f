// `arbiter eval <suite>`: evaluate a reward (judge, reward model, verifier) against a benchmark:
// re-score its published outputs or grade its data live, and write the metrics (--json), an HTML
// report (--html) and Markdown (--md). One subcommand per suite of src/eval/suites/index.ts, built
// from the suite's declaration: the shared options it takes and its own; only the suite being run
// is loaded.
import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { loadGraderFile } from '../../config/load.js';
import { Services } from '../../core/services.js';
import type { SharedOption, Suite } from '../../eval/suites/common.js';
import { loadSuites, SUITE_NAMES } from '../../eval/suites/index.js';
import type { EvalReport } from '../../eval/report.js';
import { dataPathMessage, resolveDataPath } from '../../io/data.js';
import { progressEnabled } from '../../io/progress.js';
import { IoError } from '../../io/score-file.js';
import { die, EXIT } from '../exit.js';
import { startGraders, VERBOSE_OPTION } from '../startup.js';
import { positiveInt } from './score.js';

interface EvalFlags {
  grader?: string;
  second?: string;
  mode?: string;
  orders?: number;
  records?: string;
  resume?: boolean;
  recorded?: string;
  concurrency?: number;
  maxCases?: number;
  json?: string;
  html?: string;
  md?: string;
  published?: number;
  progress?: boolean;
  unsafeNoSandbox?: boolean;
  verbose?: boolean;
  [k: string]: unknown;
}

function numberArg(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

function usage(msg: string): never {
  process.stderr.write(`arbiter: ${msg}\n`);
  process.exit(EXIT.USAGE);
}

/** Writes the report files asked for; returns what was written. */
export async function writeOutputs(report: EvalReport, o: { json?: string; html?: string; md?: string }): Promise<string[]> {
  const done: string[] = [];
  const put = async (file: string, text: string) => {
    try {
      await writeFile(file, text);
    } catch (e) {
      throw new IoError(`cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    done.push(file);
  };
  if (o.json) await put(o.json, JSON.stringify(report, null, 2) + '\n');
  if (o.html) await put(o.html, (await import('../../eval/render/html.js')).renderHtml(report));
  if (o.md) await put(o.md, (await import('../../eval/render/markdown.js')).renderMarkdown(report));
  return done;
}

export function summaryText(r: EvalReport): string {
  const lines = [r.title];
  for (const h of r.headline) {
    const v = h.value === null || h.value === undefined ? 'n/a' : `${h.value.toFixed(h.digits)}${h.unit === '%' ? '%' : ''}`;
    const extra =
      h.published !== undefined
        ? ` (published ${h.published.toFixed(h.digits)})`
        : h.baseline !== undefined && h.baseline !== null
          ? ` (A ${h.baseline.toFixed(h.digits)})`
          : '';
    lines.push(`  ${h.label}: ${v}${extra}`);
  }
  lines.push(`  ${r.counts.records} records, ${r.counts.skipped} skipped, ${r.counts.invalid} ungradeable`);
  return lines.join('\n') + '\n';
}

/** The shared options, each added to a suite's command only when the suite takes it. */
const SHARED: Record<SharedOption, (c: Command) => void> = {
  // pair-only: for suites that judge a pair of responses
  mode: (c) =>
    c.option(
      '--mode <mode>',
      'how to use the grader on a pair: pairwise (sees both responses) or pointwise (scores each); default: pairwise for the pairwise type',
      (v) => {
        if (v !== 'pairwise' && v !== 'pointwise') throw new InvalidArgumentError('must be "pairwise" or "pointwise"');
        return v;
      },
    ),
  orders: (c) =>
    c.option('--orders <n>', 'orders to judge each pair in: 2 (both, default for pairwise graders) or 1', (v) => {
      if (v !== '1' && v !== '2') throw new InvalidArgumentError('must be 1 or 2');
      return Number(v);
    }),
  second: (c) => c.option('--second <file>', 'a second grader to measure agreement with'),
  recorded: (c) => c.option('--recorded <file>', 're-score the --records file of a previous run instead of grading'),
  records: (c) =>
    c
      .option('--records <file>', 'write one JSONL record per evaluated unit (the raw outcomes; needed for --resume)')
      .option('--resume', 'continue a run: units already in --records are re-read, not graded again'),
  concurrency: (c) => c.option('-c, --concurrency <n>', 'units graded at once', positiveInt, 16),
  'max-cases': (c) => c.option('--max-cases <n>', 'rows kept in each worst-case table', positiveInt, 50),
};

function addSuite(parent: Command, s: Suite): void {
  const c = parent
    .command(s.name)
    .description(s.summary)
    .argument(s.args, s.args.includes('...') ? 'input files' : 'input file')
    .option('-g, --grader <file>', 'grade live with this grader config (JSON)');
  for (const t of s.takes) SHARED[t](c);
  c.option('--json <file>', "write the report (metrics under the benchmark's own names) as JSON")
    .option('--html <file>', 'write a self-contained HTML report')
    .option('--md <file>', 'write a Markdown summary')
    .option('--published <x>', 'a published headline number to show next to the reproduced one', numberArg)
    .option('--progress', 'show progress on stderr even when it is not a terminal')
    .option('--no-progress', 'never show progress')
    .option('--unsafe-no-sandbox', 'run code graders without bubblewrap (only for trusted code)')
    .option(...VERBOSE_OPTION);
  for (const o of s.options) {
    if (o.parse === 'number') c.option(o.flags, o.description, numberArg);
    else c.option(o.flags, o.description);
  }
  c.addHelpText(
    'after',
    `
Exit status: 0 when the evaluation completed (problems with single records are reported, not fatal),
2 for bad usage, a bad grader file, unreadable input or unwritable output, 1 for an internal error.
An input file not found as given is looked for in the benchmark data folder ($ARBITER_DATA, default
../shared/data beside the project), so the example's path is relative to that folder.

Example:
  ${s.example}`,
  );
  c.action(async (input: string | string[] | undefined, o: EvalFlags) => {
    try {
      // a data file not found as given is looked up in the benchmark data folder ($ARBITER_DATA)
      const files = (input === undefined ? [] : Array.isArray(input) ? input : [input]).map((f) => {
        const found = resolveDataPath(f);
        if (found === undefined) throw new IoError(dataPathMessage(f));
        return found;
      });
      if (o.resume && !o.records) usage('--resume needs --records FILE (the records file of the run to continue)');
      if (o.recorded && o.grader) usage('give either --grader (grade live) or --recorded (re-score a previous run), not both');
      if (o.second && !o.grader && !o.recorded) usage('--second needs --grader (the grader to compare it with)');
      if ((o.records || o.resume) && !o.grader) usage('--records and --resume are for live runs (with --grader)');
      if (!files.length && !o.recorded) usage(`eval ${s.name}: missing input file`);
      const grader = o.grader ? await loadGraderFile(o.grader) : undefined;
      const second = o.second ? await loadGraderFile(o.second) : undefined;
      const services = new Services({ unsafeNoSandbox: Boolean(o.unsafeNoSandbox) });
      const extra: Record<string, string | number | boolean | undefined> = {};
      for (const opt of s.options) if (o[opt.key] !== undefined) extra[opt.key] = o[opt.key] as string | number;
      let report: EvalReport;
      try {
        await startGraders([grader, second], services, { verbose: o.verbose === true });
        const progress = progressEnabled(o.progress);
        report = await s.run({
          files,
          ...(grader ? { grader, graderFile: o.grader } : {}),
          ...(second ? { second, secondFile: o.second } : {}),
          services,
          ...(o.mode ? { mode: o.mode } : {}),
          ...(o.orders ? { orders: o.orders as 1 | 2 } : {}),
          ...(o.records ? { records: o.records } : {}),
          ...(o.resume ? { resume: true } : {}),
          ...(o.recorded ? { recorded: o.recorded } : {}),
          concurrency: o.concurrency ?? 16,
          maxCases: o.maxCases ?? 50,
          progress,
          ...(o.published !== undefined ? { published: o.published } : {}),
          extra,
        });
      } finally {
        await services.close();
      }
      if (o.published !== undefined && report.headline[0] && report.headline[0].published === undefined) report.headline[0].published = o.published;
      process.stdout.write(summaryText(report));
      for (const f of await writeOutputs(report, o)) process.stderr.write(`arbiter: wrote ${f}\n`);
    } catch (e) {
      if (e instanceof Error && e.name === 'EvalUsageError') usage(e.message);
      die(e);
    }
  });
}

export async function register(program: Command, argv: readonly string[] = []): Promise<void> {
  // `arbiter eval NAME …` loads that suite alone, `arbiter eval --help` (or an unknown name) all of
  // them; other commands and the top-level help, which lists only command names, none
  const name = argv[0] === 'eval' ? argv[1] : undefined;
  const wanted = argv[0] !== 'eval' && argv[0] !== 'help' ? [] : name !== undefined && SUITE_NAMES.includes(name) ? [name] : SUITE_NAMES;
  const suites = await loadSuites(wanted);
  const ev = program
    .command('eval')
    .description(
      'evaluate a reward against a benchmark: reproduce its published scores from recorded outputs, or grade its data live; JSON, HTML and Markdown reports',
    )
    .addHelpText(
      'after',
      `\nSuites:\n${suites.map((s) => `  ${s.name.padEnd(12)} ${s.summary}`).join('\n')}\n\nRun "arbiter eval <suite> --help" for a suite's options.`,
    );
  for (const s of suites) addSuite(ev, s);
}
