// `arbiter monitor`: reward-hacking monitors over a JSONL file of graded results (the output of
// `arbiter score` or `arbiter advantages`), optionally joined line by line with its input samples
// for the text-based monitors.
import { InvalidArgumentError, type Command } from 'commander';
import { parseJsonExact } from '../../core/json.js';
import { normalizeRecord } from '../../core/sample.js';
import { compactPoint, computeMonitors, formatMonitors, MonitorWindow, toPoint, type MonitorPoint, type PointOptions } from '../../group/monitors.js';
import { loadThresholdsFile } from '../../group/monitor-config.js';
import { openInput } from '../../io/files.js';
import { readLineBatches } from '../../io/jsonl-reader.js';
import { IoError } from '../../io/score-file.js';
import { die, EXIT } from '../exit.js';
import { positiveInt } from './score.js';

/** Non-blank lines of a file with their numbers. */
async function* lines(file: string): AsyncGenerator<{ n: number; text: string | undefined }> {
  for await (const b of readLineBatches(await openInput(file))) {
    for (let i = 0; i < b.texts.length; i++) {
      const t = b.texts[i];
      if (t !== undefined && t.trim() === '') continue;
      yield { n: b.first + i, text: t };
    }
  }
}

function parse(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v = parseJsonExact(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export function register(program: Command): void {
  program
    .command('monitor')
    .description(
      'reward-hacking monitors over a JSONL file of graded results: reward-length correlation, format saturation, repetition, invalid-rate spikes, judge addressing, random-reward control, reward-variance collapse',
    )
    .argument('<results>', 'graded JSONL (arbiter score / advantages output); - for stdin')
    .option('--samples <file>', 'the input JSONL those results were graded from (same order): adds output text and lengths')
    .option('--json', 'print the reports as JSON')
    .option('--window <n>', 'only the last n results', positiveInt)
    .option('--format-component <name>', 'component holding the format reward (default: the first of type format)')
    .option('--correct-component <name>', 'component holding correctness (default: the first of type math, code, string_check, tool_call, python)')
    .option('--thresholds <file>', 'JSON object overriding thresholds (see docs/groups.md)')
    .option(
      '--seed <n>',
      'seed of the random-reward control',
      (v) => {
        const n = Number(v);
        if (!Number.isInteger(n)) throw new InvalidArgumentError('must be an integer');
        return n;
      },
      1,
    )
    .option('--fail-on-alert', `exit ${EXIT.ALERT} when any monitor alerts`)
    .addHelpText(
      'after',
      `
Each monitor prints its value, its threshold, ALERT or ok, and what it saw. Lengths come from
"response_length" (tokens) when present, else from the output text's words; text-based monitors
(repetition, judge addressing) need "output_text" / "sample.output_text" in the results or --samples.

Exit status: 0 when the report was printed (${EXIT.ALERT} with --fail-on-alert and an alert), 2 for an
unreadable file or bad thresholds.

Example:
  arbiter monitor out.jsonl --samples in.jsonl`,
    )
    .action(
      async (
        results: string,
        o: {
          samples?: string;
          json?: boolean;
          window?: number;
          formatComponent?: string;
          correctComponent?: string;
          thresholds?: string;
          seed: number;
          failOnAlert?: boolean;
        },
      ) => {
        try {
          const thresholds = o.thresholds ? await loadThresholdsFile(o.thresholds) : {};
          const popts: PointOptions = {};
          if (o.formatComponent) popts.formatComponent = o.formatComponent;
          if (o.correctComponent) popts.correctComponent = o.correctComponent;
          const window = o.window ? new MonitorWindow(o.window) : undefined;
          const all: MonitorPoint[] = [];
          const samples = o.samples ? lines(o.samples)[Symbol.asyncIterator]() : undefined;
          let unreadable = 0;
          for await (const l of lines(results)) {
            const rec = parse(l.text);
            let sample: Record<string, unknown> | undefined;
            let item: Record<string, unknown> | undefined;
            if (samples) {
              const s = await samples.next();
              if (s.done) throw new IoError(`--samples ${o.samples} has fewer lines than ${results} (ran out at results line ${l.n})`);
              const srec = parse(s.value.text);
              if (srec) {
                const rid = rec?.id;
                const sid = srec.id;
                if (rid !== undefined && sid !== undefined && rid !== sid)
                  throw new IoError(
                    `results line ${l.n} has id ${JSON.stringify(rid)} but --samples line ${s.value.n} has id ${JSON.stringify(sid)}: --samples must be the input these results were graded from, in the same order`,
                  );
                try {
                  const gi = normalizeRecord(srec);
                  sample = { ...gi.sample };
                  item = gi.item;
                  if (typeof srec.response_length === 'number') sample.response_length = srec.response_length;
                } catch {
                  // a malformed input line was graded as bad_input; it has no text to monitor
                }
              }
            }
            if (!rec) {
              unreadable++;
              continue;
            }
            const p = compactPoint(toPoint(rec, popts, sample, item));
            if (window) window.push(p);
            else all.push(p);
          }
          const points = window ? window.points() : all;
          const reports = computeMonitors(points, { thresholds, seed: o.seed });
          if (o.json) process.stdout.write(JSON.stringify({ results: points.length, unreadable_lines: unreadable, monitors: reports }, null, 2) + '\n');
          else {
            process.stdout.write(formatMonitors(reports) + '\n');
            process.stdout.write(`${points.length} results${unreadable ? `, ${unreadable} unreadable line(s) skipped` : ''}\n`);
          }
          if (o.failOnAlert && reports.some((r) => r.alert)) process.exit(EXIT.ALERT);
        } catch (e) {
          die(e);
        }
      },
    );
}
