// Model clients: chat completions (judges) and scalar reward models, with their cache and limits.
export { ChatClient, normalise } from './chat-client.js';
export type { CallOptions, ChatClientOptions, ClientUsage } from './chat-client.js';
export { RewardClient } from './reward-client.js';
export type { RewardClientOptions, RewardInput, RewardProtocol } from './reward-client.js';
export { ResponseCache } from './response-cache.js';
export { ModelError } from './errors.js';
export { Limiter } from './limiter.js';
export { DEFAULT_RETRY, retryAfterMs } from './backoff.js';
export type { RetryPolicy } from './backoff.js';
export { DEFAULT_BASE_URL, DEFAULT_CACHE_DIR, getChatClient, getResponseCache, resolveEndpoint } from './endpoint.js';
export type { ResolvedEndpoint } from './endpoint.js';
export { requestKey } from './request-key.js';
export type { ChatChoice, ChatMessage, ChatRequest, ChatResult, JsonSchemaFormat, TokenLogprob, Usage } from './types.js';
