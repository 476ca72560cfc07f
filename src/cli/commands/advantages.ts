// `arbiter advantages`: add advantages to a JSONL file of graded lines (grouped by uid), with the
// estimator and options named in an advantage config file.
import type { Command } from 'commander';
import { advantageFile, formatAdvantageSummary } from '../../group/advantages.js';
import { ESTIMATORS, loadAdvantageConfigFile } from '../../group/config.js';
import { die } from '../exit.js';

export function register(program: Command): void {
  program
    .command('advantages')
    .description(
      'compute advantages (GRPO, RLOO, OPO, Pass@k, REINFORCE++, GiGPO, TRL GRPO/GDPO, GPG) for a JSONL file of graded lines (arbiter score output as it is); one output line per input line, in order',
    )
    .argument('<input>', 'input JSONL: {"id", "uid", "score" | "scores", "valid"?, "response_length"?, ...}; - for stdin')
    .requiredOption('--config <file>', 'advantage config (JSON), e.g. {"estimator": "grpo", "norm_adv_by_std_in_grpo": true, "group_size": 16}')
    .option('-o, --output <file>', 'output JSONL (default: stdout)')
    .option('--summary-json <file>', 'also write the end-of-run summary as JSON to this file')
    .addHelpText(
      'after',
      `
Estimators: ${ESTIMATORS.join(', ')}.
Each output line is its input line plus "advantage" (and "token_advantages" for reinforce_plus_plus
and reinforce_plus_plus_baseline). A line left out of the statistics — an invalid grade
(valid: false or score: null), a malformed line, the only scorable line of its group — gets
advantage 0 with "advantage_masked": true and "advantage_mask_reason"; a problem with the line
itself is also described in "advantage_error": {kind, message}.

Group filters: "filter_groups": {"enable": true, "metric"?} (DAPO: drop groups whose metric is equal
on every line) and "rollout_filter_ratio" (StarPO-S: keep that fraction of groups by score std). A
dropped line gets advantage 0 and "filtered": "<reason>", and the summary counts them.

Memory: with "group_size" (verl rollout.n, TRL num_generations) a group is computed as soon as it
has that many lines, so memory holds only the open groups; without it, groups close at the end of
each "batch_size" lines or of the input. Whitening estimators (reinforce_plus_plus*, TRL with
scale_rewards "batch" or normalize_then_sum) hold each batch. See docs/groups.md.

Exit status: 0 when the run completed (even with masked lines), 2 for a bad config, unreadable
input or unwritable output, 1 for an internal error.

Example:
  arbiter advantages --config grpo.json scored.jsonl -o with-advantages.jsonl`,
    )
    .action(async (input: string, o: { config: string; output?: string; summaryJson?: string }) => {
      try {
        const config = await loadAdvantageConfigFile(o.config);
        const summary = await advantageFile({ config, input, ...(o.output ? { output: o.output } : {}) });
        process.stderr.write(formatAdvantageSummary(summary) + '\n');
        if (o.summaryJson) {
          const { writeFile } = await import('node:fs/promises');
          await writeFile(o.summaryJson, JSON.stringify(summary, null, 2) + '\n');
        }
      } catch (e) {
        die(e);
      }
    });
}
