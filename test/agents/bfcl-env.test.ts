// BFCL multi-turn as a served environment: `arbiter env serve` over real HTTP with a scripted
// OpenAI-compatible server as the policy (the model name is the entry id; it answers each user turn
// with the turn's ground-truth calls, then a reply without calls). The ground truth scores 1 in
// every category, the served reward equals the bfcl_multi_turn grader's on the recorded trajectory,
// a mutated call scores 0 with BFCL's error_type, miss_func adds the held-back tools at their turn,
// malformed calls end the turn as BFCL's handler does (never a crash), the per-turn step limit
// force-quits, and sessions are bounded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { ChatClient } from '../../dist/models/chat-client.js';
import { ChatPolicy, runEpisode, runRollouts, stepRecords } from '../../dist/agents/index.js';
import { getEnv, loadBfclCategory } from '../../dist/envs/index.js';
import { createEnvServer, type EnvServer } from '../../dist/server/index.js';
import { startTestServer, type RecordedRequest, type Reply, type TestServer } from '../helpers/openai-test-server.js';
import { BASE_CONFIG, writeSyntheticLongContext } from '../bfcl/helpers.js';
import { promptingText, toolCallOf } from './bfcl-gold.js';

type Msg = { role: string; content: string | null; tool_calls?: unknown[] };

const RESULTS_PREFIX = "[{'role': 'tool'";

function entryOf(id: string) {
  const cat = id.replace(/^multi_turn_/, '').replace(/_\d+$/, '');
  return loadBfclCategory(cat as never).find((e: any) => e.id === id)!;
}

/** The gold policy: the model name is `<entry id>` (function calling) or `<entry id>@prompting`. */
function goldReply(req: RecordedRequest): Reply {
  const [id, mode] = String(req.body.model).split('@');
  const e = entryOf(id!);
  const msgs = req.body.messages as Msg[];
  const turnMsgs = msgs.filter((m) => m.role === 'user' && !(mode === 'prompting' && String(m.content).startsWith(RESULTS_PREFIX)));
  const t = turnMsgs.length - 1;
  const last = msgs[msgs.length - 1]!;
  const startOfTurn = last.role === 'user' && last === turnMsgs[turnMsgs.length - 1];
  const gt = e.groundTruth[t] ?? [];
  if (!startOfTurn || gt.length === 0) return { content: 'Done.' };
  if (mode === 'prompting') return { content: promptingText(gt, e.involvedClasses) };
  return { tool_calls: gt.map((c: string, k: number) => toolCallOf(c, e.involvedClasses, `call_${t}_${k}`)) };
}

let models: TestServer;
let client: ChatClient;
const servers: EnvServer[] = [];
let lcPath: string;

beforeAll(async () => {
  lcPath = writeSyntheticLongContext();
  process.env.ARBITER_BFCL_LONG_CONTEXT = lcPath;
  models = await startTestServer();
  models.onChat(goldReply);
  client = new ChatClient({ baseURL: models.url, apiKey: 'k', retry: { maxRetries: 0 } });
});
afterAll(async () => {
  for (const s of servers) await s.close();
  await models.close();
  delete process.env.ARBITER_BFCL_LONG_CONTEXT;
});

async function serve(opts: Partial<Parameters<typeof createEnvServer>[0]> = {}): Promise<string> {
  const server = createEnvServer({ deps: {}, ...opts });
  servers.push(server);
  return server.listen({ port: 0 });
}

async function call(url: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(
    url + path,
    body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
  );
  return { status: res.status, json: await res.json() };
}

/** Plays one episode over HTTP with a policy on the scripted server; returns the last step and /state. */
async function playHttp(url: string, reset: Record<string, unknown>, model: string) {
  const policy = new ChatPolicy(client, { model });
  const r = await call(url, '/reset', { env: 'bfcl_multi_turn', ...reset });
  expect(r.status).toBe(200);
  const sid = r.json.session_id;
  let messages = [...r.json.info.messages];
  if (r.json.info.system_prompt) messages.unshift({ role: 'system', content: r.json.info.system_prompt });
  let tools = r.json.info.tools;
  let last: any;
  for (let i = 0; i < 500; i++) {
    const action = await policy.act(messages, tools);
    last = await call(url, '/step', { session_id: sid, action });
    expect(last.status).toBe(200);
    messages = [...messages, action, ...last.json.info.messages];
    if (last.json.info.tools) tools = last.json.info.tools;
    if (last.json.done) break;
  }
  const st = await call(url, '/state', { session_id: sid });
  return { reset: r.json, last: last.json, state: st.json, messages };
}

