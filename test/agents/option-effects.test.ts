// Every option of `arbiter env serve`, `env rollout` and `env tools` that no other test passes on the
// command line, shown to take effect: real CLI processes with the options against ones without
// (the baseline), on a local OpenAI-compatible server that records the policy and user-model
// requests. The data-folder options read temp folders made of links to the shared data with one
// file changed (a marked wiki, a renamed BFCL entry); a missing folder gives the named error.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { dataPath } from '../helpers/data.js';
import { startTestServer, type RecordedRequest, type Reply, type TestServer } from '../helpers/openai-test-server.js';
import { serveCommand, type ServeProcess } from '../server/serve-process.js';
import { userReply } from './scripted.js';

const TAU = dataPath('tau-bench');
const BFCL = join(dataPath('bfcl/multi_turn/func_doc'), '..', '..');
const WIKI_MARK = 'OPTION-WALK POLICY: a marked copy of the airline wiki.';
const PROMPT_MARK = 'OPTION-WALK USER PROMPT.';
const NEW_ID = 'multi_turn_base_9999';
const TOKEN = 'env-opt-token';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const KEYS = { OPENAI_API_KEY: 'default-key', ARB_USER_KEY: 'user-key', ARB_POLICY_KEY: 'policy-key' };

let dir: string;
let tauDir: string;
let bfclDir: string;
let promptFile: string;
let models: TestServer;

/** Per-test knobs of the scripted models (tests in a file run one at a time). */
const knobs = { userDelayMs: 0, barrierKey: '' };
const inFlight = new Map<string, number>();
const maxInFlight = new Map<string, number>();
let barrier: { n: number; open: () => void; opened: Promise<void> } | undefined;

const keyOf = (r: RecordedRequest) => String(r.headers.authorization ?? '').replace(/^Bearer /, '');
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The policy: model "slow" answers after 1 s; the first turn calls `think` twice, later turns reply "Done." */
async function policyReply(req: RecordedRequest): Promise<Reply> {
  if (req.body.model === 'slow') await wait(1000);
  const msgs = req.body.messages as { role: string; tool_calls?: unknown[] }[];
  if (req.body.model === 'bfcl') return { content: 'I cannot do that.' };
  // a BFCL policy that never stops calling: every response is one executed call
  if (String(req.body.model).startsWith('bfclloop'))
    return req.body.tools ? { tool_calls: [{ name: 'get_user_id', arguments: { user: 'alice' } }] } : { content: "[get_user_id(user='alice')]" };
  if (!msgs.some((m) => m.role === 'assistant'))
    return {
      tool_calls: [
        { name: 'think', arguments: { thought: 'one' } },
        { name: 'think', arguments: { thought: 'two' } },
      ],
    };
  return { content: 'Done.' };
}

