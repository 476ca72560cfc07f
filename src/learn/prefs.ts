// The preference rows `arbiter learn` reads, turned into feature vectors per side: rows whose
// sides carry features ({"chosen": {"features": {...}}, "rejected": {...}}), rows whose sides are
// segments of steps each carrying features (summed over the segment: the partial return; with
// "psi_start"/"psi_end" per side for the regret model), and TRL rows (prompt, chosen, rejected)
// whose sides are graded with the feature graders a config names (core `grade`, each side as a
// sample answering the row's prompt). `"tie": true` marks a tie.
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { grade } from '../core/grade.js';
import type { Grader } from '../core/grader.js';
import { loadGrader } from '../core/registry.js';
import { Services } from '../core/services.js';
import { locatorFor, readGraderFile } from '../config/load.js';
import { importGraderTypesFor } from '../graders/builtins.js';
import { IoError } from '../io/errors.js';
import { openInput } from '../io/files.js';
import { readLines } from '../io/jsonl-reader.js';

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Most preference rows one run reads. */
export const MAX_ROWS = 1_000_000;

export type SegmentModel = 'partial' | 'regret';

/** One preference as read: each side's feature vector (in `names` order), the tie flag, the user. */
export interface PrefRow {
  line: number;
  chosen: number[];
  rejected: number[];
  tie: boolean;
  user?: string;
}

export interface ReadResult {
  /** How the sides were read: "features", "segments" or "graders". */
  kind: 'features' | 'segments' | 'graders';
  names: string[];
  rows: PrefRow[];
  /** Rows left out, with why (a feature grader's invalid result). */
  skipped: { line: number; reason: string }[];
  /** The feature graders' configs (kind "graders"). */
  graders?: Record<string, unknown>;
}

export interface ReadOptions {
  /** JSON file {"features": {name: grader config}} for TRL rows. */
  config?: string;
  perUser?: string;
  segments?: SegmentModel;
}

/** The feature graders of a config file, each built (issues under `features.<name>`). */
export async function loadFeatureConfig(file: string): Promise<{ configs: Record<string, unknown>; graders: [string, Grader][] }> {
  const raw = await readGraderFile(file);
  const fail = (message: string, path = ''): never => {
    throw new ConfigError([{ path, message }], file);
  };
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) fail('the feature config must be a JSON object {"features": {name: grader}}');
  const keys = Object.keys(raw as object);
  const extra = keys.filter((k) => k !== 'features');
  if (extra.length) fail(`unknown field "${extra[0]}" (the feature config has one field, "features")`, extra[0]);
  const features = (raw as { features?: unknown }).features;
  if (!features || typeof features !== 'object' || Array.isArray(features) || Object.keys(features).length === 0)
    fail('"features" must be an object naming at least one feature grader', 'features');
  await importGraderTypesFor(features);
  const issues: ConfigIssue[] = [];
  const graders: [string, Grader][] = [];
  const locate = locatorFor(raw);
  for (const [name, cfg] of Object.entries(features as Record<string, unknown>)) {
    if (!IDENT.test(name)) issues.push({ path: `features.${name}`, message: `feature name "${name}" must be an identifier (it becomes a weighted_sum key)` });
    try {
      graders.push([name, loadGrader(cfg)]);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      for (const i of e.issues) {
        const path = `features.${name}${i.path ? (i.path.startsWith('[') ? i.path : `.${i.path}`) : ''}`;
        issues.push({ path, message: i.message, ...locate?.(path) });
      }
    }
  }
  if (issues.length) throw new ConfigError(issues, file);
  return { configs: features as Record<string, unknown>, graders };
}

/** A row that cannot be read: the input is wrong (the run stops, naming the line). */
class RowError extends Error {}
/** A row left out: a feature grader could not grade a side (counted and reported). */
class SkipRow extends Error {}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function vector(feats: unknown, names: string[] | undefined, what: string): { names: string[]; x: number[] } {
  if (!isObj(feats)) throw new RowError(`${what} must be an object of feature values`);
  const keys = names ?? Object.keys(feats);
  if (!names) for (const k of keys) if (!IDENT.test(k)) throw new RowError(`feature name "${k}" must be an identifier (it becomes a weighted_sum key)`);
  const x = keys.map((k) => {
    const v = feats[k];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw new RowError(`${what}.${k} ${v === undefined ? 'is missing' : 'is not a finite number'}`);
    return v;
  });
  const more = Object.keys(feats).filter((k) => !keys.includes(k));
  if (more.length) throw new RowError(`${what} has feature "${more[0]}" that the first row does not (features: ${keys.join(', ')})`);
  return { names: keys, x };
}

