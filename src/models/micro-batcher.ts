// Collects items submitted close together into batches (up to `maxBatch`, or whatever arrived
// within `maxWaitMs`) and sends each batch with one call; each submitter gets its own result, and
// a submitter whose signal aborts stops waiting (the batch goes on for the others).

export interface BatcherOptions<I, O> {
  maxBatch: number;
  maxWaitMs: number;
  /** Sends one batch; must return one output per input, in order. */
  send(items: I[]): Promise<O[]>;
}

interface Pending<I, O> {
  item: I;
  resolve(v: O): void;
  reject(e: unknown): void;
}

export class MicroBatcher<I, O> {
  private queue: Pending<I, O>[] = [];
  private timer?: NodeJS.Timeout;
  constructor(private readonly opts: BatcherOptions<I, O>) {}

  submit(item: I, signal?: AbortSignal): Promise<O> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    return new Promise<O>((resolve, reject) => {
      const onAbort = () => {
        const i = this.queue.indexOf(p);
        if (i >= 0) this.queue.splice(i, 1);
        reject(signal!.reason ?? new Error('aborted'));
      };
      const done = () => signal?.removeEventListener('abort', onAbort);
      const p: Pending<I, O> = {
        item,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(p);
      if (this.queue.length >= this.opts.maxBatch) this.flush();
      else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.opts.maxWaitMs);
    });
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.opts.maxBatch);
      this.opts.send(batch.map((p) => p.item)).then(
        (outs) => {
          batch.forEach((p, i) => (i < outs.length ? p.resolve(outs[i]!) : p.reject(new Error('batch answer is missing an entry'))));
        },
        (e) => batch.forEach((p) => p.reject(e)),
      );
    }
  }
}