async function userModelReply(req: RecordedRequest): Promise<Reply> {
  const k = keyOf(req);
  inFlight.set(k, (inFlight.get(k) ?? 0) + 1);
  maxInFlight.set(k, Math.max(maxInFlight.get(k) ?? 0, inFlight.get(k)!));
  try {
    if (req.body.model === 'slowuser') await wait(1000);
    if (knobs.barrierKey === k && barrier) {
      // hold every request until two are in flight at once (the state, not a clock, decides)
      if (++barrier.n >= 2) barrier.open();
      await barrier.opened;
    } else if (knobs.userDelayMs) await wait(knobs.userDelayMs);
    return userReply(req);
  } finally {
    inFlight.set(k, inFlight.get(k)! - 1);
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'arbiter-env-opts-'));
  // tau-bench: links to the shared files, with a marked wiki
  tauDir = join(dir, 'tau');
  for (const d of ['airline', 'retail']) {
    mkdirSync(join(tauDir, d), { recursive: true });
    for (const f of readdirSync(join(TAU, d))) if (!(d === 'airline' && f === 'wiki.md')) symlinkSync(join(TAU, d, f), join(tauDir, d, f));
  }
  writeFileSync(join(tauDir, 'airline', 'wiki.md'), WIKI_MARK);
  // BFCL: links to the function docs, and a base category of one entry under a new id
  bfclDir = join(dir, 'bfcl');
  mkdirSync(join(bfclDir, 'multi_turn', 'possible_answer'), { recursive: true });
  for (const f of ['func_doc', 'long_context_extensions.json']) symlinkSync(join(BFCL, 'multi_turn', f), join(bfclDir, 'multi_turn', f));
  for (const rel of ['BFCL_v4_multi_turn_base.json', 'possible_answer/BFCL_v4_multi_turn_base.json']) {
    const first = readFileSync(join(BFCL, 'multi_turn', rel), 'utf8').split('\n')[0]!;
    const entry = JSON.parse(first) as { id: string };
    expect(entry.id).toBe('multi_turn_base_0');
    writeFileSync(join(bfclDir, 'multi_turn', rel), JSON.stringify({ ...entry, id: NEW_ID }) + '\n');
  }
  promptFile = join(dir, 'user-prompt.txt');
  writeFileSync(promptFile, `${PROMPT_MARK} Play this customer: {instruction}`);
  models = await startTestServer();
  models.onChat((req) => (req.body.model === 'user' || req.body.model === 'slowuser' ? userModelReply(req) : policyReply(req)));
}, 60_000);

afterAll(async () => {
  await models?.close();
  rmSync(dir, { recursive: true, force: true });
});

const userRequests = (key: string) => models.chatRequests.filter((r) => (r.body.model === 'user' || r.body.model === 'slowuser') && keyOf(r) === key);

async function call(s: ServeProcess, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(
    s.url + path,
    body === undefined ? { headers } : { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) },
  );
  return { status: res.status, json: await res.json() };
}

