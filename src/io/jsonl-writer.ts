// Buffered JSONL writer with back-pressure: encodes lines straight into a byte buffer (no long
// string to convert at each write), writes it in large chunks and waits for 'drain' so memory
// stays bounded however fast grading is; buffered lines are also written after `flushAfterMs` so
// a slow run's output shows up while it runs. Records' ids are written as their raw source text
// (stringifyRecord).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringifyRecord } from '../core/json.js';

export class JsonlWriter {
  /** The chunk being filled (handed to the stream whole, so a new one is taken after each write). */
  private buf: Buffer;
  private used = 0;
  /** Chunks full before the current one (a long line, or a buffer without room for one). */
  private pending: Buffer[] = [];
  private error: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly out: Writable,
    /** Bytes buffered before a write. */
    private readonly flushAt = 256 * 1024,
    private readonly flushAfterMs = 200,
  ) {
    this.buf = Buffer.allocUnsafe(flushAt + 64 * 1024);
    out.on('error', (e) => {
      this.error = e;
    });
  }

  async write(rec: object): Promise<void> {
    if (this.add(rec)) await this.flush();
  }

  /**
   * Buffers one record without waiting: true when the buffer is full, and the caller must then
   * `await flush()` before adding more (write() is both; this spares a per-record await).
   */
  add(rec: object): boolean {
    if (this.error) throw this.error;
    return this.append(stringifyRecord(rec), true);
  }

  /** Appends already-serialised text (one or more lines, each ending in a newline). */
  async writeText(text: string): Promise<void> {
    if (this.error) throw this.error;
    if (this.append(text)) await this.flush();
  }

  /** Encodes `text` (and a newline after it when `line`) into the buffer; true when it is full. */
  private append(text: string, line = false): boolean {
    // a UTF-16 code unit is at most 3 bytes of UTF-8
    const most = text.length * 3 + 1;
    if (most > this.buf.length - this.used) {
      if (this.used > 0) this.pending.push(this.take());
      if (most > this.buf.length) {
        this.pending.push(Buffer.from(line ? text + '\n' : text));
        return true;
      }
    }
    this.used += this.buf.write(text, this.used);
    // the newline as a byte: `text + '\n'` would be one more string to build and flatten
    if (line) this.buf[this.used++] = 10;
    if (this.used >= this.flushAt || this.pending.length) return true;
    if (!this.timer && this.flushAfterMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch((e: Error) => {
          this.error ??= e;
        });
      }, this.flushAfterMs);
      this.timer.unref();
    }
    return false;
  }

  /** The filled part of the buffer, which then starts afresh. */
  private take(): Buffer {
    const chunk = this.buf.subarray(0, this.used);
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.used = 0;
    return chunk;
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.error) throw this.error;
    const chunks = this.pending;
    this.pending = [];
    if (this.used > 0) chunks.push(this.take());
    // all written before any wait, so that a flush started meanwhile cannot come in between
    let full = false;
    for (const chunk of chunks) full = !this.out.write(chunk);
    if (full) await once(this.out, 'drain'); // rejects if the stream errors meanwhile
  }

  /** Flushes and ends the stream (unless it is stdout). */
  async close(end: boolean): Promise<void> {
    await this.flush();
    if (end) {
      await new Promise<void>((resolve, reject) => {
        this.out.end((err?: Error | null) => (err ? reject(err) : resolve()));
      });
    }
    if (this.error) throw this.error;
  }
}
