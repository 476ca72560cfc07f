// Shared, lazily created resources that graders need (sandbox pool, model clients, caches),
// owned by whoever runs the grading (CLI run, server, library caller) and closed once at the end.

export interface ServicesOptions {
  /** Run code graders without bubblewrap (explicit opt-in; never the default). */
  unsafeNoSandbox?: boolean;
  /** Directory for on-disk caches (judge responses). */
  cacheDir?: string;
  /**
   * Module specifiers (URLs or absolute paths) that `threads` workers import before building their
   * grader: where library users register their own grader types.
   */
  workerModules?: string[];
  /** Where images for model graders may come from: folders and URL prefixes the operator allows (src/images/sources.ts). */
  images?: { dirs?: readonly string[]; urls?: readonly string[] };
  /** Free-form options for capabilities (e.g. sandbox concurrency). */
  [key: string]: unknown;
}

interface Entry {
  value: unknown;
  close?: () => unknown;
}

export class Services {
  readonly options: ServicesOptions;
  private readonly entries = new Map<string, Entry>();

  constructor(options: ServicesOptions = {}) {
    this.options = options;
  }

  /**
   * Returns the service registered under `key`, creating it on first use. `close` is called by
   * `Services.close()` (e.g. to stop a worker pool).
   */
  get<T>(key: string, create: () => T, close?: (value: T) => unknown): T {
    const e = this.entries.get(key);
    if (e) return e.value as T;
    const value = create();
    this.entries.set(key, { value, close: close ? () => close(value) : undefined });
    return value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  async close(): Promise<void> {
    const entries = [...this.entries.values()].reverse();
    this.entries.clear();
    for (const e of entries) {
      try {
        await e.close?.();
      } catch {
        // closing is best effort; a failing close must not hide results already written
      }
    }
  }
}
