// A scriptable OpenAI-compatible HTTP server for tests and benchmarks (real HTTP, real client code).
// Chat completions answer from a FIFO of scripted replies, then from a handler: verdicts in any
// format, reasoning blocks, refusals, n choices, logprobs (tokenised automatically, with chosen
// alternatives), slow replies, HTTP errors with Retry-After, malformed bodies, dropped connections,
// and hostile bodies (trickled one byte at a time, huge streams, cut off mid-body, never answered).
// Reward endpoints (/pooling, /classify) have their own handler; other routes can be added (any
// method; a Buffer body is sent as raw bytes, e.g. an image for the image-URL tests).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TopAlt {
  token: string;
  logprob: number;
}

export interface ChoiceReply {
  content?: string | null;
  reasoning?: string;
  refusal?: string;
  finish_reason?: string;
  /** Alternatives at the LAST token equal to `token` (after trimming): the verdict's position. */
  alternatives?: { token: string; top: TopAlt[] };
  /** Explicit logprobs content, instead of the automatic tokenisation. */
  logprobs?: { token: string; logprob: number; top_logprobs: TopAlt[] }[];
  /** Tool calls of the answer (`arguments` as JSON text, or an object sent as its JSON); finish_reason becomes "tool_calls". */
  tool_calls?: { id?: string; name: string; arguments: string | Record<string, unknown> }[];
}

export interface Reply extends ChoiceReply {
  /** Several choices (otherwise the single reply is repeated `n` times). */
  choices?: ChoiceReply[];
  /** Wait this long before answering. */
  delay_ms?: number;
  /** Destroy the connection without answering. */
  drop?: boolean;
  /** An HTTP status other than 200 (with `body` and `headers`). */
  status?: number;
  headers?: Record<string, string>;
  /** Raw body (string sent as-is, e.g. malformed JSON; a Buffer sent as bytes) or an object (sent as JSON). */
  body?: unknown;
  usage?: { prompt_tokens: number; completion_tokens: number };
  /** Hostile delivery of the body (any route). */
  hostile?: Hostile;
}

/**
 * How a hostile reply is delivered: `hang` never answers; `trickle` sends the headers, then one byte
 * of the body every `every_ms` (never finishing); `cut_after` sends that many bytes of the body
 * (with the full Content-Length) and destroys the connection; `pad_to` streams a valid body padded
 * with whitespace to that many bytes, honouring backpressure (no Content-Length).
 */
export type Hostile = { hang: true } | { trickle: { every_ms: number } } | { cut_after: number } | { pad_to: number };

/** What the server saw of the last hostile reply: bytes written and whether the client hung up first. */
export interface HostileTrace {
  kind: string;
  written: number;
  clientClosed: boolean;
  /** Resolves when the connection is gone (client hung up, or the reply ended). */
  closed: Promise<void>;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

export type ChatHandler = (req: RecordedRequest) => Reply | Promise<Reply>;
export type RouteHandler = (req: RecordedRequest) => Reply | Promise<Reply>;

export interface TestServerOptions {
  /** Keep every request in `requests` (default true; the benchmark turns it off). */
  record?: boolean;
  /** Default chat handler (default: answers "Score: 1"). */
  chat?: ChatHandler;
}

/** Splits text into tokens the way BPE tokenisers roughly do: words with their leading space, numbers in 1-3 digit groups, punctuation. */
export function tokenize(text: string): string[] {
  return text.match(/\s?[A-Za-z]+|\s?\d{1,3}|\s?[^\sA-Za-z\d]|\s+/g) ?? [];
}

function choiceLogprobs(c: ChoiceReply, content: string) {
  if (c.logprobs) return c.logprobs;
  const tokens = tokenize(content);
  let altAt = -1;
  if (c.alternatives) {
    for (let i = tokens.length - 1; i >= 0; i--)
      if (tokens[i]!.trim() === c.alternatives.token) {
        altAt = i;
        break;
      }
  }
  return tokens.map((t, i) => {
    if (i === altAt) {
      const top = c.alternatives!.top;
      const own = top.find((a) => a.token.trim() === t.trim());
      return { token: t, logprob: own?.logprob ?? -0.05, bytes: null, top_logprobs: top };
    }
    return { token: t, logprob: -0.01, bytes: null, top_logprobs: [{ token: t, logprob: -0.01 }] };
  });
}

export class TestServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Reply[] = [];
  private chatHandler: ChatHandler;
  private rewardHandler?: RouteHandler;
  private readonly routes = new Map<string, RouteHandler>();
  /** Answer 400 to any request carrying response_format (like servers without structured output). */
  rejectJsonSchema = false;
  /** Ignore `n` and always answer one choice (like servers without `n`). */
  ignoreN = false;
  record: boolean;
  /** Every hostile reply delivered, in order. */
  readonly hostileTraces: HostileTrace[] = [];
  url = '';
  root = '';
  private server?: Server;

