// Request and response shapes of the chat-completion client, independent of the SDK's types,
// so judges, the cache and tests work with one small normalised form.

export type ChatRole = 'system' | 'user' | 'assistant' | 'developer' | 'tool';

export interface ChatMessage {
  role: ChatRole;
  /** Plain text, or OpenAI content parts (passed through unchanged). */
  content: string | unknown[];
}

/** A JSON schema for `response_format: {type: 'json_schema'}`. */
export interface JsonSchemaFormat {
  name: string;
  schema: Record<string, unknown>;
  strict?: boolean;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  temperature?: number;
  top_p?: number;
  max_tokens?: number;
  /** Number of choices to ask for in one request. */
  n?: number;
  seed?: number;
  logprobs?: boolean;
  top_logprobs?: number;
  /** Structured output; dropped automatically (prompt-only) when the server rejects it. */
  json_schema?: JsonSchemaFormat;
  /** Extra body fields for the server (e.g. vLLM `top_k`, `chat_template_kwargs`). */
  extra_body?: Record<string, unknown>;
}

export interface TopLogprob {
  token: string;
  logprob: number;
}

export interface TokenLogprob {
  token: string;
  logprob: number;
  top_logprobs: TopLogprob[];
}

export interface ChatChoice {
  index: number;
  /** The answer text ('' when the server sent none). */
  content: string;
  /** Separate reasoning text (vLLM/SGLang reasoning parsers, DeepSeek API), if any. */
  reasoning?: string;
  /** OpenAI structured refusal, if the model refused. */
  refusal?: string;
  finish_reason: string | null;
  /**
   * vLLM's `stop_reason`, only when the server sent it: the stop string (or token id) that ended the
   * choice, or null when it ended at end-of-sequence or the length limit.
   */
  stop_reason?: string | number | null;
  logprobs?: TokenLogprob[];
  /** Tool calls of the answer (OpenAI shape), when the model made any. */
  tool_calls?: ChatToolCall[];
}

/** One tool call in an answer: `arguments` is the JSON text exactly as the server sent it. */
export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface ChatResult {
  choices: ChatChoice[];
  usage: Usage;
  model: string;
  /** True when the answer came from the on-disk cache (no request was sent). */
  cached: boolean;
  /** Retries spent on this call (0 when the first attempt succeeded). */
  retries: number;
  /** True when the server rejected `json_schema` and the request was resent prompt-only. */
  schema_fallback: boolean;
}

/** A legacy text completion request (`POST /completions`): raw prompts, no chat template. */
export interface CompletionRequest {
  model: string;
  /** One prompt, or several answered in one request (one choice per prompt and `n`). */
  prompt: string | string[];
  max_tokens?: number;
  temperature?: number;
  top_p?: number;
  n?: number;
  seed?: number;
  /** Top alternatives returned per token (OpenAI legacy `logprobs: k`). */
  logprobs?: number;
  stop?: string[];
  extra_body?: Record<string, unknown>;
}

/** Per-token log probabilities of a completion choice, in the legacy completions shape. */
export interface CompletionLogprobs {
  tokens: string[];
  token_logprobs: (number | null)[];
  /** Per token: alternative token -> logprob (null where the server gave none). */
  top_logprobs: (Record<string, number> | null)[];
  /** Per token: its character offset in the choice's text, as the server counts (absent when the server sent none). */
  text_offset?: (number | null)[];
}

export interface CompletionChoice {
  /** Position in the answer: prompt index * n + sample index, as the server numbers them. */
  index: number;
  text: string;
  finish_reason: string | null;
  logprobs?: CompletionLogprobs;
}

export interface CompletionResult {
  choices: CompletionChoice[];
  usage: Usage;
  model: string;
  cached: boolean;
  retries: number;
}
