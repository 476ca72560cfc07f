// `arbiter env serve` over real HTTP: OpenEnv-style reset/step/state/close on tau-bench episodes
// with a simulated user on a scripted OpenAI-compatible server; sessions bounded in number and idle
// time (an injected clock, no sleeps), one step at a time, errors with their status codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { ChatClient } from '../../dist/models/chat-client.js';
import { ChatUserSimulator } from '../../dist/agents/index.js';
import { createEnvServer, type EnvServer } from '../../dist/server/index.js';
import { jsonDumps as dumps } from '../../dist/py/format.js';
import { loadTasks, readTask } from '../../dist/envs/tau_bench/domain.js';
import type { TestServer } from '../helpers/openai-test-server.js';
import { scriptedServer, userReply } from './scripted.js';

let models: TestServer;
let user: () => ChatUserSimulator;
const servers: EnvServer[] = [];

beforeAll(async () => {
  models = await scriptedServer();
  const client = new ChatClient({ baseURL: models.url, apiKey: 'k', retry: { maxRetries: 0 } });
  user = () => new ChatUserSimulator(client, { model: 'user', temperature: 0 });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await models.close();
});

async function serve(opts: Partial<Parameters<typeof createEnvServer>[0]> = {}): Promise<{ server: EnvServer; url: string }> {
  const server = createEnvServer({ deps: { user }, ...opts });
  servers.push(server);
  return { server, url: await server.listen({ port: 0 }) };
}

async function call(url: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(
    url + path,
    body === undefined ? { headers } : { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) },
  );
  return { status: res.status, json: await res.json() };
}

describe('env serve: an episode over HTTP', () => {
  it('reset → step the gold actions → reply → done with reward 1; /state holds a trajectory the grader scores the same', async () => {
    const { url } = await serve();
    const tools = await call(url, '/tools?env=tau_bench&domain=airline');
    expect(tools.status).toBe(200);
    expect(tools.json.tools.map((t: any) => t.function.name)).toContain('book_reservation');
    expect(tools.json.tools).toHaveLength(14);
    expect(tools.json.system_prompt).toMatch(/Airline Agent Policy/);

    const r = await call(url, '/reset', { env: 'tau_bench', domain: 'airline', task_index: 0 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ observation: 'Hi, I need help with task airline:0.', reward: null, done: false });
    const sid = r.json.session_id;
    const task = readTask(loadTasks('airline')[0]);
    for (const a of task.actions) {
      const s = await call(url, '/step', { session_id: sid, action: { name: a.name, arguments: dumps(a.kwargs!) } });
      expect(s.status).toBe(200);
      expect(s.json).toMatchObject({ reward: 0, done: false });
      expect(s.json.observation).toMatch(/"reservation_id": "HATHAT"/);
      expect(s.json.info).toMatchObject({ tool_calls: 1, tool_errors: 0, progress: 1 });
      expect(s.json.info.messages[0]).toMatchObject({ role: 'tool', name: a.name });
    }
    const end = await call(url, '/step', { session_id: sid, action: { role: 'assistant', content: 'Your flight is booked.' } });
    expect(end.json).toMatchObject({ observation: '###STOP###', reward: 1, done: true });
    expect(end.json.info.reward_info).toMatchObject({ reward: 1, state_match: true, ended_by: 'user_stop' });

    const st = await call(url, '/state', { session_id: sid });
    expect(st.json).toMatchObject({ done: true, reward: 1, turns: 2 });
    const g = loadGrader({ type: 'tau_bench', domain: 'airline' });
    const graded = await grade(g, { item: st.json.item, sample: { messages: st.json.messages } }, { services: new Services() });
    expect(graded.score).toBe(1);
    expect(graded.steps).toEqual(st.json.credit.map((c: any) => c.step_reward));

    expect((await call(url, '/step', { session_id: sid, action: { name: 'think', arguments: { thought: 'x' } } })).status).toBe(409);
    const closed = await call(url, '/close', { session_id: sid });
    expect(closed.json).toMatchObject({ closed: true, reward: 1 });
    expect((await call(url, `/state?session_id=${sid}`)).status).toBe(404);
  });

  it('a wrong action ends with reward 0 and the first difference; tool errors are observations, not HTTP errors', async () => {
    const { url } = await serve();
    const sid = (await call(url, '/reset', { domain: 'retail', task_index: 0 })).json.session_id;
    const bad = await call(url, '/step', {
      session_id: sid,
      action: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'a', type: 'function', function: { name: 'get_order_details', arguments: '{"order_id": "nope"}' } },
          { id: 'b', type: 'function', function: { name: 'no_such_tool', arguments: '{}' } },
        ],
      },
    });
    expect(bad.status).toBe(200);
    expect(bad.json.info.messages.map((m: any) => m.content)).toEqual(['Error: order not found', 'Unknown action no_such_tool']);
    expect(bad.json.info.tool_errors).toBe(2);
    expect(bad.json.info.step_reward).toBeCloseTo(-0.2, 12);
    const end = await call(url, '/step', { session_id: sid, action: { name: 'respond', arguments: { content: 'done' } } });
    expect(end.json).toMatchObject({ done: true, reward: 0 });
    expect(end.json.info.reward_info.state_match).toBe(false);
    expect(end.json.info.reward_info.difference).toMatch(/^orders\["#W/);
  });

  it('max_steps ends an episode that goes on, with reward 0 as in tau-bench', async () => {
    const { url } = await serve({ defaultOptions: { max_steps: 2 } });
    const sid = (await call(url, '/reset', { domain: 'airline', task_index: 1 })).json.session_id;
    const think = { session_id: sid, action: { name: 'think', arguments: { thought: 'hmm' } } };
    expect((await call(url, '/step', think)).json.done).toBe(false);
    const last = await call(url, '/step', think);
    expect(last.json).toMatchObject({ done: true, reward: 0 });
    expect(last.json.info.truncated).toBe(true);
  });
});

