// `arbiter score`: grade a JSONL file of samples into a JSONL file of results.
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_MAX_JSON_DEPTH } from '../../core/json.js';
import { IoError } from '../../io/errors.js';
import { checkWritable } from '../../io/writable.js';
import { loadGraderFile } from '../../config/load.js';
import { Services } from '../../core/services.js';
import { scoreFile, SETUP_ERROR_KINDS } from '../../io/score-file.js';
import { formatSummary, type Summary } from '../../io/summary.js';
import { die, EXIT } from '../exit.js';
import { addImageOptions, imageSources } from '../image-options.js';
import { startGraders, VERBOSE_OPTION } from '../startup.js';
import { DEFAULT_KEEP, keepProblem } from '../../io/score-stream.js';
import type { Grader } from '../../core/grader.js';
import { ConfigError } from '../../core/errors.js';
import type { AdvantageConfig } from '../../group/config.js';
import type { PipelineSummary } from '../../group/pipeline.js';

/** `--stop-after-errors` by default: a run whose first 20 records fail alike will fail alike throughout. */
const DEFAULT_STOP_AFTER_ERRORS = 20;

/** The component names of a composite grader (multi, weighted_sum: its graders; tiers: its tiers), or undefined. */
function componentNames(g: Grader): string[] | undefined {
  const c = g.config as Record<string, unknown>;
  if (c.graders && typeof c.graders === 'object' && !Array.isArray(c.graders)) return Object.keys(c.graders);
  if (Array.isArray(c.tiers)) return c.tiers.map((t) => (t as { name?: string }).name).filter((n): n is string => typeof n === 'string');
  return undefined;
}

/** reward_components must name components the grader has (else every line would be masked). */
function checkComponents(g: Grader, cfg: AdvantageConfig, file: string): void {
  const want = (cfg.options as { rewardComponents?: string[] }).rewardComponents;
  const have = componentNames(g);
  if (!want || !have) return;
  const missing = want.filter((w) => !have.includes(w));
  if (missing.length)
    throw new ConfigError(
      [
        {
          path: 'reward_components',
          message: `names ${missing.map((m) => `"${m}"`).join(', ')}, but grader "${g.name}" has the components ${have.map((h) => `"${h}"`).join(', ')}`,
        },
      ],
      file,
      'advantage config',
    );
}

function keepList(v: string): string[] {
  const ks = v === '' ? [] : v.split(',').map((k) => k.trim());
  const bad = keepProblem(ks);
  if (bad) throw new InvalidArgumentError(bad);
  return ks;
}

/** A fraction in [0, 1] (`--max-invalid`). */
function fraction(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('must be a number from 0 to 1 (e.g. 0.05)');
  return n;
}

/** A count of 0 or more (`--stop-after-errors`, 0 = never). */
function count(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number (0 to never stop)');
  return n;
}

/** Lines of a regular input file after the first `done` (what a stopped run did not grade), or undefined for stdin. */
async function linesAfter(input: string, done: number): Promise<number | undefined> {
  if (input === '-') return undefined;
  let n = 0;
  let last = 10;
  try {
    for await (const chunk of createReadStream(input) as AsyncIterable<Buffer>) {
      for (const b of chunk) if (b === 10) n++;
      if (chunk.length) last = chunk[chunk.length - 1]!;
    }
  } catch {
    return undefined;
  }
  if (last !== 10) n++;
  return Math.max(0, n - done);
}

export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

async function writeSummary(file: string, summary: Summary): Promise<void> {
  try {
    await writeFile(file, JSON.stringify(summary, null, 2) + '\n');
  } catch (e) {
    throw new IoError(`cannot write summary ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message} (the results were written)`);
  }
}

/**
 * SIGINT/SIGTERM stop the run gracefully (the first one aborts `signal`; a second exits at once).
 * Returns a function that removes the handlers.
 */
function stopOnSignals(ac: AbortController): () => void {
  const handlers: [NodeJS.Signals, () => void][] = (['SIGINT', 'SIGTERM'] as const).map((sig) => [
    sig,
    () => {
      if (ac.signal.aborted) {
        process.stderr.write(`arbiter: ${sig} again: exiting without waiting\n`);
        process.exit(sig === 'SIGINT' ? EXIT.SIGINT : EXIT.SIGTERM);
      }
      process.stderr.write(`arbiter: ${sig}: stopping; writing the records finished so far and the summary\n`);
      ac.abort(sig);
    },
  ]);
  for (const [sig, h] of handlers) process.on(sig, h);
  return () => {
    for (const [sig, h] of handlers) process.off(sig, h);
  };
}

