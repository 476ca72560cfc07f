// A simulated user on any OpenAI-compatible model server (tau-bench's LLM user strategy): the model
// plays the user from the task's instruction; the agent's replies are its "user" turns and its own
// answers are what the agent hears. It ends the conversation by answering ###STOP###. The prompt is
// this project's own wording of the same rules; `systemPrompt` replaces it (e.g. with the
// benchmark's exact prompt, for numbers comparable with published ones).
import type { ChatClient } from '../models/chat-client.js';
import type { ChatMessage } from '../models/types.js';
import type { UserSimulator } from './env.js';

export const DEFAULT_USER_PROMPT = `You are playing a customer who is talking to a customer-service agent.

Instruction: {instruction}

How to play:
- Write one short message at a time, as the customer would; never write the agent's side.
- Reveal information only when it is needed for the current step; do not state the whole instruction at once.
- Use only facts from the instruction. If the agent asks for something the instruction does not give (an order number, a date), say you do not know or do not have it; never invent it.
- Follow the personality and preferences the instruction describes, and keep the conversation natural.
- When the goal of the instruction has been reached, or cannot be reached, reply with exactly ###STOP### and nothing else.`;

export const DEFAULT_USER_OPENING = 'Hello! How can I help you today?';

export interface ChatUserOptions {
  model: string;
  temperature?: number;
  max_tokens?: number;
  /** System prompt with an {instruction} placeholder (default DEFAULT_USER_PROMPT). */
  systemPrompt?: string;
  /** The agent's opening line the simulated user answers first. */
  opening?: string;
  extra_body?: Record<string, unknown>;
}

/** Thrown when the user simulator's model answered with nothing usable. */
export class UserSimulatorError extends Error {
  override name = 'UserSimulatorError';
}

export class ChatUserSimulator implements UserSimulator {
  private messages: ChatMessage[] = [];

  constructor(
    private readonly client: ChatClient,
    private readonly opts: ChatUserOptions,
  ) {}

  async reset(instruction: string, signal?: AbortSignal): Promise<string> {
    const prompt = (this.opts.systemPrompt ?? DEFAULT_USER_PROMPT).split('{instruction}').join(instruction);
    this.messages = [
      { role: 'system', content: prompt },
      { role: 'user', content: this.opts.opening ?? DEFAULT_USER_OPENING },
    ];
    return this.next(signal);
  }

  async step(agentMessage: string, signal?: AbortSignal): Promise<string> {
    const before = this.messages.length;
    this.messages.push({ role: 'user', content: agentMessage });
    try {
      return await this.next(signal);
    } catch (e) {
      this.messages.length = before; // a failed turn leaves the conversation as it was
      throw e;
    }
  }

  private async next(signal?: AbortSignal): Promise<string> {
    const r = await this.client.chat(
      {
        model: this.opts.model,
        messages: this.messages,
        ...(this.opts.temperature !== undefined ? { temperature: this.opts.temperature } : {}),
        ...(this.opts.max_tokens !== undefined ? { max_tokens: this.opts.max_tokens } : {}),
        ...(this.opts.extra_body ? { extra_body: this.opts.extra_body } : {}),
      },
      { signal, cache: false },
    );
    const text = r.choices[0]?.content ?? '';
    if (!text.trim()) throw new UserSimulatorError('the user simulator answered with an empty message');
    this.messages.push({ role: 'assistant', content: text });
    return text;
  }
}