/** A segment side: Σ_t φ_t (in step order), plus ψ(end) - ψ(start) for the regret model. */
function segmentVector(side: Record<string, unknown>, names: string[] | undefined, what: string, model: SegmentModel): { names: string[]; x: number[] } {
  const seg = side.segment;
  if (!Array.isArray(seg) || seg.length === 0) throw new RowError(`${what}.segment must be a non-empty list of steps`);
  let acc: number[] | undefined;
  let keys = names;
  seg.forEach((step, t) => {
    const v = vector(isObj(step) ? step.features : undefined, keys, `${what}.segment[${t}].features`);
    keys = v.names;
    if (!acc) acc = v.x.map(() => 0);
    for (let k = 0; k < v.x.length; k++) acc[k]! += v.x[k]!;
  });
  if (model === 'regret') {
    const end = vector(side.psi_end, keys, `${what}.psi_end`).x;
    const start = vector(side.psi_start, keys, `${what}.psi_start`).x;
    acc = acc!.map((a, k) => a + end[k]! - start[k]!);
  }
  return { names: keys!, x: acc! };
}

function sampleOf(side: unknown): Record<string, unknown> {
  if (typeof side === 'string') return { output_text: side };
  if (Array.isArray(side)) {
    const last = side[side.length - 1] as { content?: unknown } | undefined;
    return { messages: side, ...(typeof last?.content === 'string' ? { output_text: last.content } : {}) };
  }
  throw new RowError('each side must be a string or a list of messages (TRL format)');
}

function userOf(row: Record<string, unknown>, field: string | undefined): string | undefined {
  if (field === undefined) return undefined;
  const u = row[field];
  if (typeof u === 'string' || typeof u === 'number') return String(u);
  throw new RowError(`"${field}" (the user id) is missing or not a string or number`);
}

/** Reads every preference row of `input` ("-": stdin). */
export async function readPreferences(input: string, opts: ReadOptions): Promise<ReadResult> {
  const features = opts.config !== undefined ? await loadFeatureConfig(opts.config) : undefined;
  const services = new Services();
  const rows: PrefRow[] = [];
  const skipped: ReadResult['skipped'] = [];
  let names: string[] | undefined = features?.graders.map(([n]) => n);
  let kind: ReadResult['kind'] | undefined = features ? 'graders' : undefined;
  const stream = await openInput(input, 'preferences');
  let count = 0;
  for await (const l of readLines(stream)) {
    if (l.text === undefined) throw new IoError(`${input}:${l.line}: line is not readable (too long or not UTF-8)`);
    if (l.text.trim() === '') continue;
    if (++count > MAX_ROWS) throw new IoError(`${input}: more than ${MAX_ROWS} preference rows`);
    let row: unknown;
    try {
      row = JSON.parse(l.text);
    } catch (e) {
      throw new IoError(`${input}:${l.line}: not JSON: ${(e as Error).message}`);
    }
    try {
      if (!isObj(row)) throw new RowError('a preference row must be a JSON object');
      const { chosen, rejected } = row;
      if (chosen === undefined || rejected === undefined) throw new RowError('a preference row needs "chosen" and "rejected"');
      const tie = row.tie === true;
      const user = userOf(row, opts.perUser);
      const rowKind: ReadResult['kind'] = isObj(chosen) && 'segment' in chosen ? 'segments' : isObj(chosen) && 'features' in chosen ? 'features' : 'graders';
      if (rowKind === 'graders' && !features)
        throw new RowError('its sides carry no "features" (or "segment"): name the feature graders with --config, or give the features in the rows');
      if (rowKind === 'segments' && opts.segments === undefined) throw new RowError('its sides are segments: pass --segments');
      if (rowKind !== 'segments' && opts.segments !== undefined) throw new RowError('--segments needs rows whose sides carry a "segment"');
      if (kind !== undefined && rowKind !== kind) throw new RowError(`its sides are ${rowKind}, the first row's are ${kind}`);
      kind = rowKind;
      let c: number[];
      let r: number[];
      if (rowKind === 'features' || rowKind === 'segments') {
        if (!isObj(rejected)) throw new RowError('"rejected" must be an object like "chosen"');
        const read = (side: Record<string, unknown>, what: string) =>
          rowKind === 'features' ? vector(side.features, names, `${what}.features`) : segmentVector(side, names, what, opts.segments!);
        const vc = read(chosen as Record<string, unknown>, 'chosen');
        names = vc.names;
        c = vc.x;
        r = read(rejected, 'rejected').x;
      } else {
        const { chosen: _c, rejected: _r, ...item } = row;
        const side = async (s: unknown) => {
          const sample = sampleOf(s);
          const out: number[] = [];
          for (const [name, g] of features!.graders) {
            const res = await grade(g, { item, sample }, { services });
            if (!res.valid || res.score === null) throw new SkipRow(`feature "${name}" could not be graded: ${res.error?.kind}: ${res.error?.message}`);
            out.push(res.score);
          }
          return out;
        };
        [c, r] = await Promise.all([side(chosen), side(rejected)]);
      }
      rows.push({ line: l.line, chosen: c, rejected: r, tie, ...(user !== undefined ? { user } : {}) });
    } catch (e) {
      if (e instanceof SkipRow) skipped.push({ line: l.line, reason: e.message });
      else if (e instanceof RowError) throw new IoError(`${input}:${l.line}: ${e.message}`);
      else throw e;
    }
  }
  return { kind: kind ?? 'features', names: names ?? [], rows, skipped, ...(features ? { graders: features.configs } : {}) };
}
