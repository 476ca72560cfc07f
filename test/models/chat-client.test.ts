// The chat client against the scriptable OpenAI-compatible server over real HTTP: retries and
// Retry-After, dropped connections, timeouts, json_schema fallback, n/seed/logprobs, usage, the
// SQLite cache, and the per-endpoint concurrency limit.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ChatClient, ModelError, ResponseCache } from '../../dist/models/index.js';
import { startTestServer, type TestServer } from '../helpers/openai-test-server.js';

let server: TestServer;
let dir: string;
const caches: ResponseCache[] = [];

beforeAll(async () => {
  server = await startTestServer();
  dir = mkdtempSync(join(tmpdir(), 'arbiter-cache-'));
});
afterAll(async () => {
  for (const c of caches) c.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  server.requests.length = 0;
  server.rejectJsonSchema = false;
  server.ignoreN = false;
  server.onChat(() => ({ content: 'Score: 1' }));
});

const fast = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 2000 };
const client = (extra: Partial<ConstructorParameters<typeof ChatClient>[0]> = {}) =>
  new ChatClient({ baseURL: server.url, apiKey: 'test-key', retry: fast, ...extra });
const req = { model: 'judge', messages: [{ role: 'user' as const, content: 'Rate this.' }], temperature: 0 };

describe('chat client', () => {
  it('sends the request and normalises the answer (content, reasoning, usage, auth header)', async () => {
    server.enqueue({ content: 'Score: 7', reasoning: 'thinking about it', usage: { prompt_tokens: 12, completion_tokens: 3 } });
    const c = client();
    const r = await c.chat({ ...req, seed: 42, max_tokens: 64 });
    expect(r.choices[0]!.content).toBe('Score: 7');
    expect(r.choices[0]!.reasoning).toBe('thinking about it');
    expect(r.usage).toEqual({ prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 });
    expect(r.cached).toBe(false);
    const sent = server.chatRequests[0]!;
    expect(sent.body).toMatchObject({ model: 'judge', seed: 42, max_tokens: 64, temperature: 0 });
    expect(sent.headers.authorization).toBe('Bearer test-key');
    expect(c.usage.prompt_tokens).toBe(12);
  });

  it('asks for n choices and returns them all', async () => {
    server.enqueue({ choices: [{ content: 'Score: 1' }, { content: 'Score: 2' }, { content: 'Score: 3' }] });
    const r = await client().chat({ ...req, n: 3 });
    expect(server.chatRequests[0]!.body.n).toBe(3);
    expect(r.choices.map((c) => c.content)).toEqual(['Score: 1', 'Score: 2', 'Score: 3']);
  });

  it('passes logprobs/top_logprobs and normalises token logprobs', async () => {
    server.enqueue({
      content: 'Verdict: Yes',
      alternatives: {
        token: 'Yes',
        top: [
          { token: ' Yes', logprob: Math.log(0.7) },
          { token: ' No', logprob: Math.log(0.3) },
        ],
      },
    });
    const r = await client().chat({ ...req, logprobs: true, top_logprobs: 5 });
    expect(server.chatRequests[0]!.body).toMatchObject({ logprobs: true, top_logprobs: 5 });
    const toks = r.choices[0]!.logprobs!;
    expect(toks.map((t) => t.token).join('')).toBe('Verdict: Yes');
    expect(toks.at(-1)!.top_logprobs.map((t) => t.token)).toEqual([' Yes', ' No']);
  });

  it('retries 429 honouring Retry-After, then succeeds', async () => {
    server.enqueue({ status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } }, { content: 'Score: 5' });
    const c = client();
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const r = await c.chat(req);
    const waits = timers.mock.calls.map((call) => call[1]);
    timers.mockRestore();
    expect(r.choices[0]!.content).toBe('Score: 5');
    expect(r.retries).toBe(1);
    expect(server.chatRequests.length).toBe(2);
    // the client waited for the server's Retry-After (1 s), not its own 5 ms backoff
    expect(waits).toContain(1000);
  });

  it('retries 500s and dropped connections; gives up with judge_server_error after max retries', async () => {
    server.enqueue({ status: 500, body: { error: { message: 'boom' } } }, { drop: true }, { content: 'Score: 4' });
    const r = await client().chat(req);
    expect(r.choices[0]!.content).toBe('Score: 4');
    expect(r.retries).toBe(2);

    server.onChat(() => ({ status: 503, body: { error: { message: 'overloaded' } } }));
    const c = client();
    const e = await c.chat(req).catch((x) => x);
    expect(e).toBeInstanceOf(ModelError);
    expect(e.kind).toBe('judge_server_error');
    expect(e.status).toBe(503);
    expect(e.attempts).toBe(4);
    expect(e.message).toMatch(/503.*after 4 attempts/);
    expect(c.usage.failures).toBe(1);
  });

  it('does not retry client errors such as 401', async () => {
    server.enqueue({ status: 401, body: { error: { message: 'bad key' } } });
    const e = await client()
      .chat(req)
      .catch((x) => x);
    expect(e.kind).toBe('judge_server_error');
    expect(e.attempts).toBe(1);
    expect(server.chatRequests.length).toBe(1);
  });

  it('turns a slow reply into a timeout error', async () => {
    // the answer is held until both attempts have timed out (an event, not a delay)
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.onChat(async () => {
      await held;
      return { content: 'Score: 1' };
    });
    const e = await client({ timeoutMs: 100, retry: { ...fast, maxRetries: 1 } })
      .chat(req)
      .catch((x) => x);
    release();
    expect(e).toBeInstanceOf(ModelError);
    expect(e.kind).toBe('timeout');
    expect(e.attempts).toBe(2);
  });

  it('reports a 200 answer that is not a chat completion as a server error', async () => {
    server.enqueue({ status: 200, body: '{"choices": [' }, { status: 200, body: { object: 'list', data: [] } });
    const c = client({ retry: { ...fast, maxRetries: 0 } });
    const e1 = await c.chat(req).catch((x) => x);
    expect(e1.kind).toBe('judge_server_error');
    const e2 = await c.chat(req).catch((x) => x);
    expect(e2.kind).toBe('judge_server_error');
    expect(e2.message).toMatch(/without choices/);
  });

  it('falls back to prompt-only when the server rejects json_schema, and remembers', async () => {
    server.rejectJsonSchema = true;
    server.onChat(() => ({ content: '{"steps": [], "result": 0.5}' }));
    const c = client();
    const schema = { name: 's', schema: { type: 'object', properties: { result: { type: 'number' } }, required: ['result'] } };
    const r = await c.chat({ ...req, json_schema: schema });
    expect(r.schema_fallback).toBe(true);
    expect(server.chatRequests.map((x) => x.body.response_format?.type ?? null)).toEqual(['json_schema', null]);
    await c.chat({ ...req, json_schema: schema });
    expect(server.chatRequests.length).toBe(3);
    expect(server.chatRequests[2]!.body.response_format).toBeUndefined();
    expect(c.usage.schema_fallbacks).toBe(1);
  });

  it('sends json_schema to servers that accept it', async () => {
    const schema = { name: 's', schema: { type: 'object' } };
    await client().chat({ ...req, json_schema: schema });
    expect(server.chatRequests[0]!.body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 's', schema: { type: 'object' }, strict: true } });
  });

  it('caches by the full request: a rerun sends nothing, any change misses', async () => {
    const cache = new ResponseCache(dir);
    caches.push(cache);
    let k = 0;
    server.onChat(() => ({ content: `Score: ${++k}` }));
    const c = client({ cache: () => cache });
    const a = await c.chat(req, { cache: true });
    const b = await c.chat(req, { cache: true });
    expect(b.cached).toBe(true);
    expect(b.choices[0]!.content).toBe(a.choices[0]!.content);
    expect(server.chatRequests.length).toBe(1);
    const d = await c.chat({ ...req, seed: 1 }, { cache: true });
    expect(d.cached).toBe(false);
    const e = await c.chat(req, { cache: false });
    expect(e.cached).toBe(false);
    expect(server.chatRequests.length).toBe(3);
    // persisted: a fresh cache object on the same directory hits
    cache.flush();
    const again = new ResponseCache(dir);
    caches.push(again);
    const f = await client({ cache: () => again }).chat(req, { cache: true });
    expect(f.cached).toBe(true);
    expect(f.choices[0]!.content).toBe(a.choices[0]!.content);
    expect(server.chatRequests.length).toBe(3);
  });

  it('keeps at most max_concurrency requests in flight per endpoint', async () => {
    // each answer waits until 3 requests are in flight (or the last ones arrive): with no limit the
    // peak would pass 3, with a limit below 3 the batch would never fill and the test would time out
    let inFlight = 0;
    let peak = 0;
    let arrived = 0;
    let release: () => void = () => {};
    let gate = new Promise<void>((r) => (release = r));
    server.onChat(async () => {
      inFlight++;
      arrived++;
      peak = Math.max(peak, inFlight);
      if (inFlight === 3 || arrived === 12) {
        const open = release;
        gate = new Promise<void>((r) => (release = r));
        open();
      } else await gate;
      inFlight--;
      return { content: 'Score: 1' };
    });
    const c = client({ maxConcurrency: 3 });
    await Promise.all(Array.from({ length: 12 }, () => c.chat(req)));
    expect(server.chatRequests.length).toBe(12);
    expect(peak).toBe(3);
  });

  it('reports a refused structured answer as a refusal field', async () => {
    server.enqueue({ content: null, refusal: 'I cannot help with that.' });
    const r = await client().chat(req);
    expect(r.choices[0]!.refusal).toBe('I cannot help with that.');
    expect(r.choices[0]!.content).toBe('');
  });
});
