// `cosine`: cosine similarity of embeddings from an OpenAI-compatible `/v1/embeddings` endpoint,
// called through the official `openai` client over the models' bounded transport (one deadline over
// headers and body, a response size cap, retries within one budget per call). The endpoint comes
// from the grader config (`base_url`, `api_key`) or from OPENAI_BASE_URL / OPENAI_API_KEY; with
// neither, grading fails with a config_error. One client per (endpoint, key identity, retries);
// embeddings are cached per client (LRU, keyed by model, dimensions and text) since references repeat.
import type { OpenAI } from 'openai';
import { lazyRequire } from '../../core/lazy.js';
import { GradeFailure } from '../../core/result.js';
import type { GraderContext } from '../../core/grader.js';
import { classify } from '../../models/chat-client.js';
import { endpointLimits, resolveEndpoint, sharedClient } from '../../models/endpoint.js';
import { keyIdentity, settingsKey } from '../../models/request-key.js';
import { boundedFetch, CallFailed, runAttempts } from '../../models/transport.js';

const sdk = lazyRequire<typeof import('openai')>('openai');

export interface CosineConfig {
  model: string;
  base_url?: string;
  api_key?: string;
  dimensions?: number;
  max_retries?: number;
}

const CACHE_MAX = 4096;

interface EmbeddingClient {
  client: OpenAI;
  cache: Map<string, number[]>;
  limits: ReturnType<typeof endpointLimits>;
}

function endpoint(cfg: CosineConfig): { baseURL: string; apiKey: string } {
  // unlike judges, no silent default to api.openai.com: cosine needs an endpoint named somewhere
  if (!cfg.base_url && !cfg.api_key && !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY) {
    throw new GradeFailure(
      'config_error',
      'evaluation_metric "cosine" needs an embeddings endpoint: set "base_url" (and "api_key" if it needs one) in the grader, or OPENAI_BASE_URL / OPENAI_API_KEY in the environment',
    );
  }
  const { baseURL, apiKey } = resolveEndpoint(cfg);
  return { baseURL, apiKey };
}

export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  if (na === 0 || nb === 0) throw new GradeFailure('judge_server_error', 'the embeddings endpoint returned a zero vector; cosine similarity is undefined');
  return dot / Math.sqrt(na * nb);
}

function getClient(cfg: CosineConfig, ctx: GraderContext): EmbeddingClient {
  const ep = endpoint(cfg);
  const limits = endpointLimits({ baseURL: ep.baseURL, apiKey: ep.apiKey, maxRetries: cfg.max_retries ?? 2 });
  const key = `embeddings:${settingsKey({ url: ep.baseURL, key: keyIdentity(ep.apiKey), ...limits })}`;
  return sharedClient(ctx.services, key, () => ({
    client: new (sdk().OpenAI)({ ...ep, maxRetries: 0, timeout: limits.timeoutMs, fetch: boundedFetch({ maxBytes: limits.maxResponseBytes }) }),
    cache: new Map<string, number[]>(),
    limits,
  }));
}

/** Embeds the texts (one request for those not cached) and returns their vectors in order. */
export async function embed(texts: string[], cfg: CosineConfig, ctx: GraderContext): Promise<number[][]> {
  const ec = getClient(cfg, ctx);
  const ck = (t: string) => `${cfg.model}|${cfg.dimensions ?? ''}|${t}`;
  // take cached vectors now, before any await lets concurrent graders evict them
  const have = new Map<string, number[]>();
  for (const t of texts) {
    const v = ec.cache.get(ck(t));
    if (v) {
      have.set(t, v);
      ec.cache.delete(ck(t)); // refresh LRU position
      ec.cache.set(ck(t), v);
    }
  }
  const missing = [...new Set(texts.filter((t) => !have.has(t)))];
  if (missing.length) {
    let res: OpenAI.CreateEmbeddingResponse;
    const body = { model: cfg.model, input: missing, encoding_format: 'float' as const, ...(cfg.dimensions ? { dimensions: cfg.dimensions } : {}) };
    try {
      const budget = { retry: { maxRetries: ec.limits.maxRetries }, attemptTimeoutMs: ec.limits.timeoutMs, callTimeoutMs: ec.limits.callTimeoutMs };
      res = (await runAttempts(budget, ctx.signal, (signal, ms) => ec.client.embeddings.create(body, { signal, timeout: ms + 1000, maxRetries: 0 }), classify))
        .value;
    } catch (e) {
      if (e instanceof GradeFailure) throw e;
      if (ctx.signal?.aborted && ctx.signal.reason instanceof GradeFailure) throw ctx.signal.reason;
      if (e instanceof CallFailed) {
        throw new GradeFailure(e.failure.kind, `embeddings request failed: ${e.failure.message}`, {
          attempts: e.attempts,
          ...(e.failure.status ? { http_status: e.failure.status } : {}),
        });
      }
      throw new GradeFailure('judge_server_error', `embeddings request failed: ${(e as Error).message}`);
    }
    const data: unknown[] = Array.isArray(res?.data) ? res.data : [];
    const vectors: (number[] | undefined)[] = new Array(missing.length);
    for (const d of data as { index?: unknown; embedding?: unknown }[]) {
      if (typeof d?.index === 'number' && d.index >= 0 && d.index < missing.length && Array.isArray(d.embedding)) vectors[d.index] = d.embedding as number[];
    }
    for (let i = 0; i < missing.length; i++) {
      const v = vectors[i];
      if (!v || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new GradeFailure(
          'judge_server_error',
          `embeddings response has no valid vector for input ${i} (got ${data.length} embeddings for ${missing.length} inputs)`,
        );
      }
      if (ec.cache.size >= CACHE_MAX) ec.cache.delete(ec.cache.keys().next().value!);
      ec.cache.set(ck(missing[i]!), v);
      have.set(missing[i]!, v);
    }
  }
  return texts.map((t) => have.get(t)!);
}

/** Max cosine similarity between the input and any reference. */
export async function cosineScore(input: string, references: string[], cfg: CosineConfig, ctx: GraderContext): Promise<number> {
  const [v, ...refs] = await embed([input, ...references], cfg, ctx);
  let best = -Infinity;
  for (const r of refs) {
    if (r.length !== v!.length) throw new GradeFailure('judge_server_error', `embedding dimensions differ (${v!.length} vs ${r.length})`);
    best = Math.max(best, cosineSimilarity(v!, r));
  }
  return best;
}