describe('arbiter env serve options take effect', () => {
  let base: ServeProcess;
  let tuned: ServeProcess;
  const env = () => ({ ...process.env, ...KEYS }) as Record<string, string>;
  beforeAll(async () => {
    const user = ['--user-model', 'user', '--user-base-url', models.url];
    [base, tuned] = await Promise.all([
      serveCommand(['env', 'serve'], user, env()),
      serveCommand(
        ['env', 'serve'],
        [
          ...user,
          ['--token', TOKEN],
          ['--session-idle-ms', '1500'],
          ['--max-steps', '1'],
          ['--default-env', 'bfcl_multi_turn'],
          ['--body-limit', '300'],
          ['--tau-bench-dir', tauDir],
          ['--bfcl-dir', bfclDir],
          ['--user-concurrency', '1'],
          ['--log-level', 'info'],
          ['--user-api-key-env', 'ARB_USER_KEY'],
          ['--user-temperature', '0.3'],
          ['--user-prompt', promptFile],
          ['--user-timeout-ms', '2000'],
        ].flat(),
        env(),
      ),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([base?.stop(), tuned?.stop()]);
  });

  const resetTau = (s: ServeProcess, headers: Record<string, string> = {}) =>
    call(s, '/reset', { env: 'tau_bench', domain: 'airline', task_index: 0 }, headers);

  it('--token: requests without the bearer token get 401; the default server needs none', async () => {
    expect((await call(tuned, '/tools?env=tau_bench&domain=airline')).status).toBe(401);
    expect((await call(tuned, '/tools?env=tau_bench&domain=airline', undefined, AUTH)).status).toBe(200);
    expect((await call(base, '/tools?env=tau_bench&domain=airline')).status).toBe(200);
  });

  it('--insecure: a non-loopback --host without a token is refused at start, and served with --insecure', async () => {
    const refused = await runCli(['env', 'serve', '--host', '0.0.0.0', '--port', '0'], { env: { ...process.env, ARBITER_TOKEN: '' } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/--token.*--insecure/);
    const open = await serveCommand(['env', 'serve'], ['--host', '0.0.0.0', '--insecure'], { ARBITER_TOKEN: '' });
    try {
      const port = new URL(open.url).port;
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    } finally {
      await open.stop();
    }
  });

  it('--body-limit: a 400-byte body gets 413 under --body-limit 300; the default limit reads it', async () => {
    const body = { env: 'tau_bench', domain: 'airline', task_index: 0, pad: 'x'.repeat(330) };
    expect(JSON.stringify(body).length).toBeGreaterThan(300);
    const t = await call(tuned, '/reset', body, AUTH);
    expect(t.status).toBe(413);
    expect(t.json.error.code).toBe('body_too_large');
    const b = await call(base, '/reset', body);
    expect(b.status).not.toBe(413);
  });

  it('--max-steps: one agent turn ends a tau_bench episode (truncated, reward 0); the default goes on', async () => {
    const think = (sid: string) => ({ session_id: sid, action: { name: 'think', arguments: { thought: 'hmm' } } });
    const t = await resetTau(tuned, AUTH);
    expect(t.status).toBe(200);
    const ts = await call(tuned, '/step', think(t.json.session_id), AUTH);
    expect(ts.json).toMatchObject({ done: true, reward: 0 });
    expect(ts.json.info.truncated).toBe(true);
    const b = await resetTau(base);
    const bs = await call(base, '/step', think(b.json.session_id));
    expect(bs.json.done).toBe(false);
  });

  it('--default-env: a reset naming no environment opens a bfcl_multi_turn episode; the default opens tau_bench', async () => {
    const t = await call(tuned, '/reset', { entry_id: NEW_ID }, AUTH);
    expect(t.status).toBe(200);
    expect(t.json.observation).toContain('final_report.pdf');
    const b = await call(base, '/reset', { entry_id: 'multi_turn_base_0' });
    expect(b.status).toBe(400);
    expect(JSON.stringify(b.json)).toMatch(/domain/);
  });

  it('--bfcl-dir: entries come from the given folder (its renamed entry opens, the shared one does not); the default reads the shared data', async () => {
    expect((await call(tuned, '/reset', { env: 'bfcl_multi_turn', entry_id: NEW_ID }, AUTH)).status).toBe(200);
    expect((await call(tuned, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_0' }, AUTH)).status).toBe(400);
    expect((await call(base, '/reset', { env: 'bfcl_multi_turn', entry_id: 'multi_turn_base_0' })).status).toBe(200);
    expect((await call(base, '/reset', { env: 'bfcl_multi_turn', entry_id: NEW_ID })).status).toBe(400);
  });

  it("--tau-bench-dir: the domain's wiki comes from the given folder; the default reads the shared data", async () => {
    const t = await call(tuned, '/tools?env=tau_bench&domain=airline', undefined, AUTH);
    expect(t.json.system_prompt).toBe(WIKI_MARK);
    const b = await call(base, '/tools?env=tau_bench&domain=airline');
    expect(b.json.system_prompt).toMatch(/Airline Agent Policy/);
  });

  it('--user-api-key-env, --user-temperature, --user-prompt: the user-model request carries that key, temperature and prompt; the default sends $OPENAI_API_KEY, no temperature and the built-in prompt', async () => {
    models.requests.length = 0;
    expect((await resetTau(tuned, AUTH)).status).toBe(200);
    expect((await resetTau(base)).status).toBe(200);
    const [t] = userRequests(KEYS.ARB_USER_KEY);
    const [b] = userRequests(KEYS.OPENAI_API_KEY);
    expect(t && b).toBeTruthy();
    // --user-api-key-env
    expect(userRequests(KEYS.OPENAI_API_KEY)).toHaveLength(1);
    // --user-temperature
    expect(t!.body.temperature).toBe(0.3);
    expect('temperature' in b!.body).toBe(false);
    // --user-prompt
    expect(t!.body.messages[0].content.startsWith(`${PROMPT_MARK} Play this customer: `)).toBe(true);
    expect(b!.body.messages[0].content).not.toContain(PROMPT_MARK);
  });

  it('--user-concurrency: with 1, two resets at once reach the user model one at a time; the default lets both in at once', async () => {
    inFlight.clear();
    maxInFlight.clear();
    knobs.userDelayMs = 150;
    let open!: () => void;
    barrier = { n: 0, open: () => open(), opened: new Promise<void>((r) => (open = r)) };
    knobs.barrierKey = KEYS.OPENAI_API_KEY;
    try {
      const t = await Promise.all([resetTau(tuned, AUTH), resetTau(tuned, AUTH)]);
      expect(t.map((r) => r.status)).toEqual([200, 200]);
      expect(maxInFlight.get(KEYS.ARB_USER_KEY)).toBe(1);
      const b = await Promise.all([resetTau(base), resetTau(base)]);
      expect(b.map((r) => r.status)).toEqual([200, 200]);
      expect(maxInFlight.get(KEYS.OPENAI_API_KEY)).toBe(2);
    } finally {
      knobs.userDelayMs = 0;
      knobs.barrierKey = '';
      barrier = undefined;
    }
  });

  it('--user-timeout-ms: a user model slower than 2 s fails the reset (502, a timeout); the default waits for it', async () => {
    knobs.userDelayMs = 5000;
    try {
      const t = await resetTau(tuned, AUTH);
      expect(t.status).toBe(502);
      expect(t.json.error.code).toBe('user_simulator_error');
      expect(t.json.error.message).toMatch(/timed out.*call budget of 4000 ms/);
      const b = await resetTau(base);
      expect(b.status).toBe(200);
    } finally {
      knobs.userDelayMs = 0;
    }
  }, 30_000);

  it('--session-idle-ms: an episode left idle is closed after 1.5 s (404); the default keeps an older one open', async () => {
    const b = await resetTau(base);
    const t = await resetTau(tuned, AUTH);
    expect(t.status).toBe(200);
    // the idle sweep closes every tuned session; wait for that state, not for a clock
    for (;;) {
      const h = await call(tuned, '/health', undefined, AUTH);
      if (h.json.sessions === 0) break;
      await new Promise((r) => setImmediate(r));
    }
    expect((await call(tuned, '/state', { session_id: t.json.session_id }, AUTH)).status).toBe(404);
    expect((await call(base, '/state', { session_id: b.json.session_id })).status).toBe(200);
  }, 20_000);

  it('--log-level: info logs requests as JSON lines on stdout; the default prints nothing there', () => {
    const lines = tuned
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { level: number; req?: { url?: string } });
    expect(lines.some((l) => l.level === 30 && l.req?.url === '/reset')).toBe(true);
    expect(base.stdout()).toBe('');
  });
});

describe('arbiter env rollout options take effect', () => {
  const env = { ...process.env, ...KEYS };
  const tau = (policy: string, user: string, extra: string[] = []) =>
    runCli(
      [
        'env',
        'rollout',
        '--domain',
        'airline',
        '--tasks',
        '0',
        '--policy-model',
        policy,
        '--policy-base-url',
        models.url,
        '--user-model',
        user,
        '--user-base-url',
        models.url,
        ...extra,
      ],
      { env },
    );
  const records = (jsonl: string) =>
    jsonl
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const policyRequests = (key: string) => models.chatRequests.filter((r) => r.body.model !== 'user' && r.body.model !== 'slowuser' && keyOf(r) === key);

  let tuned: any;
  let base: any;
  let outFile: string;
  beforeAll(async () => {
    models.requests.length = 0;
    outFile = join(dir, 'rollout.jsonl');
    const [t, b] = await Promise.all([
      tau(
        'fast',
        'user',
        [
          ['--policy-api-key-env', 'ARB_POLICY_KEY'],
          ['--temperature', '0.7'],
          ['--max-tokens', '77'],
          ['--max-steps', '1'],
          ['--first-tool-call-only'],
          ['--output', outFile],
          ['--tau-bench-dir', tauDir],
          ['--user-api-key-env', 'ARB_USER_KEY'],
          ['--user-temperature', '0.3'],
          ['--user-prompt', promptFile],
        ].flat(),
      ),
      tau('fast', 'user'),
    ]);
    expect(t.code, t.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(t.stdout).toBe('');
    [tuned] = records(readFileSync(outFile, 'utf8'));
    [base] = records(b.stdout);
  }, 120_000);

  it('--output: the trajectories go to the file (stdout stays empty); the default writes them on stdout', () => {
    expect(tuned).toMatchObject({ id: 'airline-0-0' });
    expect(base).toMatchObject({ id: 'airline-0-0' });
  });

  it('--max-steps: one agent turn ends the episode, truncated; the default episode ends when the user stops', () => {
    expect(tuned).toMatchObject({ truncated: true, turns: 1, reward: 0 });
    expect(base).toMatchObject({ truncated: false, turns: 2, done: true });
  });

  it('--first-tool-call-only: of the two calls in a message only the first runs; the default runs both', () => {
    const tools = (r: any) => r.sample.messages.filter((m: any) => m.role === 'tool').length;
    expect(tools(tuned)).toBe(1);
    expect(tools(base)).toBe(2);
    // the message itself keeps only the call that ran (what the grader replays)
    const calls = (r: any) => r.sample.messages.find((m: any) => m.role === 'assistant' && m.tool_calls).tool_calls.length;
    expect(calls(tuned)).toBe(1);
    expect(calls(base)).toBe(2);
  });

  it('--policy-api-key-env, --temperature, --max-tokens: the agent request carries that key, temperature and max_tokens; the default sends $OPENAI_API_KEY and neither field', () => {
    const t = policyRequests(KEYS.ARB_POLICY_KEY);
    const b = policyRequests(KEYS.OPENAI_API_KEY);
    expect(t.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    for (const r of t) expect(r.body).toMatchObject({ temperature: 0.7, max_tokens: 77 });
    for (const r of b) {
      expect('temperature' in r.body).toBe(false);
      expect('max_tokens' in r.body).toBe(false);
    }
  });

  it("--tau-bench-dir: the agent's system prompt is the given folder's wiki; the default reads the shared data", () => {
    const sys = (key: string) => policyRequests(key)[0]!.body.messages[0].content as string;
    expect(sys(KEYS.ARB_POLICY_KEY)).toContain(WIKI_MARK);
    expect(sys(KEYS.OPENAI_API_KEY)).toMatch(/Airline Agent Policy/);
  });

  it('--user-api-key-env, --user-temperature, --user-prompt: the user-model requests carry that key, temperature and prompt; the default sends $OPENAI_API_KEY, no temperature and the built-in prompt', () => {
    const t = userRequests(KEYS.ARB_USER_KEY);
    const b = userRequests(KEYS.OPENAI_API_KEY);
    expect(t.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    for (const r of t) expect(r.body.temperature).toBe(0.3);
    for (const r of b) expect('temperature' in r.body).toBe(false);
    expect(t[0]!.body.messages[0].content.startsWith(`${PROMPT_MARK} Play this customer: `)).toBe(true);
    expect(b[0]!.body.messages[0].content).not.toContain(PROMPT_MARK);
  });

  it('--policy-timeout-ms, --user-timeout-ms: a model slower than 300 ms fails the episode (reward null, a timeout); the defaults wait for it', async () => {
    const [p, u, slowOk] = await Promise.all([
      tau('slow', 'user', ['--policy-timeout-ms', '300']),
      tau('fast', 'slowuser', ['--user-timeout-ms', '300']),
      tau('slow', 'slowuser'),
    ]);
    for (const r of [p, u]) {
      expect(r.code, r.stderr).toBe(0);
      const [rec] = records(r.stdout);
      expect(rec.reward).toBeNull();
      expect(rec.error.kind).toBe('timeout');
      // a call's budget is twice the request deadline
      expect(rec.error.message).toContain('call budget of 600 ms');
    }
    const [ok] = records(slowOk.stdout);
    expect(ok.error).toBeUndefined();
    expect(ok.reward).not.toBeNull();
  }, 120_000);

  it('--bfcl-dir: entries come from the given folder (its one, renamed entry); the default reads the shared data', async () => {
    const bfcl = (extra: string[]) =>
      runCli(['env', 'rollout', '--env', 'bfcl_multi_turn', '--category', 'base', '--policy-model', 'bfcl', '--policy-base-url', models.url, ...extra], {
        env,
      });
    const [t, b] = await Promise.all([bfcl(['--bfcl-dir', bfclDir]), bfcl(['--entries', '0'])]);
    expect(t.code, t.stderr).toBe(0);
    expect(b.code, b.stderr).toBe(0);
    expect(records(t.stdout).map((r) => r.id)).toEqual([`${NEW_ID}-0`]);
    expect(records(b.stdout).map((r) => r.id)).toEqual(['multi_turn_base_0-0']);
  }, 120_000);
});

describe('arbiter env rollout: the bfcl_multi_turn options take effect', () => {
  const bfcl = (model: string, extra: string[]) =>
    runCli(
      [
        'env',
        'rollout',
        '--env',
        'bfcl_multi_turn',
        '--category',
        'base',
        '--entries',
        '0',
        '--policy-model',
        model,
        '--policy-base-url',
        models.url,
        ...extra,
      ],
      {
        env: { ...process.env, ...KEYS },
      },
    );
  const requestsOf = (model: string) => models.chatRequests.filter((r) => r.body.model === model);

  it('--mode prompting: the policy gets no tools and the calls-as-Python prompt; the default (fc) sends the tools', async () => {
    const [p, f] = await Promise.all([
      bfcl('bfclloop-prompting', ['--mode', 'prompting', '--max-steps-per-turn', '1']),
      bfcl('bfclloop-fc', ['--max-steps-per-turn', '1']),
    ]);
    expect(p.code, p.stderr).toBe(0);
    expect(f.code, f.stderr).toBe(0);
    const [pr] = requestsOf('bfclloop-prompting');
    const [fr] = requestsOf('bfclloop-fc');
    expect(pr!.body.tools).toBeUndefined();
    expect(JSON.stringify(pr!.body.messages)).toMatch(/Python list of calls/);
    expect(fr!.body.tools.length).toBeGreaterThan(0);
  }, 120_000);

  it('--max-steps-per-turn: a policy that never stops is force-quit after n executed responses in a user turn', async () => {
    const [two, three] = await Promise.all([bfcl('bfclloop-2', ['--max-steps-per-turn', '2']), bfcl('bfclloop-3', ['--max-steps-per-turn', '3'])]);
    expect(two.code, two.stderr).toBe(0);
    expect(three.code, three.stderr).toBe(0);
    // n executed responses; the next one is past the limit and the entry is force-quit (BFCL's rule), so the
    // first user turn is the last: n + 1 policy requests in all
    expect(requestsOf('bfclloop-2')).toHaveLength(3);
    expect(requestsOf('bfclloop-3')).toHaveLength(4);
    expect(JSON.parse(two.stdout.split('\n')[0]!).env.max_steps_per_turn).toBe(2);
  }, 120_000);
});

describe('arbiter env tools --mode', () => {
  it('prompting: no tools, the calls-as-Python system prompt; the default (fc) lists the tools', async () => {
    const args = ['env', 'tools', '--env', 'bfcl_multi_turn', '--entry-id', 'multi_turn_base_0'];
    const [fc, prompting] = await Promise.all([runCli(args), runCli([...args, '--mode', 'prompting'])]);
    expect(fc.code, fc.stderr).toBe(0);
    expect(prompting.code, prompting.stderr).toBe(0);
    expect(JSON.parse(fc.stdout).tools.length).toBeGreaterThan(0);
    const p = JSON.parse(prompting.stdout);
    expect(p.tools).toEqual([]);
    expect(p.system_prompt).toMatch(/Python list of calls/);
  });
});

describe('arbiter env tools options take effect', () => {
  it("--tau-bench-dir: the system prompt is the given folder's wiki; the default reads the shared data; a missing folder is named", async () => {
    const args = ['env', 'tools', '--env', 'tau_bench', '--domain', 'airline'];
    const [t, b, missing] = await Promise.all([
      runCli([...args, '--tau-bench-dir', tauDir]),
      runCli(args),
      runCli([...args, '--tau-bench-dir', join(dir, 'no-such-tau')]),
    ]);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout).system_prompt).toBe(WIKI_MARK);
    expect(JSON.parse(b.stdout).system_prompt).toMatch(/Airline Agent Policy/);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(join(dir, 'no-such-tau'));
  });

  it('--bfcl-dir: the entry is looked up in the given folder (its renamed entry has tools, the shared data has no such entry); a missing folder is named', async () => {
    const args = ['env', 'tools', '--env', 'bfcl_multi_turn', '--entry-id', NEW_ID];
    const [t, b, missing] = await Promise.all([
      runCli([...args, '--bfcl-dir', bfclDir]),
      runCli(args),
      runCli([...args, '--bfcl-dir', join(dir, 'no-such-bfcl')]),
    ]);
    expect(t.code, t.stderr).toBe(0);
    expect(JSON.parse(t.stdout).tools.map((x: any) => x.function?.name ?? x.name)).toContain('mv');
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(NEW_ID);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(join(dir, 'no-such-bfcl'));
  });
});

describe('options that nothing would read are refused', () => {
  it('--user-api-key-env, --user-temperature, --user-prompt, --user-timeout-ms, --user-concurrency: env serve refuses them without a user model', async () => {
    const r = await runCli(
      [
        ['env', 'serve', '--port', '0'],
        ['--user-api-key-env', 'K', '--user-temperature', '0.3', '--user-prompt', promptFile, '--user-timeout-ms', '5', '--user-concurrency', '2'],
      ].flat(),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--user-api-key-env, --user-temperature, --user-prompt, --user-timeout-ms, --user-concurrency set the user simulator');
  });

  it('--tau-bench-dir, --user-temperature, --user-timeout-ms: a bfcl_multi_turn rollout refuses them; --bfcl-dir: a tau_bench rollout refuses it', async () => {
    const rollout = ['env', 'rollout', '--policy-model', 'p', '--policy-base-url', models.url];
    const [bfcl, bfclUser, tau] = await Promise.all([
      runCli([...rollout, '--env', 'bfcl_multi_turn', '--category', 'base', '--tau-bench-dir', tauDir]),
      runCli([...rollout, '--env', 'bfcl_multi_turn', '--category', 'base', '--user-temperature', '0.3', '--user-timeout-ms', '5']),
      runCli([...rollout, '--domain', 'airline', '--user-model', 'user', '--user-base-url', models.url, '--bfcl-dir', bfclDir]),
    ]);
    expect([bfcl.code, bfclUser.code, tau.code]).toEqual([2, 2, 2]);
    expect(bfcl.stderr).toContain('--tau-bench-dir is not a bfcl_multi_turn option');
    expect(bfclUser.stderr).toContain('--user-temperature is not a bfcl_multi_turn option');
    expect(tau.stderr).toContain('--bfcl-dir is a bfcl_multi_turn option');
  });

  it("--tau-bench-dir, --bfcl-dir: env tools refuses the other environment's data folder", async () => {
    const [t, b] = await Promise.all([
      runCli(['env', 'tools', '--env', 'bfcl_multi_turn', '--entry-id', 'multi_turn_base_0', '--tau-bench-dir', tauDir]),
      runCli(['env', 'tools', '--domain', 'airline', '--bfcl-dir', bfclDir]),
    ]);
    expect([t.code, b.code]).toEqual([2, 2]);
    expect(t.stderr).toContain('--tau-bench-dir is a tau_bench option, not a bfcl_multi_turn one');
    expect(b.stderr).toContain('--bfcl-dir is a bfcl_multi_turn option, not a tau_bench one');
  });
});
