// Server options with their defaults: network, protection limits (bodies, deadlines, queue,
// connections and their timeouts, the inline-grader policy), the OpenRLHF adapter settings, and the
// maxima of the SandboxFusion endpoint (off unless asked for), and an executor that grades elsewhere
// (the Redis queue).
import type { Grader } from '../core/grader.js';
import { DEFAULT_MAX_JSON_DEPTH } from '../core/json.js';
import type { Services } from '../core/services.js';
import type { ExecutorFactory } from './grade-runner.js';
import { parseUrlPrefix, type UrlPrefix } from '../models/url-prefix.js';

/** End-of-sequence / padding tokens stripped from OpenRLHF queries (common chat templates). */
export const DEFAULT_EOS_TOKENS: readonly string[] = [
  '<|im_end|>', // ChatML (Qwen, many fine-tunes)
  '<|endoftext|>', // GPT-2 / Qwen pad and eos
  '<|eot_id|>', // Llama 3
  '<|end_of_text|>', // Llama 3 base
  '<|finetune_right_pad_id|>', // Llama 3.1 pad
  '</s>', // Llama 2, Mistral
  '<eos>', // Gemma
  '<end_of_turn>', // Gemma chat
  '<pad>', // T5 / Gemma pad
  '<|end|>', // Phi-3
  '<|return|>', // gpt-oss harmony
  '<｜end▁of▁sentence｜>', // DeepSeek
  '[PAD]',
];

/** What POST /reward (slime) answers: a bare float, or an object with the reward and its validity. */
export type RewardFormat = 'number' | 'dict';
export const REWARD_FORMATS: readonly RewardFormat[] = ['number', 'dict'];

/**
 * Default queue: room for the samples one OpenRLHF rollout can have waiting at once. OpenRLHF sends
 * one 1-sample /get_reward request per finished generation, up to vllm_generate_batch_size x
 * n_samples_per_prompt at once (512 x 16 = 8192 in its ProRL example), does not read Retry-After
 * and gives up after 5 tries a second apart; 256 slots + 16384 queued admit that twice over.
 */
export const DEFAULT_MAX_QUEUE = 16384;

export interface ServerOptions {
  /** Named graders; the first is the default when a request names none (unless `defaultGrader`). */
  graders: Map<string, Grader> | Record<string, Grader>;
  defaultGrader?: string;
  /** Bearer token required on every endpoint except /healthz when set. */
  token?: string;
  /** Allow binding a non-loopback address without a token. */
  insecure?: boolean;
  /** Accept grader configs inline in /v1/graders/run (they run with the server's services). Default false. */
  allowInlineGraders?: boolean;
  /**
   * URL prefixes (e.g. `http://127.0.0.1:8001/v1`) that inline judges and reward models may call;
   * none by default. Needs allowInlineGraders.
   */
  inlineAllowNetwork?: readonly string[];
  /** Maximum request body in bytes (default 8 MiB). */
  bodyLimit?: number;
  /** A request's headers must arrive within this many ms of its start, else 408 and close (default 10 000). */
  headersTimeoutMs?: number;
  /** A whole request, headers and body, must arrive within this many ms of its start, else 408 and close (default 30 000). */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this many ms (default 30 000). */
  keepAliveTimeoutMs?: number;
  /** Open connections at most; further ones are closed as soon as they are accepted (default 1024). */
  maxConnections?: number;
  /** Deepest JSON nesting accepted in a request body (default 64); deeper bodies get 400 `limit_exceeded`. */
  maxJsonDepth?: number;
  /** Per-request deadline in ms (default 30 000); samples not graded by then get `timeout` results. */
  deadlineMs?: number;
  /** Samples graded at once across all requests (default 256). */
  concurrency?: number;
  /** Samples allowed to wait for a slot (default 16384); beyond that requests get 429. */
  maxQueue?: number;
  /** Most samples in one batch request (/v1/score, /get_reward) (default min(4096, concurrency + maxQueue)). */
  maxBatch?: number;
  /** Reward given to invalid grades on /get_reward and /v1/graders/run (default 0). */
  fallbackReward?: number;
  /** Tokens stripped from the end (and, as padding, the start) of OpenRLHF queries. */
  eosTokens?: readonly string[];
  /** POST /reward (slime) replies: a bare float (default "number") or an object ("dict"); `?format=` overrides. */
  rewardFormat?: RewardFormat;
  /** Recent grades per grader kept for the reward-hacking monitors in /metrics (default 2048; 0 = off). */
  monitorWindow?: number;
  /** Shared services for graders (created and closed by the server when omitted). */
  services?: Services;
  /** fastify logger: false (default), true, or a pino level name. */
  logger?: boolean | string;
  /**
   * Serve the SandboxFusion-compatible endpoints (POST /run_code, GET /v1/ping), which run
   * request-supplied code in the sandbox: off by default; `true` for the default maxima, or the
   * maxima themselves (a request's limits are clamped to them).
   */
  sandboxApi?: boolean | Partial<SandboxApiLimits>;
  /**
   * Grades the served graders' samples elsewhere, e.g. `queueExecutor({url})` from the Redis queue
   * (docs/queue.md); built once with the server, closed after its last request. Default: in-process.
   */
  executor?: ExecutorFactory;
}

