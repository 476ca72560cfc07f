// What a tau-bench tool is here: its name, the Python class and module it ports (for CPython's
// argument-binding messages), its parameters in signature order, its JSON schema for the policy,
// and its body. `invokeTool` binds keyword arguments exactly as `Tool.invoke(data=..., **kwargs)`
// does (duplicate `data`, unknown keywords, missing arguments) before running the body.
import type { ToolSchema } from '../../agents/env.js';
import type { TauDb } from './db.js';
import { PyError, type PyDict, type PyValue } from '../../py/ops.js';

export type Args = Readonly<Record<string, PyValue>>;

export interface TauTool {
  readonly name: string;
  /** The Python class, e.g. BookReservation. */
  readonly pyClass: string;
  /** Its module, e.g. tau_bench.envs.airline.tools.book_reservation. */
  readonly pyModule: string;
  /** Parameters after `data`, in signature order (all required). */
  readonly params: readonly string[];
  readonly schema: ToolSchema;
  /** The body: returns the observation (a str; None only where the original can return None). */
  invoke(db: TauDb, a: Args): PyValue;
}

function quoteList(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0]!;
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

/** Runs a tool with keyword arguments; Python exceptions propagate as PyError. */
export function invokeTool(tool: TauTool, db: TauDb, kwargs: PyDict): PyValue {
  const fn = `${tool.pyClass}.invoke()`;
  if (kwargs.has('data')) throw new PyError('TypeError', `${tool.pyModule}.${fn} got multiple values for keyword argument 'data'`);
  for (const k of kwargs.keys()) {
    if (typeof k !== 'string') throw new PyError('TypeError', 'keywords must be strings');
    if (!tool.params.includes(k)) throw new PyError('TypeError', `${fn} got an unexpected keyword argument '${k}'`);
  }
  const missing = tool.params.filter((p) => !kwargs.has(p));
  if (missing.length) {
    throw new PyError('TypeError', `${fn} missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${quoteList(missing)}`);
  }
  const a: Record<string, PyValue> = Object.create(null);
  for (const p of tool.params) a[p] = kwargs.get(p)!;
  return tool.invoke(db, a);
}

/** Builds a function schema: `props` maps each parameter to its JSON-schema fragment. */
export function fnSchema(name: string, description: string, props: Record<string, Record<string, unknown>>, required = Object.keys(props)): ToolSchema {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties: props, required } } };
}
