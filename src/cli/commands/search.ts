// `arbiter search`: test-time search over a data set (best-of-N, majority voting, PRM-guided beam
// search and DVTS against an OpenAI-compatible generator), reporting accuracy against the number
// of samples as a table (stdout), a JSON report and an SVG plot.
import { readFile, writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { parseJsonText } from '../../config/load.js';
import { readJsonlRows } from '../../eval/prm.js';
import { IoError } from '../../io/errors.js';
import { ProgressLine, progressEnabled } from '../../io/progress.js';
import { checkWritable } from '../../io/writable.js';
import { METHODS, prepareSearch, runSearch, SearchConfigError, type Method } from '../../search/run.js';
import { searchPlotSvg, searchTable } from '../../search/report.js';
import { die, EXIT } from '../exit.js';
import { Services } from '../../core/services.js';
import { startGraders, VERBOSE_OPTION } from '../startup.js';

function intList(v: string): number[] {
  const xs = v.split(',').map((s) => Number(s.trim()));
  if (xs.length === 0 || xs.some((x) => !Number.isInteger(x) || x < 1))
    throw new InvalidArgumentError('must be a comma-separated list of positive integers, e.g. 1,2,4,8');
  return xs;
}

function methodList(v: string): Method[] {
  const xs = v.split(',').map((s) => s.trim());
  const bad = xs.filter((x) => !(METHODS as readonly string[]).includes(x));
  if (bad.length) throw new InvalidArgumentError(`unknown method(s) ${bad.join(', ')} (known: ${METHODS.join(', ')})`);
  return xs as Method[];
}

function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function register(program: Command): void {
  program
    .command('search')
    .description('test-time search over a data set: best-of-N, majority voting, PRM beam search / DVTS; accuracy vs N as a table, JSON and an SVG plot')
    .argument('<data...>', 'JSONL rows: {"id"?, "item": {...}} or the item itself, e.g. {"question", "answer"}')
    .requiredOption('--config <file>', 'search config (JSON): generator, verifier, prm, reference, methods, n, beam_width, max_steps, token_budget')
    .option('--n <list>', 'budgets N to report (overrides the config), e.g. 1,2,4,8', intList)
    .option('--methods <list>', `methods (overrides the config): ${METHODS.join(', ')}`, methodList)
    .option('--token-budget <n>', 'completion tokens per problem and method run (overrides the config)', positiveInt)
    .option('--limit <n>', 'search only the first N rows', positiveInt)
    .option('--json <file>', 'write the report (accuracy, tokens, samples per method and N) as JSON')
    .option('--plot <file>', 'write accuracy vs N as an SVG plot')
    .option('--out <file>', 'write one JSONL record per problem (chosen answers and solutions per method and N)')
    .option('--progress', 'show the progress line on stderr even when it is not a terminal')
    .option('--no-progress', 'never show the progress line')
    .option(...VERBOSE_OPTION)
    .action(
      async (
        data: string[],
        o: {
          config: string;
          n?: number[];
          methods?: Method[];
          tokenBudget?: number;
          limit?: number;
          json?: string;
          plot?: string;
          out?: string;
          progress?: boolean;
          verbose?: boolean;
        },
      ) => {
        try {
          let text: string;
          try {
            text = await readFile(o.config, 'utf8');
          } catch (e) {
            throw new IoError(`cannot read search config ${o.config}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
          }
          const raw = parseJsonText(text, o.config) as Record<string, unknown>;
          const cfg = { ...raw };
          if (o.n) cfg.n = o.n;
          if (o.methods) cfg.methods = o.methods;
          if (o.tokenBudget) cfg.token_budget = o.tokenBudget;
          const prepared = prepareSearch(cfg, o.config);
          for (const [f, what] of [
            [o.json, 'report'],
            [o.plot, 'plot'],
            [o.out, 'problem records'],
          ] as const)
            if (f) await checkWritable(f, what);
          let rows: unknown[];
          try {
            rows = (await readJsonlRows(data)).map((x) => x.row);
          } catch (e) {
            throw new IoError(`cannot read data: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
          }
          if (o.limit !== undefined) rows = rows.slice(0, o.limit);
          const started = Date.now();
          let failed = 0;
          const progress = new ProgressLine({
            enabled: progressEnabled(o.progress),
            label: 'search',
            noun: 'problems',
            total: rows.length,
            extra: () => `${failed} failed`,
          });
          const services = new Services();
          let result: Awaited<ReturnType<typeof runSearch>>;
          try {
            await startGraders([prepared.verifier, prepared.prm], services, { verbose: o.verbose === true });
            result = await runSearch(prepared, rows, {
              services,
              onProblem: (p) => {
                if (p.error) failed++;
                progress.tick();
              },
            });
          } finally {
            await services.close();
          }
          const { report, problems } = result;
          progress.done();
          process.stdout.write(`${searchTable(report)}\n`);
          if (o.json)
            await writeFile(
              o.json,
              `${JSON.stringify({ ...report, duration_ms: Date.now() - started }, (_, v) => (typeof v === 'number' && Number.isNaN(v) ? null : v), 2)}\n`,
            );
          if (o.plot) await writeFile(o.plot, searchPlotSvg(report));
          if (o.out) await writeFile(o.out, problems.map((p) => JSON.stringify(p)).join('\n') + (problems.length ? '\n' : ''));
          const bad = problems.filter((p) => p.error);
          if (bad.length)
            process.stderr.write(`arbiter: ${bad.length} problem(s) failed and are left out of the accuracies, first: ${bad[0]!.id}: ${bad[0]!.error}\n`);
          process.exit(EXIT.OK);
        } catch (e) {
          if (e instanceof SearchConfigError) {
            process.stderr.write(`arbiter: ${e.message}\n`);
            process.exit(EXIT.USAGE);
          }
          die(e);
        }
      },
    );
}
