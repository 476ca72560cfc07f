// `arbiter score`: grade a JSONL file of samples into a JSONL file of results.
import { writeFile } from 'node:fs/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_MAX_JSON_DEPTH } from '../../core/json.js';
import { IoError } from '../../io/errors.js';
import { checkWritable } from '../../io/writable.js';
import { loadGraderFile } from '../../config/load.js';
import { Services } from '../../core/services.js';
import { scoreFile } from '../../io/score-file.js';
import { formatSummary, type Summary } from '../../io/summary.js';
import { die, EXIT } from '../exit.js';

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
  program
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
    .option('--no-progress', 'never show the progress line')
    .option('--unsafe-no-sandbox', 'run code graders without bubblewrap (only for trusted code)')
    .addHelpText(
      'after',
      `
Every input line gets exactly one output line, in order (blank and malformed lines get invalid
bad_input results naming the line). Ids are written back exactly as they appear in the input; a
line without an id gets its line number.

Exit status: 0 when the run completed (even if some samples are invalid), 2 for a bad grader file,
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
          progress: boolean;
          unsafeNoSandbox?: boolean;
        },
      ) => {
        try {
          if (o.resume && (!o.output || o.output === '-')) {
            process.stderr.write('arbiter: --resume needs --output FILE\n');
            process.exit(EXIT.USAGE);
          }
          const grader = await loadGraderFile(o.grader);
          if (o.summaryJson) await checkWritable(o.summaryJson, 'summary');
          const services = new Services({ unsafeNoSandbox: Boolean(o.unsafeNoSandbox) });
          const ac = new AbortController();
          const unhook = stopOnSignals(ac);
          let summary: Awaited<ReturnType<typeof scoreFile>>;
          try {
            summary = await scoreFile({
              grader,
              input,
              ...(o.output ? { output: o.output } : {}),
              concurrency: o.concurrency,
              resume: Boolean(o.resume),
              progress: o.progress && Boolean(process.stderr.isTTY),
              services,
              signal: ac.signal,
              maxJsonDepth: o.maxJsonDepth,
            });
          } finally {
            await services.close();
          }
          process.stderr.write(formatSummary(summary) + '\n');
          if (o.summaryJson) await writeSummary(o.summaryJson, summary);
          unhook();
          if (summary.interrupted === 'SIGINT') process.exit(EXIT.SIGINT);
          if (summary.interrupted === 'SIGTERM') process.exit(EXIT.SIGTERM);
        } catch (e) {
          die(e);
        }
      },
    );
}
