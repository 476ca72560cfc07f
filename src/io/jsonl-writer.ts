// Buffered JSONL writer with back-pressure: batches lines into large writes and waits for
// 'drain' so memory stays bounded however fast grading is.
import { once } from 'node:events';
import type { Writable } from 'node:stream';

export class JsonlWriter {
  private buf = '';
  private error: Error | undefined;
  constructor(
    private readonly out: Writable,
    private readonly flushAt = 256 * 1024,
  ) {
    out.on('error', (e) => {
      this.error = e;
    });
  }

  async write(rec: unknown): Promise<void> {
    if (this.error) throw this.error;
    this.buf += JSON.stringify(rec) + '\n';
    if (this.buf.length >= this.flushAt) await this.flush();
  }

  /** Appends already-serialised text (one or more lines, each ending in a newline). */
  async writeText(text: string): Promise<void> {
    if (this.error) throw this.error;
    this.buf += text;
    if (this.buf.length >= this.flushAt) await this.flush();
  }

  async flush(): Promise<void> {
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
