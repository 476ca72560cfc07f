// Streaming JSONL reader: splits bytes into lines without holding the file in memory, numbers
// lines from 1, caps line size (an oversized line becomes an error record, not an OOM), removes a
// UTF-8 byte-order mark at the start of the input, and checks each line is valid UTF-8 (an invalid
// line is reported with the offset of its first bad byte, never decoded into U+FFFD).
import { isUtf8 } from 'node:buffer';
import type { Readable } from 'node:stream';

export interface RawLine {
  /** 1-based line number in the input. */
  line: number;
  /** The line text (without the newline); undefined when the line was over the size cap or is not UTF-8. */
  text?: string;
  /** Byte length of the line (also when it was dropped), without its newline. */
  bytes: number;
  /** Byte offset of the line's start in the input. */
  offset?: number;
  /** Set when the line is not valid UTF-8: the byte offset, within the line, of the first invalid byte. */
  invalidUtf8?: number;
  /** The first invalid byte's value (with invalidUtf8). */
  invalidByte?: number;
}

export const DEFAULT_MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * Offset of the first byte that is not part of a well-formed UTF-8 sequence (overlong forms,
 * surrogates and code points above U+10FFFF are invalid, as for TextDecoder's fatal mode), or -1.
 */
export function firstInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0;
      else if (c === 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      else if (c === 0xf4) hi = 0x8f;
    } else return i;
    const b1 = b[i + 1];
    if (b1 === undefined || b1 < lo || b1 > hi) return i;
    for (let k = 2; k <= need; k++) {
      const x = b[i + k];
      if (x === undefined || x < 0x80 || x > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}

/**
 * Yields every line of a byte stream, including empty ones (callers decide what a blank line is).
 * A final line without a trailing newline is yielded too; a newline at the very end does not start
 * another line. A UTF-8 byte-order mark at the start of the input is not part of line 1's text.
 */
export async function* readLines(stream: Readable, maxLineBytes = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<RawLine> {
  for await (const batch of readRawLineBatches(stream, maxLineBytes)) yield* batch;
}

/**
 * The lines of `readLines` (the same records, field for field), yielded in arrays (one per
 * ~16 KB of input): for callers whose per-line work is small enough that a per-line await would dominate
 * (`arbiter score`). A run of whole lines inside a chunk is checked for UTF-8 and decoded at once;
 * a chunk with an invalid byte or a line near the size cap, and the first line of the input (its
 * byte-order mark), go line by line.
 */
export async function* readRawLineBatches(stream: Readable, maxLineBytes = DEFAULT_MAX_LINE_BYTES): AsyncGenerator<RawLine[]> {
  let parts: Buffer[] = [];
  let partBytes = 0;
  let oversized = false;
  let line = 0;
  let offset = 0;
  let out: RawLine[] = [];
  const emit = (buf: Buffer | null, extraBytes: number): void => {
    line++;
    const bytes = partBytes + extraBytes;
    const rec: RawLine = { line, bytes, offset };
    offset += bytes + 1;
    if (!oversized) {
      const whole = parts.length === 0 ? buf! : Buffer.concat(buf ? [...parts, buf] : parts);
      let start = 0;
      let end = whole.length;
      if (line === 1 && end >= 3 && whole[0] === 0xef && whole[1] === 0xbb && whole[2] === 0xbf) start = 3; // BOM
      if (end > start && whole[end - 1] === 13) end--; // CRLF
      const body = whole.subarray(start, end);
      if (isUtf8(body)) rec.text = body.toString('utf8');
      else {
        const at = Math.max(0, firstInvalidUtf8(body));
        rec.invalidUtf8 = start + at;
        rec.invalidByte = body[at]!;
      }
    }
    parts = [];
    partBytes = 0;
    oversized = false;
    out.push(rec);
  };
  /** Lines `buf[start, last)` (each ending at a newline, `last` the final one), line by line. */
  const slow = (buf: Buffer, start: number, last: number): void => {
    while (start <= last) {
      const nl = buf.indexOf(10, start);
      const piece = buf.subarray(start, nl);
      if (piece.length > maxLineBytes) oversized = true;
      emit(oversized ? null : piece, piece.length);
      start = nl + 1;
    }
  };
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    let nl = buf.indexOf(10);
    // the line begun in earlier chunks, and the input's first line, the per-line way
    if (nl >= 0 && (partBytes > 0 || oversized || line === 0)) {
      const piece = buf.subarray(0, nl);
      if (!oversized && partBytes + piece.length > maxLineBytes) oversized = true;
      emit(oversized ? null : piece, piece.length);
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    if (nl >= 0) {
      const last = buf.lastIndexOf(10);
      const region = buf.subarray(start, last);
      // a newline byte never occurs inside a multi-byte UTF-8 sequence, so the run decodes whole
      if (last - start <= maxLineBytes && isUtf8(region)) {
        // decoded a piece of about DECODE_BYTES at a time: strings past ~100 KB are costly to make
        for (let from = start; ; ) {
          const to = from + DECODE_BYTES >= last ? last : Math.min(last, buf.indexOf(10, from + DECODE_BYTES));
          const texts = buf.toString('utf8', from, to).split('\n');
          const ascii = texts.length - 1 + sumLengths(texts) === to - from;
          for (const t of texts) {
            const bytes = ascii ? t.length : Buffer.byteLength(t);
            line++;
            out.push({ line, text: t.length > 0 && t.charCodeAt(t.length - 1) === 13 ? t.slice(0, -1) : t, bytes, offset });
            offset += bytes + 1;
          }
          // yielded piece by piece: a batch's lines stay young (a whole chunk's would outlive collections)
          yield out;
          out = [];
          if (to === last) break;
          from = to + 1;
        }
      } else slow(buf, start, last);
      start = last + 1;
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
    if (out.length) {
      yield out;
      out = [];
    }
  }
  if (partBytes > 0 || parts.length > 0) emit(null, 0);
  if (out.length) yield out;
}

/** Bytes of a chunk decoded into one string by readRawLineBatches. */
const DECODE_BYTES = 16 * 1024;

function sumLengths(texts: readonly string[]): number {
  let n = 0;
  for (const t of texts) n += t.length;
  return n;
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
