// `arbiter report A.json [B.json]`: render a saved evaluation report (from `arbiter eval --json`)
// as HTML or Markdown, or compare two runs.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { CompareError, compareReports } from '../../eval/render/compare.js';
import { asReport, type EvalReport } from '../../eval/report.js';
import { IoError } from '../../io/score-file.js';
import { die, EXIT } from '../exit.js';
import { summaryText, writeOutputs } from './eval.js';

async function load(file: string): Promise<EvalReport> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new IoError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new IoError(`cannot parse ${file}: invalid JSON: ${(e as Error).message}`);
  }
  try {
    return asReport(v, file);
  } catch (e) {
    throw new IoError((e as Error).message);
  }
}

export function register(program: Command): void {
  program
    .command('report')
    .description('render a saved eval report (arbiter eval --json) as HTML/Markdown, or compare two runs (B against A)')
    .argument('<a>', 'report JSON (the baseline, A, when comparing)')
    .argument('[b]', 'a second report JSON to compare with A')
    .option('--html <file>', 'write a self-contained HTML report')
    .option('--md <file>', 'write Markdown')
    .option('--json <file>', 'write the (comparison) report as JSON')
    .addHelpText(
      'after',
      `
Exit status: 0 on success, 2 when a file cannot be read or is not an arbiter eval report, or
when the two reports come from different suites.

Example:
  arbiter eval judgebench old.jsonl --json a.json && arbiter eval judgebench new.jsonl --json b.json
  arbiter report a.json b.json --html compare.html --md compare.md`,
    )
    .action(async (a: string, b: string | undefined, o: { html?: string; md?: string; json?: string }) => {
      try {
        if (!o.html && !o.md && !o.json) {
          process.stderr.write('arbiter: report: nothing to write; give --html, --md or --json\n');
          process.exit(EXIT.USAGE);
        }
        const ra = await load(a);
        const report = b ? compareReports(ra, await load(b), [a, b]) : ra;
        process.stdout.write(summaryText(report));
        for (const f of await writeOutputs(report, o)) process.stderr.write(`arbiter: wrote ${f}\n`);
      } catch (e) {
        if (e instanceof CompareError) {
          process.stderr.write(`arbiter: report: ${e.message}\n`);
          process.exit(EXIT.USAGE);
        }
        die(e);
      }
    });
}
