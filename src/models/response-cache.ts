// On-disk response cache (SQLite via better-sqlite3, WAL mode) shared by all model clients of a
// run: reruns of deterministic (temperature 0) judge requests cost nothing. Writes are batched
// into one transaction per event-loop turn; a cache that cannot be opened is disabled with a warning.
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { lazyRequire } from '../core/lazy.js';

const sqlite = lazyRequire<typeof Database>('better-sqlite3');

/** Values larger than this are not cached (a runaway judge output should not bloat the file). */
const MAX_VALUE_BYTES = 2 * 1024 * 1024;

export const CACHE_FILE = 'model-responses.sqlite';

export interface CacheStats {
  hits: number;
  misses: number;
  writes: number;
}

export class ResponseCache {
  readonly file: string;
  readonly stats: CacheStats = { hits: 0, misses: 0, writes: 0 };
  private db?: Database.Database;
  private getStmt?: Database.Statement<[string], { value: string }>;
  private putStmt?: Database.Statement<[string, string, number]>;
  private pending = new Map<string, string>();
  private flushScheduled = false;
  /** Why the cache is off, when it could not be opened. */
  disabledReason?: string;

  constructor(dir: string) {
    this.file = resolve(join(dir, CACHE_FILE));
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const db = new (sqlite())(this.file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      db.exec('CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created_at INTEGER NOT NULL)');
      this.getStmt = db.prepare('SELECT value FROM responses WHERE key = ?');
      this.putStmt = db.prepare('INSERT OR REPLACE INTO responses (key, value, created_at) VALUES (?, ?, ?)');
      this.db = db;
    } catch (e) {
      this.disabledReason = `cannot open judge cache ${this.file}: ${(e as Error).message}`;
      process.emitWarning(`${this.disabledReason}; continuing without a cache`, 'ArbiterCacheWarning');
    }
  }

  get enabled(): boolean {
    return this.db !== undefined;
  }

  get<T>(key: string): T | undefined {
    if (!this.db) return undefined;
    const pending = this.pending.get(key);
    let text = pending;
    if (text === undefined) {
      try {
        text = this.getStmt!.get(key)?.value;
      } catch {
        text = undefined;
      }
    }
    if (text === undefined) {
      this.stats.misses++;
      return undefined;
    }
    try {
      const v = JSON.parse(text) as T;
      this.stats.hits++;
      return v;
    } catch {
      this.stats.misses++;
      return undefined;
    }
  }

  set(key: string, value: unknown): void {
    if (!this.db) return;
    const text = JSON.stringify(value);
    if (text.length > MAX_VALUE_BYTES) return;
    this.pending.set(key, text);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes pending entries in one transaction. */
  flush(): void {
    this.flushScheduled = false;
    if (!this.db || this.pending.size === 0) return;
    const entries = [...this.pending];
    this.pending.clear();
    const now = Date.now();
    try {
      this.db.transaction(() => {
        for (const [k, v] of entries) this.putStmt!.run(k, v, now);
      })();
      this.stats.writes += entries.length;
    } catch (e) {
      process.emitWarning(`judge cache write failed: ${(e as Error).message}`, 'ArbiterCacheWarning');
    }
  }

  /** Number of stored entries. */
  size(): number {
    if (!this.db) return 0;
    this.flush();
    return (this.db.prepare('SELECT count(*) AS n FROM responses').get() as { n: number }).n;
  }

  close(): void {
    this.flush();
    this.db?.close();
    this.db = undefined;
  }
}
