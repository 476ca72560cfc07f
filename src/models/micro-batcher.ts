// Collects items submitted close together into batches (up to `maxBatch`, or whatever arrived
// within `maxWaitMs`) and sends each batch with one call; each submitter gets its own result.

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

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
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
