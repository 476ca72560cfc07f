// A protocol-faithful local server for process reward models, on the scriptable test server (real
// HTTP): vLLM's `/pooling` with a STEP pooler (one [p_wrong, p_right] pair per `<extra_0>` in the
// prompt, for text inputs in a batch or chat messages it templates itself in ChatML) and the legacy
// `/v1/completions` endpoint with top logprobs at the first generated token (Math-Shepherd style:
// the prompt ends at a step tag and "+" / "-" carry the PRM's verdict). Step probabilities come from
// a script keyed by the step's text; failures and malformed answers can be queued per route.
import { startTestServer, type RecordedRequest, type Reply, type TestServer } from './openai-test-server.js';

export const SEP = '<extra_0>';
export const TAG = 'ки';

/** P(step is right) for a step text (and its 0-based index and the question). */
export type StepProb = (step: string, index: number, question: string) => number;

export interface PrmServer {
  server: TestServer;
  /** Server root (the /pooling route lives here) and the /v1 base URL. */
  root: string;
  url: string;
  /** Sets the step-probability script. */
  script(f: StepProb): void;
  /** Replies used, in order, before the scripted answer of the next /pooling or /v1/completions requests. */
  queue(route: 'pooling' | 'completions', ...replies: Reply[]): void;
  /** Rewrites every scripted answer of a route (to corrupt it). */
  mutate(route: 'pooling' | 'completions', f: ((body: any, req: RecordedRequest) => unknown) | undefined): void;
  /** Return one pooling output per "token" instead of one per separator (a misconfigured pooler). */
  allTokens: boolean;
  requests(route: 'pooling' | 'completions'): RecordedRequest[];
  close(): Promise<void>;
}

/** Per-step texts of a ChatML prompt's assistant turn, as the STEP pooler sees them (split at each separator). */
export function pooledSteps(text: string): { question: string; steps: string[]; separators: number } {
  const q = /<\|im_start\|>user\n([\s\S]*?)<\|im_end\|>/.exec(text)?.[1] ?? '';
  const a = text.indexOf('<|im_start|>assistant\n');
  const body = a >= 0 ? text.slice(a + '<|im_start|>assistant\n'.length) : text;
  const parts = body.split(SEP);
  const separators = text.split(SEP).length - 1;
  return { question: q, steps: parts.slice(0, parts.length - 1), separators };
}

function chatml(messages: { role: string; content: string }[]): string {
  return messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join('');
}

/** The step a Math-Shepherd prompt ends at: the text after its last "Step k: " up to the final tag. */
export function taggedStep(prompt: string): { step: string; index: number; question: string } {
  if (!prompt.endsWith(TAG)) return { step: '', index: -1, question: '' };
  const head = prompt.slice(0, -TAG.length);
  const start = head.lastIndexOf(`${TAG}\n`);
  const last = start >= 0 ? head.slice(start + TAG.length + 1) : head;
  const m = /Step (\d+): ([\s\S]*) $/.exec(last);
  const firstStep = prompt.indexOf(' Step 1: ');
  return { step: m?.[2] ?? last, index: m ? Number(m[1]) - 1 : -1, question: firstStep >= 0 ? prompt.slice(0, firstStep) : '' };
}

export async function startPrmServer(): Promise<PrmServer> {
  const server = await startTestServer();
  let prob: StepProb = () => 0.5;
  const queues = { pooling: [] as Reply[], completions: [] as Reply[] };
  const mutators: Record<'pooling' | 'completions', ((b: any, r: RecordedRequest) => unknown) | undefined> = { pooling: undefined, completions: undefined };
  const self: PrmServer = {
    server,
    root: server.root,
    url: server.url,
    allTokens: false,
    script: (f) => {
      prob = f;
    },
    queue: (route, ...r) => queues[route].push(...r),
    mutate: (route, f) => {
      mutators[route] = f;
    },
    requests: (route) => server.requests.filter((r) => (route === 'pooling' ? r.path === '/pooling' : r.path === '/v1/completions')),
    close: () => server.close(),
  };

  server.route('/pooling', (req) => {
    if (queues.pooling.length) return queues.pooling.shift()!;
    const b = req.body ?? {};
    let texts: string[];
    if (Array.isArray(b.messages)) texts = [chatml(b.messages)];
    else if (typeof b.input === 'string') texts = [b.input];
    else if (Array.isArray(b.input)) texts = b.input;
    else return { status: 400, body: { object: 'error', message: 'input or messages required', type: 'BadRequestError', code: 400 } };
    const data = texts.map((t, index) => {
      const { question, steps } = pooledSteps(t);
      const rows = self.allTokens
        ? Array.from({ length: Math.max(1, t.length >> 2) }, () => [0.5, 0.5])
        : steps.map((s, k) => {
            const p = prob(s, k, question);
            return [1 - p, p];
          });
      return { index, object: 'pooling', data: rows };
    });
    const body = { id: 'pool-test', object: 'list', created: 0, model: b.model, data, usage: { prompt_tokens: 10, total_tokens: 10, completion_tokens: 0 } };
    return { body: mutators.pooling ? mutators.pooling(body, req) : body };
  });

  server.route('/v1/completions', (req) => {
    if (queues.completions.length) return queues.completions.shift()!;
    const b = req.body ?? {};
    const prompts: string[] = Array.isArray(b.prompt) ? b.prompt : [b.prompt];
    const k = Math.max(1, Number(b.logprobs ?? 1));
    const choices = prompts.map((pr, index) => {
      const { step, index: si, question } = taggedStep(String(pr));
      const p = prob(step, si, question);
      // the PRM's distribution at the tag: "+" and "-" take 90%, the rest goes to other tokens
      const alts: [string, number][] = [
        ['+', Math.log(0.9 * p)],
        ['-', Math.log(0.9 * (1 - p))],
        ['\n', Math.log(0.06)],
        [' The', Math.log(0.04)],
      ];
      alts.sort((x, y) => y[1] - x[1]);
      const top = Object.fromEntries(alts.slice(0, k));
      const [tok, lp] = alts[0]!;
      return {
        index,
        text: tok,
        logprobs: { tokens: [tok], token_logprobs: [lp], top_logprobs: [top], text_offset: [pr.length] },
        finish_reason: 'length',
        stop_reason: null,
      };
    });
    const body = {
      id: 'cmpl-test',
      object: 'text_completion',
      created: 0,
      model: b.model,
      choices,
      usage: { prompt_tokens: 10 * prompts.length, completion_tokens: prompts.length, total_tokens: 11 * prompts.length },
    };
    return { body: mutators.completions ? mutators.completions(body, req) : body };
  });
  return self;
}
