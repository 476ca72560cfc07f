// tau-bench's databases: loaded once per process from the benchmark's JSON files (with Python's int
// vs float kept), then used copy-on-write per episode: an episode's table starts as a shallow copy of
// the shared one, and a record (one user, reservation, order…) is deep-copied into the episode the
// first time a tool changes it. So replaying a trajectory costs what its tools touch, and two
// episodes on the same base compare by looking at the records either of them touched.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { locateData } from '../../io/data.js';
import { firstDifference, hashableRepr, hashableSha256, sameHashable } from './hash.js';
import { loads } from '../../py/json.js';
import { deepCopy, getItem, isDict, PyDict, PyError, type PyValue } from '../../py/ops.js';
import { compareCodePoints } from '../../py/values.js';

/** The tables of each domain, in the order tau-bench's load_data builds its dict. */
export const DOMAIN_TABLES = {
  airline: ['flights', 'reservations', 'users'],
  retail: ['orders', 'products', 'users'],
} as const;

export type Domain = keyof typeof DOMAIN_TABLES;
export const DOMAINS = Object.keys(DOMAIN_TABLES) as Domain[];

export function isDomain(x: unknown): x is Domain {
  return typeof x === 'string' && Object.hasOwn(DOMAIN_TABLES, x);
}

/** Thrown when the benchmark's files cannot be found or read (a setup problem, not a sample's). */
export class TauDataError extends Error {
  override name = 'TauDataError';
}

/** Environment variable naming the folder that holds airline/ and retail/ (else $ARBITER_DATA/tau-bench). */
export const DATA_DIR_ENV = 'ARBITER_TAU_BENCH_DIR';

let overrideDir: string | undefined;
/** $ARBITER_TAU_BENCH_DIR as it was before setDataDir changed it (restored by setDataDir(undefined)). */
let envBefore: { value: string | undefined } | undefined;

/**
 * Sets the data folder for this process (the CLI's --tau-bench-dir); undefined restores the search.
 * Also sets $ARBITER_TAU_BENCH_DIR, so worker threads started afterwards (where a budgeted,
 * cpu_heavy tau_bench grade runs) read the same data.
 */
export function setDataDir(dir: string | undefined): void {
  envBefore ??= { value: process.env[DATA_DIR_ENV] };
  overrideDir = dir === undefined ? undefined : resolve(dir);
  const value = overrideDir ?? envBefore.value;
  if (value === undefined) delete process.env[DATA_DIR_ENV];
  else process.env[DATA_DIR_ENV] = value;
}

export function resolveDataDir(): string {
  if (overrideDir) return overrideDir;
  return locateData({ what: 'tau-bench data', folder: 'tau-bench', probe: 'airline/flights.json', env: DATA_DIR_ENV }, (m) => new TauDataError(m));
}

/** The shared, read-only start state of a domain. */
export interface BaseDb {
  readonly domain: Domain;
  readonly tables: ReadonlyMap<string, PyDict>;
}

const baseCache = new Map<string, BaseDb>();

/** Printed hashable forms of a base's records (they never change: episodes copy before writing). */
interface ReprCache {
  get(o: object): string | undefined;
  set(o: object, r: string): void;
  isBase(o: object): boolean;
}

const reprCaches = new WeakMap<BaseDb, ReprCache>();

function baseReprs(base: BaseDb): ReprCache {
  let c = reprCaches.get(base);
  if (!c) {
    const records = new Set<object>();
    for (const t of base.tables.values()) for (const v of t.values()) if (typeof v === 'object' && v !== null) records.add(v);
    const reprs = new WeakMap<object, string>();
    c = { get: (o) => reprs.get(o), set: (o, r) => void reprs.set(o, r), isBase: (o) => records.has(o) };
    reprCaches.set(base, c);
  }
  return c;
}

function readJson(file: string): PyValue {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new TauDataError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return loads(text, { maxDepth: 1000, recursionError: true });
  } catch (e) {
    throw new TauDataError(`${file} is not valid JSON: ${e instanceof PyError ? e.text() : (e as Error).message}`);
  }
}

/** The domain's database as loaded from its files (cached per folder). */
export function loadBase(domain: Domain, dir = resolveDataDir()): BaseDb {
  const key = `${dir}\n${domain}`;
  const hit = baseCache.get(key);
  if (hit) return hit;
  const tables = new Map<string, PyDict>();
  for (const t of DOMAIN_TABLES[domain]) {
    const file = join(dir, domain, `${t}.json`);
    const v = readJson(file);
    if (!isDict(v)) throw new TauDataError(`${file} must hold a JSON object`);
    tables.set(t, v);
  }
  const base: BaseDb = { domain, tables };
  baseCache.set(key, base);
  return base;
}

