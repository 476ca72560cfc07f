// Buffered JSONL writer with back-pressure: batches lines into large writes and waits for
// 'drain' so memory stays bounded however fast grading is; buffered lines are also written after
// `flushAfterMs` so a slow run's output shows up while it runs. Records' ids are written as their
// raw source text (stringifyRecord).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { stringifyRecord } from '../core/json.js';

export class JsonlWriter {
  private buf = '';
  private error: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  constructor(
    private readonly out: Writable,
    private readonly flushAt = 256 * 1024,
    private readonly flushAfterMs = 200,
  ) {
    out.on('error', (e) => {
      this.error = e;
    });
  }

  async write(rec: object): Promise<void> {
    if (this.error) throw this.error;
    this.buf += stringifyRecord(rec) + '\n';
    if (this.buf.length >= this.flushAt) await this.flush();
    else if (!this.timer && this.flushAfterMs > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.flush().catch((e: Error) => {
          this.error ??= e;
        });
      }, this.flushAfterMs);
      this.timer.unref();
    }
  }

  /** Appends already-serialised text (one or more lines, each ending in a newline). */
  async writeText(text: string): Promise<void> {
    if (this.error) throw this.error;
    this.buf += text;
    if (this.buf.length >= this.flushAt) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.error) throw this.error;
    if (!this.buf) return;
    const chunk = this.buf;
    this.buf = '';
    if (!this.out.write(chunk)) {
      await once(this.out, 'drain'); // rejects if the stream errors meanwhile
    }
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
