// Grades a stream of input lines with bounded concurrency and yields exactly one output record per
// input line, in input order. Malformed lines become invalid results that name the line number.
import type { Grader, GraderContext } from '../core/grader.js';
import { GradeFailure, type Result } from '../core/result.js';
import { normalizeRecord, type GradeInput } from '../core/sample.js';
import type { RawLine } from './jsonl-reader.js';
import { orderedMap } from '../core/ordered.js';

export type OutputRecord = { id: string | number | null } & Result;

export interface ScoreStreamOptions {
  concurrency?: number;
  /** Ids to skip (already present in the output file, for --resume). */
  skipIds?: Set<string>;
}

function lineError(g: Grader, line: number, message: string): OutputRecord {
  return {
    id: line,
    score: null,
    valid: false,
    error: { kind: 'bad_input', message: `line ${line}: ${message}` },
    metadata: { grader: g.name, type: g.type, duration_ms: 0, line },
  };
}

/** Parses one JSONL line into a GradeInput, or an error record. */
export function parseLine(g: Grader, raw: RawLine): GradeInput | OutputRecord {
  if (raw.text === undefined) return lineError(g, raw.line, `line is ${raw.bytes} bytes, over the size limit`);
  let rec: unknown;
  try {
    rec = JSON.parse(raw.text);
  } catch (e) {
    return lineError(g, raw.line, `invalid JSON: ${(e as Error).message}`);
  }
  try {
    return normalizeRecord(rec);
  } catch (e) {
    const id = rec && typeof rec === 'object' && 'id' in rec && (typeof rec.id === 'string' || typeof rec.id === 'number') ? rec.id : raw.line;
    const out = lineError(g, raw.line, e instanceof GradeFailure ? e.message : String(e));
    out.id = id;
    return out;
  }
}

function withId(id: string | number | null, r: Result): OutputRecord {
  return { id, ...r };
}

/** Grades input lines; yields output records in input order. Blank lines are skipped. */
export function scoreLines(
  grader: Grader,
  lines: AsyncIterable<RawLine>,
  ctx: GraderContext,
  opts: ScoreStreamOptions = {},
): AsyncGenerator<OutputRecord> {
  const skip = opts.skipIds;
  // each line becomes either a ready record (a malformed line) or an input to grade
  async function* prepared(): AsyncGenerator<OutputRecord | { id: string | number; input: GradeInput }> {
    for await (const raw of lines) {
      if (raw.text !== undefined && raw.text.trim() === '') continue;
      const parsed = parseLine(grader, raw);
      if ('sample' in parsed) {
        const id = parsed.id ?? raw.line;
        if (!skip?.has(String(id))) yield { id, input: parsed };
      } else if (!skip?.has(String(parsed.id))) yield parsed;
    }
  }
  return orderedMap(
    prepared(),
    (x) => ('input' in x ? grader.grade(x.input, ctx).then((r) => withId(x.id, r)) : x),
    opts.concurrency ?? 64,
  );
}
