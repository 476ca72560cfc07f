// The typed trajectory: an agent episode as OpenAI chat messages (system, user, assistant with
// tool_calls, tool results), which is also how tau-bench's tool-calling agent records `traj`; its
// ReAct agents' records (assistant text ending in `Action: {"name", "arguments"}`, observations as
// user messages); or a plain list of actions. `readTrajectory` turns any of them into turns: what
// the agent did at each assistant message, what it was told before, and where the episode ended.
import { DEFAULT_MAX_JSON_DEPTH } from '../core/json.js';
import { EnvLimit, PyException } from '../py/errors.js';
import { fromJs, loads } from '../py/json.js';
import { PyDict, type PyValue } from '../py/values.js';

/** Python's json.loads of tool-call arguments (deep nesting is Python's RecursionError, reported like any JSON error). */
const loadsArgs = (text: string): PyValue => loads(text, { maxDepth: DEFAULT_MAX_JSON_DEPTH, recursionError: true });
const isDict = (v: PyValue | undefined): v is PyDict => v instanceof PyDict;

/** The action name of a reply to the user (tau-bench's RESPOND_ACTION_NAME). */
export const RESPOND = 'respond';
/** tau-bench's user simulator ends the conversation with this marker. */
export const DEFAULT_STOP = '###STOP###';

/** One agent action: a tool call or "respond" (tau-bench's Action). */
export interface Action {
  name: string;
  /** The keyword arguments; undefined when they could not be read (see argsError). */
  kwargs?: PyDict;
  /** Why the arguments could not be used (not JSON, not an object); the step is an error observation. */
  argsError?: string;
  /** The tool call's id in the trajectory, when it has one. */
  id?: string;
}

/** Reads tool-call arguments as tau-bench does (json.loads of the text, or an already-parsed object). */
export function readArguments(raw: unknown): { kwargs?: PyDict; argsError?: string } {
  let v: PyValue;
  if (typeof raw === 'string') {
    try {
      v = loadsArgs(raw);
    } catch (e) {
      if (e instanceof PyException) return { argsError: `Error: tool call arguments are not valid JSON: ${e.text()}` };
      throw e;
    }
  } else if (raw === undefined || raw === null) {
    v = new PyDict();
  } else {
    try {
      v = fromJs(raw);
    } catch (e) {
      if (e instanceof EnvLimit) return { argsError: `Error: tool call arguments are not valid JSON: ${e.message}` };
      throw e;
    }
  }
  if (!isDict(v)) return { argsError: 'Error: tool call arguments must be a JSON object' };
  return { kwargs: v };
}

export interface ToolCallMessage {
  id?: string;
  type?: 'function';
  function: { name: string; arguments: string };
}

/** One chat message, OpenAI shape. `content` may be null on an assistant message that calls tools. */
export interface AgentMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | null | unknown[];
  tool_calls?: ToolCallMessage[];
  tool_call_id?: string;
  name?: string;
  [key: string]: unknown;
}

/** What the agent did at one assistant message. */
export interface Turn {
  /** Index of the assistant message in `messages` (or of the action in an action list). */
  message: number;
  /** Tool calls in order, or one "respond" action carrying the text. */
  actions: Action[];
  /** For a respond turn: the text told to the user. */
  respond?: string;
  /** Recorded tool results by action position (for checking a replay against the record). */
  recorded: (string | undefined)[];
  /** For a respond turn: the user's recorded reply. */
  reply?: string;
}

export interface Trajectory {
  turns: Turn[];
  /** The user said ###STOP### after the agent's reply at this turn (the episode ended there). */
  stoppedAt?: number;
  /** Messages after the end of the episode (not replayed, as the benchmark never ran them). */
  ignoredAfterEnd: number;
  /** First user message (the task as the user put it). */
  first?: string;
}

export type TrajectoryFormat = 'openai' | 'react' | 'actions';

