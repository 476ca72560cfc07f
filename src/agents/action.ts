// An agent's action as a step endpoint takes it, read into the assistant message it stands for:
// an assistant message {content, tool_calls} as the policy returned it (arguments kept as JSON
// text, so int vs float survives), or one action {name, arguments} (`respond` is a reply). Shared
// by the environment families; a malformed action is an EnvOptionError naming the field.
import { EnvOptionError } from './env.js';
import { contentText, RESPOND, type AgentMessage, type ToolCallMessage } from './trajectory.js';

/**
 * The action is the policy's own fault (more tool calls than MAX_CALLS_PER_TURN, a tool call
 * without a function name): the environments end the episode with the floor reward, naming it,
 * instead of refusing the step (an EnvOptionError that leaves the episode unscored).
 */
export class ResponseFault extends EnvOptionError {
  override name = 'ResponseFault';
}

/** Most tool calls one assistant message may make. */
export const MAX_CALLS_PER_TURN = 64;

/** An action as the step endpoint takes it, as the assistant message it stands for. */
export function actionMessage(action: unknown, turn: number): AgentMessage {
  if (!action || typeof action !== 'object' || Array.isArray(action))
    throw new EnvOptionError('action must be an assistant message {content, tool_calls} or {name, arguments}');
  const a = action as Record<string, unknown>;
  if (typeof a.name === 'string' && a.role === undefined && a.tool_calls === undefined) {
    const args = a.arguments ?? a.kwargs ?? {};
    if (a.name === RESPOND) {
      const content = typeof args === 'string' ? args : (args as { content?: unknown }).content;
      if (typeof content !== 'string') throw new EnvOptionError('a respond action needs {"arguments": {"content": "..."}}');
      return { role: 'assistant', content };
    }
    const text = typeof args === 'string' ? args : JSON.stringify(args);
    return { role: 'assistant', content: null, tool_calls: [{ id: `call_${turn}_0`, type: 'function', function: { name: a.name, arguments: text } }] };
  }
  if (a.role !== undefined && a.role !== 'assistant') throw new EnvOptionError('action message must have role "assistant"');
  const calls = a.tool_calls;
  if (calls !== undefined && calls !== null && !Array.isArray(calls)) throw new EnvOptionError('action.tool_calls must be a list');
  if (Array.isArray(calls) && calls.length > MAX_CALLS_PER_TURN)
    throw new ResponseFault(`action has ${calls.length} tool calls, over the limit of ${MAX_CALLS_PER_TURN}`);
  const toolCalls: ToolCallMessage[] = (Array.isArray(calls) ? calls : []).map((c, k) => {
    const fn = (c as { function?: { name?: unknown; arguments?: unknown } })?.function;
    if (!fn || typeof fn.name !== 'string') throw new ResponseFault(`action.tool_calls[${k}].function.name must be a string`);
    const args = fn.arguments;
    const id = (c as { id?: unknown }).id;
    return {
      id: typeof id === 'string' ? id : `call_${turn}_${k}`,
      type: 'function',
      function: { name: fn.name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) },
    };
  });
  const content = a.content === undefined || a.content === null ? null : contentText(a.content);
  const m: AgentMessage = { role: 'assistant', content };
  if (toolCalls.length) m.tool_calls = toolCalls;
  return m;
}
