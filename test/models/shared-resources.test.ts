// Contract: graders that share resources in one Services (clients, concurrency limits, batches,
// caches) never mix settings. For each model grader type, two graders that differ in exactly one
// setting are graded in one Services against a real HTTP server, and each must behave as its own
// config says. Also the server case: an inline judge from one request must not change what the
// operator's graders send later.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { createServer } from '../../dist/server/index.js';
import { getChatClient, resolveEndpoint } from '../../dist/models/index.js';
import { startTestServer, type RecordedRequest, type Reply, type TestServer } from '../helpers/openai-test-server.js';
import { post } from '../server/helpers.js';

const server: TestServer = await startTestServer();
const dir = mkdtempSync(join(tmpdir(), 'arbiter-shared-'));
let services: Services | undefined;

afterEach(async () => {
  await services?.close();
  services = undefined;
  server.requests.length = 0;
  server.clearQueue();
  server.onChat(() => ({ content: 'Score: 1' }));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const svc = () => (services = new Services({ cacheDir: dir }));
const auth = (r: RecordedRequest) => String(r.headers.authorization ?? '');
const input = { item: { question: 'What is 6 * 7?', answer: '42', prompt: 'p' }, sample: { output_text: 'The answer is 42.' } };

/** A chat handler that answers by API key: key-a gets `a`, key-b gets `b`. */
const byKey =
  (a: string, b: string) =>
  (r: RecordedRequest): Reply => ({ content: auth(r) === 'Bearer key-b' ? b : a });

// Every judge type (they share the chat client) with a config builder and the verdicts that give a
// different score per key.
const judges: { type: string; cfg: (extra: Record<string, unknown>) => Record<string, unknown>; a: [string, number]; b: [string, number] }[] = [
  {
    type: 'score_model',
    cfg: (x) => ({
      type: 'score_model',
      model: 'judge',
      base_url: server.url,
      range: [1, 10],
      cache: false,
      input: [{ role: 'user', content: 'Rate: {{sample.output_text}}' }],
      ...x,
    }),
    a: ['Score: 2', 2],
    b: ['Score: 9', 9],
  },
  {
    type: 'label_model',
    cfg: (x) => ({
      type: 'label_model',
      model: 'judge',
      base_url: server.url,
      labels: ['good', 'bad'],
      passing_labels: ['good'],
      cache: false,
      input: [{ role: 'user', content: '{{sample.output_text}}' }],
      ...x,
    }),
    a: ['Label: bad', 0],
    b: ['Label: good', 1],
  },
  {
    type: 'reference_verify',
    cfg: (x) => ({ type: 'reference_verify', model: 'judge', base_url: server.url, reference: '{{item.answer}}', cache: false, ...x }),
    a: ['Verdict: [[NO]]', 0],
    b: ['Verdict: [[YES]]', 1],
  },
  {
    type: 'pairwise',
    cfg: (x) => ({ type: 'pairwise', model: 'judge', base_url: server.url, response_b: 'It is 41.', orders: 'single', cache: false, ...x }),
    a: ['[[B]]', 0],
    b: ['[[A]]', 1],
  },
  {
    type: 'rubric',
    cfg: (x) => ({ type: 'rubric', model: 'judge', base_url: server.url, criteria: ['States 42'], cache: false, ...x }),
    a: ['Verdict: [[NO]]', 0],
    b: ['Verdict: [[YES]]', 1],
  },
];

describe('judges sharing one Services keep their own settings', () => {
  for (const j of judges) {
    it(`${j.type}: api_key — each grader sends its own key and gets its own verdict`, async () => {
      server.onChat(byKey(j.a[0], j.b[0]));
      const s = svc();
      const ga = loadGrader(j.cfg({ api_key: 'key-a' }));
      const gb = loadGrader(j.cfg({ api_key: 'key-b' }));
      const ra = await grade(ga, input, { services: s });
      const rb = await grade(gb, input, { services: s });
      expect([ra.valid, rb.valid]).toEqual([true, true]);
      expect([ra.score, rb.score]).toEqual([j.a[1], j.b[1]]);
      expect(new Set(server.chatRequests.map(auth))).toEqual(new Set(['Bearer key-a', 'Bearer key-b']));
    });
  }

  it("score_model: a key change never reuses another key's cached answer (the cache keys on key identity, not the key)", async () => {
    server.onChat(byKey('Score: 2', 'Score: 9'));
    const s = svc();
    const cfg = judges[0]!.cfg;
    const ra = await grade(loadGrader(cfg({ api_key: 'key-a', cache: true })), input, { services: s });
    const rb = await grade(loadGrader(cfg({ api_key: 'key-b', cache: true })), input, { services: s });
    expect([ra.score, rb.score]).toEqual([2, 9]);
    expect(rb.metadata.cached).toBe(false);
    // and the same key does hit
    const ra2 = await grade(loadGrader(cfg({ api_key: 'key-a', cache: true })), input, { services: s });
    expect(ra2).toMatchObject({ score: 2, metadata: { cached: true } });
  });

  it('score_model: max_retries — one grader gives up after its single attempt, the other retries', async () => {
    const s = svc();
    const cfg = judges[0]!.cfg;
    const ga = loadGrader(cfg({ max_retries: 0 }));
    const gb = loadGrader(cfg({ max_retries: 1 }));
    server.enqueue({ status: 503, body: { error: { message: 'busy' } } });
    const ra = await grade(ga, input, { services: s });
    server.enqueue({ status: 503, body: { error: { message: 'busy' } } }, { content: 'Score: 5' });
    const rb = await grade(gb, input, { services: s });
    expect(ra).toMatchObject({ valid: false, error: { kind: 'judge_server_error' } });
    expect(rb).toMatchObject({ valid: true, score: 5, metadata: { retries: 1 } });
  });

  it('score_model: request_timeout_ms — a short deadline times out, a long one waits for the answer', async () => {
    // every answer is held until the short deadline has fired (an event, not a delay)
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    server.onChat(async () => {
      await held;
      return { content: 'Score: 6' };
    });
    const s = svc();
    const cfg = judges[0]!.cfg;
    const ga = loadGrader(cfg({ request_timeout_ms: 150, max_retries: 0 }));
    const gb = loadGrader(cfg({ request_timeout_ms: 20_000, max_retries: 0 }));
    const pb = grade(gb, input, { services: s });
    const ra = await grade(ga, input, { services: s });
    release();
    const rb = await pb;
    expect(ra).toMatchObject({ valid: false, error: { kind: 'timeout' } });
    expect(rb).toMatchObject({ valid: true, score: 6 });
  });

  it('score_model: max_response_bytes — a small cap refuses a large answer that the default accepts', async () => {
    server.onChat(() => ({ content: 'Score: 4', hostile: { pad_to: 64 * 1024 } }));
    const s = svc();
    const cfg = judges[0]!.cfg;
    const ra = await grade(loadGrader(cfg({ max_response_bytes: 16 * 1024 })), input, { services: s });
    const rb = await grade(loadGrader(cfg({})), input, { services: s });
    expect(ra).toMatchObject({ valid: false, error: { kind: 'limit_exceeded' } });
    expect(ra.error!.message).toMatch(/max_response_bytes/);
    expect(rb).toMatchObject({ valid: true, score: 4 });
  });

  it('score_model: max_concurrency — each grader keeps its own limit on the same endpoint', async () => {
    let inFlight = 0;
    let peak = 0;
    let release: (() => void)[] = [];
    server.onChat(async () => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      // hold each request until the test lets the whole wave go
      await new Promise<void>((r) => release.push(r));
      inFlight--;
      return { content: 'Score: 3' };
    });
    const s = svc();
    const cfg = judges[0]!.cfg;
    const wave = async (g: ReturnType<typeof loadGrader>, expectPeak: number) => {
      peak = 0;
      release = [];
      const done = Promise.all(Array.from({ length: 4 }, () => grade(g, input, { services: s })));
      // wait (by events, not time) until the server holds as many requests as the limit allows
      while (server.chatRequests.length < expectPeak) await new Promise((r) => setImmediate(r));
      for (let i = 0; i < 4; i++) {
        while (release.length === 0) await new Promise((r) => setImmediate(r));
        release.shift()!();
      }
      const rs = await done;
      expect(rs.every((r) => r.valid && r.score === 3)).toBe(true);
      return peak;
    };
    const pa = await wave(loadGrader(cfg({ max_concurrency: 1 })), 1);
    server.requests.length = 0;
    const pb = await wave(loadGrader(cfg({ max_concurrency: 4 })), 4);
    expect([pa, pb]).toEqual([1, 4]);
  });
});

describe('reward_model graders sharing one Services keep their own settings', () => {
  afterEach(() => server.onReward(() => ({ status: 404, body: {} })));
  const rm = (x: Record<string, unknown>) => ({
    type: 'reward_model',
    model: 'rm',
    base_url: server.root,
    protocol: 'vllm_classify',
    text: '{{sample.output_text}}',
    ...x,
  });

  it('label_index — inside one multi each component reads its own class (0.2 and 0.8), as it does alone', async () => {
    server.onReward((r) => ({ body: { object: 'list', data: r.body.input.map((_: string, index: number) => ({ index, probs: [0.2, 0.8] })) } }));
    const alone = await grade(loadGrader(rm({ label_index: 1 })), input, { services: svc() });
    expect(alone.score).toBeCloseTo(0.8);
    await services!.close();
    const multi = loadGrader({ type: 'multi', graders: { neg: rm({ label_index: 0 }), pos: rm({ label_index: 1 }) }, calculate_output: 'pos' });
    const r = await grade(multi, input, { services: svc() });
    expect(r.valid).toBe(true);
    expect(r.components!.neg!.score).toBeCloseTo(0.2);
    expect(r.components!.pos!.score).toBeCloseTo(0.8);
    expect(r.score).toBeCloseTo(0.8);
  });

  it('reduce — token-level outputs read as last or mean per grader', async () => {
    server.onReward((r) => ({ body: { object: 'list', data: r.body.input.map((_: string, index: number) => ({ index, data: [[1], [2], [6]] })) } }));
    const s = svc();
    const cfg = (x: Record<string, unknown>) => rm({ protocol: 'vllm_pooling', ...x });
    const [a, b] = await Promise.all([
      grade(loadGrader(cfg({ reduce: 'last' })), input, { services: s }),
      grade(loadGrader(cfg({ reduce: 'mean' })), input, { services: s }),
    ]);
    expect([a.score, b.score]).toEqual([6, 3]);
  });

  it('api_key — each grader sends its own key', async () => {
    server.onReward((r) => ({
      body: { object: 'list', data: r.body.input.map((_: string, index: number) => ({ index, probs: [auth(r) === 'Bearer key-b' ? 0.9 : 0.1] })) },
    }));
    const s = svc();
    const [a, b] = await Promise.all([
      grade(loadGrader(rm({ api_key: 'key-a' })), input, { services: s }),
      grade(loadGrader(rm({ api_key: 'key-b' })), input, { services: s }),
    ]);
    expect([a.score, b.score]).toEqual([0.1, 0.9]);
  });

  it('max_retries — one reward grader retries a 503, the other does not', async () => {
    let calls = 0;
    server.onReward((r) =>
      ++calls % 2 === 1
        ? { status: 503, body: { error: 'busy' } }
        : { body: { object: 'list', data: r.body.input.map((_: string, index: number) => ({ index, probs: [0.5] })) } },
    );
    const s = svc();
    const a = await grade(loadGrader(rm({ max_retries: 0 })), input, { services: s });
    calls = 0;
    const b = await grade(loadGrader(rm({ max_retries: 1 })), input, { services: s });
    expect(a).toMatchObject({ valid: false, error: { kind: 'judge_server_error' } });
    expect(b).toMatchObject({ valid: true, score: 0.5 });
  });
});

describe('cosine embeddings sharing one Services keep their own settings', () => {
  // key-a: letter-count vectors; key-b: the same vector for every text (cosine 1)
  const letters = (s: string) => Array.from({ length: 26 }, (_, i) => [...s.toLowerCase()].filter((c) => c.charCodeAt(0) - 97 === i).length);
  server.route('/v1/embeddings', (r) => ({
    body: {
      object: 'list',
      model: r.body.model,
      data: (r.body.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: auth(r) === 'Bearer key-b' ? [1, 2, 3] : letters(t) })),
    },
  }));
  const cos = (x: Record<string, unknown>) => ({
    type: 'text_similarity',
    evaluation_metric: 'cosine',
    model: 'emb',
    base_url: server.url,
    input: '{{sample.output_text}}',
    reference: 'zzz qqq',
    ...x,
  });

  it('api_key — each grader sends its own key and gets its own vectors (and cache)', async () => {
    const s = svc();
    const a = await grade(loadGrader(cos({ api_key: 'key-a' })), input, { services: s });
    const b = await grade(loadGrader(cos({ api_key: 'key-b' })), input, { services: s });
    expect(a.valid && b.valid).toBe(true);
    expect(a.score).toBeLessThan(0.5);
    expect(b.score).toBeCloseTo(1);
  });

  it('model — vectors cached for one model are not reused for another', async () => {
    const s = svc();
    await grade(loadGrader(cos({ api_key: 'key-a', model: 'emb-1' })), input, { services: s });
    const before = server.requests.filter((r) => r.path === '/v1/embeddings').length;
    await grade(loadGrader(cos({ api_key: 'key-a', model: 'emb-2' })), input, { services: s });
    const after = server.requests.filter((r) => r.path === '/v1/embeddings');
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)!.body.model).toBe('emb-2');
  });
});