/**
 * A trajectory arbiter cannot replay. `blame` says whose: `response` when the agent's own output
 * is at fault (too many actions or messages, a tool call without a name, a ReAct action tau-bench
 * would assert on): the grade is a valid floor; `record` when the record itself is not a
 * trajectory (not a list, a message that is not an object, an unknown role): the grade is invalid.
 */
export class TrajectoryError extends Error {
  override name = 'TrajectoryError';
  constructor(
    message: string,
    readonly blame: 'response' | 'record' = 'record',
    /** The fault is a size limit (MAX_MESSAGES, MAX_ACTIONS). */
    readonly limit = false,
  ) {
    super(message);
  }
}

/**
 * Hard bounds on one trajectory (untrusted input; tau-bench episodes stop at 30 steps). Replay is
 * synchronous CPU work, so it is bounded by size rather than by a timer: the costliest tool takes
 * about a millisecond.
 */
export const MAX_MESSAGES = 10_000;
export const MAX_ACTIONS = 1_000;

/** Text of a message content: a string, or the text parts of a content list; null is "". */
export function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((p) =>
        typeof p === 'string' ? p : p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '',
      )
      .join('');
  }
  return '';
}

function actionFromCall(call: unknown, where: string): Action {
  if (!call || typeof call !== 'object') throw new TrajectoryError(`${where} must be an object`, 'response');
  const c = call as { id?: unknown; function?: unknown; name?: unknown; arguments?: unknown };
  const fn = (c.function ?? c) as { name?: unknown; arguments?: unknown };
  if (typeof fn !== 'object' || fn === null || typeof fn.name !== 'string') throw new TrajectoryError(`${where}.function.name must be a string`, 'response');
  const a: Action = { name: fn.name, ...readArguments(fn.arguments) };
  if (typeof c.id === 'string') a.id = c.id;
  return a;
}

/** tau-bench's ReAct parsing: the JSON after the last "Action:", else the text is a reply. */
function reactAction(text: string): Action {
  const tail = text.split('Action:').pop()!.trim();
  let parsed: PyValue;
  try {
    parsed = loadsArgs(tail);
  } catch (e) {
    if (!(e instanceof PyException)) throw e;
    return { name: RESPOND, kwargs: PyDict.of([['content', tail]]) };
  }
  if (!isDict(parsed) || typeof parsed.get('name') !== 'string' || !parsed.has('arguments')) {
    throw new TrajectoryError('a ReAct action must be {"name": ..., "arguments": ...} (tau-bench asserts both keys)', 'response');
  }
  const args = parsed.get('arguments')!;
  const action: Action = isDict(args)
    ? { name: parsed.get('name') as string, kwargs: args }
    : { name: parsed.get('name') as string, argsError: 'Error: tool call arguments must be a JSON object' };
  return action;
}

function respondText(a: Action): string {
  const c = a.kwargs?.get('content');
  return typeof c === 'string' ? c : '';
}