  constructor(opts: TestServerOptions = {}) {
    this.record = opts.record ?? true;
    this.chatHandler = opts.chat ?? (() => ({ content: 'Score: 1' }));
  }

  /** Replies used, in order, for the next chat requests (before the handler). */
  enqueue(...replies: Reply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** Drops scripted replies not used yet. */
  clearQueue(): this {
    this.queue.length = 0;
    return this;
  }

  onChat(h: ChatHandler): this {
    this.chatHandler = h;
    return this;
  }

  onReward(h: RouteHandler): this {
    this.rewardHandler = h;
    return this;
  }

  /** Adds a POST route (e.g. "/v1/embeddings" for other areas' tests). */
  route(path: string, h: RouteHandler): this {
    this.routes.set(path, h);
    return this;
  }

  /** Recorded chat requests only. */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path.endsWith('/chat/completions'));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.root = `http://127.0.0.1:${port}`;
    this.url = `${this.root}/v1`;
    return this;
  }

  async close(): Promise<void> {
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    let body: any;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      return this.send(res, { status: 400, body: { error: { message: 'invalid JSON body' } } });
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const rec: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    if (this.record) this.requests.push(rec);
    try {
      if (path.endsWith('/chat/completions')) return await this.chat(rec, res);
      const route = this.routes.get(path);
      if (route) return this.send(res, await route(rec));
      if ((path.endsWith('/pooling') || path.endsWith('/classify')) && this.rewardHandler) return this.send(res, await this.rewardHandler(rec));
      return this.send(res, { status: 404, body: { error: { message: `no route ${path}` } } });
    } catch (e) {
      return this.send(res, { status: 500, body: { error: { message: `test server handler failed: ${(e as Error).message}` } } });
    }
  }

  private async chat(rec: RecordedRequest, res: ServerResponse): Promise<void> {
    const reply = this.queue.length ? this.queue.shift()! : await this.chatHandler(rec);
    if (reply.delay_ms) await new Promise((r) => setTimeout(r, reply.delay_ms));
    if (reply.drop) {
      res.socket?.destroy();
      return;
    }
    if (reply.status !== undefined || reply.body !== undefined) return this.send(res, reply);
    if (reply.hostile) return this.send(res, { ...reply, body: completionOf(rec, reply, this.ignoreN) });
    if (this.rejectJsonSchema && rec.body?.response_format) {
      return this.send(res, {
        status: 400,
        body: { object: 'error', message: 'response_format json_schema is not supported', type: 'BadRequestError', code: 400 },
      });
    }
    this.send(res, { body: completionOf(rec, reply, this.ignoreN), headers: reply.headers });
  }

  private send(res: ServerResponse, r: Reply): void {
    if (r.drop) {
      res.socket?.destroy();
      return;
    }
    if (Buffer.isBuffer(r.body)) {
      res.writeHead(r.status ?? 200, { 'content-type': 'application/octet-stream', ...r.headers });
      res.end(r.body);
      return;
    }
    const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body ?? {});
    if (r.hostile) {
      this.sendHostile(res, r, text);
      return;
    }
    res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...r.headers });
    res.end(text);
  }

  private sendHostile(res: ServerResponse, r: Reply, text: string): void {
    const h = r.hostile!;
    let resolveClosed!: () => void;
    const trace: HostileTrace = { kind: Object.keys(h)[0]!, written: 0, clientClosed: false, closed: new Promise<void>((ok) => (resolveClosed = ok)) };
    this.hostileTraces.push(trace);
    let timer: NodeJS.Timeout | undefined;
    res.on('close', () => {
      clearInterval(timer);
      trace.clientClosed = !res.writableFinished;
      resolveClosed();
    });
    if ('hang' in h) return; // headers never sent; the connection stays open until someone closes it
    const buf = Buffer.from(text, 'utf8');
    if ('trickle' in h) {
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', 'content-length': String(buf.length) });
      res.flushHeaders();
      timer = setInterval(() => {
        if (trace.written >= buf.length - 1) return; // never the last byte: the body never completes
        res.write(buf.subarray(trace.written, trace.written + 1));
        trace.written++;
      }, h.trickle.every_ms);
      return;
    }
    if ('cut_after' in h) {
      res.writeHead(r.status ?? 200, { 'content-type': 'application/json', 'content-length': String(buf.length) });
      const part = buf.subarray(0, Math.min(h.cut_after, buf.length - 1));
      res.write(part, () => {
        trace.written = part.length;
        res.socket?.destroy();
      });
      return;
    }
    // pad_to: the body with whitespace before its closing brace, streamed in 64 KiB chunks
    res.writeHead(r.status ?? 200, { 'content-type': 'application/json' });
    const head = buf.subarray(0, buf.length - 1);
    const tail = buf.subarray(buf.length - 1);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let left = Math.max(0, h.pad_to - buf.length);
    const pump = () => {
      while (left > 0) {
        const n = Math.min(left, chunk.length);
        left -= n;
        trace.written += n;
        if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      trace.written += tail.length;
      res.end(tail);
    };
    trace.written += head.length;
    res.write(head);
    pump();
  }
}