describe("the server: an inline judge does not change what the operator's graders send", () => {
  it('an inline score_model with another key, graded first, leaves the operator grader its own key', async () => {
    server.onChat(byKey('Score: 2', 'Score: 9'));
    const operator = loadGrader(judges[0]!.cfg({ api_key: 'key-a' }));
    const app = createServer({ graders: { judge: operator }, allowInlineGraders: true, inlineAllowNetwork: [server.url] });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const inline = await post(`${url}/v1/graders/run`, { grader: judges[0]!.cfg({ api_key: 'key-b' }), model_sample: 'The answer is 42.', item: input.item });
      expect(inline.status).toBe(200);
      const mine = await post(`${url}/v1/graders/run`, { grader: 'judge', model_sample: 'The answer is 42.', item: input.item });
      expect(mine.status).toBe(200);
      expect(mine.body.reward).toBe(2);
      expect(server.chatRequests.map(auth)).toEqual(['Bearer key-b', 'Bearer key-a']);
    } finally {
      await app.close();
    }
  });
});

describe('per-settings clients stay bounded', () => {
  it('many distinct keys (e.g. from inline configs) keep at most 1024 clients: the least recently used is dropped', () => {
    const s = svc();
    const ep = (i: number) => resolveEndpoint({ base_url: server.url, api_key: `k${i}` });
    const first = getChatClient(s, ep(0));
    expect(getChatClient(s, ep(0))).toBe(first);
    for (let i = 1; i <= 1024; i++) getChatClient(s, ep(i));
    const last = getChatClient(s, ep(1024));
    expect(getChatClient(s, ep(1024))).toBe(last);
    // k0 was the least recently used of 1025: it was dropped, and a new client is made for it
    expect(getChatClient(s, ep(0))).not.toBe(first);
    // clients of one endpoint and limit still share one concurrency limit
    expect(getChatClient(s, ep(5)).limiter).toBe(last.limiter);
  });
});
