// Back-pressure: at most `concurrency` samples are graded at once and at most `maxQueue` wait for a
// slot; a request whose samples would overflow the queue is refused whole (HTTP 429 + Retry-After),
// so memory stays bounded however fast trainers send.

export class QueueFullError extends Error {
  readonly retryAfterS: number;
  constructor(message: string, retryAfterS: number) {
    super(message);
    this.name = 'QueueFullError';
    this.retryAfterS = retryAfterS;
  }
}

/** Something that can be cancelled (a request scope): callbacks run once, with the reason. */
export interface Cancellable {
  onAbort(cb: (reason: unknown) => void): void;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  cancelled: boolean;
}

export class Admission {
  readonly concurrency: number;
  readonly maxQueue: number;
  /** Samples holding a slot (being graded). */
  inFlight = 0;
  /** Samples waiting for a slot. */
  queued = 0;
  /** Requests refused because the queue was full. */
  rejected = 0;
  private waiters: Waiter[] = [];
  private head = 0;
  private completed = 0;
  private rateT = performance.now();
  private rateN = 0;
  /** Completions per second, smoothed; used to suggest Retry-After. */
  private rate = 0;

  constructor(concurrency: number, maxQueue: number) {
    this.concurrency = concurrency;
    this.maxQueue = maxQueue;
  }

  /**
   * Reserves room for `n` samples or throws QueueFullError. Call `acquire` for each of them in the
   * same synchronous section (before any await), so no other request can take the room.
   */
  admit(n: number): void {
    if (this.inFlight + this.queued + n <= this.concurrency + this.maxQueue) return;
    this.rejected++;
    throw new QueueFullError(
      `server is busy: ${this.inFlight} samples grading, ${this.queued} queued (queue limit ${this.maxQueue}); retry later`,
      this.retryAfter(n),
    );
  }

  /** Seconds a refused client should wait: the time to drain the queue at the recent rate (1-60). */
  retryAfter(n: number): number {
    const rate = Math.max(this.rate, 1);
    return Math.min(60, Math.max(1, Math.ceil((this.queued + n) / rate)));
  }

  /**
   * Takes a slot. Returns undefined when one was free (the common, allocation-free path), else a
   * promise that resolves when a slot is handed over, or rejects with the owner's abort reason if
   * it is cancelled first (the waiter leaves the queue).
   */
  acquire(owner?: Cancellable): Promise<void> | undefined {
    if (this.inFlight < this.concurrency && this.queued === 0) {
      this.inFlight++;
      return undefined;
    }
    this.queued++;
    return new Promise<void>((resolve, reject) => {
      const w: Waiter = { resolve, reject, cancelled: false };
      this.waiters.push(w);
      owner?.onAbort((reason) => {
        if (w.cancelled) return;
        w.cancelled = true;
        this.queued--;
        this.compact();
        reject(reason);
      });
    });
  }

  /** Returns a slot: hands it to the next waiter, or frees it. */
  release(): void {
    this.completed++;
    this.tickRate();
    while (this.head < this.waiters.length) {
      const w = this.waiters[this.head]!;
      this.waiters[this.head++] = undefined as never;
      if (this.head > 1024 && this.head * 2 > this.waiters.length) {
        this.waiters = this.waiters.slice(this.head);
        this.head = 0;
      }
      if (w.cancelled) continue;
      w.cancelled = true;
      this.queued--;
      w.resolve();
      return;
    }
    this.inFlight--;
  }

  /** Drops cancelled waiters when they dominate the array (slots may stay busy for long). */
  private compact(): void {
    if (this.waiters.length - this.head < 1024 + 2 * this.queued) return;
    this.waiters = this.waiters.slice(this.head).filter((w) => !w.cancelled);
    this.head = 0;
  }

  /** Updates the rate at most once a second, reading the clock at every 16th completion (a clock read, about 70 ns, costs more than the rest of a release). */
  private tickRate(): void {
    if ((this.completed & 15) !== 0) return;
    const now = performance.now();
    const dt = now - this.rateT;
    if (dt < 1000) return;
    const r = ((this.completed - this.rateN) * 1000) / dt;
    this.rate = this.rate === 0 ? r : 0.5 * this.rate + 0.5 * r;
    this.rateT = now;
    this.rateN = this.completed;
  }
}
