// The library's advantage API: `computeAdvantages(config, records)` for a batch in memory, and
// `advantageFile` (the engine of `arbiter advantages`) from a JSONL file or stdin to a JSONL file
// or stdout, streaming where the estimator allows.
import { openInput, openOutput } from '../io/files.js';
import { readLineBatches } from '../io/jsonl-reader.js';
import { JsonlWriter } from '../io/jsonl-writer.js';
import { IoError } from '../io/score-file.js';
import { isAdvantageConfig, parseAdvantageConfig, type AdvantageConfig } from './config.js';
import { lineEngine, recordEngine, type AdvantageCounts } from './stream.js';

function resolve(config: AdvantageConfig | Record<string, unknown>): AdvantageConfig {
  return isAdvantageConfig(config) ? config : parseAdvantageConfig(config);
}

/**
 * Adds advantages to a batch of records (`{id, uid, score | scores, response_length, ...}`): returns
 * one output record per input, in order. Throws ConfigError for a bad config; bad records come back
 * masked (`advantage: 0, advantage_masked: true`) with the reason.
 */
export function computeAdvantages(
  config: AdvantageConfig | Record<string, unknown>,
  records: readonly unknown[],
  where = 'records',
): Record<string, unknown>[] {
  const cfg = resolve(config);
  const eng = recordEngine(cfg);
  records.forEach((r, i) => eng.pushRecord(r, where, i));
  eng.end();
  return eng.take();
}

export interface AdvantageFileOptions {
  config: AdvantageConfig | Record<string, unknown>;
  /** Input path, or '-' for stdin. */
  input: string;
  /** Output path; '-' or undefined for stdout. */
  output?: string;
}

export interface AdvantageSummary extends AdvantageCounts {
  duration_s: number;
  lines_per_s: number;
}

/** Streams a JSONL file of graded lines into a JSONL file with advantages. */
export async function advantageFile(opts: AdvantageFileOptions): Promise<AdvantageSummary> {
  const cfg = resolve(opts.config);
  const toStdout = !opts.output || opts.output === '-';
  const stream = await openInput(opts.input);
  const out = toStdout ? process.stdout : await openOutput(opts.output!);
  const writer = new JsonlWriter(out, 1 << 20);
  const eng = lineEngine(cfg);
  const t0 = performance.now();
  const flush = async () => {
    // in slices: at the end of a batch held whole, a million lines are ready at once
    for (let lines = eng.take(4096); lines.length; lines = eng.take(4096)) await writer.writeText(lines.join('\n') + '\n');
  };
  try {
    for await (const b of readLineBatches(stream)) {
      for (let i = 0; i < b.texts.length; i++) {
        const t = b.texts[i];
        if (t !== undefined && t.trim() === '') continue;
        eng.pushLine(t, b.first + i, b.dropped?.get(i));
      }
      await flush();
    }
    eng.end();
    await flush();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code && /^E[A-Z]+$/.test(code)) throw new IoError(`I/O error: ${(e as Error).message}`);
    throw e;
  } finally {
    await writer.close(!toStdout).catch((e: Error) => {
      throw new IoError(`cannot write output ${opts.output ?? 'stdout'}: ${e.message}`);
    });
  }
  const duration_s = (performance.now() - t0) / 1000;
  return { ...eng.counts, duration_s: Math.round(duration_s * 1000) / 1000, lines_per_s: duration_s > 0 ? Math.round(eng.counts.lines / duration_s) : 0 };
}

/** "3 groups filtered (equal_scores=2 low_std=1), 48 lines". */
export function filteredText(by: Record<string, number>, lines: number): string {
  const n = Object.values(by).reduce((a, b) => a + b, 0);
  const kinds = Object.entries(by)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return `${n} group(s) filtered${kinds ? ` (${kinds})` : ''}, ${lines} line(s) written with advantage 0 and "filtered"`;
}

export function formatAdvantageSummary(s: AdvantageSummary): string {
  const kinds = Object.entries(s.mask_reasons)
    .sort((a, b) => b[1]! - a[1]!)
    .map(([k, n]) => `${k}=${n}`)
    .join(' ');
  return (
    `advantages for ${s.lines} lines in ${s.duration_s.toFixed(2)}s (${s.lines_per_s}/s): ${s.groups} groups` +
    (s.short_groups ? ` (${s.short_groups} closed with fewer than group_size lines)` : '') +
    `, ${s.masked} masked with advantage 0` +
    (kinds ? ` (${kinds})` : '') +
    (s.filtered_groups ? `; ${filteredText(s.filtered_groups, s.filtered_lines ?? 0)}` : '')
  );
}
