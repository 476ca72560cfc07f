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
