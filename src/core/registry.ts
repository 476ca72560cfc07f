// The grader registry: grader types register a schema and a builder; loading a config validates
// every node (collecting all problems with their field paths) and builds the grader tree.
import { z } from 'zod';
import { applyAliases, type FieldAlias } from './aliases.js';
import { closest, didYouMean } from './suggest.js';
import { ConfigError, joinPath, type ConfigIssue } from './errors.js';
import { joinCapabilityPath } from './capabilities.js';
import type { CapabilityDeclaration, CapabilityUse } from './capabilities.js';
import { makeGrader, type Evaluate, type Grader } from './grader.js';
import type { Services } from './services.js';
import type { StartupItem } from './startup.js';
import { compileTemplate, compileValue, type Template, type ValueTemplate } from './template.js';

export { CAPABILITIES, PURE, sandboxedCode, unsafeSwitch } from './capabilities.js';
export type { Capability, CapabilityDeclaration, CapabilityUse } from './capabilities.js';
export { applyAliases, type FieldAlias } from './aliases.js';

/** Fields every grader accepts. */
export const baseFields = {
  type: z.string(),
  name: z.string().min(1).optional(),
  description: z.string().optional(),
  /** Score at or above which `metadata.passed` is true. */
  pass_threshold: z.number().optional(),
  /** Hard time budget for this grader (and its children), in milliseconds; start-up is not counted. */
  timeout_ms: z.number().int().positive().optional(),
  /** Longest a grade waits for the grader's start-up (tokenizer, worker threads) before it is an invalid `timeout` (default 120 000). */
  startup_timeout_ms: z.number().int().positive().optional(),
};

/** Builds a strict object schema with the base fields plus the type's own fields. */
export function graderSchema<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject({ ...baseFields, ...shape });
}

/** (`| undefined` on each optional field: zod's inferred configs carry it, and a user compiling with exactOptionalPropertyTypes needs it to match.) */
export interface BaseConfig {
  type: string;
  name?: string | undefined;
  description?: string | undefined;
  pass_threshold?: number | undefined;
  timeout_ms?: number | undefined;
  startup_timeout_ms?: number | undefined;
}

export interface LoadOptions {
  /** File the config came from (for messages). */
  file?: string;
  /** Receives a note for each deprecated option name used (`arbiter validate` prints them); the config still loads. */
  notes?: ConfigIssue[];
  /** Where a field path sits in the file's text (1-based line and column), to put on issues and notes. */
  locate?: (path: string) => { line: number; column: number } | undefined;
}

export interface BuildContext {
  /** Path of this node inside the config ("" at the root). */
  readonly path: string;
  /** The grader's name (config name, else its key in the parent, else its type). */
  readonly name: string;
  readonly options: LoadOptions;
  /** Validates and builds a child grader found at `field` (a path below this node, e.g. `graders.acc`). */
  child(config: unknown, field: string | number, defaultName: string): Grader;
  /** Compiles a template string in `field`; records a config issue on syntax errors. */
  template(field: string, source: string): Template;
  /** Compiles a field that may hold a template or a literal JSON value. */
  value(field: string, v: unknown): ValueTemplate;
  /** Records a config issue for `field` and aborts building this node. */
  fail(field: string, message: string): never;
  /** Records a config issue for `field` and continues. */
  issue(field: string, message: string): void;
}

/** What a type's `warm` gets. */
export interface WarmContext {
  services: Services;
  /** Warms the node's children (what a type without `warm` gets); a type with its own `warm` calls it if they run here. */
  children(): Promise<StartupItem[]>;
}

export interface GraderType<C extends BaseConfig = BaseConfig> {
  type: string;
  /** One line for `arbiter types` and the README. */
  summary: string;
  schema: z.ZodType<C>;
  /**
   * Deprecated option names this type still accepts, rewritten to their new names before `schema`
   * validates the node (see core/aliases.ts); using one records a note in LoadOptions.notes.
   */
  aliases?: readonly FieldAlias[];
  /**
   * What running a grader of this type can reach, from its validated config (see
   * core/capabilities.ts). Only the type's own uses: the registry adds its children's.
   */
  capabilities: CapabilityDeclaration<C>;
  build(config: C, b: BuildContext): Evaluate;
  /**
   * The grade is CPU-bound on untrusted input and may run long without yielding. Such a grade runs
   * in a killable worker thread whenever a time budget applies to it (its own or an ancestor's
   * `timeout_ms`, a server request deadline), so the budget can stop it and the event loop stays
   * free; its own `timeout_ms` then counts from when a worker takes the sample. A function
   * decides per validated config.
   */
  cpu_heavy?: boolean | ((config: C) => boolean);
  /**
   * Starts and warms what this type's grades need (a tokenizer, language profiles, a worker pool)
   * so that no grade pays for it inside its budget; called once per Services, at load by the CLI
   * and the server (core/startup.ts warmGrader) or before the first grade's budget starts.
   * Resources loaded through `startupResource` are reported by name; return more items to report
   * them (an array of StartupItem, or a promise of one; anything else reports nothing). A `cpu_heavy` node that will run in the preemption pool is warmed there instead (in
   * each worker thread). Without `warm`, a node warms its children.
   */
  warm?: (config: C, ctx: WarmContext) => Promise<unknown> | unknown;
}

