// Grades a stream of input lines with bounded concurrency and yields exactly one output record per
// input line, in input order. Malformed lines (invalid JSON or UTF-8, blank, too deep, not a record)
// become invalid results that name the line number. Ids are kept as their raw JSON text (ID_JSON).
import { setMaxListeners } from 'node:events';
import type { Grader, GraderContext } from '../core/grader.js';
import { GradeFailure, invalidResult, type ErrorKind, type Result } from '../core/result.js';
import { normalizeRecord, type GradeInput } from '../core/sample.js';
import { DEFAULT_MAX_JSON_DEPTH, ID_JSON, leadingIdRaw, mayNestDeeperThan, parseJsonExact, scanJson, tooDeepMessage, type JsonScan } from '../core/json.js';
import type { RawLine } from './jsonl-reader.js';
import { ResumeError } from './errors.js';

/**
 * One output line. `id` is the record's id as JSON.parse reads it (the line number when the record
 * has none); `[ID_JSON]` is its exact source text, which writers emit instead (see stringifyRecord).
 */
export type OutputRecord = { id: string | number | null; [ID_JSON]?: string; [INPUT]?: GradeInput } & Result;

/** The input a record was graded from, on records of `scoreLines(..., {withInput: true})` (not serialised). */
export const INPUT: unique symbol = Symbol('arbiter.input');

/** Fields of a result record: `--keep` may not name them. */
export const RESULT_FIELDS: readonly string[] = ['id', 'score', 'valid', 'error', 'reason', 'components', 'steps', 'metadata'];

/** What `arbiter score` carries from each input line by default. */
export const DEFAULT_KEEP: readonly string[] = ['uid', 'global_step'];

/** Checks a --keep list: names only, none a result field, no repeats. Returns the message of the first problem. */
export function keepProblem(keep: readonly string[]): string | undefined {
  const seen = new Set<string>();
  for (const k of keep) {
    if (!k) return 'an empty field name';
    if (RESULT_FIELDS.includes(k)) return `"${k}" is a field of every result (${RESULT_FIELDS.join(', ')}), so it cannot be carried from the input`;
    if (seen.has(k)) return `"${k}" is named twice`;
    seen.add(k);
  }
  return undefined;
}

function isObj(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * The input fields named by `keep`: each read from the record's top level, else from its `sample`,
 * else from its `item` (so `global_step` in the item and `response_length` in the sample are found).
 * Undefined when none is present.
 */
export function keptFields(rec: unknown, keep: readonly string[]): Record<string, unknown> | undefined {
  if (!keep.length || !isObj(rec)) return undefined;
  let out: Record<string, unknown> | undefined;
  for (const k of keep) {
    let v = rec[k];
    if (v === undefined && isObj(rec.sample)) v = rec.sample[k];
    if (v === undefined && isObj(rec.item)) v = rec.item[k];
    if (v !== undefined) (out ??= {})[k] = v;
  }
  return out;
}

export interface ScoreStreamOptions {
  concurrency?: number;
  /** Deepest JSON nesting accepted in a line (default DEFAULT_MAX_JSON_DEPTH); deeper lines are `limit_exceeded`. */
  maxJsonDepth?: number;
  /**
   * For --resume: the raw ids of the records already in the output, in order. Input line k must have
   * the id of output record k (its raw text, or its line number when it has none) and is skipped;
   * a mismatch, or an input shorter than the output, throws ResumeError before anything is yielded.
   */
  done?: readonly string[];
  /**
   * When aborted, no further input line is read, and samples still grading resolve at once to an
   * invalid `timeout` record ("interrupted"): a consumer that wants an exact prefix of the results
   * (scoreFile) stops at the first record it receives after the abort.
   */
  signal?: AbortSignal;
  /** Yield finished results while waiting for more input (for pipes; see orderedMap). */
  eager?: boolean;
  /** Input fields each output record carries, after its id (default DEFAULT_KEEP; [] for none). */
  keep?: readonly string[];
  /** Attach the graded input to each record under the INPUT symbol (the pipeline's monitors read its text). */
  withInput?: boolean;
}

/** A line ready to grade: its number, the raw text of its id, and the normalised input. */
export interface ParsedLine {
  line: number;
  idJson: string;
  /** True when idJson is not what JSON.stringify writes for the id (1e999, 1.0, "\u0041"...). */
  exotic: boolean;
  input: GradeInput;
  /** The --keep fields of the line. */
  kept?: Record<string, unknown>;
}

function lineError(
  g: Grader,
  line: number,
  kind: ErrorKind,
  message: string,
  id?: { value: string | number; raw: string },
  kept?: Record<string, unknown>,
): OutputRecord {
  const out: OutputRecord = {
    id: id ? id.value : line,
    ...kept,
    score: null,
    valid: false,
    error: { kind, message: `line ${line}: ${message}` },
    metadata: { grader: g.name, type: g.type, duration_ms: 0, line },
  };
  out[ID_JSON] = id ? id.raw : String(line);
  return out;
}

/** The raw id text when it is a string or number literal (validated by JSON.parse), else undefined. */
function rawId(raw: string | undefined): { value: string | number; raw: string } | undefined {
  if (raw === undefined) return undefined;
  const c = raw.charCodeAt(0);
  if (c !== 34 && c !== 45 && !(c >= 48 && c <= 57)) return undefined; // " - 0-9
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'string' || typeof v === 'number' ? { value: v, raw } : undefined;
  } catch {
    return undefined;
  }
}

