// Where a model lives: config fields shared by all model graders (base URL, key, limits, deadlines,
// size cap), resolution against OPENAI_BASE_URL / OPENAI_API_KEY, and the shared pieces taken from
// ctx.services: one concurrency limit per (base URL, max_concurrency), one client per full set of
// settings (so no grader's key, retries or deadlines leak into another's), and the response cache.
import { z } from 'zod';
import type { BuildContext } from '../core/registry.js';
import type { Services } from '../core/services.js';
import { ChatClient } from './chat-client.js';
import { Limiter } from './limiter.js';
import { keyIdentity, settingsKey } from './request-key.js';
import { ResponseCache } from './response-cache.js';
import { DEFAULT_REWARD_CONCURRENCY, DEFAULT_REWARD_MAX_RESPONSE_BYTES, RewardClient, REWARD_PATHS, type RewardProtocol } from './reward-client.js';
import { DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './transport.js';

export const DEFAULT_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_CACHE_DIR = '.cache/arbiter';
export const DEFAULT_CHAT_CONCURRENCY = 64;

/** Config fields for reaching a model server. */
export const endpointFields = {
  /** OpenAI-compatible base URL, e.g. http://localhost:8000/v1. Default: $OPENAI_BASE_URL, else api.openai.com. */
  base_url: z.string().url().optional(),
  /** Name of the environment variable holding the API key (default OPENAI_API_KEY). */
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .optional(),
  /** Literal API key (prefer api_key_env so keys stay out of config files). */
  api_key: z.string().optional(),
  /** Requests in flight at once, shared by the graders naming this base URL with the same value (default 64). */
  max_concurrency: z.number().int().min(1).max(4096).optional(),
  /** Retries on 429, 5xx, timeouts, connection errors and bodies cut off mid-way (default 3), within call_timeout_ms. */
  max_retries: z.number().int().min(0).max(20).optional(),
  /** Per-attempt deadline in ms: connect, headers and the whole body (default 60000). */
  request_timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  /** Total budget of one model call in ms: every attempt, backoff and Retry-After wait (default 120000, or request_timeout_ms when larger). */
  call_timeout_ms: z.number().int().positive().max(3_600_000).optional(),
  /** Largest response body accepted, in bytes, enforced while it streams (default 4 MiB). */
  max_response_bytes: z
    .number()
    .int()
    .min(1024)
    .max(1024 * 1024 * 1024)
    .optional(),
};

export interface EndpointConfig {
  base_url?: string;
  api_key_env?: string;
  api_key?: string;
  max_concurrency?: number;
  max_retries?: number;
  request_timeout_ms?: number;
  call_timeout_ms?: number;
  max_response_bytes?: number;
}

export interface ResolvedEndpoint {
  baseURL: string;
  apiKey: string;
  maxConcurrency?: number;
  maxRetries?: number;
  timeoutMs?: number;
  callTimeoutMs?: number;
  maxResponseBytes?: number;
}

/** Resolves URL and key from config, then the environment; local servers need no key. */
export function resolveEndpoint(cfg: EndpointConfig, env: NodeJS.ProcessEnv = process.env): ResolvedEndpoint {
  const baseURL = (cfg.base_url ?? (env.OPENAI_BASE_URL || undefined) ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const apiKey = cfg.api_key ?? (cfg.api_key_env ? env[cfg.api_key_env] : env.OPENAI_API_KEY) ?? 'EMPTY';
  return {
    baseURL,
    apiKey: apiKey || 'EMPTY',
    maxConcurrency: cfg.max_concurrency,
    maxRetries: cfg.max_retries,
    timeoutMs: cfg.request_timeout_ms,
    callTimeoutMs: cfg.call_timeout_ms,
    maxResponseBytes: cfg.max_response_bytes,
  };
}

/** Refuses settings that could not take effect as written (an attempt deadline longer than the whole call's). */
export function checkEndpoint(cfg: EndpointConfig, b: BuildContext): void {
  if (cfg.call_timeout_ms !== undefined && cfg.request_timeout_ms !== undefined && cfg.call_timeout_ms < cfg.request_timeout_ms) {
    b.issue(
      'call_timeout_ms',
      `the call budget (${cfg.call_timeout_ms} ms) is shorter than one attempt's deadline request_timeout_ms (${cfg.request_timeout_ms} ms); raise call_timeout_ms or lower request_timeout_ms`,
    );
  }
}

/** Effective limits of an endpoint (defaults filled in), as they are documented. */
export function endpointLimits(ep: ResolvedEndpoint, defaults: { maxConcurrency?: number; maxResponseBytes?: number } = {}) {
  return {
    maxConcurrency: ep.maxConcurrency ?? defaults.maxConcurrency ?? DEFAULT_CHAT_CONCURRENCY,
    maxRetries: ep.maxRetries ?? 3,
    timeoutMs: ep.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    // a longer attempt deadline than the default budget widens the budget, so the deadline holds as written
    callTimeoutMs: ep.callTimeoutMs ?? Math.max(DEFAULT_CALL_TIMEOUT_MS, ep.timeoutMs ?? 0),
    maxResponseBytes: ep.maxResponseBytes ?? defaults.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  };
}

/** The run's response cache (opened lazily, closed with the services). */
export function getResponseCache(services: Services): ResponseCache {
  const dir = typeof services.options.cacheDir === 'string' && services.options.cacheDir ? services.options.cacheDir : DEFAULT_CACHE_DIR;
  return services.get(
    `model-cache:${dir}`,
    () => new ResponseCache(dir),
    (c) => c.close(),
  );
}

/** Most model clients one Services keeps (least recently used ones are dropped, e.g. many inline configs). */
export const MAX_CLIENTS = 1024;

/** A small LRU map of clients by settings key, so distinct settings (keys from requests) cannot grow memory without bound. */
class ClientTable {
  private readonly map = new Map<string, unknown>();
  constructor(private readonly max: number) {}
  get<T>(key: string, create: () => T): T {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit as T;
    }
    const v = create();
    this.map.set(key, v);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
    return v;
  }
  get size(): number {
    return this.map.size;
  }
}

/** The shared client for `key`, created on first use (an evicted client keeps serving calls already holding it). */
export function sharedClient<T>(services: Services, key: string, create: () => T): T {
  return services.get('model-clients', () => new ClientTable(MAX_CLIENTS)).get(key, create);
}

/**
 * The concurrency limit shared by every client of `url` asking for the same `max`: the only thing
 * graders of one endpoint share. Graders giving different limits each get the limit they asked for.
 */
export function getLimiter(services: Services, url: string, max: number): Limiter {
  return services.get('model-limits', () => new ClientTable(4 * MAX_CLIENTS)).get(`${url}#${max}`, () => new Limiter(max));
}

/** The chat client for these exact settings (key identity, retries, deadlines, size cap). */
export function getChatClient(services: Services, ep: ResolvedEndpoint): ChatClient {
  const lim = endpointLimits(ep);
  const key = settingsKey({ url: ep.baseURL, key: keyIdentity(ep.apiKey), ...lim });
  return sharedClient(
    services,
    `chat:${key}`,
    () =>
      new ChatClient({
        baseURL: ep.baseURL,
        apiKey: ep.apiKey,
        limiter: getLimiter(services, ep.baseURL, lim.maxConcurrency),
        retry: { maxRetries: lim.maxRetries },
        timeoutMs: lim.timeoutMs,
        callTimeoutMs: lim.callTimeoutMs,
        maxResponseBytes: lim.maxResponseBytes,
        cache: () => getResponseCache(services),
      }),
  );
}

export interface RewardShape {
  protocol: RewardProtocol;
  model: string;
  path?: string;
  batchSize?: number;
  /** Extra body fields of every request (part of the shape: graders with other fields never share a batch). */
  extraBody?: Record<string, unknown>;
}

/**
 * The reward client for one request shape (URL, path, protocol, model, key identity, batch size,
 * limits): graders with the same shape share its batches; how a result is read is per call.
 */
export function getRewardClient(services: Services, ep: ResolvedEndpoint, shape: RewardShape): RewardClient {
  const lim = endpointLimits(ep, { maxConcurrency: DEFAULT_REWARD_CONCURRENCY, maxResponseBytes: DEFAULT_REWARD_MAX_RESPONSE_BYTES });
  const apiKey = ep.apiKey === 'EMPTY' ? undefined : ep.apiKey;
  const path = shape.path ?? REWARD_PATHS[shape.protocol];
  const key = settingsKey({
    url: ep.baseURL,
    path,
    protocol: shape.protocol,
    model: shape.model,
    batch: shape.batchSize ?? 32,
    extra: shape.extraBody ?? null,
    key: keyIdentity(apiKey),
    ...lim,
  });
  return sharedClient(
    services,
    `reward:${key}`,
    () =>
      new RewardClient({
        baseURL: ep.baseURL,
        apiKey,
        protocol: shape.protocol,
        model: shape.model,
        path,
        batchSize: shape.batchSize,
        extraBody: shape.extraBody,
        retry: { maxRetries: lim.maxRetries },
        timeoutMs: lim.timeoutMs,
        callTimeoutMs: lim.callTimeoutMs,
        maxResponseBytes: lim.maxResponseBytes,
        limiter: getLimiter(services, RewardClient.urlOf(ep.baseURL, path), lim.maxConcurrency),
      }),
  );
}
