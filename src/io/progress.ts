// A progress line on stderr, only when stderr is a terminal; redrawn at most 10 times a second.
import type { SummaryStats } from './summary.js';

export class Progress {
  private last = 0;
  private readonly enabled: boolean;
  constructor(
    private readonly stats: SummaryStats,
    private readonly totalBytes?: number,
    enabled = Boolean(process.stderr.isTTY),
  ) {
    this.enabled = enabled;
  }

  tick(bytesRead: number): void {
    if (!this.enabled) return;
    const now = performance.now();
    if (now - this.last < 100) return;
    this.last = now;
    const s = this.stats;
    const rate = Math.round(s.count / Math.max(s.elapsed(), 1e-3));
    let bar = '';
    if (this.totalBytes) {
      const frac = Math.min(1, bytesRead / this.totalBytes);
      const width = 24;
      const filled = Math.round(frac * width);
      bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(1).padStart(5)}% `;
    }
    const mean = s.mean === null ? '-' : s.mean.toFixed(3);
    process.stderr.write(`\r${bar}${s.count} graded, ${rate}/s, ${s.count - s.valid} invalid, mean ${mean}\x1b[K`);
  }

  done(): void {
    if (this.enabled) process.stderr.write('\r\x1b[K');
  }
}