function lastTopId(scan: JsonScan): string | undefined {
  let top: string | undefined;
  for (const m of scan.ids) if (m.path.length === 0) top = m.raw; // the last one wins, as in JSON.parse
  return top;
}

/**
 * The id's raw source text. The usual layout (`{"id": ...` first) is read directly, else the scan
 * stops at the first top-level "id"; only when that does not read back as the parsed id (a duplicate
 * key: JSON.parse keeps the last) is the whole line scanned. `exotic` when the text differs from
 * what JSON.stringify writes (1e999, 1.0, "\u0041"), i.e. when writers must splice it in.
 */
function exactId(text: string, value: string | number, maxDepth: number): { value: string | number; raw: string; exotic: boolean } {
  // what JSON.stringify writes (String() is the same text for a finite number, and quicker)
  const plain = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : 'null') : JSON.stringify(value);
  // the plain case, `{"id":<plain>` then a delimiter, checked in place (a complete literal that
  // matches char for char ends where it ends; the delimiter rules out 1.0, 1e5 and the like)
  if (text.charCodeAt(0) === 123 && text.startsWith('"id":', 1) && text.startsWith(plain, 6) && isIdEnd(text.charCodeAt(6 + plain.length))) {
    return { value, raw: plain, exotic: false };
  }
  const lead = leadingIdRaw(text);
  if (lead === plain) return { value, raw: plain, exotic: false };
  let r = rawId(lead ?? lastTopId(scanJson(text, { maxDepth, idLevels: 1, firstId: true })));
  if (!r || r.value !== value) r = rawId(lastTopId(scanJson(text, { maxDepth, idLevels: 1 })));
  // the scan's text must read back as the parsed id; otherwise re-serialise it
  return r && r.value === value ? { value, raw: r.raw, exotic: r.raw !== plain } : { value, raw: plain, exotic: false };
}

/** A character that may follow a member's value: `,` `}` or JSON whitespace. */
function isIdEnd(c: number): boolean {
  return c === 44 || c === 125 || c === 32 || c === 9 || c === 10 || c === 13;
}

function hex(b: number | undefined): string {
  return b === undefined ? '?' : '0x' + b.toString(16).padStart(2, '0').toUpperCase();
}

/** Parses one JSONL line into a line to grade, or an error record. */
export function parseLine(g: Grader, raw: RawLine, maxDepth = DEFAULT_MAX_JSON_DEPTH, keep: readonly string[] = []): ParsedLine | OutputRecord {
  const line = raw.line;
  if (raw.invalidUtf8 !== undefined) {
    const at = raw.offset === undefined ? '' : ` (byte ${raw.offset + raw.invalidUtf8} of the input)`;
    return lineError(g, line, 'bad_input', `not valid UTF-8: byte ${hex(raw.invalidByte)} at byte offset ${raw.invalidUtf8} of the line${at}`);
  }
  if (raw.text === undefined) return lineError(g, line, 'bad_input', `line is ${raw.bytes} bytes, over the size limit`);
  const text = raw.text;
  if (!/\S/.test(text)) {
    return lineError(
      g,
      line,
      'bad_input',
      text === '' ? 'empty line (every input line gets an output line)' : 'blank line: only whitespace (every input line gets an output line)',
    );
  }
  // depth first (before JSON.parse builds anything): most lines have too few brackets to need the scan
  if (mayNestDeeperThan(text, maxDepth)) {
    const scan = scanJson(text, { maxDepth, idLevels: 1 });
    if (scan.tooDeep) return lineError(g, line, 'limit_exceeded', tooDeepMessage(scan.tooDeep.path, maxDepth), rawId(lastTopId(scan)));
  }
  let rec: unknown;
  try {
    rec = parseJsonExact(text); // integers past 2^53 as BigInt
  } catch (e) {
    const bom = text.charCodeAt(0) === 0xfeff ? ' (the line starts with a byte-order mark U+FEFF; only one at the very start of the input is removed)' : '';
    return lineError(g, line, 'bad_input', `invalid JSON: ${(e as Error).message}${bom}`);
  }
  let recId = rec && typeof rec === 'object' && !Array.isArray(rec) ? (rec as { id?: unknown }).id : undefined;
  if (typeof recId === 'bigint') {
    // an id is echoed as its source text (ID_JSON); its value stays the number JSON.parse reads
    recId = Number(recId);
    (rec as { id?: unknown }).id = recId;
  }
  const id = typeof recId === 'string' || typeof recId === 'number' ? exactId(text, recId, maxDepth) : undefined;
  const kept = keptFields(rec, keep);
  try {
    const input = normalizeRecord(rec, { maxDepth: Infinity }); // depth was checked on the text
    const p: ParsedLine = { line, idJson: id ? id.raw : String(line), exotic: id?.exotic === true, input };
    if (kept) p.kept = kept;
    return p;
  } catch (e) {
    return lineError(g, line, e instanceof GradeFailure ? e.kind : 'bad_input', e instanceof GradeFailure ? e.message : String(e), id, kept);
  }
}