export function register(program: Command): void {
  const cmd = program
    .command('score')
    .description('grade every line of a JSONL file (or - for stdin); writes one result line per input line, in order')
    .argument('<input>', 'input JSONL: {"id"?, "item", "sample": {"output_text"}} or {"id"?, "item", "output_text"}; - for stdin')
    .requiredOption('-g, --grader <file>', 'grader config (JSON)')
    .option('-o, --output <file>', 'output JSONL (default: stdout)')
    .option('-c, --concurrency <n>', 'samples graded at once', positiveInt, 64)
    .option('--resume', "continue a run: check that the output file's N records have the ids of the first N input lines, skip those lines and append the rest")
    .option('--summary-json <file>', 'also write the end-of-run summary as JSON to this file')
    .option(
      '--max-json-depth <n>',
      'deepest JSON nesting accepted in an input line; deeper lines are limit_exceeded results',
      positiveInt,
      DEFAULT_MAX_JSON_DEPTH,
    )
    .option('--keep <fields>', 'input fields every output line carries after its id, comma-separated ("" for none)', keepList, [...DEFAULT_KEEP])
    .option('--group-by <field>', 'grade groups: lines with the same value of this field (e.g. uid) are one group; group stages run once a group is complete')
    .option('--group-size <n>', 'lines per group (rollout.n): a group is finished, and written, as soon as it has this many', positiveInt)
    .option('--advantages <file>', "advantage config (JSON, as for arbiter advantages): add each line's advantage in the same pass")
    .option(
      '--monitor <file>',
      'monitor config (JSON: {"thresholds"?, "seed"?, "batch_size"?, ...}): run the monitors over each batch and write their alerts on its lines',
    )
    .option('--progress', 'show the progress line on stderr even when it is not a terminal')
    .option('--max-invalid <fraction>', 'exit 8 when more than this fraction (0 to 1) of the records are invalid', fraction)
    .option(
      '--stop-after-errors <n>',
      `stop (exit 7) once n records in a row failed with the same setup error (${SETUP_ERROR_KINDS.join(', ')}) and message; 0 never stops`,
      count,
      DEFAULT_STOP_AFTER_ERRORS,
    )
    .option('--no-progress', 'never show the progress line')
    .option('--unsafe-no-sandbox', 'run code graders without bubblewrap (only for trusted code)')
    .option(...VERBOSE_OPTION);
  addImageOptions(cmd)
    .addHelpText(
      'after',
      `
Every input line gets exactly one output line, in order (blank and malformed lines get invalid
bad_input results naming the line). Ids are written back exactly as they appear in the input; a
line without an id gets its line number.

Each output line carries the input's --keep fields (default: uid, global_step) after its id, so
"arbiter score | arbiter advantages | arbiter monitor" is a pipe. With --group-by, --advantages and
--monitor the whole signal is one pass: the group's stage (a grader computed across the group),
then "advantage" (and "token_advantages", "filtered"), then "monitor_alerts" (the monitors alerting
on the line's batch). Output stays in input order; with a group size (--group-size, or the
advantage config's group_size) it streams group by group, and monitors hold each batch
(batch_size, default the whole input). See docs/groups.md.

A run that cannot succeed stops early: after --stop-after-errors (default ${DEFAULT_STOP_AFTER_ERRORS}) records in
a row with the same setup error (a model server that cannot be reached, a template naming a field
the data lacks) it stops reading, prints the first of those errors and how many input lines got no
record, and exits 7. The output then holds one record per line for the lines before the stop, as
after SIGINT: fix the cause and continue with --resume.

Exit status: 0 when the run completed (even if some samples are invalid), 6 when it completed but
no record got a valid grade (an all-invalid run is a failure), 7 when it stopped on a streak of
setup errors, 8 when more than --max-invalid of its records are invalid, 2 for a bad grader file,
unreadable input, unwritable output or summary file, or a --resume output that does not match the
input, 130 / 143 when stopped by SIGINT / SIGTERM (the records finished so far and the summary are
written; --resume continues), 1 for an internal error.

Example:
  arbiter score --grader examples/arithmetic/grader.json examples/arithmetic/samples.jsonl -o out.jsonl`,
    )
    .action(
      async (
        input: string,
        o: {
          grader: string;
          output?: string;
          concurrency: number;
          resume?: boolean;
          summaryJson?: string;
          maxJsonDepth: number;
          progress?: boolean;
          unsafeNoSandbox?: boolean;
          keep: string[];
          groupBy?: string;
          groupSize?: number;
          advantages?: string;
          monitor?: string;
          maxInvalid?: number;
          stopAfterErrors: number;
          imageDir: string[];
          imageUrl: string[];
          verbose?: boolean;
        },
      ) => {
        try {
          const usage = (m: string) => {
            process.stderr.write(`arbiter: ${m}\n`);
            process.exit(EXIT.USAGE);
          };
          if (o.resume && (!o.output || o.output === '-')) usage('--resume needs --output FILE');
          const piped = o.groupBy !== undefined || o.advantages !== undefined || o.monitor !== undefined;
          if (o.resume && piped)
            usage('--resume cannot be combined with --group-by, --advantages or --monitor (groups and batches span the lines already written)');
          if (o.groupSize !== undefined && o.groupBy === undefined) usage('--group-size needs --group-by');
          const grader = await loadGraderFile(o.grader);
          // the group stage, advantages and monitors are loaded only for a run that uses them (a
          // plain run's start-up is part of every `arbiter score` call of a training loop)
          const group = piped ? await import('../../group/pipeline.js') : undefined;
          const adv = o.advantages ? await (await import('../../group/config.js')).loadAdvantageConfigFile(o.advantages) : undefined;
          if (adv && o.advantages) checkComponents(grader, adv, o.advantages);
          const mon = o.monitor ? await (await import('../../group/monitor-config.js')).loadMonitorConfigFile(o.monitor) : undefined;
          let groupSize = o.groupSize;
          if (adv?.groupSize !== undefined && o.groupBy !== undefined) {
            if (groupSize !== undefined && groupSize !== adv.groupSize)
              usage(`--group-size ${groupSize} differs from the advantage config's group_size ${adv.groupSize}`);
            groupSize ??= adv.groupSize;
          }
          // what the estimator and the filters read travels with each line
          const keep = [...o.keep];
          const more = [...(adv?.spec.reads ?? []), ...(adv?.filters.equal && adv.filters.equal.metric !== 'score' ? [adv.filters.equal.metric] : [])];
          if (o.groupBy) more.push(o.groupBy);
          for (const k of more) if (!keep.includes(k) && !keepProblem([k])) keep.push(k);
          const stages = group
            ? new group.RewardPipeline(grader, {
                ...(o.groupBy !== undefined ? { groupBy: o.groupBy } : {}),
                ...(groupSize !== undefined ? { groupSize } : {}),
                advantages: adv ?? null,
                monitors: mon ?? null,
              })
            : undefined;
          if (o.summaryJson) await checkWritable(o.summaryJson, 'summary');
          const services = new Services({ unsafeNoSandbox: Boolean(o.unsafeNoSandbox), images: imageSources(o) });
          const ac = new AbortController();
          const unhook = stopOnSignals(ac);
          let summary: Awaited<ReturnType<typeof scoreFile>>;
          try {
            await startGraders([grader], services, { verbose: o.verbose === true });
            summary = await scoreFile({
              grader,
              input,
              ...(o.output ? { output: o.output } : {}),
              concurrency: o.concurrency,
              resume: Boolean(o.resume),
              ...(o.progress !== undefined ? { progress: o.progress } : {}),
              services,
              signal: ac.signal,
              maxJsonDepth: o.maxJsonDepth,
              keep,
              ...(stages ? { stages } : {}),
              stopAfterErrors: o.stopAfterErrors,
            });
          } finally {
            await services.close();
          }
          process.stderr.write(formatSummary(summary) + '\n');
          if (summary.pipeline && group) for (const l of group.formatPipelineSummary(summary.pipeline as PipelineSummary)) process.stderr.write(l + '\n');
          if (o.summaryJson) await writeSummary(o.summaryJson, summary);
          unhook();
          if (summary.interrupted === 'SIGINT') process.exit(EXIT.SIGINT);
          if (summary.interrupted === 'SIGTERM') process.exit(EXIT.SIGTERM);
          const stop = summary.stopped_on_errors;
          if (stop) {
            const left = await linesAfter(input, (summary.resumed ?? 0) + summary.count);
            const notGraded = left === undefined ? 'the rest of the input was not read' : `${left} input line${left === 1 ? ' was' : 's were'} not graded`;
            process.stderr.write(
              `arbiter: stopped after ${stop.count} records in a row failed with ${stop.kind} (from id ${JSON.stringify(stop.first_id)}): ${stop.message}\n` +
                `arbiter: ${notGraded} (no output records for them); fix the cause and continue with --resume, or raise --stop-after-errors\n`,
            );
            process.exit(EXIT.STOPPED_ON_ERRORS);
          }
          if (summary.count > 0 && summary.valid === 0) {
            process.stderr.write(`arbiter: no record got a valid grade (${summary.count} invalid): see the error kinds above\n`);
            process.exit(EXIT.ALL_INVALID);
          }
          if (o.maxInvalid !== undefined && summary.count > 0 && summary.invalid / summary.count > o.maxInvalid) {
            process.stderr.write(
              `arbiter: ${summary.invalid} of ${summary.count} records are invalid (${((100 * summary.invalid) / summary.count).toFixed(1)}%), more than --max-invalid ${o.maxInvalid}\n`,
            );
            process.exit(EXIT.TOO_MANY_INVALID);
          }
        } catch (e) {
          die(e);
        }
      },
    );
}
