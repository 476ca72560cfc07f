// A task's gold trajectory as OpenAI chat messages: the policy, the user's instruction, each gold
// action as an assistant tool call with its replayed result, a reply stating the required outputs,
// and the user's ###STOP###. A setup check (it must score 1) and the base of mutation tests.
import { jsonDumps as dumps } from '../../py/format.js';
import { deepCopy, PyDict } from '../../py/ops.js';
import type { AgentMessage } from '../../agents/trajectory.js';
import { loadBase, TauDb } from './db.js';
import { loadWiki, RESPOND, runAction, STOP, type TauDomain, type TauTask } from './domain.js';

export function goldMessages(domain: TauDomain, task: TauTask, opts: { system?: boolean } = {}): AgentMessage[] {
  const db = new TauDb(loadBase(domain.name));
  const messages: AgentMessage[] = [];
  if (opts.system !== false) messages.push({ role: 'system', content: loadWiki(domain.name) });
  messages.push({ role: 'user', content: task.instruction ?? 'Hi!' });
  let n = 0;
  for (const a of task.actions) {
    if (a.name === RESPOND) continue;
    const id = `call_${n++}`;
    const kwargs = a.kwargs ?? new PyDict();
    messages.push({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: a.name, arguments: dumps(kwargs) } }] });
    const out = runAction(domain, db, { ...a, kwargs: deepCopy(kwargs) });
    messages.push({ role: 'tool', tool_call_id: id, name: a.name, content: out.observation });
    if (out.terminal) return messages;
  }
  messages.push({
    role: 'assistant',
    content: task.outputs.length ? `Here is what you asked for: ${task.outputs.join('; ')}.` : 'Done. Is there anything else?',
  });
  messages.push({ role: 'user', content: STOP });
  return messages;
}