/** The raw id text an input line's output record carries. */
export function idJsonOf(x: ParsedLine | OutputRecord): string {
  return 'input' in x ? x.idJson : (x[ID_JSON] ?? JSON.stringify(x.id));
}

function withId(x: ParsedLine, r: Result, withInput: boolean): OutputRecord {
  const out: OutputRecord = { id: x.input.id ?? x.line, ...x.kept, ...r };
  if (x.exotic) out[ID_JSON] = x.idJson;
  if (withInput) out[INPUT] = x.input;
  return out;
}

const short = (s: string) => (s.length > 80 ? s.slice(0, 77) + '...' : s);

/** One line's place in a run: the line to grade (none for a ready record) and its record once finished. */
interface Slot {
  x: ParsedLine | undefined;
  rec: OutputRecord | undefined;
  /** 0 grading, 1 finished (`rec` is set), 2 the grade rejected (a grader bug: `error` holds why). */
  state: 0 | 1 | 2;
  error?: unknown;
}

const HEAD: unique symbol = Symbol('head');
const noop = () => {};

/**
 * Grades input lines arriving in batches (readRawLineBatches: one per input chunk); yields the
 * output records in input order, one per input line (blank ones included), in arrays. At most
 * `concurrency` lines are between being read and being yielded. Each grade settles its own slot,
 * and the run waits only when that many are in flight (or at the end), so lines that grade at
 * once cost no await of their own; the abort (opts.signal) is one listener for the whole run.
 */
export function scoreBatches(
  grader: Grader,
  batches: AsyncIterable<readonly RawLine[]>,
  ctx: GraderContext,
  opts: ScoreStreamOptions = {},
): AsyncGenerator<OutputRecord[]> {
  const keep = opts.keep ?? DEFAULT_KEEP;
  const bad = keepProblem(keep);
  if (bad) throw new TypeError(`keep: ${bad}`);
  return gradeBatches(grader, batches, ctx, opts, keep);
}

