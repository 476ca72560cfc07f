// `arbiter learn`: fit a reward to pairwise preferences (Bradley–Terry over named features, L2,
// held-out accuracy and log-loss; per-user weights; segment and regret models) and write it as a
// weighted_sum grader (src/learn/).
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_L2, DEFAULT_SHRINKAGE, formatLearnSummary, learn } from '../../learn/learn.js';
import type { SegmentModel } from '../../learn/prefs.js';
import { die } from '../exit.js';

const nonNegative = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number ≥ 0');
  return n;
};
const fraction = (v: string): number => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n >= 1) throw new InvalidArgumentError('must be a fraction in [0, 1)');
  return n;
};
const integer = (v: string): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new InvalidArgumentError('must be an integer');
  return n;
};
const segmentModel = (v: string): SegmentModel => {
  if (v !== 'partial' && v !== 'regret') throw new InvalidArgumentError('must be "partial" or "regret"');
  return v;
};

interface Opts {
  output: string;
  config?: string;
  l2: number;
  holdout: number;
  seed: number;
  perUser?: string;
  shrinkage?: number;
  segments?: SegmentModel | true;
  summaryJson?: string;
}

export function register(program: Command): void {
  program
    .command('learn')
    .description('fit a reward to pairwise preferences (Bradley–Terry over named features) and write it as a weighted_sum grader')
    .argument(
      '<prefs>',
      'preference JSONL (- for stdin): TRL rows {"prompt", "chosen", "rejected"} with --config, or rows whose sides carry {"features": {...}} or {"segment": [...]}',
    )
    .requiredOption('-o, --output <file>', 'the learned grader (weighted_sum JSON) to write')
    .option('--config <file>', 'feature graders for TRL rows: {"features": {"name": <grader config>, ...}}')
    .option('--l2 <lambda>', `L2 penalty λ on the weights (objective: mean loss + λ/2 ‖w‖²)`, nonNegative, DEFAULT_L2)
    .option('--holdout <fraction>', 'share of the pairs held out for accuracy and log-loss', fraction, 0.2)
    .option('--seed <n>', 'seed of the held-out split', integer, 0)
    .option('--per-user <field>', 'row field naming the user: one weight vector per user, shrunk toward the shared one')
    .option('--shrinkage <tau>', `with --per-user: penalty τ/2 ‖w_u - w‖² per user (default ${DEFAULT_SHRINKAGE})`, nonNegative)
    .option(
      '--segments [model]',
      'rows give segments of steps: "partial" (sum of per-step features, the default) or "regret" (Knox et al., with psi_start/psi_end)',
      segmentModel,
    )
    .option('--summary-json <file>', 'also write the summary (weights, per-user weights, metrics, solver) as JSON')
    .addHelpText(
      'after',
      `
Model: P(chosen ≻ rejected) = σ(w·(f_chosen − f_rejected)); a row with "tie": true counts half for
each side (half-credit). Fitted by Newton's method (src/learn/newton.ts). The grader written to -o
scores a side as Σ_k w_k f_k with each weight under its feature's name (the fit's own score, to the
last bit); with --per-user it holds the shared weights and --summary-json has each user's.

Exit status: 0 when the fit was written, 2 for a bad config, unreadable input or unwritable output,
1 for an internal error.

Example:
  arbiter learn prefs.jsonl -o learned.json --holdout 0.2 --summary-json learn-summary.json`,
    )
    .action(async (input: string, o: Opts) => {
      if (o.shrinkage !== undefined && o.perUser === undefined) {
        process.stderr.write('arbiter: --shrinkage needs --per-user; see `arbiter learn --help`\n');
        process.exit(2);
      }
      try {
        const summary = await learn({
          input,
          output: o.output,
          l2: o.l2,
          holdout: o.holdout,
          seed: o.seed,
          ...(o.config !== undefined ? { config: o.config } : {}),
          ...(o.perUser !== undefined ? { perUser: o.perUser } : {}),
          ...(o.shrinkage !== undefined ? { shrinkage: o.shrinkage } : {}),
          ...(o.segments !== undefined ? { segments: o.segments === true ? 'partial' : o.segments } : {}),
        });
        process.stdout.write(formatLearnSummary(summary) + '\n');
        if (o.summaryJson) {
          const { writeFile } = await import('node:fs/promises');
          await writeFile(o.summaryJson, JSON.stringify(summary, null, 2) + '\n');
        }
      } catch (e) {
        die(e);
      }
    });
}
