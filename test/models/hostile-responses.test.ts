// Model responses are bounded: a hostile model server on loopback (trickling one byte at a time,
// streaming a huge body, closing mid-body, never answering) cannot hold a grade past its deadline,
// grow memory past the size cap, or turn a transient cut into a failed grade. Through library
// grade() against real HTTP, for judges, reward models and embeddings. Deadlines are tiny configured
// ones; the assertions are on the result kind and on what the server saw (events, byte counts),
// never on elapsed time: without the bound these tests hang until vitest's own timeout fails them.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { endpointLimits, resolveEndpoint } from '../../dist/models/index.js';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { startTestServer, type Reply, type TestServer } from '../helpers/openai-test-server.js';

const server: TestServer = await startTestServer();
let services: Services | undefined;
const svc = () => (services = new Services());
afterEach(async () => {
  await services?.close();
  services = undefined;
  server.clearQueue();
  server.requests.length = 0;
  server.hostileTraces.length = 0;
  server.onChat(() => ({ content: 'Score: 1' }));
});
afterAll(() => server.close());

const MiB = 1024 * 1024;
const input = { item: {}, sample: { output_text: 'The answer is 42.' } };
const judge = (x: Record<string, unknown> = {}) =>
  loadGrader({
    type: 'score_model',
    model: 'judge',
    base_url: server.url,
    range: [1, 10],
    cache: false,
    input: [{ role: 'user', content: 'Rate: {{sample.output_text}}' }],
    ...x,
  });

