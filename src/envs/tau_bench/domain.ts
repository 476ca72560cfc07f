// A tau-bench domain (tools, terminating tools, tasks, policy text) and one environment step as
// tau-bench's Env.step takes it: "respond" goes to the user, a known tool runs on the episode's data
// (any Python exception becomes the observation "Error: <str(e)>"), anything else is
// "Unknown action <name>". Episodes, the grader and the gold replay all step through `runAction`.
import { PyDict, PyError, type PyValue } from '../../py/ops.js';
import { DEFAULT_STOP, readArguments, RESPOND, type Action } from '../../agents/trajectory.js';
import { AIRLINE_TOOLS } from './airline.js';
import { readDomainFile, resolveDataDir, type Domain, type TauDb } from './db.js';
import { RETAIL_TOOLS } from './retail.js';
import { invokeTool, type TauTool } from './tool.js';
import type { ToolSchema } from '../../agents/env.js';

export { RESPOND, type Action };
/** The user simulator's end-of-conversation marker. */
export const STOP = DEFAULT_STOP;

export interface TauDomain {
  readonly name: Domain;
  readonly tools: readonly TauTool[];
  readonly byName: ReadonlyMap<string, TauTool>;
  /** Tools that end the episode when called (tau-bench's terminate_tools). */
  readonly terminate: ReadonlySet<string>;
  readonly schemas: readonly ToolSchema[];
}

function domainOf(name: Domain, tools: readonly TauTool[]): TauDomain {
  return {
    name,
    tools,
    byName: new Map(tools.map((t) => [t.name, t])),
    terminate: new Set(['transfer_to_human_agents']),
    schemas: tools.map((t) => t.schema),
  };
}

export const TAU_DOMAINS: Readonly<Record<Domain, TauDomain>> = {
  airline: domainOf('airline', AIRLINE_TOOLS),
  retail: domainOf('retail', RETAIL_TOOLS),
};

export interface StepOutcome {
  observation: string;
  /** The step failed: "Error: …", "Unknown action …", or unusable arguments. */
  error: boolean;
  /** The episode ends here (a terminating tool ran). */
  terminal: boolean;
  /**
   * tau-bench itself would stop with an exception here (a tool returned None, which its
   * EnvResponse refuses); the episode ends with reward 0 as its runner records it.
   */
  crash?: string;
}

/** Runs one non-respond action on `db` (tau-bench's Env.step for tools). */
export function runAction(domain: TauDomain, db: TauDb, action: Action): StepOutcome {
  if (action.argsError !== undefined) return { observation: action.argsError, error: true, terminal: false };
  const tool = domain.byName.get(action.name);
  if (!tool) return { observation: `Unknown action ${action.name}`, error: true, terminal: false };
  let obs: PyValue;
  try {
    obs = invokeTool(tool, db, action.kwargs ?? new PyDict());
  } catch (e) {
    if (e instanceof PyError) return { observation: `Error: ${e.text()}`, error: true, terminal: domain.terminate.has(tool.name) };
    throw e;
  }
  const terminal = domain.terminate.has(tool.name);
  if (typeof obs !== 'string') {
    return {
      observation: '',
      error: true,
      terminal: true,
      crash: `tool ${tool.name} returned None, which tau-bench's EnvResponse refuses (the episode ends with an exception)`,
    };
  }
  return { observation: obs, error: obs.startsWith('Error:'), terminal };
}

/** A task as in tasks_test.json: the gold actions and the outputs the agent must tell the user. */
export interface TauTask {
  user_id?: string;
  instruction?: string;
  actions: Action[];
  outputs: string[];
}

/** Reads a task (the grader's `task`, a dataset row); throws a message naming the bad field. */
export function readTask(x: unknown, where = 'task'): TauTask {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) throw new TypeError(`${where} must be an object with "actions" and "outputs"`);
  const t = x as Record<string, unknown>;
  if (!Array.isArray(t.actions)) throw new TypeError(`${where}.actions must be a list of {name, kwargs}`);
  const actions = t.actions.map((a, i) => {
    if (typeof a !== 'object' || a === null || typeof (a as { name?: unknown }).name !== 'string')
      throw new TypeError(`${where}.actions[${i}] must be {name, kwargs}`);
    const kw = (a as { kwargs?: unknown }).kwargs ?? (a as { arguments?: unknown }).arguments ?? {};
    const { kwargs, argsError } = readArguments(kw);
    if (argsError) throw new TypeError(`${where}.actions[${i}].kwargs: ${argsError.replace(/^Error: /, '')}`);
    return { name: (a as { name: string }).name, kwargs };
  });
  const outputs = t.outputs ?? [];
  if (!Array.isArray(outputs) || !outputs.every((o) => typeof o === 'string')) throw new TypeError(`${where}.outputs must be a list of strings`);
  const task: TauTask = { actions, outputs: outputs as string[] };
  if (typeof t.user_id === 'string') task.user_id = t.user_id;
  if (typeof t.instruction === 'string') task.instruction = t.instruction;
  return task;
}

// keyed by data folder and domain, like loadBase: setDataDir may point a process at other data
const taskCache = new Map<string, unknown[]>();

/** The domain's test tasks (tasks_test.json) as plain JSON rows (cached per folder). */
export function loadTasks(domain: Domain, dir = resolveDataDir()): unknown[] {
  const key = `${dir}\n${domain}`;
  let hit = taskCache.get(key);
  if (!hit) {
    const v = JSON.parse(readDomainFile(domain, 'tasks_test.json', dir)) as unknown;
    if (!Array.isArray(v)) throw new TypeError(`${domain}/tasks_test.json must hold a list of tasks`);
    taskCache.set(key, (hit = v));
  }
  return hit;
}

const wikiCache = new Map<string, string>();

/** The domain policy the agent follows (wiki.md), tau-bench's system prompt (cached per folder). */
export function loadWiki(domain: Domain, dir = resolveDataDir()): string {
  const key = `${dir}\n${domain}`;
  let w = wikiCache.get(key);
  if (w === undefined) wikiCache.set(key, (w = readDomainFile(domain, 'wiki.md', dir)));
  return w;
}
