// `arbiter select`: best-of-N per uid from `arbiter score` output (rejection sampling, RAFT), by the
// score, a component or a formula, ties broken by a stated rule; TRL prompt/completion lines.
import type { Command } from 'commander';
import { selectFile } from '../../group/selection-file.js';
import { addSharedOptions, EXIT_HELP, fileOptions, runSelection, type SharedOptions } from '../selection-options.js';
import { positiveInt } from './score.js';

export function register(program: Command): void {
  addSharedOptions(program.command('select').description('best-of-N: the best line(s) per uid of arbiter score output, by score, a component or a formula'))
    .option('--where <formula>', 'only lines where this is true take part, e.g. "correct == 1"')
    .option('--top <n>', 'lines per uid', positiveInt, 1)
    .addHelpText(
      'after',
      `
Each output line: {"uid", "id", "prompt"?, "completion"?, "score", "selection": {"by", "value",
"rank", "of", "tied"}}; prompt and completion (TRL's prompt-completion format) come from --samples
or from the scored line. Only valid grades take part (an invalid one is never a 0); a line whose
--by or --where cannot be computed (a component that is invalid on it) takes no part either. A uid
with nothing to select is counted in the summary by reason (no_valid, none_match), never silently
missing. Formulas: the variables are "score" and each top-level component's name; the language is
that of multi's calculate_output (see docs/groups.md).

${EXIT_HELP}

Example:
  arbiter select scored.jsonl --samples samples.jsonl --where "correct == 1" --tie shortest -o best.jsonl`,
    )
    .action(async (input: string, o: SharedOptions & { where?: string; top: number }) => {
      await runSelection('selected', o.summaryJson, () =>
        selectFile({ ...fileOptions(input, o), by: o.by, tie: o.tie, seed: o.seed, top: o.top, ...(o.where !== undefined ? { where: o.where } : {}) }),
      );
    });
}
