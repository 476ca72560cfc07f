// Progress of a BFCL episode towards the ground truth, as a potential over the episode's state
// (potential-based shaping: a step's progress reward is the change of the potential, so the
// progress rewards of an episode sum to its final progress, and doing nothing earns nothing).
//
// The instances' public state is flattened into paths (`Class.attr`, then dict keys, list
// indices, directory entries; a file's name and content are two leaves), compared with Python `==`.
// Turn t's conditions are what the ground truth's turn t does: the paths it changes (its state after
// the turn vs before it; absent counts as a value) and its calls' results other than "None" (what
// every call without a return value gives, so no sign of progress). Turn t's score is
//
//   (paths the model changed during the turn that now equal the ground truth's state after turn t)
// − (paths the model changed during the turn that equaled it before the change)
// + (the turn's ground-truth results found among the model's results of this turn, as a multiset)
//
// so a turn starts at 0 whatever the state (nothing is credited for what the initial config or an
// earlier turn already satisfies), undoing a change returns the score to where it was, and breaking
// what was right costs as much as making it right gains. Progress = (sum of the finished turns'
// scores + the current turn's score) / (the number of conditions of all turns), clamped to [-1, 1]:
// 0 at the start and for an episode without calls, 1 exactly when every turn's state and results
// match the ground truth's.
import type { Side } from './apis/executor.js';
import { Directory, File } from './apis/classes/gorilla-file-system.js';
import { EnvLimit, PyException } from '../../py/errors.js';
import { pyRepr } from '../../py/format.js';
import { PyDict, pyEq, PySet, PyTuple, type PyValue } from '../../py/values.js';

/** A flattened state: path -> an immutable leaf (a primitive, or a marker / repr string). */
export type FlatState = ReadonlyMap<string, PyValue>;

/** Most nodes one state flattens into; past it the rest of the state is left out (and counts as absent). */
export const MAX_FLAT_NODES = 200_000;

const MARK = '\u0000';

function keyText(k: PyValue): string {
  if (typeof k === 'string') return JSON.stringify(k);
  try {
    return pyRepr(k);
  } catch {
    return `${MARK}key`;
  }
}

function leafOf(v: PyValue): PyValue {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean') return v;
  try {
    if (v instanceof PySet)
      return `${MARK}set:${v
        .values()
        .map((x) => pyRepr(x))
        .sort()
        .join(',')}`;
    return `${MARK}repr:${pyRepr(v)}`;
  } catch (e) {
    if (e instanceof PyException || e instanceof EnvLimit) return `${MARK}unprintable`;
    throw e;
  }
}

/** The public state of a side's instances, flattened. */
export function flattenState(side: Side, maxNodes = MAX_FLAT_NODES): FlatState {
  const out = new Map<string, PyValue>();
  const onPath = new Set<object>();
  let nodes = 0;
  const walk = (v: PyValue, path: string): void => {
    if (++nodes > maxNodes) return;
    const container = Array.isArray(v) || v instanceof PyTuple || v instanceof PyDict || v instanceof Directory;
    if (container && onPath.has(v as object)) {
      out.set(path, `${MARK}cycle`);
      return;
    }
    if (Array.isArray(v) || v instanceof PyTuple) {
      const items = Array.isArray(v) ? v : v.items;
      out.set(path, `${MARK}${Array.isArray(v) ? 'list' : 'tuple'}`);
      onPath.add(v as object);
      items.forEach((x, i) => walk(x, `${path}[${i}]`));
      onPath.delete(v as object);
    } else if (v instanceof PyDict) {
      out.set(path, `${MARK}dict`);
      onPath.add(v);
      for (const [k, w] of v.entries()) walk(w, `${path}{${keyText(k)}}`);
      onPath.delete(v);
    } else if (v instanceof Directory) {
      out.set(path, `${MARK}dir`);
      out.set(`${path}#name`, leafOf(v.name));
      onPath.add(v);
      for (const [k, w] of v.contents.entries()) walk(w, `${path}/${keyText(k)}`);
      onPath.delete(v);
    } else if (v instanceof File) {
      out.set(path, `${MARK}file`);
      out.set(`${path}#name`, leafOf(v.name));
      out.set(`${path}#content`, leafOf(v.content));
    } else out.set(path, leafOf(v));
  };
  for (const [cls, b] of side.bound) for (const [attr, v] of b.inst.stateAttrs()) walk(v, `${cls}.${attr}`);
  return out;
}

function same(a: PyValue | undefined, b: PyValue | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return pyEq(a, b);
  } catch (e) {
    if (e instanceof PyException || e instanceof EnvLimit) return false;
    throw e;
  }
}

/** Paths where two states differ (absent counts as a value). */
export function changedPaths(a: FlatState, b: FlatState): string[] {
  const out: string[] = [];
  for (const [p, v] of a) if (!same(v, b.get(p))) out.push(p);
  for (const p of b.keys()) if (!a.has(p)) out.push(p);
  return out;
}

/** The ground-truth results that are conditions: all but "None". */
export function resultConditions(gt: readonly string[]): string[] {
  return gt.filter((r) => r !== 'None');
}

/** Ground-truth results (conditions only) found among the model's (each model result used once). */
export function foundResults(gt: readonly string[], model: readonly string[]): number {
  const pool = new Map<string, number>();
  for (const m of model) pool.set(m, (pool.get(m) ?? 0) + 1);
  let found = 0;
  for (const g of resultConditions(gt)) {
    const n = pool.get(g) ?? 0;
    if (n > 0) {
      pool.set(g, n - 1);
      found++;
    }
  }
  return found;
}

/** One turn's score: see the file comment. `start` is the model's state when the turn began. */
export function turnScore(start: FlatState, now: FlatState, target: FlatState, gtResults: readonly string[], modelResults: readonly string[]): number {
  let q = 0;
  for (const p of changedPaths(start, now)) q += (same(now.get(p), target.get(p)) ? 1 : 0) - (same(start.get(p), target.get(p)) ? 1 : 0);
  return q + foundResults(gtResults, modelResults);
}

/** The ground truth's episode: its state before any call and after each turn, and each turn's results. */
export interface GroundTruthTrace {
  initial: FlatState;
  after: FlatState[];
  results: string[][];
}

/** Conditions of each turn: the paths the ground truth's turn changes plus its results. */
export function conditionsPerTurn(trace: GroundTruthTrace): number[] {
  return trace.after.map((g, t) => changedPaths(t === 0 ? trace.initial : trace.after[t - 1]!, g).length + resultConditions(trace.results[t]!).length);
}

/** Progress from the turn scores so far (finished turns and the current one) over all conditions. */
export function progressOf(scores: number, conditions: number): number {
  return Math.max(-1, Math.min(1, scores / Math.max(1, conditions)));
}
