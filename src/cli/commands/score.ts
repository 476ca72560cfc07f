// `arbiter score`: grade a JSONL file of samples into a JSONL file of results.
import { InvalidArgumentError, type Command } from 'commander';
import { loadGraderFile } from '../../config/load.js';
import { Services } from '../../core/services.js';
import { scoreFile } from '../../io/score-file.js';
import { formatSummary } from '../../io/summary.js';
import { die, EXIT } from '../exit.js';

export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export function register(program: Command): void {
  program
    .command('score')
    .description('grade every line of a JSONL file (or - for stdin); writes one result line per input line, in order')
    .argument('<input>', 'input JSONL: {"id"?, "item", "sample": {"output_text"}} or {"id"?, "item", "output_text"}; - for stdin')
    .requiredOption('-g, --grader <file>', 'grader config (JSON)')
    .option('-o, --output <file>', 'output JSONL (default: stdout)')
    .option('-c, --concurrency <n>', 'samples graded at once', positiveInt, 64)
    .option('--resume', 'skip ids already present in the output file and append the rest')
    .option('--summary-json <file>', 'also write the end-of-run summary as JSON to this file')
    .option('--no-progress', 'never show the progress line')
    .option('--unsafe-no-sandbox', 'run code graders without bubblewrap (only for trusted code)')
    .addHelpText(
      'after',
      `
Exit status: 0 when the run completed (even if some samples are invalid), 2 for a bad grader file,
unreadable input or unwritable output, 1 for an internal error.

Example:
  arbiter score --grader examples/gsm8k/grader.json examples/gsm8k/samples.jsonl -o out.jsonl`,
    )
    .action(async (input: string, o: { grader: string; output?: string; concurrency: number; resume?: boolean; summaryJson?: string; progress: boolean; unsafeNoSandbox?: boolean }) => {
      try {
        if (o.resume && (!o.output || o.output === '-')) {
          process.stderr.write('arbiter: --resume needs --output FILE\n');
          process.exit(EXIT.USAGE);
        }
        const grader = await loadGraderFile(o.grader);
        const services = new Services({ unsafeNoSandbox: Boolean(o.unsafeNoSandbox) });
        let summary;
        try {
          summary = await scoreFile({
            grader,
            input,
            ...(o.output ? { output: o.output } : {}),
            concurrency: o.concurrency,
            resume: Boolean(o.resume),
            progress: o.progress && Boolean(process.stderr.isTTY),
            services,
          });
        } finally {
          await services.close();
        }
        process.stderr.write(formatSummary(summary) + '\n');
        if (o.summaryJson) {
          const { writeFile } = await import('node:fs/promises');
          await writeFile(o.summaryJson, JSON.stringify(summary, null, 2) + '\n');
        }
      } catch (e) {
        die(e);
      }
    });
}