describe('env serve: sessions and errors', () => {
  it('bounds open sessions (429) and closes idle ones (injected clock)', async () => {
    let t = 1_000_000;
    const { url, server } = await serve({ maxSessions: 2, sessionIdleMs: 60_000, now: () => t });
    const a = await call(url, '/reset', { domain: 'airline', task_index: 0 });
    await call(url, '/reset', { domain: 'airline', task_index: 1 });
    const full = await call(url, '/reset', { domain: 'airline', task_index: 2 });
    expect(full.status).toBe(429);
    expect(full.json.error.code).toBe('too_many_sessions');
    t += 59_999;
    expect(server.sweep()).toBe(0);
    t += 1;
    expect(server.sweep()).toBe(2);
    const gone = await call(url, '/step', { session_id: a.json.session_id, action: { name: 'think', arguments: { thought: 'x' } } });
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe('unknown_session');
    expect((await call(url, '/reset', { domain: 'airline', task_index: 2 })).status).toBe(200);
  });

  it('one step at a time per session (409 while the user simulator is answering)', async () => {
    const { url } = await serve();
    const sid = (await call(url, '/reset', { domain: 'airline', task_index: 0 })).json.session_id;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let arrived!: () => void;
    const userAsked = new Promise<void>((r) => (arrived = r));
    models.onChat(async (req) => {
      if (req.body.model !== 'user') return { content: 'x' };
      arrived();
      await gate;
      return userReply(req);
    });
    try {
      const first = call(url, '/step', { session_id: sid, action: { name: 'respond', arguments: { content: 'hello' } } });
      await userAsked;
      const second = await call(url, '/step', { session_id: sid, action: { name: 'think', arguments: { thought: 'x' } } });
      expect(second.status).toBe(409);
      expect(second.json.error.code).toBe('session_busy');
      release();
      expect((await first).json.done).toBe(true);
    } finally {
      models.onChat((req) => (req.body.model === 'user' ? userReply(req) : { content: 'x' }));
    }
  });

  it('a user-simulator failure is a 502 and commits nothing: the same step can be retried', async () => {
    const { url } = await serve();
    const sid = (await call(url, '/reset', { domain: 'airline', task_index: 0 })).json.session_id;
    models.enqueue({ status: 500, body: { error: { message: 'boom' } } });
    const failed = await call(url, '/step', { session_id: sid, action: { name: 'respond', arguments: { content: 'hello' } } });
    expect(failed.status).toBe(502);
    expect(failed.json.error.code).toBe('user_simulator_error');
    expect((await call(url, '/state', { session_id: sid })).json.turns).toBe(0);
    const retried = await call(url, '/step', { session_id: sid, action: { name: 'respond', arguments: { content: 'hello' } } });
    expect(retried.json.done).toBe(true);
    expect((await call(url, '/state', { session_id: sid })).json.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
  });

  it('refuses bad requests with 4xx and a message naming the problem', async () => {
    const { url } = await serve();
    const bad = async (body: unknown) => (await call(url, '/reset', body)).json.error.message as string;
    expect(await bad({ domain: 'hotel', task_index: 0 })).toMatch(/^domain:/);
    expect(await bad({ domain: 'airline', task_index: 50 })).toBe('task_index 50 is out of range: airline has 50 test tasks');
    expect(await bad({ domain: 'airline' })).toMatch(/give "task_index"/);
    expect(await bad({ domain: 'airline', task_index: 0, color: 'red' })).toMatch(/unknown option/);
    expect((await call(url, '/reset', { env: 'chess', domain: 'airline', task_index: 0 })).status).toBe(404);
    expect((await call(url, '/step', { action: {} })).json.error.message).toMatch(/session_id/);
    const sid = (await call(url, '/reset', { domain: 'airline', task_index: 0 })).json.session_id;
    expect((await call(url, '/step', { session_id: sid })).status).toBe(400);
    expect((await call(url, '/step', { session_id: sid, action: 'call a tool' })).status).toBe(400);
    // a custom task works too
    const custom = await call(url, '/reset', { domain: 'retail', task: { instruction: 'You want nothing.', actions: [], outputs: [] } });
    expect(custom.status).toBe(200);
    const { url: noUser } = await serve({ deps: {} });
    const r = await call(noUser, '/reset', { domain: 'airline', task_index: 0 });
    expect(r.status).toBe(400);
    expect(r.json.error.message).toMatch(/need a user simulator/);
  });

  it('requires the token when one is set', async () => {
    const { url } = await serve({ token: 's3cret' });
    expect((await call(url, '/reset', { domain: 'airline', task_index: 0 })).status).toBe(401);
    expect((await call(url, '/reset', { domain: 'airline', task_index: 0 }, { authorization: 'Bearer s3cret' })).status).toBe(200);
    expect((await call(url, '/health')).status).toBe(401); // only /healthz is open
    expect((await call(url, '/healthz')).status).toBe(200);
  });
});

describe('arbiter env serve (the CLI)', () => {
  it('serves episodes with a user simulator on a model server, and stops on SIGTERM with exit 0', async () => {
    const { spawn } = await import('node:child_process');
    const { CLI } = await import('../helpers/cli.js');
    const child = spawn(
      process.execPath,
      [CLI, 'env', 'serve', '--port', '0', '--user-model', 'user', '--user-base-url', models.url, '--max-sessions', '4', '--max-steps-per-turn', '2'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
    try {
      const health = await call(url, '/health');
      expect(health.json).toMatchObject({ status: 'ok', sessions: 0, max_sessions: 4, envs: ['bfcl_multi_turn', 'frozenlake', 'tau_bench'] });
      // BFCL entries next to tau-bench; --max-steps-per-turn is BFCL's default option only
      const b = await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_0' });
      expect(b.json.info).toMatchObject({ entry_id: 'multi_turn_base_0', max_steps_per_turn: 2 });
      await call(url, '/close', { session_id: b.json.session_id });
      const r = await call(url, '/reset', { domain: 'retail', task_index: 2 });
      expect(r.json.observation).toBe('Hi, I need help with task retail:2.');
      const s = await call(url, '/step', { session_id: r.json.session_id, action: { name: 'respond', arguments: { content: 'bye' } } });
      expect(s.json).toMatchObject({ done: true, reward: 0 });
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  });

  it('refuses a non-loopback address without a token (exit 2)', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const r = await runCli(['env', 'serve', '--host', '0.0.0.0', '--port', '0']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/refusing to serve on non-loopback address 0\.0\.0\.0 without a token/);
  });
});