/** Reads another file of the domain folder (tasks_test.json, wiki.md). */
export function readDomainFile(domain: Domain, name: string, dir = resolveDataDir()): string {
  const file = join(dir, domain, name);
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new TauDataError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

/** One episode's database: the base plus the records this episode created or changed. */
export class TauDb {
  private readonly tables = new Map<string, PyDict>();
  private readonly owned = new Map<string, Set<string>>();
  /** Bumped whenever a tool takes a record to change it (so derived values can be cached). */
  version = 0;

  constructor(readonly base: BaseDb) {}

  /** `data[name]` for this episode (a shallow copy of the base table, made on first use). */
  table(name: string): PyDict {
    let t = this.tables.get(name);
    if (t) return t;
    const b = this.base.tables.get(name);
    if (!b) throw new PyError('KeyError', `'${name}'`);
    t = b.copy();
    this.tables.set(name, t);
    return t;
  }

  /**
   * `data[name][key]`, made this episode's own so it may be changed: Python's KeyError (or
   * TypeError for an unhashable key) when there is no such record, as the indexing would raise.
   */
  own(name: string, key: PyValue): PyValue {
    const t = this.table(name);
    const v = getItem(t, key);
    const k = key as string;
    this.version++;
    let set = this.owned.get(name);
    if (!set) this.owned.set(name, (set = new Set()));
    if (set.has(k)) return v;
    const copy = deepCopy(v);
    t.set(k, copy);
    set.add(k);
    return copy;
  }

  /** `data[name][key] = value` for a new record. */
  put(name: string, key: string, value: PyValue): void {
    this.version++;
    this.table(name).set(key, value);
    let set = this.owned.get(name);
    if (!set) this.owned.set(name, (set = new Set()));
    set.add(key);
  }

  /** The records this episode may have changed, per table. */
  touched(): ReadonlyMap<string, ReadonlySet<string>> {
    return this.owned;
  }

  /** The value of a record in this episode (undefined when absent). */
  record(name: string, key: string): PyValue | undefined {
    return (this.tables.get(name) ?? this.base.tables.get(name))?.get(key);
  }

  /** The whole `data` dict as tau-bench holds it. */
  data(): PyDict {
    const d = new PyDict();
    for (const t of DOMAIN_TABLES[this.base.domain]) d.set(t, this.tables.get(t) ?? this.base.tables.get(t)!);
    return d;
  }

  /**
   * tau-bench's get_data_hash(): sha256 of str(to_hashable(data)). The printed form of every
   * record still shared with the base is computed once per process and reused.
   */
  hash(): string {
    const cache = baseReprs(this.base);
    return hashableSha256(this.data(), (v, depth) => {
      if (depth !== 2) return undefined;
      let r = cache.get(v as object);
      if (r === undefined && cache.isBase(v as object)) cache.set(v as object, (r = hashableRepr(v)));
      return r;
    });
  }

  /** Records (table, key) whose value differs from the base. */
  changed(): RecordRef[] {
    const out: RecordRef[] = [];
    for (const [t, keys] of this.owned) {
      const base = this.base.tables.get(t)!;
      for (const k of keys) {
        const b = base.get(k);
        const v = this.tables.get(t)!.get(k);
        if (b === undefined || v === undefined || !sameHashable(v, b)) out.push({ table: t, key: k });
      }
    }
    return sortRefs(out);
  }
}

export interface RecordRef {
  table: string;
  key: string;
}

function sortRefs(refs: RecordRef[]): RecordRef[] {
  return refs.sort((a, b) => compareCodePoints(a.table, b.table) || compareCodePoints(a.key, b.key));
}

/** The records either episode touched (the only places two episodes on one base can differ). */
function touchedUnion(a: TauDb, b: TauDb): RecordRef[] {
  const seen = new Set<string>();
  const out: RecordRef[] = [];
  for (const db of [a, b]) {
    for (const [t, keys] of db.touched()) {
      for (const k of keys) {
        const id = `${t}\u0000${k}`;
        if (!seen.has(id)) {
          seen.add(id);
          out.push({ table: t, key: k });
        }
      }
    }
  }
  return sortRefs(out);
}

export function refPath(r: RecordRef): string {
  return `${r.table}[${JSON.stringify(r.key)}]`;
}

/**
 * Compares two episodes of the same base as tau-bench's data hashes would: equal exactly when
 * str(to_hashable(a.data)) == str(to_hashable(b.data)). `difference` names the first differing
 * place (tables and keys in sorted order, as the hash visits them), `a` first.
 */
export function compareDbs(a: TauDb, b: TauDb): { same: boolean; difference?: string; differing: RecordRef[] } {
  if (a.base !== b.base) throw new Error('compareDbs: the two databases do not share a base');
  const differing: RecordRef[] = [];
  let difference: string | undefined;
  for (const r of touchedUnion(a, b)) {
    const va = a.record(r.table, r.key);
    const vb = b.record(r.table, r.key);
    if (va !== undefined && vb !== undefined && sameHashable(va, vb)) continue;
    differing.push(r);
    difference ??= firstDifference(va, vb, refPath(r));
  }
  return differing.length ? { same: false, difference, differing } : { same: true, differing };
}