/** What the runner needs to run a `cpu_heavy` grader where its budget can preempt it. */
export interface PreemptSpec {
  type: string;
  name: string;
  /** The node's validated config (a worker rebuilds the grader from it). */
  config: Record<string, unknown>;
  /** The node's own `timeout_ms`: the preemptor enforces it (the runner then does not). */
  timeoutMs?: number;
}

/**
 * Wraps a cpu_heavy grader's evaluate and enforces its own timeout; installed in the main thread by
 * the worker pool (src/workers/preempt.ts). Without one (inside worker threads) the runner does.
 * `warm` starts the pool's workers and warms the node's config in each of them.
 */
export type Preemptor = (spec: PreemptSpec, evaluate: Evaluate) => { evaluate: Evaluate; warm(services: Services): Promise<StartupItem[]> };

let preemptor: Preemptor | undefined;

/** Installs the wrapper applied to `cpu_heavy` types (core cannot import the worker pool itself). */
export function setPreemptor(p: Preemptor): void {
  preemptor = p;
}

const types = new Map<string, GraderType<BaseConfig>>();

export function registerGraderType<C extends BaseConfig>(t: GraderType<C>): void {
  if (types.has(t.type)) throw new Error(`grader type "${t.type}" is already registered`);
  types.set(t.type, t as unknown as GraderType<BaseConfig>);
}

export function getGraderType(type: string): GraderType | undefined {
  return types.get(type);
}

export function listGraderTypes(): GraderType[] {
  return [...types.values()].sort((a, b) => a.type.localeCompare(b.type));
}

class AbortNode extends Error {}

/**
 * zod issues as config issues with field paths below `base` and readable messages. Given the schema
 * and the value it checked, a misspelt field is one issue, "unknown field ... (did you mean ...)",
 * in place of "missing" plus "unknown"; a value outside an enum gets the closest allowed one.
 */
