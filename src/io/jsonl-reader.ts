// Streaming JSONL reader: splits bytes into lines without holding the file in memory, numbers
// lines from 1, and caps line size (an oversized line becomes an error record, not an OOM).
import type { Readable } from 'node:stream';

export interface RawLine {
  /** 1-based line number in the input. */
  line: number;
  /** The line text (without the newline); undefined when the line was over the size cap. */
  text?: string;
  /** Byte length of the line (also when it was dropped). */
  bytes: number;
}

export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Yields every line of a byte stream, including empty ones (callers decide to skip blanks).
 * A final line without a trailing newline is yielded too.
 */
export async function* readLines(stream: Readable, maxLineBytes = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let oversized = false;
  let line = 0;
  const emit = (buf: Buffer | null, extraBytes: number): RawLine => {
    line++;
    const bytes = partBytes + extraBytes;
    let text: string | undefined;
    if (!oversized) {
      const whole = parts.length === 0 ? buf! : Buffer.concat(buf ? [...parts, buf] : parts);
      let end = whole.length;
      if (end > 0 && whole[end - 1] === 13) end--; // CRLF
      text = whole.toString('utf8', 0, end);
    }
    parts = [];
    partBytes = 0;
    oversized = false;
    return text === undefined ? { line, bytes } : { line, text, bytes };
  };
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      if (nl < 0) break;
      const piece = buf.subarray(start, nl);
      if (!oversized && partBytes + piece.length > maxLineBytes) oversized = true;
      yield emit(oversized ? null : piece, piece.length);
      start = nl + 1;
    }
    if (start < buf.length) {
      const rest = buf.subarray(start);
      partBytes += rest.length;
      if (partBytes > maxLineBytes) {
        oversized = true;
        parts = [];
      } else {
        parts.push(Buffer.from(rest)); // copy: the stream may reuse its chunk
      }
    }
  }
  if (partBytes > 0 || parts.length > 0) yield emit(null, 0);
}

/** A run of consecutive lines: `texts[i]` is line `first + i` (undefined when over the size cap). */
export interface LineBatch {
  first: number;
  texts: (string | undefined)[];
  /** Byte length of each dropped (oversized) line, by index in `texts`. */
  dropped?: Map<number, number>;
}

/**
 * The same lines as `readLines`, yielded in batches (one per input chunk) and decoded a chunk at a
 * time: for callers whose per-line work is small enough that a per-line await would dominate.
 */
export async function* readLineBatches(stream: Readable, maxLineBytes = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<LineBatch> {
  let carry: Buffer[] = [];
  let carryBytes = 0;
  let oversized = false;
  let line = 0;
  const strip = (s: string) => (s.length > 0 && s.charCodeAt(s.length - 1) === 13 ? s.slice(0, -1) : s);
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    const firstNl = buf.indexOf(10);
    if (firstNl < 0) {
      carryBytes += buf.length;
      if (carryBytes > maxLineBytes) {
        oversized = true;
        carry = [];
      } else carry.push(Buffer.from(buf)); // copy: the stream may reuse its chunk
      continue;
    }
    const batch: LineBatch = { first: line + 1, texts: [] };
    const drop = (bytes: number) => {
      (batch.dropped ??= new Map()).set(batch.texts.length, bytes);
      batch.texts.push(undefined);
    };
    let start = 0;
    if (carryBytes > 0 || oversized) {
      const bytes = carryBytes + firstNl;
      if (oversized || bytes > maxLineBytes) drop(bytes);
      else batch.texts.push(strip(Buffer.concat([...carry, buf.subarray(0, firstNl)]).toString('utf8')));
      carry = [];
      carryBytes = 0;
      oversized = false;
      start = firstNl + 1;
    }
    const last = buf.lastIndexOf(10);
    if (last >= start) {
      // a newline byte never occurs inside a multi-byte UTF-8 sequence, so the run decodes whole
      const parts = buf.toString('utf8', start, last).split('\n');
      const check = last - start > maxLineBytes;
      for (const p of parts) {
        if (check && Buffer.byteLength(p) > maxLineBytes) drop(Buffer.byteLength(p));
        else batch.texts.push(strip(p));
      }
      start = last + 1;
    }
    if (start < buf.length) {
      const rest = buf.subarray(start);
      carryBytes = rest.length;
      if (carryBytes > maxLineBytes) oversized = true;
      else carry = [Buffer.from(rest)];
    }
    line += batch.texts.length;
    yield batch;
  }
  if (carryBytes > 0 || oversized) {
    const batch: LineBatch = { first: line + 1, texts: [] };
    if (oversized) {
      batch.dropped = new Map([[0, carryBytes]]);
      batch.texts.push(undefined);
    } else batch.texts.push(strip(Buffer.concat(carry).toString('utf8')));
    yield batch;
  }
}
