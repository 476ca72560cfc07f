// Model clients: chat completions (judges) and scalar reward models, with their cache, limits and
// the bounded transport they share.
export { ChatClient, normalise, normaliseCompletion } from './chat-client.js';
export type { CallOptions, ChatClientOptions, ClientUsage } from './chat-client.js';
export { RewardClient } from './reward-client.js';
export type { RewardClientOptions, RewardInput, RewardPick, RewardProtocol } from './reward-client.js';
export { ResponseCache } from './response-cache.js';
export { ModelError } from './errors.js';
export { Limiter } from './limiter.js';
export { DEFAULT_RETRY, retryAfterMs } from './backoff.js';
export type { RetryPolicy } from './backoff.js';
export {
  DEFAULT_BASE_URL,
  DEFAULT_CACHE_DIR,
  endpointLimits,
  getChatClient,
  getLimiter,
  getResponseCache,
  getRewardClient,
  resolveEndpoint,
} from './endpoint.js';
export type { ResolvedEndpoint } from './endpoint.js';
export { keyIdentity, requestKey } from './request-key.js';
export { boundedFetch, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS, TransportError } from './transport.js';
export type {
  ChatChoice,
  ChatMessage,
  ChatRequest,
  ChatResult,
  ChatToolCall,
  CompletionChoice,
  CompletionLogprobs,
  CompletionRequest,
  CompletionResult,
  JsonSchemaFormat,
  TokenLogprob,
  Usage,
} from './types.js';