/** A chat completion for `rec` from a scripted reply (n choices, logprobs, usage). */
function completionOf(rec: RecordedRequest, reply: Reply, ignoreN = false): Record<string, unknown> {
  const n = ignoreN ? 1 : Math.max(1, Number(rec.body?.n ?? 1));
  const specs: ChoiceReply[] = reply.choices ?? Array.from({ length: n }, () => reply);
  const choices = specs.map((c, index) => {
    const content = c.content === undefined ? '' : c.content;
    const message: Record<string, unknown> = { role: 'assistant', content };
    if (c.reasoning) message.reasoning_content = c.reasoning;
    message.refusal = c.refusal ?? null;
    if (c.tool_calls?.length) {
      message.tool_calls = c.tool_calls.map((t, k) => ({
        id: t.id ?? `call_${index}_${k}`,
        type: 'function',
        function: { name: t.name, arguments: typeof t.arguments === 'string' ? t.arguments : JSON.stringify(t.arguments) },
      }));
    }
    const choice: Record<string, unknown> = { index, message, finish_reason: c.finish_reason ?? (c.tool_calls?.length ? 'tool_calls' : 'stop') };
    choice.logprobs = rec.body?.logprobs ? { content: choiceLogprobs(c, content ?? '') } : null;
    return choice;
  });
  const completion = specs.reduce((a, c) => a + tokenize(c.content ?? '').length, 0);
  const usage = reply.usage ?? { prompt_tokens: 10, completion_tokens: completion };
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: rec.body?.model ?? 'test',
    choices,
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  return new TestServer(opts).start();
}

/** What a vision model receives in a chat request: its image content parts (data URLs decoded) and its text. */
export interface VisionInput {
  images: { url: string; mime?: string; bytes?: Buffer }[];
  text: string;
}

/** The image_url and text parts of a chat request's messages, in order (the OpenAI chat API's multimodal shape). */
export function visionInput(req: RecordedRequest): VisionInput {
  const images: VisionInput['images'] = [];
  const texts: string[] = [];
  for (const m of (req.body?.messages ?? []) as { content?: unknown }[]) {
    if (typeof m.content === 'string') texts.push(m.content);
    if (!Array.isArray(m.content)) continue;
    for (const p of m.content as { type?: string; text?: string; image_url?: { url?: string } }[]) {
      if (p.type === 'text' && typeof p.text === 'string') texts.push(p.text);
      if (p.type === 'image_url' && typeof p.image_url?.url === 'string') {
        const url = p.image_url.url;
        const m64 = /^data:([^;,]+);base64,(.*)$/s.exec(url);
        images.push(m64 ? { url, mime: m64[1]!, bytes: Buffer.from(m64[2]!, 'base64') } : { url });
      }
    }
  }
  return { images, text: texts.join('\n') };
}

/** A fake vision-language model: answers each chat request with `answer` of what it saw (so a test can recompute every reply). */
export function fakeVlm(answer: (input: VisionInput) => string): ChatHandler {
  return (req) => ({ content: answer(visionInput(req)) });
}