describe('judge responses are bounded', () => {
  it('a body trickled one byte at a time fails at the deadline (the deadline covers the body)', { timeout: 30_000 }, async () => {
    server.onChat(() => ({ content: 'Score: 7', hostile: { trickle: { every_ms: 20 } } }));
    const r = await grade(judge({ request_timeout_ms: 300, max_retries: 0 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' } });
    const t = server.hostileTraces[0]!;
    await t.closed;
    // headers came and part of the body, then the client hung up
    expect(t.clientClosed).toBe(true);
  });

  it('retries of a trickling server stop when the call budget is spent, not when max_retries is', { timeout: 30_000 }, async () => {
    server.onChat(() => ({ content: 'Score: 7', hostile: { trickle: { every_ms: 20 } } }));
    const r = await grade(judge({ request_timeout_ms: 150, call_timeout_ms: 400, max_retries: 20 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' } });
    expect(r.error!.message).toMatch(/call budget of 400 ms spent/);
    expect(server.chatRequests.length).toBeLessThan(21);
    expect(r.metadata.attempts).toBe(server.chatRequests.length);
  });

  it('a server that never answers is a timeout after the configured attempts', { timeout: 30_000 }, async () => {
    server.onChat(() => ({ hostile: { hang: true } }));
    const r = await grade(judge({ request_timeout_ms: 150, max_retries: 1 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' }, metadata: { attempts: 2 } });
    expect(server.chatRequests.length).toBe(2);
  });

  it('a body over the default 4 MiB cap is limit_exceeded, and the client stops reading it', { timeout: 30_000 }, async () => {
    server.onChat(() => ({ content: 'Score: 7', hostile: { pad_to: 64 * MiB } }));
    const r = await grade(judge(), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
    expect(r.error!.message).toMatch(/larger than 4194304 bytes/);
    const t = server.hostileTraces[0]!;
    await t.closed;
    expect(t.clientClosed).toBe(true);
    expect(t.written).toBeLessThan(64 * MiB);
    // not retried: the same server would send the same body again
    expect(server.chatRequests.length).toBe(1);
  });

  it('a valid 8 MiB completion (verdict inside) is refused, not graded', async () => {
    server.onChat(() => ({ content: 'Score: 7', hostile: { pad_to: 8 * MiB } }));
    const r = await grade(judge(), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
  });

  it('max_response_bytes raises the cap', async () => {
    server.onChat(() => ({ content: 'Score: 7', hostile: { pad_to: 6 * MiB } }));
    const r = await grade(judge({ max_response_bytes: 8 * MiB }), input, { services: svc() });
    expect(r).toMatchObject({ valid: true, score: 7 });
  });

  it('a connection closed mid-body is retried like any transient failure', async () => {
    server.enqueue({ content: 'Score: 7', hostile: { cut_after: 40 } }, { content: 'Score: 7' });
    const r = await grade(judge({ max_retries: 2 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: true, score: 7, metadata: { retries: 1 } });
    expect(server.chatRequests.length).toBe(2);
  });

  it('a connection closed mid-body on every attempt is a judge_server_error naming the cut', async () => {
    server.onChat(() => ({ content: 'Score: 7', hostile: { cut_after: 40 } }));
    const r = await grade(judge({ max_retries: 1 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'judge_server_error' }, metadata: { attempts: 2 } });
    expect(r.error!.message).toMatch(/connection closed .*the response body/);
  });

  it('the documented defaults bound a call: 60 s per attempt, 120 s per call with retries, 4 MiB', () => {
    expect(endpointLimits(resolveEndpoint({ base_url: 'http://127.0.0.1:1/v1' }))).toEqual({
      maxConcurrency: 64,
      maxRetries: 3,
      timeoutMs: 60_000,
      callTimeoutMs: 120_000,
      maxResponseBytes: 4 * MiB,
    });
    // a longer attempt deadline widens the default budget, so it holds as written
    expect(endpointLimits(resolveEndpoint({ request_timeout_ms: 300_000 })).callTimeoutMs).toBe(300_000);
  });

  it("a call budget shorter than one attempt's deadline is refused at load, naming the field", () => {
    expect(() => judge({ request_timeout_ms: 5000, call_timeout_ms: 1000 })).toThrow(
      /call_timeout_ms.*shorter than one attempt's deadline request_timeout_ms/s,
    );
    expect(() =>
      loadGrader({ type: 'reward_model', model: 'rm', base_url: server.root, protocol: 'sglang', text: 'x', request_timeout_ms: 5000, call_timeout_ms: 1000 }),
    ).toThrow(/call_timeout_ms/);
  });
});

describe('reward-model responses are bounded', () => {
  const rm = (x: Record<string, unknown> = {}) =>
    loadGrader({ type: 'reward_model', model: 'rm', base_url: server.root, protocol: 'vllm_classify', text: '{{sample.output_text}}', ...x });
  const ok = (texts: string[]): Reply => ({ body: { object: 'list', data: texts.map((_, index) => ({ index, probs: [0.25] })) } });
  afterEach(() => server.onReward(() => ({ status: 404, body: {} })));

  it('a trickled body fails at the deadline', { timeout: 30_000 }, async () => {
    server.onReward((r) => ({ ...ok(r.body.input), hostile: { trickle: { every_ms: 20 } } }));
    const r = await grade(rm({ request_timeout_ms: 300, max_retries: 0 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'timeout' } });
  });

  it('a body over the cap is limit_exceeded', async () => {
    server.onReward((r) => ({ ...ok(r.body.input), hostile: { pad_to: 2 * MiB } }));
    const r = await grade(rm({ max_response_bytes: MiB }), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
  });

  it('a cut body is retried', async () => {
    let n = 0;
    server.onReward((r) => (++n === 1 ? { ...ok(r.body.input), hostile: { cut_after: 10 } } : ok(r.body.input)));
    const r = await grade(rm({ max_retries: 1 }), input, { services: svc() });
    expect(r).toMatchObject({ valid: true, score: 0.25 });
    expect(n).toBe(2);
  });
});

describe('embedding responses are bounded', () => {
  let mode: 'huge' | 'cut-once' = 'huge';
  let calls = 0;
  server.route('/v1/embeddings', (r) => {
    calls++;
    const body = {
      object: 'list',
      model: r.body.model,
      data: (r.body.input as string[]).map((_, index) => ({ object: 'embedding', index, embedding: [1, index + 1] })),
    };
    if (mode === 'huge') return { body, hostile: { pad_to: 8 * MiB } };
    return calls === 1 ? { body, hostile: { cut_after: 20 } } : { body };
  });
  const cos = () =>
    loadGrader({ type: 'text_similarity', evaluation_metric: 'cosine', model: 'emb', base_url: server.url, input: '{{sample.output_text}}', reference: 'ref' });

  it('a body over the default cap is limit_exceeded', async () => {
    mode = 'huge';
    calls = 0;
    const r = await grade(cos(), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
    expect(calls).toBe(1);
  });

  it('a cut body is retried', async () => {
    mode = 'cut-once';
    calls = 0;
    const r = await grade(cos(), input, { services: svc() });
    expect(r.valid).toBe(true);
    expect(calls).toBe(2);
  });
});
