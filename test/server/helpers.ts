// Test helpers for the server: start a real server on port 0, post JSON over HTTP, test-only grader
// types (slow, throwing), and GSM8K model solutions from the shared public data.
import { readFileSync } from 'node:fs';
import { getGraderType, loadGrader, registerGraderType, graderSchema } from '../../dist/index.js';
import { createServer } from '../../dist/server/index.js';
import type { Grader } from '../../dist/index.js';
import type { ArbiterServer, ServerOptions } from '../../dist/server/index.js';
import { z } from 'zod';
import { dataPath } from '../helpers/data.js';

/** GSM8K's example model solutions (a function: the data is looked for when a test reads it). */
export const gsm8kSolutions = () => dataPath('gsm8k/example_model_solutions.jsonl');

export interface Gsm8kSample {
  question: string;
  label: string;
  solution: string;
  is_correct: boolean;
}

/** The first `n` GSM8K problems with the 175B fine-tuned model's solution and the human label. */
export function gsm8k(n: number): Gsm8kSample[] {
  const lines = readFileSync(gsm8kSolutions(), 'utf8').split('\n').filter(Boolean).slice(0, n);
  return lines.map((l) => {
    const r = JSON.parse(l) as { question: string; ground_truth: string; '175b_finetuning': { solution: string; is_correct: boolean } };
    const label = /A: (.*)$/.exec(r.ground_truth.trim())![1]!.trim();
    return { question: r.question, label, solution: r['175b_finetuning'].solution, is_correct: r['175b_finetuning'].is_correct };
  });
}

/**
 * A string_check that passes when the output ENDS with "A: <label>": the `$$` end marker turns
 * `like` into a suffix test, so a leftover EOS token or prompt text makes it fail.
 */
export const ANSWER_CHECK = {
  type: 'string_check',
  name: 'answer_check',
  input: '{{sample.output_text}}$$',
  reference: 'A: {{item.label}}$$',
  operation: 'like',
};

/**
 * The shipped graders/gsm8k.json (the gold answer in item.label, as verl, OpenRLHF, slime, TRL and
 * verifiers send it): the integration tests grade through the file the docs name.
 */
export const SHIPPED_GSM8K = JSON.parse(readFileSync(new URL('../../graders/gsm8k.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** The same check computed independently, for expected values. */
export const endsWithAnswer = (text: string, label: string) => text.endsWith(`A: ${label}`);

/** Test-only grader types: `test_sleep` waits `ms` ignoring its abort signal; `test_throw` throws. */
export function registerTestTypes(): void {
  if (!getGraderType('test_sleep')) {
    registerGraderType({
      type: 'test_sleep',
      summary: 'test: sleeps ms milliseconds (ignores abort), then scores 1',
      schema: graderSchema({ ms: z.number() }),
      build: (cfg: { ms: number }) => () => new Promise((resolve) => setTimeout(() => resolve({ score: 1 }), cfg.ms)),
    } as never);
  }
  if (!getGraderType('test_throw')) {
    registerGraderType({
      type: 'test_throw',
      summary: 'test: throws a TypeError',
      schema: graderSchema({}),
      build: () => () => {
        throw new TypeError('boom from a buggy grader');
      },
    } as never);
  }
}

export interface Running {
  server: ArbiterServer;
  url: string;
  close(): Promise<void>;
}

export async function start(graders: Record<string, unknown>, opts: Partial<ServerOptions> = {}): Promise<Running> {
  const built: Record<string, Grader> = {};
  for (const [k, v] of Object.entries(graders)) built[k] = loadGrader(v);
  const server = createServer({ graders: built, ...opts });
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return { server, url, close: () => server.close() };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  return reply(
    await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    }),
  );
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Reply> {
  return reply(await fetch(url, { headers }));
}

/**
 * Polls /healthz until `pred` holds (the server state, not a sleep, decides when to go on). No
 * clock: a state that never comes is the calling test's own timeout.
 */
export async function waitForHealth(url: string, pred: (h: { in_flight: number; queued: number }) => boolean): Promise<void> {
  for (;;) {
    const h = await get(`${url}/healthz`);
    if (pred(h.body)) return;
    await new Promise((r) => setImmediate(r));
  }
}
