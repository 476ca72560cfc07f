// Where a judge's model lives: config fields shared by all model graders (base URL, key, limits),
// resolution against OPENAI_BASE_URL / OPENAI_API_KEY, and the shared per-endpoint client and
// cache, taken from ctx.services so every grader of a run reuses one client per base URL.
import { z } from 'zod';
import type { Services } from '../core/services.js';
import { ChatClient } from './chat-client.js';
import { ResponseCache } from './response-cache.js';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_CACHE_DIR = '.cache/arbiter';

/** Config fields for reaching a model server. */
export const endpointFields = {
  /** OpenAI-compatible base URL, e.g. http://localhost:8000/v1. Default: $OPENAI_BASE_URL, else api.openai.com. */
  base_url: z.string().url().optional(),
  /** Name of the environment variable holding the API key (default OPENAI_API_KEY). */
  api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  /** Literal API key (prefer api_key_env so keys stay out of config files). */
  api_key: z.string().optional(),
  /** Requests in flight to this endpoint at once (default 64; the first grader to open an endpoint sets it). */
  max_concurrency: z.number().int().min(1).max(4096).optional(),
  /** Retries on 429, 5xx, timeouts and connection errors (default 3). */
  max_retries: z.number().int().min(0).max(20).optional(),
  /** Per-attempt HTTP timeout in ms (default 120000). */
  request_timeout_ms: z.number().int().positive().optional(),
};

export interface EndpointConfig {
  base_url?: string;
  api_key_env?: string;
  api_key?: string;
  max_concurrency?: number;
  max_retries?: number;
  request_timeout_ms?: number;
}

export interface ResolvedEndpoint {
  baseURL: string;
  apiKey: string;
  maxConcurrency?: number;
  maxRetries?: number;
  timeoutMs?: number;
}

/** Resolves URL and key from config, then the environment; local servers need no key. */
export function resolveEndpoint(cfg: EndpointConfig, env: NodeJS.ProcessEnv = process.env): ResolvedEndpoint {
  const baseURL = (cfg.base_url ?? (env.OPENAI_BASE_URL || undefined) ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const apiKey = cfg.api_key ?? (cfg.api_key_env ? env[cfg.api_key_env] : env.OPENAI_API_KEY) ?? 'EMPTY';
  return { baseURL, apiKey: apiKey || 'EMPTY', maxConcurrency: cfg.max_concurrency, maxRetries: cfg.max_retries, timeoutMs: cfg.request_timeout_ms };
}

/** The run's response cache (opened lazily, closed with the services). */
export function getResponseCache(services: Services): ResponseCache {
  const dir = typeof services.options.cacheDir === 'string' && services.options.cacheDir ? services.options.cacheDir : DEFAULT_CACHE_DIR;
  return services.get(`model-cache:${dir}`, () => new ResponseCache(dir), (c) => c.close());
}

/** The shared chat client for an endpoint. */
export function getChatClient(services: Services, ep: ResolvedEndpoint): ChatClient {
  return services.get(`model-client:${ep.baseURL}`, () =>
    new ChatClient({
      baseURL: ep.baseURL,
      apiKey: ep.apiKey,
      maxConcurrency: ep.maxConcurrency,
      retry: ep.maxRetries !== undefined ? { maxRetries: ep.maxRetries } : undefined,
      timeoutMs: ep.timeoutMs,
      cache: () => getResponseCache(services),
    }),
  );
}
