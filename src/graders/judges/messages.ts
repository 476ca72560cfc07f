// Judge prompts: OpenAI-grader style `input` messages with {{item.*}}/{{sample.*}} templates,
// compiled at config load and rendered per sample into chat messages (developer → system for
// open-source servers; input_text parts → text parts), with a size limit on the rendered prompt.
import { z } from 'zod';
import type { BuildContext } from '../../core/registry.js';
import { GradeFailure } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { renderCompiled, type ValueTemplate } from '../../core/template.js';
import type { ChatMessage } from '../../models/types.js';

/** Rendered prompts longer than this (characters, all messages) are refused as limit_exceeded. */
export const MAX_PROMPT_CHARS = 2_000_000;

export const messageSchema = z.strictObject({
  type: z.literal('message').optional(),
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(z.unknown())]),
});

export type MessageConfig = z.infer<typeof messageSchema>;

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

function part(p: unknown): unknown {
  if (p && typeof p === 'object' && !Array.isArray(p)) {
    const o = p as Record<string, unknown>;
    if (o.type === 'input_text' || o.type === 'output_text') return { type: 'text', text: text(o.text) };
    if (o.type === 'text') return { type: 'text', text: text(o.text) };
    return o;
  }
  return { type: 'text', text: text(p) };
}

export type MessagesRenderer = (input: GradeInput) => ChatMessage[];

export function compileMessages(b: BuildContext, field: string, msgs: MessageConfig[]): MessagesRenderer {
  if (msgs.length === 0) b.fail(field, 'needs at least one message');
  const compiled: { role: ChatMessage['role']; content: ValueTemplate }[] = msgs.map((m, i) => ({
    role: m.role === 'developer' ? 'system' : m.role,
    content: b.value(`${field}[${i}].content`, m.content),
  }));
  return (input) => {
    let size = 0;
    const out = compiled.map((m) => {
      const v = renderCompiled(m.content, input);
      const content = Array.isArray(v) ? v.map(part) : text(v);
      size += typeof content === 'string' ? content.length : JSON.stringify(content).length;
      return { role: m.role, content };
    });
    checkSize(size);
    return out;
  };
}

export function checkSize(chars: number): void {
  if (chars > MAX_PROMPT_CHARS) throw new GradeFailure('limit_exceeded', `the rendered judge prompt has ${chars} characters (limit ${MAX_PROMPT_CHARS})`);
}

/** Appends an instruction to the last user message (or adds a user message). */
export function withInstruction(msgs: ChatMessage[], instruction: string): ChatMessage[] {
  const out = msgs.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    const m = out[i]!;
    if (m.role !== 'user') continue;
    out[i] =
      typeof m.content === 'string'
        ? { role: 'user', content: `${m.content}\n\n${instruction}` }
        : { role: 'user', content: [...m.content, { type: 'text', text: instruction }] };
    return out;
  }
  out.push({ role: 'user', content: instruction });
  return out;
}

/** Fills `{name}` slots of a built-in or user prompt template (not {{…}} templates). */
export function fill(template: string, slots: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (Object.hasOwn(slots, k) ? slots[k]! : m));
}
