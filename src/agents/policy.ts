// The agent under training or evaluation, on any OpenAI-compatible server: given the trajectory so
// far and the environment's tools, it returns the next assistant message (text and/or tool calls,
// the arguments exactly as the server sent them).
import type { ChatClient } from '../models/chat-client.js';
import type { ChatMessage } from '../models/types.js';
import type { ToolSchema } from './env.js';
import { assistantMessage, type AgentMessage } from './trajectory.js';

export interface Policy {
  act(messages: readonly AgentMessage[], tools: readonly ToolSchema[], signal?: AbortSignal): Promise<AgentMessage>;
}

export interface ChatPolicyOptions {
  model: string;
  temperature?: number;
  max_tokens?: number;
  /** Extra request fields (e.g. `tool_choice`, `parallel_tool_calls`, vLLM sampling options). */
  extra_body?: Record<string, unknown>;
}

export class ChatPolicy implements Policy {
  constructor(
    private readonly client: ChatClient,
    private readonly opts: ChatPolicyOptions,
  ) {}

  async act(messages: readonly AgentMessage[], tools: readonly ToolSchema[], signal?: AbortSignal): Promise<AgentMessage> {
    const r = await this.client.chat(
      {
        model: this.opts.model,
        messages: messages as unknown as ChatMessage[],
        ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
        ...(this.opts.max_tokens !== undefined ? { max_tokens: this.opts.max_tokens } : {}),
        // no tools (BFCL's prompting mode): the request has none, as BFCL sends it
        extra_body: { ...this.opts.extra_body, ...(tools.length ? { tools } : {}) },
      },
      { signal, cache: false },
    );
    const c = r.choices[0];
    return assistantMessage(c?.content ? c.content : null, c?.tool_calls);
  }
}
