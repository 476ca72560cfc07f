// A scripted OpenAI-compatible server for environment tests: model "user" plays tau-bench's user
// (its first message names the task; any agent reply then ends the episode with ###STOP###) and
// model "gold" is a policy that calls the task's gold actions one by one (arguments as exact JSON
// text), then replies with the task's outputs. Other behaviours are added per test with onChat.
import { jsonDumps as dumps } from '../../dist/py/format.js';
import { PyDict } from '../../dist/py/values.js';
import { loadTasks, readTask } from '../../dist/envs/tau_bench/domain.js';
import { startTestServer, type RecordedRequest, type Reply, type TestServer } from '../helpers/openai-test-server.js';
import { dataPath } from '../helpers/data.js';

// tau-bench's data (README "Benchmark data"): this file fails at once, naming the path, when it is absent
dataPath('tau-bench/airline/flights.json');

type Dom = 'airline' | 'retail';

/** The task a user-simulator request is about (its system prompt holds the instruction). */
function taskOfPrompt(system: string): { domain: Dom; index: number } | undefined {
  for (const domain of ['airline', 'retail'] as Dom[]) {
    const tasks = loadTasks(domain) as { instruction: string }[];
    const index = tasks.findIndex((t) => system.includes(t.instruction));
    if (index >= 0) return { domain, index };
  }
  return undefined;
}

export function userReply(req: RecordedRequest): Reply {
  const msgs = req.body.messages as { role: string; content: string }[];
  if (msgs.length === 2) {
    const t = taskOfPrompt(msgs[0]!.content);
    return { content: t ? `Hi, I need help with task ${t.domain}:${t.index}.` : 'Hi, I need help.' };
  }
  return { content: '###STOP###' };
}

/** The gold policy's next message for a request (the task is named in the first user message). */
export function goldReply(req: RecordedRequest): Reply {
  const msgs = req.body.messages as { role: string; content: string | null; tool_calls?: unknown[] }[];
  const first = msgs.find((m) => m.role === 'user')?.content ?? '';
  const m = /task (airline|retail):(\d+)/.exec(first);
  if (!m) return { content: 'I cannot tell which task this is.' };
  const task = readTask(loadTasks(m[1] as Dom)[Number(m[2])]);
  const done = msgs.filter((x) => x.role === 'assistant' && x.tool_calls?.length).length;
  const next = task.actions[done];
  if (next) return { tool_calls: [{ id: `call_${done}`, name: next.name, arguments: dumps(next.kwargs ?? new PyDict()) }] };
  return { content: task.outputs.length ? `Here you are: ${task.outputs.join(', ')}.` : 'All done.' };
}

export async function scriptedServer(): Promise<TestServer> {
  const s = await startTestServer();
  s.onChat((req) => (req.body.model === 'user' ? userReply(req) : goldReply(req)));
  return s;
}