async function gradeOffline(state: any): Promise<any> {
  const g = loadGrader({ ...BASE_CONFIG, entry_id: '{{item.id}}' });
  return grade(g, { item: state.item, sample: state.sample }, { services: new Services() });
}

describe('bfcl_multi_turn env over HTTP', () => {
  it('the ground truth played by the policy scores 1 in every category; the served reward is the grader’s on /state', async () => {
    const url = await serve();
    for (const cat of ['base', 'long_context', 'miss_func', 'miss_param']) {
      for (const index of [0, 57, 199]) {
        const id = loadBfclCategory(cat as never)[index]!.id;
        const { last, state, messages } = await playHttp(url, { entry_id: id }, id);
        expect(last.done, id).toBe(true);
        expect(last.reward, `${id}: ${JSON.stringify(last.info.reward_info)}`).toBe(1);
        expect(last.info.reward_info).toMatchObject({ valid: true, error_type: null });
        expect(state).toMatchObject({ done: true, reward: 1, entry_id: id });
        expect(state.messages).toEqual(messages);
        expect(state.item.initial_config).toEqual(expect.any(String)); // Python-exact JSON text
        const offline = await gradeOffline(state);
        expect(offline.valid).toBe(true);
        expect(offline.score).toBe(1);
        expect(state.credit[state.credit.length - 1].progress).toBeCloseTo(1, 12);
      }
    }
  });

  it('a mutated call scores 0 with error_type, and the served verdict equals the offline grade', async () => {
    const url = await serve();
    const r = await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_0' });
    const sid = r.json.session_id;
    expect(r.json.observation).toMatch(/final_report\.pdf/);
    expect(r.json.info.tools.map((t: any) => t.function.name)).toContain('mkdir');
    const tc = (name: string, args: string, id = name) => ({ id, type: 'function', function: { name, arguments: args } });
    // turn 0: the ground truth makes directory "temp"; this makes "tmp"
    const s1 = await call(url, '/step', {
      session_id: sid,
      action: {
        role: 'assistant',
        content: null,
        tool_calls: [tc('cd', '{"folder": "document"}'), tc('mkdir', '{"dir_name": "tmp"}'), tc('mv', '{"source": "final_report.pdf", "destination": "tmp"}')],
      },
    });
    expect(s1.json.done).toBe(false);
    expect(s1.json.info.messages.map((m: any) => m.role)).toEqual(['tool', 'tool', 'tool']);
    expect(s1.json.info.messages[0]).toEqual({ role: 'tool', tool_call_id: 'cd', content: '{"current_working_directory": "document"}' });
    let last: any = await call(url, '/step', { session_id: sid, action: { role: 'assistant', content: 'Moved.' } });
    expect(last.json.info.turn_ended).toBe(true);
    expect(last.json.observation).toMatch(/budget analysis/); // the next user turn
    while (!last.json.done) last = await call(url, '/step', { session_id: sid, action: { role: 'assistant', content: 'ok' } });
    expect(last.json.reward).toBe(0);
    expect(last.json.info.error_type).toBe('multi_turn:instance_state_mismatch');
    expect(last.json.info.reward_info).toMatchObject({ valid: true, failed_turn: 0 });
    const st = (await call(url, '/state', { session_id: sid })).json;
    expect(st.sample.output_turns[0]).toEqual(["cd(folder='document')", "mkdir(dir_name='tmp')", "mv(source='final_report.pdf',destination='tmp')"]);
    const offline = await gradeOffline(st);
    expect(offline.score).toBe(0);
    expect(offline.metadata.error_type).toBe('multi_turn:instance_state_mismatch');
  });

  it('a turn answered without calls where the ground truth has some: empty_turn_model_response', async () => {
    const url = await serve();
    const sid = (await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_1' })).json.session_id;
    let last: any;
    do last = await call(url, '/step', { session_id: sid, action: { role: 'assistant', content: 'I will not.' } });
    while (!last.json.done);
    expect(last.json).toMatchObject({ reward: 0, done: true });
    expect(last.json.info.error_type).toBe('multi_turn:empty_turn_model_response');
  });

  it('miss_func: the held-back function is not a tool until its turn, then comes with the turn’s message (without the Python hint)', async () => {
    const url = await serve();
    const e = loadBfclCategory('miss_func')[0]!;
    const [turn, names] = Object.entries(e.missedFunction)[0]!;
    const { reset } = await playHttp(url, { entry_id: e.id }, e.id);
    expect(reset.info.tools.map((t: any) => t.function.name)).not.toContain(names[0]);
    expect(reset.info.tools[0].function.description).toMatch(/ Note that the provided function is in Python 3 syntax\.$/);
    // step through again to see the turn where it is added
    const sid = (await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: e.id })).json.session_id;
    let added: any;
    for (let t = 0; t < Number(turn); t++) {
      const s = await call(url, '/step', { session_id: sid, action: { role: 'assistant', content: 'skip' } });
      if (s.json.info.tools) added = s.json;
    }
    expect(added.info.tools.map((t: any) => t.function.name)).toContain(names[0]);
    const tool = added.info.tools.find((t: any) => t.function.name === names[0]);
    expect(tool.function.description).not.toMatch(/Python 3 syntax/);
    expect(added.info.messages).toEqual([{ role: 'user', content: expect.stringMatching(/functions/) }]);
    expect(added.observation).toBe(added.info.messages[0].content);
  });

  it('malformed calls: arguments that are not a JSON object end the turn (BFCL’s decode failure), unknown names are error results; nothing crashes', async () => {
    const url = await serve();
    const sid = (await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_1' })).json.session_id;
    const tc = (name: string, args: string) => ({ id: `c_${name}`, type: 'function', function: { name, arguments: args } });
    const unknown = await call(url, '/step', {
      session_id: sid,
      action: { role: 'assistant', content: null, tool_calls: [tc('no_such_tool', '{}'), tc('ls', '{"a": true}')] },
    });
    expect(unknown.status).toBe(200);
    expect(unknown.json.info.messages[0].content).toBe("Error during execution: name 'no_such_tool' is not defined");
    expect(unknown.json.info).toMatchObject({ tool_calls: 2, tool_errors: 1, turn_ended: false });
    for (const args of ['{"a": tru', '[1, 2]', '', 'null']) {
      const bad = await call(url, '/step', { session_id: sid, action: { role: 'assistant', content: null, tool_calls: [tc('ls', args)] } });
      expect(bad.status, args).toBe(200);
      expect(bad.json.info).toMatchObject({ tool_calls: 0, tool_errors: 1, turn_ended: true });
      expect(bad.json.info.decode_error).toMatch(/does not decode/);
      if (bad.json.done) break;
    }
    const st = (await call(url, '/state', { session_id: sid })).json;
    expect(st.done).toBe(true);
    expect(st.sample.output_turns[0]).toEqual(['no_such_tool()', 'ls(a=True)']);
    expect(st.sample.output_turns.slice(1)).toEqual([[], [], []]);
    expect(st.reward).toBe(0);
    expect(st.reward_info.error_type).toBe('multi_turn:empty_turn_model_response');
    // an action that is not a message at all is a 400, and the session goes on
    const sid2 = (await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_1' })).json.session_id;
    expect((await call(url, '/step', { session_id: sid2, action: [1, 2] })).status).toBe(400);
    expect((await call(url, '/step', { session_id: sid2, action: { role: 'assistant', content: 'ok' } })).status).toBe(200);
  });

  it('more than max_steps_per_turn executed responses in one turn force-quit the entry: force_terminated, truncated', async () => {
    const url = await serve({ envDefaults: { bfcl_multi_turn: { max_steps_per_turn: 3 } } });
    const sid = (await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_1' })).json.session_id;
    const ls = { role: 'assistant', content: null, tool_calls: [{ id: 'x', type: 'function', function: { name: 'ls', arguments: '{}' } }] };
    const seen: boolean[] = [];
    let last: any;
    for (let i = 0; i < 4; i++) {
      last = await call(url, '/step', { session_id: sid, action: ls });
      seen.push(last.json.done);
    }
    expect(seen).toEqual([false, false, false, true]); // BFCL: count > MAXIMUM_STEP_LIMIT
    expect(last.json.info).toMatchObject({ truncated: true, error_type: 'multi_turn:force_terminated' });
    expect(last.json.reward).toBe(0);
    const st = (await call(url, '/state', { session_id: sid })).json;
    expect(st.sample.output_turns).toHaveLength(1);
    expect(st.sample.output_turns[0]).toHaveLength(4);
  });

  it('prompting mode: Python calls in the text, results as one user message holding their repr, no tools sent', async () => {
    const url = await serve();
    const id = 'multi_turn_base_3';
    const { reset, last, state } = await playHttp(url, { entry_id: id, mode: 'prompting' }, `${id}@prompting`);
    expect(reset.info.tools).toEqual([]);
    expect(reset.info.system_prompt).toMatch(/"name": "find"/);
    expect(last.reward).toBe(1);
    const results = state.messages.find((m: any) => m.role === 'user' && m.content.startsWith(RESULTS_PREFIX));
    expect(results.content).toMatch(/^\[\{'role': 'tool', 'name': "find\(/);
    const req = models.chatRequests.find((r) => r.body.model === `${id}@prompting`)!;
    expect(req.body.tools).toBeUndefined();
    expect((await gradeOffline(state)).score).toBe(1);
  });

  it('bad options are 400 naming the field; sessions are bounded (429)', async () => {
    const url = await serve({ maxSessions: 1 });
    const bad = async (body: unknown) => {
      const r = await call(url, '/reset', { env: 'bfcl_multi_turn', ...(body as object) });
      expect(r.status).toBe(400);
      return r.json.error.message as string;
    };
    expect(await bad({})).toMatch(/exactly one of "entry_id"/);
    expect(await bad({ entry_id: 'multi_turn_base_9999' })).toMatch(/no entry multi_turn_base_9999/);
    expect(await bad({ entry_id: 'multi_turn_memory_0' })).toMatch(/is not a multi_turn_/);
    expect(await bad({ category: 'base' })).toMatch(/go together/);
    expect(await bad({ entry_id: 'multi_turn_base_0', steps: 3 })).toMatch(/unknown option\(s\) steps/);
    expect(await bad({ entry_id: 'multi_turn_base_0', max_steps_per_turn: 0 })).toMatch(/max_steps_per_turn/);
    const e = loadBfclCategory('base')[0]!;
    // a TravelAPI card balance written as an int: as a parsed object its Python type is unknown
    const travel = loadBfclCategory('base').find((x: any) => x.id === 'multi_turn_base_151')!;
    expect(travel.initialConfigText).toMatch(/"balance": \d+[,}]/);
    expect(await bad({ entry: travel.raw })).toMatch(/int or a float.*JSON text/);
    // a class name that is a property of every JS object is still an unknown class, not a crash
    for (const cls of ['constructor', 'toString', '__proto__']) {
      expect(await bad({ entry: { ...e.raw, initial_config: e.initialConfigText, involved_classes: [cls] } })).toMatch(
        `no function docs for a class named ${cls}`,
      );
    }
    const ok = await call(url, '/reset', { env: 'bfcl_multi_turn', entry: { ...e.raw, initial_config: e.initialConfigText } });
    expect(ok.status).toBe(200);
    const full = await call(url, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_1' });
    expect(full.status).toBe(429);
    const tools = await call(url, '/tools?env=bfcl_multi_turn&category=miss_func&index=0');
    expect(tools.status).toBe(200);
    expect(tools.json.tools.length).toBeGreaterThan(10);
  });
});

describe('bfcl_multi_turn rollouts', () => {
  it('runRollouts writes records the grader reads as they are; equal states of two trials share anchors; step lines', async () => {
    const ids = ['multi_turn_base_2', 'multi_turn_miss_param_5'];
    const recs: any[] = [];
    // one policy per entry: the scripted server knows the entry from the model name
    for (const id of ids) {
      const jobs = [0, 1].map((k) => ({ id: `${id}-${k}`, group: id, env: 'bfcl_multi_turn', options: { entry_id: id } }));
      for await (const rec of runRollouts(jobs, { policy: new ChatPolicy(client, { model: id }), deps: {}, concurrency: 2 })) recs.push(rec);
    }
    expect(recs.map((r) => r.reward)).toEqual([1, 1, 1, 1]);
    for (const rec of recs) {
      const g = await grade(loadGrader({ ...BASE_CONFIG, entry_id: '{{item.id}}' }), { item: rec.item, sample: rec.sample }, { services: new Services() });
      expect(g.score).toBe(rec.reward);
      expect(rec.sample.messages.length).toBeGreaterThan(2);
    }
    expect(recs[0].credit.map((c: any) => c.anchor)).toEqual(recs[1].credit.map((c: any) => c.anchor));
    const lines = stepRecords(recs[0]);
    expect(lines).toHaveLength(recs[0].credit.length);
    expect(lines[0]).toMatchObject({ uid: 'multi_turn_base_2', traj_uid: 'multi_turn_base_2-0', turn: 0, episode_return: 1 });
    // the last step carries the outcome on top of its progress reward
    expect(lines[lines.length - 1]!.step_reward).toBeGreaterThanOrEqual(1);
  });

  it('arbiter env rollout / env tools for bfcl_multi_turn: records the grader scores to the recorded rewards; bad usage is exit 2', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const { mkdtempSync, readFileSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-bfcl-env-'));
    const out = join(dir, 'bfcl.jsonl');
    const steps = join(dir, 'steps.jsonl');
    const id = 'multi_turn_base_3';
    const r = await runCli([
      'env',
      'rollout',
      '--env',
      'bfcl_multi_turn',
      '--category',
      'base',
      '--entries',
      '3',
      '--trials',
      '2',
      '--policy-model',
      id,
      '--policy-base-url',
      models.url,
      '-o',
      out,
      '--steps-output',
      steps,
    ]);
    expect(r.stderr).toMatch(/2 episodes, 0 failed, mean reward 1\.0000/);
    expect(r.code).toBe(0);
    const recs = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(recs.map((x) => x.id)).toEqual([`${id}-0`, `${id}-1`]);
    expect(recs[0].env).toEqual({ name: 'bfcl_multi_turn', entry_id: id });
    // one record made worse on purpose: it must grade to 0
    recs[1].sample.output_turns[1] = [];
    writeFileSync(out, recs.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const gfile = join(dir, 'bfcl.json');
    writeFileSync(gfile, JSON.stringify({ ...BASE_CONFIG, entry_id: '{{item.id}}' }));
    const scored = await runCli(['score', '--grader', gfile, out]);
    expect(scored.code).toBe(0);
    const results = scored.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(results.map((x) => x.score)).toEqual([1, 0]);
    expect(results[1].metadata.error_type).toBe('multi_turn:empty_turn_model_response');
    expect(readFileSync(steps, 'utf8').trim().split('\n')).toHaveLength(recs[0].turns + recs[1].turns);

    const tools = await runCli(['env', 'tools', '--env', 'bfcl_multi_turn', '--entry-id', 'multi_turn_miss_func_0']);
    expect(tools.code).toBe(0);
    const names = JSON.parse(tools.stdout).tools.map((t: any) => t.function.name);
    expect(names).toContain('mv');
    expect(names).not.toContain('sort'); // held back until turn 3
    const noCat = await runCli(['env', 'rollout', '--env', 'bfcl_multi_turn', '--policy-model', id, '--policy-base-url', models.url]);
    expect(noCat.code).toBe(2);
    expect(noCat.stderr).toMatch(/need --category/);
    const withDomain = await runCli([
      'env',
      'rollout',
      '--env',
      'bfcl_multi_turn',
      '--category',
      'base',
      '--domain',
      'airline',
      '--policy-model',
      id,
      '--policy-base-url',
      models.url,
    ]);
    expect(withDomain.code).toBe(2);
    expect(withDomain.stderr).toMatch(/--domain is not a bfcl_multi_turn option/);
  }, 60_000);

  it('every ground truth of the four categories scores 1 through the environment (800 entries)', async () => {
    const fam = getEnv('bfcl_multi_turn')!;
    const failed: string[] = [];
    let n = 0;
    for (const cat of ['base', 'long_context', 'miss_func', 'miss_param']) {
      for (const e of loadBfclCategory(cat as never)) {
        const ep = fam.create({ entry_id: e.id }, {});
        const scripted = {
          async act(messages: any[]) {
            const reply = goldReply({ body: { model: e.id, messages } } as RecordedRequest);
            return reply.tool_calls
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: reply.tool_calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
                }
              : { role: 'assistant', content: reply.content };
          },
        };
        await runEpisode(ep, scripted as never);
        n++;
        if (ep.state().reward !== 1) failed.push(`${e.id}: ${JSON.stringify(ep.state().reward_info)}`);
      }
    }
    expect(n).toBe(800);
    expect(failed).toEqual([]);
  });
});
