// A counting semaphore: at most `max` tasks of one endpoint run at once; the rest wait in FIFO order.
// Waiters that are aborted leave the queue without taking a slot.

export class Limiter {
  private active = 0;
  private readonly queue: { resolve: () => void; reject: (e: unknown) => void; signal?: AbortSignal; onAbort?: () => void }[] = [];
  constructor(readonly max: number) {
    if (!(max >= 1)) throw new Error(`concurrency limit must be >= 1, got ${max}`);
  }

  get running(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `fn` when a slot is free. */
  async run<T>(fn: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.acquire(signal);
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  private acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason ?? new Error('aborted'));
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const w: (typeof this.queue)[number] = { resolve, reject, signal };
      if (signal) {
        w.onAbort = () => {
          const i = this.queue.indexOf(w);
          if (i >= 0) this.queue.splice(i, 1);
          reject(signal.reason ?? new Error('aborted'));
        };
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.queue.push(w);
    });
  }

  private release(): void {
    const next = this.queue.shift();
    if (next) {
      if (next.onAbort) next.signal?.removeEventListener('abort', next.onAbort);
      next.resolve(); // the slot passes straight to the next waiter
    } else {
      this.active--;
    }
  }
}