/** Operator maxima of the SandboxFusion endpoint: a request's own limits are clamped to these. */
export interface SandboxApiLimits {
  /** Longest run_timeout honoured, seconds (default 30). */
  maxRunTimeoutS: number;
  /** Longest compile_timeout honoured, seconds (default 30). */
  maxCompileTimeoutS: number;
  /** Largest memory_limit_MB honoured, and the limit when a request sets none (-1), MiB (default 1024). */
  maxMemoryMb: number;
  /** Cap on the run's stdout and on its stderr, each, bytes (fetched files count in stdout; default 8 MiB). */
  maxOutputBytes: number;
}

export const DEFAULT_SANDBOX_API_LIMITS: SandboxApiLimits = { maxRunTimeoutS: 30, maxCompileTimeoutS: 30, maxMemoryMb: 1024, maxOutputBytes: 8 * 1024 * 1024 };

export interface ResolvedOptions {
  defaultGrader: string;
  token?: string;
  insecure: boolean;
  allowInlineGraders: boolean;
  inlineAllowNetwork: readonly UrlPrefix[];
  bodyLimit: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  maxJsonDepth: number;
  deadlineMs: number;
  concurrency: number;
  maxQueue: number;
  maxBatch: number;
  fallbackReward: number;
  eosTokens: readonly string[];
  rewardFormat: RewardFormat;
  monitorWindow: number;
  /** The SandboxFusion endpoints' maxima; undefined when they are off. */
  sandboxApi?: SandboxApiLimits;
}

function positive(name: string, v: number | undefined, dflt: number): number {
  if (v === undefined) return dflt;
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`server option ${name} must be a positive number, got ${v}`);
  return v;
}

