// evaluation_metric "cosine" against a real HTTP server started by the test: a protocol-faithful
// OpenAI /v1/embeddings endpoint on 127.0.0.1 whose vectors are letter counts, so expected cosines
// can be worked out by hand. Also: missing endpoint -> config_error; HTTP errors -> judge_server_error.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';

interface Seen {
  auth?: string;
  body: { model: string; input: string | string[]; encoding_format?: string; dimensions?: number };
}

const seen: Seen[] = [];

/** 26-dim vector of letter counts (a..z). */
function letters(s: string): number[] {
  const v = new Array(26).fill(0);
  for (const ch of s.toLowerCase()) {
    const i = ch.charCodeAt(0) - 97;
    if (i >= 0 && i < 26) v[i]++;
  }
  return v;
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

let server: Server;
let baseURL = '';

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const send = (status: number, obj: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(obj));
    };
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: `no route ${req.url}`, type: 'invalid_request_error' } });
    const b = JSON.parse(await body(req)) as Seen['body'];
    seen.push({ auth: req.headers.authorization, body: b });
    if (b.model === 'broken') return send(500, { error: { message: 'model crashed', type: 'server_error' } });
    const inputs = Array.isArray(b.input) ? b.input : [b.input];
    if (b.model === 'short') return send(200, { object: 'list', data: [], model: b.model, usage: { prompt_tokens: 0, total_tokens: 0 } });
    const data = inputs.map((text, index) => {
      const v = b.model === 'zero' ? new Array(26).fill(0) : letters(text);
      // base64 = little-endian float32, as the OpenAI API sends it
      const embedding = b.encoding_format === 'base64' ? Buffer.from(new Float32Array(v).buffer).toString('base64') : v;
      return { object: 'embedding', index, embedding };
    });
    send(200, { object: 'list', data, model: b.model, usage: { prompt_tokens: inputs.length, total_tokens: inputs.length } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

const cfg = (extra: Record<string, unknown> = {}) => ({
  type: 'text_similarity',
  input: '{{sample.output_text}}',
  reference: '{{item.ref}}',
  evaluation_metric: 'cosine',
  pass_threshold: 0.7,
  ...extra,
});

describe('cosine via an OpenAI-compatible embeddings endpoint', () => {
  it('scores the cosine of the two embeddings and sends a protocol-correct request', async () => {
    const services = new Services();
    const g = loadGrader(cfg({ base_url: baseURL, api_key: 'sk-test', model: 'letters-1' }));
    seen.length = 0;
    // "ab" -> (1,1,0..), "a" -> (1,0,..): cos = 1/sqrt(2)
    const r = await grade(g, { item: { ref: 'a' }, output_text: 'ab' }, { services });
    expect(r.valid).toBe(true);
    expect(r.score).toBeCloseTo(1 / Math.SQRT2, 6);
    expect(r.metadata.passed).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.auth).toBe('Bearer sk-test');
    expect(seen[0]!.body.model).toBe('letters-1');
    expect(seen[0]!.body.input).toEqual(['ab', 'a']);
    // "abc" vs "xyz": orthogonal
    const o = await grade(g, { item: { ref: 'xyz' }, output_text: 'abc' }, { services });
    expect(o.score).toBeCloseTo(0, 12);
    expect(o.metadata.passed).toBe(false);
    await services.close();
  });

  it('caches embeddings: a repeated reference is not sent again', async () => {
    const services = new Services();
    const g = loadGrader(cfg({ base_url: baseURL, model: 'letters-2' }));
    seen.length = 0;
    await grade(g, { item: { ref: 'hello' }, output_text: 'help' }, { services });
    const r = await grade(g, { item: { ref: 'hello' }, output_text: 'hell' }, { services });
    // "hell" (e1 h1 l2) vs "hello" (e1 h1 l2 o1): dot 6, norms sqrt(6), sqrt(7)
    expect(r.score).toBeCloseTo(6 / Math.sqrt(6 * 7), 6);
    expect(seen.map((s) => s.body.input)).toEqual([['help', 'hello'], ['hell']]);
    await services.close();
  });

  it('takes the endpoint from OPENAI_BASE_URL / OPENAI_API_KEY when the config has none', async () => {
    const old = { u: process.env.OPENAI_BASE_URL, k: process.env.OPENAI_API_KEY };
    process.env.OPENAI_BASE_URL = baseURL;
    process.env.OPENAI_API_KEY = 'sk-env';
    try {
      seen.length = 0;
      const r = await grade(loadGrader(cfg({ model: 'letters-3' })), { item: { ref: 'a' }, output_text: 'a' }, { services: new Services() });
      expect(r.score).toBeCloseTo(1, 6);
      expect(seen[0]!.auth).toBe('Bearer sk-env');
    } finally {
      if (old.u === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = old.u;
      if (old.k === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = old.k;
    }
  });

  it('without any endpoint: an invalid result of kind config_error that says what to set', async () => {
    const old = { u: process.env.OPENAI_BASE_URL, k: process.env.OPENAI_API_KEY };
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
    try {
      const r = await grade(loadGrader(cfg()), { item: { ref: 'a' }, output_text: 'a' }, { services: new Services() });
      expect(r.valid).toBe(false);
      expect(r.error!.kind).toBe('config_error');
      expect(r.error!.message).toMatch(/base_url.*OPENAI_BASE_URL/);
    } finally {
      if (old.u !== undefined) process.env.OPENAI_BASE_URL = old.u;
      if (old.k !== undefined) process.env.OPENAI_API_KEY = old.k;
    }
  });

  it('server failures are judge_server_error results: HTTP 500, missing vectors, zero vectors, refused connection', async () => {
    const services = new Services();
    const run = (extra: Record<string, unknown>) =>
      grade(loadGrader(cfg({ base_url: baseURL, max_retries: 0, ...extra })), { item: { ref: 'a' }, output_text: 'b' }, { services });
    const e500 = await run({ model: 'broken' });
    expect(e500.error!.kind).toBe('judge_server_error');
    expect(e500.error!.message).toMatch(/HTTP 500/);
    const short = await run({ model: 'short' });
    expect(short.error!.kind).toBe('judge_server_error');
    expect(short.error!.message).toMatch(/no valid vector/);
    const zero = await run({ model: 'zero' });
    expect(zero.error!.kind).toBe('judge_server_error');
    expect(zero.error!.message).toMatch(/zero vector/);
    // a closed port: bind one, then release it
    const tmp = createServer();
    await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', r));
    const port = (tmp.address() as AddressInfo).port;
    await new Promise((r) => tmp.close(r));
    const refused = await grade(
      loadGrader(cfg({ base_url: `http://127.0.0.1:${port}/v1`, max_retries: 0 })),
      { item: { ref: 'a' }, output_text: 'b' },
      { services },
    );
    expect(refused.error!.kind).toBe('judge_server_error');
    await services.close();
  });

  it('honours timeout_ms: a grade that cannot finish in time is a timeout result', async () => {
    const slow = createServer(() => {
      /* never answers */
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/v1`;
      const r = await grade(
        loadGrader(cfg({ base_url: url, max_retries: 0, timeout_ms: 300 })),
        { item: { ref: 'a' }, output_text: 'b' },
        { services: new Services() },
      );
      expect(r.valid).toBe(false);
      expect(r.error!.kind).toBe('timeout');
    } finally {
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