/** Reads chat messages (OpenAI or ReAct records) into turns. */
export function readMessages(messages: unknown, format: 'openai' | 'react' = 'openai', opts: { firstToolCallOnly?: boolean; stop?: string } = {}): Trajectory {
  const stop = opts.stop ?? DEFAULT_STOP;
  if (!Array.isArray(messages)) throw new TrajectoryError('messages must be a list of chat messages');
  if (messages.length > MAX_MESSAGES)
    throw new TrajectoryError(`trajectory has ${messages.length} messages, over the limit of ${MAX_MESSAGES}`, 'response', true);
  const turns: Turn[] = [];
  let first: string | undefined;
  let stoppedAt: number | undefined;
  let actions = 0;
  let i = 0;
  for (; i < messages.length; i++) {
    const m = messages[i] as AgentMessage;
    const where = `messages[${i}]`;
    if (!m || typeof m !== 'object' || Array.isArray(m)) throw new TrajectoryError(`${where} must be an object`);
    const role = m.role;
    const turn = turns[turns.length - 1];
    if (role === 'system' || role === 'developer') continue;
    if (role === 'assistant') {
      const t: Turn = { message: i, actions: [], recorded: [] };
      const calls = m.tool_calls;
      if (format === 'openai' && Array.isArray(calls) && calls.length > 0 && (calls[0] as { function?: unknown })?.function != null) {
        const use = opts.firstToolCallOnly ? calls.slice(0, 1) : calls;
        for (let k = 0; k < use.length; k++) {
          const a = actionFromCall(use[k], `${where}.tool_calls[${k}]`);
          t.actions.push(a);
          if (a.name === RESPOND) {
            // a call named "respond" is a reply (tau-bench's Action); the turn ends with it
            t.respond = respondText(a);
            break;
          }
        }
      } else if (format === 'react') {
        const a = reactAction(contentText(m.content));
        t.actions.push(a);
        if (a.name === RESPOND) t.respond = respondText(a);
      } else {
        const text = contentText(m.content);
        t.actions.push({ name: RESPOND, kwargs: PyDict.of([['content', text]]) });
        t.respond = text;
      }
      actions += t.actions.length;
      if (actions > MAX_ACTIONS) throw new TrajectoryError(`trajectory has more than ${MAX_ACTIONS} actions`, 'response', true);
      turns.push(t);
      continue;
    }
    if (role === 'tool') {
      const text = contentText(m.content);
      if (turn) {
        const k = typeof m.tool_call_id === 'string' ? turn.actions.findIndex((a) => a.id === m.tool_call_id) : -1;
        const at = k >= 0 ? k : turn.recorded.length;
        turn.recorded[at] = text;
      }
      continue;
    }
    if (role === 'user') {
      const text = contentText(m.content);
      if (!turn) {
        first ??= text;
        continue;
      }
      const lastAction = turn.actions[turn.actions.length - 1];
      if (lastAction?.name === RESPOND && turn.reply === undefined) {
        turn.reply = text;
        if (text.includes(stop)) {
          stoppedAt = turns.length - 1;
          i++;
          break;
        }
      } else {
        // a ReAct observation ("API output: ...") or an extra user message
        if (format === 'react' && turn.recorded.length < turn.actions.length) turn.recorded.push(text.replace(/^API output: /, ''));
      }
      continue;
    }
    throw new TrajectoryError(`${where}.role must be system, user, assistant or tool (got ${JSON.stringify(role)?.slice(0, 40)})`);
  }
  const out: Trajectory = { turns, ignoredAfterEnd: messages.length - i };
  if (stoppedAt !== undefined) out.stoppedAt = stoppedAt;
  if (first !== undefined) out.first = first;
  return out;
}

/** Reads a list of actions `[{name, kwargs | arguments}]` (respond: `{"name": "respond", "kwargs": {"content": ...}}`). */
export function readActions(list: unknown): Trajectory {
  if (!Array.isArray(list)) throw new TrajectoryError('actions must be a list of {name, kwargs}');
  if (list.length > MAX_ACTIONS) throw new TrajectoryError(`trajectory has ${list.length} actions, over the limit of ${MAX_ACTIONS}`, 'response', true);
  const turns = list.map((x, i): Turn => {
    if (!x || typeof x !== 'object' || typeof (x as { name?: unknown }).name !== 'string')
      throw new TrajectoryError(`actions[${i}] must be {name, kwargs}`, 'response');
    const o = x as { name: string; kwargs?: unknown; arguments?: unknown };
    const a: Action = { name: o.name, ...readArguments(o.kwargs ?? o.arguments) };
    const t: Turn = { message: i, actions: [a], recorded: [] };
    if (a.name === RESPOND) t.respond = respondText(a);
    return t;
  });
  return { turns, ignoredAfterEnd: 0 };
}

/** An assistant message as the policy returned it, normalised to the OpenAI shape. */
export function assistantMessage(content: string | null, toolCalls: ToolCallMessage[] | undefined): AgentMessage {
  const m: AgentMessage = { role: 'assistant', content };
  if (toolCalls?.length) m.tool_calls = toolCalls;
  return m;
}