export function resolveOptions(o: ServerOptions, graderNames: string[]): ResolvedOptions {
  if (graderNames.length === 0) throw new RangeError('the server needs at least one grader');
  const defaultGrader = o.defaultGrader ?? graderNames[0]!;
  if (!graderNames.includes(defaultGrader)) throw new RangeError(`default grader "${defaultGrader}" is not loaded (loaded: ${graderNames.join(', ')})`);
  const fallbackReward = o.fallbackReward ?? 0;
  if (!Number.isFinite(fallbackReward)) throw new RangeError('server option fallbackReward must be a finite number');
  const r: ResolvedOptions = {
    defaultGrader,
    insecure: Boolean(o.insecure),
    allowInlineGraders: Boolean(o.allowInlineGraders),
    inlineAllowNetwork: (o.inlineAllowNetwork ?? []).map((u) => parseUrlPrefix(u)),
    bodyLimit: Math.floor(positive('bodyLimit', o.bodyLimit, 8 * 1024 * 1024)),
    headersTimeoutMs: Math.floor(positive('headersTimeoutMs', o.headersTimeoutMs, 10_000)),
    requestTimeoutMs: Math.floor(positive('requestTimeoutMs', o.requestTimeoutMs, 30_000)),
    keepAliveTimeoutMs: Math.floor(positive('keepAliveTimeoutMs', o.keepAliveTimeoutMs, 30_000)),
    maxConnections: Math.floor(positive('maxConnections', o.maxConnections, 1024)),
    maxJsonDepth: Math.floor(positive('maxJsonDepth', o.maxJsonDepth, DEFAULT_MAX_JSON_DEPTH)),
    deadlineMs: positive('deadlineMs', o.deadlineMs, 30_000),
    concurrency: Math.floor(positive('concurrency', o.concurrency, 256)),
    maxQueue: Math.floor(positive('maxQueue', o.maxQueue, DEFAULT_MAX_QUEUE)),
    maxBatch: 0,
    fallbackReward,
    eosTokens: (o.eosTokens ?? DEFAULT_EOS_TOKENS).filter((t) => t.length > 0),
    rewardFormat: o.rewardFormat ?? 'number',
    monitorWindow: o.monitorWindow ?? 2048,
  };
  if (!REWARD_FORMATS.includes(r.rewardFormat))
    throw new RangeError(`server option rewardFormat must be one of ${REWARD_FORMATS.join(', ')}, got ${String(o.rewardFormat)}`);
  if (!Number.isInteger(r.monitorWindow) || r.monitorWindow < 0 || r.monitorWindow > 1_000_000)
    throw new RangeError(`server option monitorWindow must be an integer from 0 to 1000000, got ${o.monitorWindow}`);
  // By default a batch may fill the whole queue (capped at 4096); an explicit maxBatch must fit in it.
  r.maxBatch = Math.floor(positive('maxBatch', o.maxBatch, Math.min(4096, r.concurrency + r.maxQueue)));
  if (o.token !== undefined) {
    if (o.token.length === 0) throw new RangeError('server option token must not be empty');
    r.token = o.token;
  }
  if (r.headersTimeoutMs > r.requestTimeoutMs) {
    throw new RangeError(
      `headersTimeoutMs (${r.headersTimeoutMs}) must not exceed requestTimeoutMs (${r.requestTimeoutMs}): the request timeout covers the headers too`,
    );
  }
  if (r.inlineAllowNetwork.length && !r.allowInlineGraders) {
    throw new RangeError('an inline network allow-list (--inline-allow-network) needs inline graders to be allowed (--allow-inline-graders)');
  }
  if (o.sandboxApi) {
    const given = o.sandboxApi === true ? {} : o.sandboxApi;
    const l: SandboxApiLimits = { ...DEFAULT_SANDBOX_API_LIMITS };
    for (const k of Object.keys(DEFAULT_SANDBOX_API_LIMITS) as (keyof SandboxApiLimits)[])
      l[k] = positive(`sandboxApi.${k}`, given[k], DEFAULT_SANDBOX_API_LIMITS[k]);
    for (const k of Object.keys(given))
      if (!(k in DEFAULT_SANDBOX_API_LIMITS))
        throw new RangeError(`unknown server option sandboxApi.${k} (known: ${Object.keys(DEFAULT_SANDBOX_API_LIMITS).join(', ')})`);
    r.sandboxApi = l;
  }
  if (r.maxBatch > r.concurrency + r.maxQueue) {
    throw new RangeError(
      `maxBatch (${r.maxBatch}) must not exceed concurrency + maxQueue (${r.concurrency + r.maxQueue}), or a full batch could never be admitted`,
    );
  }
  return r;
}
