// The named graders a server holds: parsing `name=path.json` specs, loading the files, and
// resolving the grader a request asks for (by name, or the default).
import { existsSync } from 'node:fs';
import { ConfigError } from '../core/errors.js';
import { loadGraderFile } from '../config/load.js';
// every type: requests may carry inline grader configs of any type
import '../graders/index.js';
import type { Grader } from '../core/grader.js';
import { HttpError } from './http-error.js';

export interface GraderSpec {
  /** Name requested by clients; undefined = use the grader's own name. */
  name?: string;
  file: string;
}

/**
 * `name=path.json` or a plain path. A spec that is an existing file is always a plain path (so
 * paths containing `=` still work); otherwise the name is everything before the first `=`.
 */
export function parseGraderSpec(spec: string): GraderSpec {
  const eq = spec.indexOf('=');
  if (eq <= 0 || existsSync(spec)) return { file: spec };
  return { name: spec.slice(0, eq), file: spec.slice(eq + 1) };
}

/** Loads every spec; throws ConfigError for a bad file or a duplicate name. */
export async function loadGraderSpecs(specs: (string | GraderSpec)[]): Promise<Map<string, Grader>> {
  const out = new Map<string, Grader>();
  for (const s of specs) {
    const spec = typeof s === 'string' ? parseGraderSpec(s) : s;
    const g = await loadGraderFile(spec.file);
    const name = spec.name ?? g.name;
    if (out.has(name)) {
      throw new ConfigError([{ path: 'name', message: `two graders are named "${name}"; give one another name with --grader NAME=${spec.file}` }], spec.file);
    }
    out.set(name, g);
  }
  return out;
}

export class GraderSet {
  private readonly byName: Map<string, Grader>;
  readonly defaultName: string;

  constructor(graders: Map<string, Grader>, defaultName: string) {
    this.byName = graders;
    this.defaultName = defaultName;
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The grader named `name` (the default when undefined/null/empty); 404 for unknown names. */
  resolve(name: unknown): { name: string; grader: Grader } {
    if (name === undefined || name === null || name === '') return { name: this.defaultName, grader: this.byName.get(this.defaultName)! };
    if (typeof name !== 'string') throw new HttpError(400, 'invalid_request', `field "grader" must be a grader name (string), got ${typeof name}`);
    const g = this.byName.get(name);
    if (!g) {
      throw new HttpError(404, 'unknown_grader', `unknown grader "${name.slice(0, 200)}" (loaded: ${this.names().join(', ')})`);
    }
    return { name, grader: g };
  }
}
