// Bounded "worst cases" tables: keeps the K highest-severity rows of a stream in a min-heap, so a
// 100,000-pair evaluation lists its worst cases without holding every case in memory. Ties keep
// the earlier row (stable by arrival order).

export interface Ranked<T> {
  severity: number;
  seq: number;
  row: T;
}

export class WorstCases<T> {
  private readonly heap: Ranked<T>[] = [];
  private seq = 0;
  /** Rows offered (not only kept). */
  total = 0;
  constructor(readonly limit: number) {}

  /** Offers a row; keeps it when it is among the `limit` most severe so far. */
  add(severity: number, row: T | (() => T)): void {
    this.total++;
    const seq = this.seq++;
    if (this.limit <= 0) return;
    if (this.heap.length < this.limit) {
      this.heap.push({ severity, seq, row: typeof row === 'function' ? (row as () => T)() : row });
      this.up(this.heap.length - 1);
      return;
    }
    const top = this.heap[0]!;
    // replace the least severe kept row when this one is strictly worse
    if (severity > top.severity) {
      this.heap[0] = { severity, seq, row: typeof row === 'function' ? (row as () => T)() : row };
      this.down(0);
    }
  }

  /** Kept rows, most severe first (earlier first on equal severity). */
  rows(): T[] {
    return [...this.heap].sort((a, b) => b.severity - a.severity || a.seq - b.seq).map((r) => r.row);
  }

  get size(): number {
    return this.heap.length;
  }

  // min-heap order: lower severity first; on equal severity the LATER row is "smaller" (evicted first)
  private less(a: Ranked<T>, b: Ranked<T>): boolean {
    return a.severity < b.severity || (a.severity === b.severity && a.seq > b.seq);
  }

  private up(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
