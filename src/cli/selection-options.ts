// The options `arbiter select` and `arbiter pairs` share (input, join, grouping, ranking, ties,
// output), and running either one with its summary and exit status.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { COMPLETION_FIELDS, formatSelectionSummary, PROMPT_FIELDS, type SelectionFileOptions, type SelectionSummary } from '../group/selection-file.js';
import { TIE_RULES, type TieRule } from '../group/selection.js';
import { positiveInt } from './commands/score.js';
import { die, EXIT } from './exit.js';

export interface SharedOptions {
  samples?: string;
  output?: string;
  groupBy: string;
  groupSize?: number;
  by: string;
  tie: TieRule;
  seed: number;
  promptField?: string;
  completionField?: string;
  summaryJson?: string;
}

function integer(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('must be an integer');
  return n;
}

export function addSharedOptions(c: Command): Command {
  return c
    .argument('<input>', 'arbiter score output (JSONL with uid, score, components); - for stdin')
    .option('--samples <file>', 'the input given to arbiter score, read line for line (ids checked) for the prompt and response texts')
    .option('-o, --output <file>', 'output JSONL (default: stdout)')
    .option('--group-by <field>', 'field whose value makes a group (one prompt)', 'uid')
    .option('--group-size <n>', 'lines per group: a group is decided as soon as it has this many (else at the end of the input)', positiveInt)
    .option('--by <formula>', 'ranking value, higher is better: "score", a component name, or a formula over them (group functions allowed)', 'score')
    .addOption(
      new Option('--tie <rule>', 'how equal values are ordered: the earliest line, the shortest text, or a seeded draw').choices(TIE_RULES).default('first'),
    )
    .option('--seed <n>', 'seed of --tie random (the same seed gives the same choices)', integer, 0)
    .option('--prompt-field <path>', `dotted path of the prompt (default: the first of ${PROMPT_FIELDS.join(', ')})`)
    .option('--completion-field <path>', `dotted path of the response (default: the first of ${COMPLETION_FIELDS.join(', ')})`)
    .option('--summary-json <file>', 'also write the summary as JSON to this file');
}

export function fileOptions(input: string, o: SharedOptions): SelectionFileOptions {
  return {
    input,
    groupBy: o.groupBy,
    ...(o.samples !== undefined ? { samples: o.samples } : {}),
    ...(o.output !== undefined ? { output: o.output } : {}),
    ...(o.groupSize !== undefined ? { groupSize: o.groupSize } : {}),
    ...(o.promptField !== undefined ? { promptField: o.promptField } : {}),
    ...(o.completionField !== undefined ? { completionField: o.completionField } : {}),
  };
}

export const EXIT_HELP = `Exit status: 0 when something was written, 6 when the run completed but wrote nothing (no group
had a valid line that qualified), 2 for a bad option or formula, unreadable input, unwritable output
or a --samples file that does not match the scored lines, 1 for an internal error.`;

/** Runs one selection command: summary on stderr (and --summary-json), exit 6 when nothing was written. */
export async function runSelection(what: 'selected' | 'pairs', summaryJson: string | undefined, go: () => Promise<SelectionSummary>): Promise<void> {
  try {
    const s = await go();
    process.stderr.write(formatSelectionSummary(s, what) + '\n');
    if (summaryJson) {
      const { writeFile } = await import('node:fs/promises');
      await writeFile(summaryJson, JSON.stringify(s, null, 2) + '\n');
    }
    if (s.written === 0 && s.lines > 0) {
      process.stderr.write(`arbiter: nothing written\n`);
      process.exit(EXIT.ALL_INVALID);
    }
  } catch (e) {
    die(e);
  }
}