async function* gradeBatches(
  grader: Grader,
  batches: AsyncIterable<readonly RawLine[]>,
  ctx: GraderContext,
  opts: ScoreStreamOptions,
  keep: readonly string[],
): AsyncGenerator<OutputRecord[]> {
  const maxDepth = opts.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  const withInput = opts.withInput === true;
  const done = opts.done;
  const signal = opts.signal;
  const eager = opts.eager === true;
  const limit = Math.max(1, opts.concurrency ?? 64);
  // every sample in flight shares the run's signal, and each may listen on it (a sandbox slot it
  // waits for, a model request): more than ten listeners is the design here, not a leak
  for (const s of new Set([signal, ctx.signal])) if (s) setMaxListeners(0, s);
  const queue: (Slot | undefined)[] = [];
  let head = 0;
  // the one wait of the run: for the slot `waiting` to finish (or the abort)
  let waiting: Slot | undefined;
  let wake: (() => void) | undefined;
  const wakeUp = () => {
    const w = wake;
    wake = undefined;
    waiting = undefined;
    w?.();
  };
  const headFinished = (): Promise<typeof HEAD> => {
    const s = queue[head];
    if (s?.state !== 0) return Promise.resolve(HEAD);
    waiting = s;
    return new Promise<typeof HEAD>((resolve) => {
      wake = () => resolve(HEAD);
    });
  };
  const interrupted = (x: ParsedLine): OutputRecord =>
    withId(
      x,
      invalidResult('timeout', `line ${x.line}: the run was interrupted before this sample was graded`, { grader: grader.name, type: grader.type }),
      withInput,
    );
  // on abort, every sample still grading is finished at once (graders that ignore the signal cannot hold the run)
  const onAbort = () => {
    for (let i = head; i < queue.length; i++) {
      const s = queue[i]!;
      if (s.state === 0) {
        s.rec = interrupted(s.x!);
        s.state = 1;
      }
    }
    wakeUp();
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const start = (x: ParsedLine): Slot => {
    const slot: Slot = { x, rec: undefined, state: 0 };
    grader.grade(x.input, ctx).then(
      (r) => {
        if (slot.state === 0) {
          slot.rec = withId(x, r, withInput);
          slot.state = 1;
        }
        if (waiting === slot) wakeUp();
      },
      (e: unknown) => {
        if (slot.state === 0) {
          slot.state = 2;
          slot.error = e;
        }
        if (waiting === slot) wakeUp();
      },
    );
    return slot;
  };
  let out: OutputRecord[] = [];
  /** Moves the finished slots at the head, in order, to `out`. */
  const harvest = () => {
    while (head < queue.length) {
      const s = queue[head]!;
      if (s.state === 0) break;
      if (s.state === 2) throw s.error;
      out.push(s.rec!);
      queue[head++] = undefined;
    }
    if (head > 4096) {
      queue.splice(0, head);
      head = 0;
    }
  };
  const it = batches[Symbol.asyncIterator]();
  let next: Promise<IteratorResult<readonly RawLine[]>> | undefined;
  let ended = false;
  let k = 0;
  try {
    read: for (;;) {
      if (signal?.aborted) break;
      if (!next) {
        next = it.next();
        next.catch(noop); // awaited below; this only keeps an abandoned read from being "unhandled"
      }
      let r: IteratorResult<readonly RawLine[]>;
      try {
        if (eager && head < queue.length) {
          // an input that can stall does not hold back results that are ready
          const won = await Promise.race([next, headFinished()]);
          if (won === HEAD) {
            harvest();
            if (out.length) {
              yield out;
              out = [];
            }
            continue;
          }
          r = won;
        } else r = await next;
      } catch (e) {
        if (signal?.aborted) break; // the input was closed to stop the run
        throw e;
      }
      next = undefined;
      if (r.done) {
        ended = true;
        if (done && k < done.length && !signal?.aborted) {
          throw new ResumeError(
            `--resume: the output file has ${done.length} records but the input has only ${k} lines: it was not written from this input; nothing was appended`,
          );
        }
        break;
      }
      for (const raw of r.value) {
        if (signal?.aborted) break read;
        const parsed = parseLine(grader, raw, maxDepth, keep);
        if (done && k < done.length) {
          const want = done[k]!;
          const got = idJsonOf(parsed);
          if (want !== got) {
            throw new ResumeError(
              `--resume: output record ${k + 1} has id ${short(want)} but input line ${raw.line} has id ${short(got)}: ` +
                'the output file was not written from this input (or by an arbiter that skipped blank lines); nothing was appended. Write to a new output file.',
            );
          }
          k++;
          continue;
        }
        while (queue.length - head >= limit) {
          await headFinished();
          harvest();
          // yielded now, not at the batch's end, so that a slow run's records flow as they finish
          if (out.length) {
            yield out;
            out = [];
          }
          if (signal?.aborted) break read;
        }
        queue.push('input' in parsed ? start(parsed) : { x: undefined, rec: parsed, state: 1 });
      }
      harvest();
      if (out.length) {
        yield out;
        out = [];
      }
    }
    for (;;) {
      harvest();
      if (out.length) {
        yield out;
        out = [];
      }
      if (head >= queue.length) break;
      await headFinished();
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // the consumer stopped early (or a grade threw): close the input without waiting for a pending read
    if (!ended) it.return?.()?.catch(noop);
  }
}

/** Grades input lines; yields one output record per input line (blank ones included), in input order. */
export function scoreLines(grader: Grader, lines: AsyncIterable<RawLine>, ctx: GraderContext, opts: ScoreStreamOptions = {}): AsyncGenerator<OutputRecord> {
  const batches = scoreBatches(grader, singles(lines), ctx, opts);
  return (async function* () {
    for await (const b of batches) yield* b;
  })();
}

async function* singles<T>(items: AsyncIterable<T>): AsyncGenerator<T[]> {
  for await (const x of items) yield [x];
}
