// `arbiter pairs`: chosen/rejected pairs per uid from `arbiter score` output, for DPO and reward-model
// training, in TRL's preference format (prompt, chosen, rejected) with the scores.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { pairsFile } from '../../group/selection-file.js';
import { PAIR_PICKS, type PairPick } from '../../group/selection.js';
import { addSharedOptions, EXIT_HELP, fileOptions, runSelection, type SharedOptions } from '../selection-options.js';
import { positiveInt } from './score.js';

function positiveNumber(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a positive number');
  return n;
}

export function register(program: Command): void {
  addSharedOptions(program.command('pairs').description('chosen/rejected pairs per uid of arbiter score output, in the format TRL DPOTrainer reads'))
    .option('--chosen <formula>', 'lines that may be chosen, e.g. "correct == 1" (default: any)')
    .option('--rejected <formula>', 'lines that may be rejected, e.g. "correct == 0" (default: any)')
    .addOption(
      new Option('--pick <how>', 'the best chosen against the worst rejected, or every chosen/rejected combination').choices(PAIR_PICKS).default('best-worst'),
    )
    .option('--margin <x>', 'least difference of the --by value between chosen and rejected (default: chosen must be strictly higher)', positiveNumber)
    .option('--max-pairs <n>', 'at most this many pairs per uid (with --pick all)', positiveInt)
    .addHelpText(
      'after',
      `
Each output line: {"prompt", "chosen", "rejected", "score_chosen", "score_rejected", "uid",
"chosen_id", "rejected_id"} — TRL's preference format (a message-list prompt gets message-list
responses, its conversational form); the scores are the --by values. A pair always prefers the
higher --by value: chosen is the best line satisfying --chosen, rejected the worst satisfying
--rejected (never the same line), and the pair is written only when chosen is higher (by at least
--margin when given), so equal responses never become a preference. The texts come from --samples
(the input given to arbiter score, read line for line) or from the scored line (--keep). Only valid
grades take part; a uid without a pair is counted in the summary by reason (no_valid, no_chosen,
one_response, no_chosen, no_rejected, no_margin).

${EXIT_HELP}

Example:
  arbiter pairs scored.jsonl --samples samples.jsonl --chosen "correct == 1" --rejected "correct == 0" -o pairs.jsonl`,
    )
    .action(async (input: string, o: SharedOptions & { chosen?: string; rejected?: string; pick: PairPick; margin?: number; maxPairs?: number }) => {
      await runSelection('pairs', o.summaryJson, () =>
        pairsFile({
          ...fileOptions(input, o),
          by: o.by,
          tie: o.tie,
          seed: o.seed,
          pick: o.pick,
          ...(o.chosen !== undefined ? { chosen: o.chosen } : {}),
          ...(o.rejected !== undefined ? { rejected: o.rejected } : {}),
          ...(o.margin !== undefined ? { margin: o.margin } : {}),
          ...(o.maxPairs !== undefined ? { maxPairs: o.maxPairs } : {}),
        }),
      );
    });
}