export function zodIssues(err: z.ZodError, base: string, schema?: z.ZodType, value?: unknown): ConfigIssue[] {
  const out: (ConfigIssue | undefined)[] = [];
  const missing = new Map<string, number>(); // path of a missing required field -> its place in out
  const unknown: { at: (string | number)[]; keys: string[]; index: number }[] = [];
  const pathOf = (segs: readonly PropertyKey[]) => {
    let path = base;
    for (const seg of segs) path = joinPath(path, typeof seg === 'number' ? seg : String(seg));
    return path;
  };
  for (const i of err.issues) {
    const path = pathOf(i.path);
    let message = i.message;
    if (i.code === 'unrecognized_keys') {
      unknown.push({ at: i.path as (string | number)[], keys: i.keys, index: out.length });
      out.push(undefined);
      continue;
    }
    if (i.code === 'invalid_type' && /received undefined/.test(i.message)) {
      message = `required field is missing (expected ${i.expected})`;
      missing.set(path, out.length);
    } else if (i.code === 'invalid_value' && i.values.every((v) => typeof v === 'string')) {
      const got = valueAt(value, i.path);
      const allowed = i.values as string[];
      message =
        typeof got === 'string'
          ? `${JSON.stringify(got)} is not one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${didYouMean(got, allowed)}`
          : `expected one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    }
    out.push({ path, message });
  }
  for (const u of unknown) {
    const parent = pathOf(u.at);
    const known = schema ? objectKeysAt(schema, u.at) : [];
    const replaced: ConfigIssue[] = [];
    for (const k of u.keys) {
      // a required sibling this key is a slip of: one issue instead of two
      const slipOf = closest(
        k,
        [...missing.keys()].filter((m) => parentOf(m) === parent).map((m) => m.slice(parent ? parent.length + 1 : 0)),
      );
      if (slipOf !== undefined) out[missing.get(joinPath(parent, slipOf))!] = undefined;
      const hint = slipOf !== undefined ? ` (did you mean "${slipOf}"?)` : didYouMean(k, known);
      replaced.push({ path: joinPath(parent, k), message: `unknown field "${k}"${hint}` });
    }
    out[u.index] = replaced[0];
    out.splice(u.index + 1, 0, ...replaced.slice(1));
  }
  return out.filter((i): i is ConfigIssue => i !== undefined);
}

function parentOf(path: string): string {
  const cut = Math.max(path.lastIndexOf('.'), path.lastIndexOf('['));
  return cut < 0 ? '' : path.slice(0, cut);
}

function valueAt(value: unknown, segs: readonly PropertyKey[]): unknown {
  let v = value;
  for (const s of segs) {
    if (v === null || typeof v !== 'object') return undefined;
    v = Object.hasOwn(v, s) ? (v as Record<PropertyKey, unknown>)[s] : undefined;
  }
  return v;
}

/** The field names an object schema at `segs` below `schema` declares (best effort: objects, optionals, arrays, unions). */
function objectKeysAt(schema: z.ZodType, segs: readonly (string | number)[]): string[] {
  let level = concrete([schema]);
  for (const seg of segs) {
    const next: z.ZodType[] = [];
    for (const t of level) {
      if (typeof seg === 'string' && t instanceof z.ZodObject && Object.hasOwn(t.shape, seg)) next.push(t.shape[seg] as z.ZodType);
      else if (typeof seg === 'number' && t instanceof z.ZodArray) next.push(t.element as z.ZodType);
    }
    level = concrete(next);
  }
  return [...new Set(level.flatMap((t) => (t instanceof z.ZodObject ? Object.keys(t.shape) : [])))];
}

/** Objects and arrays behind optional, nullable, default, union, pipe and lazy wrappers. */
function concrete(types: z.ZodType[]): z.ZodType[] {
  const out: z.ZodType[] = [];
  const seen = new Set<z.ZodType>();
  const visit = (t: z.ZodType, depth: number): void => {
    if (depth > 20 || seen.has(t)) return;
    seen.add(t);
    if (t instanceof z.ZodObject || t instanceof z.ZodArray) out.push(t);
    else if (t instanceof z.ZodOptional || t instanceof z.ZodNullable || t instanceof z.ZodDefault) visit(t.unwrap() as z.ZodType, depth + 1);
    else if (t instanceof z.ZodUnion) for (const o of t.options) visit(o as z.ZodType, depth + 1);
    else if (t instanceof z.ZodPipe) visit(t.in as z.ZodType, depth + 1);
    else if (t instanceof z.ZodLazy) visit(t.unwrap() as z.ZodType, depth + 1);
  };
  for (const t of types) visit(t, 0);
  return out;
}

function buildNode(config: unknown, path: string, defaultName: string, issues: ConfigIssue[], options: LoadOptions): Grader {
  const placeholder = (): Grader =>
    makeGrader({ name: defaultName, type: 'invalid', config: {}, capabilities: [] }, () => {
      throw new Error('grader config was invalid');
    });
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    issues.push({ path, message: `a grader must be a JSON object, got ${Array.isArray(config) ? 'an array' : typeof config}` });
    return placeholder();
  }
  const typeName = (config as Record<string, unknown>).type;
  if (typeof typeName !== 'string') {
    issues.push({
      path: joinPath(path, 'type'),
      message: `required field "type" is missing or not a string (known types: ${[...types.keys()].sort().join(', ')})`,
    });
    return placeholder();
  }
  const t = types.get(typeName);
  if (!t) {
    const hint = closest(typeName, types.keys());
    issues.push({
      path: joinPath(path, 'type'),
      message:
        hint !== undefined
          ? `unknown grader type "${typeName}" (did you mean "${hint}"?)`
          : `unknown grader type "${typeName}" (known types: ${[...types.keys()].sort().join(', ')})`,
    });
    return placeholder();
  }
  let raw = config as Record<string, unknown>;
  if (t.aliases?.length) {
    const a = applyAliases(raw, t.aliases);
    raw = a.config;
    for (const n of a.notes) options.notes?.push({ path: joinPath(path, n.path), message: n.message });
    if (a.issues.length) {
      issues.push(...a.issues.map((i) => ({ path: joinPath(path, i.path), message: i.message })));
      return placeholder();
    }
  }
  const parsed = t.schema.safeParse(raw);
  if (!parsed.success) {
    issues.push(...zodIssues(parsed.error, path, t.schema, raw));
    return placeholder();
  }
  const cfg = parsed.data;
  const name = cfg.name ?? defaultName;
  const children: Grader[] = [];
  const withNotes = <T>(field: string, compile: (notes: string[]) => T): T => {
    const notes: string[] = [];
    const out = compile(notes);
    for (const message of notes) options.notes?.push({ path: joinPath(path, field), message });
    return out;
  };
  const b: BuildContext = {
    path,
    name,
    options,
    child: (c, field, dn) => {
      const g = buildNode(c, joinPath(path, field), dn, issues, options);
      children.push(g);
      return g;
    },
    template: (field, source) => {
      try {
        return withNotes(field, (notes) => compileTemplate(source, notes));
      } catch (e) {
        issues.push({ path: joinPath(path, field), message: (e as Error).message });
        return compileTemplate('');
      }
    },
    value: (field, v) => {
      try {
        return withNotes(field, (notes) => compileValue(v, notes));
      } catch (e) {
        issues.push({ path: joinPath(path, field), message: (e as Error).message });
        return { kind: 'literal', value: v };
      }
    },
    fail: (field, message) => {
      issues.push({ path: joinPath(path, field), message });
      throw new AbortNode();
    },
    issue: (field, message) => {
      issues.push({ path: joinPath(path, field), message });
    },
  };
  let evaluate: Evaluate;
  try {
    evaluate = t.build(cfg, b);
  } catch (e) {
    if (e instanceof AbortNode) return placeholder();
    issues.push({ path, message: `could not build grader: ${(e as Error).message}` });
    return placeholder();
  }
  // this node's own uses (fields made absolute), then every child's: the union over the tree
  const capabilities: CapabilityUse[] = ownCapabilities(t, cfg).map((u) => ({ ...u, field: joinCapabilityPath(path, u.field) }));
  for (const c of children) capabilities.push(...c.capabilities);
  const nodeConfig = cfg as unknown as Record<string, unknown>;
  let timeout_ms = cfg.timeout_ms;
  const heavy = typeof t.cpu_heavy === 'function' ? t.cpu_heavy(cfg) : t.cpu_heavy;
  let pool: ReturnType<Preemptor>['warm'] | undefined;
  if (heavy && preemptor) {
    const p = preemptor({ type: t.type, name, config: nodeConfig, ...(timeout_ms !== undefined ? { timeoutMs: timeout_ms } : {}) }, evaluate);
    evaluate = p.evaluate;
    pool = p.warm;
    timeout_ms = undefined;
  }
  const warmChildren = children.filter((c) => c.warm);
  const ownWarm = t.warm;
  // under a budget (its own timeout_ms, an ancestor's, a deadline) a cpu_heavy node grades in the
  // preemption pool: its start-up is that pool's, warmed in each worker; otherwise it runs here
  const warm =
    ownWarm || pool || warmChildren.length
      ? async (services: Services, deadline: boolean): Promise<StartupItem[]> => {
          const budgeted = deadline || cfg.timeout_ms !== undefined;
          const children = async () => (await Promise.all(warmChildren.map((c) => c.warm!(services, { deadline: budgeted })))).flat();
          if (pool && budgeted) return pool(services);
          if (ownWarm) {
            const more = await ownWarm(cfg, { services, children });
            return Array.isArray(more) ? (more as StartupItem[]) : [];
          }
          return children();
        }
      : undefined;
  return makeGrader(
    {
      name,
      type: t.type,
      config: nodeConfig,
      pass_threshold: cfg.pass_threshold,
      timeout_ms,
      capabilities,
      ...(warm ? { warm, warmDependsOnDeadline: pool !== undefined || warmChildren.length > 0 } : {}),
      ...(cfg.startup_timeout_ms !== undefined ? { startup_timeout_ms: cfg.startup_timeout_ms } : {}),
    },
    evaluate,
  );
}

/** A type's declared uses for one config; a type that declares none (or whose declaration throws) is unknown, hence `unsafe`. */
function ownCapabilities(t: GraderType<BaseConfig>, cfg: BaseConfig): readonly CapabilityUse[] {
  const unknown = (why: string): CapabilityUse[] => [
    { capability: 'unsafe', field: '', reason: `grader type "${t.type}" ${why}, so what it can reach is unknown` },
  ];
  const d = (t as Partial<GraderType<BaseConfig>>).capabilities;
  if (d === undefined) return unknown('declares no capabilities');
  try {
    const uses = typeof d === 'function' ? d(cfg) : d;
    return Array.isArray(uses) ? uses : unknown('declared capabilities that are not a list');
  } catch (e) {
    return unknown(`could not declare its capabilities (${(e as Error).message})`);
  }
}

/** Validates a grader config and builds it; throws ConfigError listing every problem. */
export function loadGrader(config: unknown, options: LoadOptions = {}): Grader {
  const issues: ConfigIssue[] = [];
  const defaultName =
    config && typeof config === 'object' && typeof (config as Record<string, unknown>).type === 'string'
      ? String((config as Record<string, unknown>).type)
      : 'grader';
  const notesBefore = options.notes?.length ?? 0;
  const g = buildNode(config, '', defaultName, issues, options);
  const { locate } = options;
  if (locate) for (const i of [...issues, ...(options.notes?.slice(notesBefore) ?? [])]) Object.assign(i, locate(i.path));
  if (issues.length) throw new ConfigError(issues, options.file);
  return g;
}

/** Validates without throwing; returns the list of problems (empty when valid). */
export function validateGrader(config: unknown, options: LoadOptions = {}): ConfigIssue[] {
  try {
    loadGrader(config, options);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.issues;
    throw e;
  }
}
