// A protocol-faithful local "model" for scoring a given text, on the scriptable test server (real
// HTTP): vLLM's legacy `/v1/completions` with `echo: true` + `logprobs` and `max_tokens: 0`, which
// answers the prompt alone with its prompt logprobs — `tokens`, `token_logprobs` (null for the first
// token, which has no context), `top_logprobs` and `text_offset` (running sum of the tokens'
// lengths), as vLLM's `_create_completion_logprobs` builds them. The tokenizer and the logprob of
// each token are the test's; the answer can be rewritten to corrupt it.
import { startTestServer, tokenize, type RecordedRequest, type TestServer } from './openai-test-server.js';

/** log p of token `i` (from 0, over the whole echoed text) given the text before it. */
export type TokenLogprob = (token: string, index: number) => number;

export interface LogprobServer {
  server: TestServer;
  /** The /v1 base URL. */
  url: string;
  /** Sets the logprob script (default: -1 for every token). */
  script(f: TokenLogprob): void;
  /** Sets the tokenizer (default: the test server's `tokenize`). */
  tokenizer(f: ((text: string) => string[]) | undefined): void;
  /** Rewrites every answer body (to corrupt it). */
  mutate(f: ((body: any, req: RecordedRequest) => unknown) | undefined): void;
  requests(): RecordedRequest[];
  close(): Promise<void>;
}

export async function startLogprobServer(): Promise<LogprobServer> {
  const server = await startTestServer();
  let lp: TokenLogprob = () => -1;
  let tok: (text: string) => string[] = tokenize;
  let mutator: ((b: any, r: RecordedRequest) => unknown) | undefined;
  server.route('/v1/completions', (req) => {
    const b = req.body ?? {};
    if (typeof b.prompt !== 'string')
      return { status: 400, body: { object: 'error', message: 'one text prompt expected', type: 'BadRequestError', code: 400 } };
    if (b.echo !== true || b.max_tokens !== 0 || typeof b.logprobs !== 'number')
      return {
        status: 400,
        body: { object: 'error', message: 'this test model only scores: echo true, max_tokens 0, logprobs k', type: 'BadRequestError', code: 400 },
      };
    const tokens = tok(b.prompt);
    const token_logprobs = tokens.map((t, i) => (i === 0 ? null : lp(t, i)));
    const text_offset: number[] = [];
    let at = 0;
    for (const t of tokens) {
      text_offset.push(at);
      at += t.length;
    }
    const top_logprobs = tokens.map((t, i) => (i === 0 ? null : { [t]: token_logprobs[i] }));
    const body = {
      id: 'cmpl-echo',
      object: 'text_completion',
      created: 0,
      model: b.model,
      choices: [{ index: 0, text: b.prompt, logprobs: { text_offset, token_logprobs, tokens, top_logprobs }, finish_reason: 'length', stop_reason: null }],
      usage: { prompt_tokens: tokens.length, completion_tokens: 0, total_tokens: tokens.length },
    };
    return { body: mutator ? mutator(body, req) : body };
  });
  return {
    server,
    url: server.url,
    script: (f) => {
      lp = f;
    },
    tokenizer: (f) => {
      tok = f ?? tokenize;
    },
    mutate: (f) => {
      mutator = f;
    },
    requests: () => server.requests.filter((r) => r.path === '/v1/completions'),
    close: () => server.close(),
  };
}
