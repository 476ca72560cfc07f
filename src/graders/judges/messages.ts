// Judge prompts: OpenAI-grader style `input` messages with {{item.*}}/{{sample.*}} templates,
// compiled at config load and rendered per sample into chat messages (developer → system for
// open-source servers; input_text parts → text parts), with a size limit on the rendered text.
// Image parts (`image_url`, `input_image`) are kept as images: each one's url is rendered, then
// resolved through src/images/ (sources, limits, resizing) into a data URL; whose image it is comes
// from the template that gave it. Any other part type is refused, never passed on unchecked.
import { z } from 'zod';
import type { GraderContext } from '../../core/grader.js';
import type { BuildContext } from '../../core/registry.js';
import { GradeFailure, ResponseFault } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { renderCompiled, type TemplateVar, type ValueTemplate } from '../../core/template.js';
import { imagePart, isImagePart, isTextPart, normalizeImagePart, resolveImages, type ImageMeta, type ImageOrigin, type ImageSlot } from '../../images/parts.js';
import type { VisionSettings } from '../../images/settings.js';
import type { ChatMessage } from '../../models/types.js';

/** Rendered prompts longer than this (characters of text, all messages; images have their own limits) are refused as limit_exceeded. */
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

/** The template variables a compiled value reads. */
function varsOf(v: ValueTemplate): TemplateVar[] {
  switch (v.kind) {
    case 'literal':
      return [];
    case 'template':
      return v.t.vars;
    case 'array':
      return v.items.flatMap(varsOf);
    case 'object':
      return v.entries.flatMap(([, x]) => varsOf(x));
  }
}

/**
 * Whose value a template gives: no variables → the config's; only `sample.*` → the response's;
 * any `item.*` → the item's (a value the item shares in is never blamed on the response).
 */
function originOf(v: ValueTemplate): ImageOrigin {
  const vars = varsOf(v);
  if (vars.length === 0) return 'config';
  return vars.every((x) => x.root === 'sample') ? 'response' : 'item';
}

/** What rendering needs to send images: the grader's `vision` settings and its floor score (for a response's bad image). */
export interface ImageOptions {
  vision: VisionSettings;
  floor: number;
}

/** A prompt ready to send: messages with images resolved to data URLs, and what each image was. */
export interface RenderedPrompt {
  messages: ChatMessage[];
  images: ImageMeta[];
}

export interface MessagesRenderer {
  (input: GradeInput, ctx: GraderContext): Promise<RenderedPrompt>;
  /** True when an image part of the config takes its URL from the response alone (sample.* only). */
  readonly responseImages: boolean;
}

interface CompiledPart {
  value: ValueTemplate;
  origin: ImageOrigin;
  where: string;
}

interface CompiledMessage {
  role: ChatMessage['role'];
  /** A template for the whole content (a string, or a value that renders to parts), or the config's own parts. */
  content: CompiledPart | CompiledPart[];
}

/** Why a part is not sent: a type other than text and image parts (undefined when it may be sent). */
function unsupported(p: unknown): string | undefined {
  if (!p || typeof p !== 'object' || Array.isArray(p) || isTextPart(p) || isImagePart(p)) return undefined;
  const t = (p as Record<string, unknown>).type;
  return `a content part of ${typeof t === 'string' ? `type "${t.slice(0, 40)}"` : 'no type'}: arbiter sends text and image parts (image_url, input_image) only`;
}

/** One rendered part as the chat API takes it (image parts normalised to `image_url`). */
function chatPart(p: unknown, at: { origin: ImageOrigin; where: string }, floor: number): unknown {
  const why = unsupported(p);
  if (why !== undefined) {
    const message = `content part at ${at.where}: ${why}`;
    if (at.origin === 'response') throw new ResponseFault('bad_input', message, { floor });
    throw new GradeFailure(at.origin === 'item' ? 'bad_input' : 'config_error', message);
  }
  if (isImagePart(p)) return normalizeImagePart(p);
  if (isTextPart(p)) return { type: 'text', text: text((p as Record<string, unknown>).text) };
  return { type: 'text', text: text(p) };
}

export function compileMessages(b: BuildContext, field: string, msgs: MessageConfig[], images: ImageOptions): MessagesRenderer {
  if (msgs.length === 0) b.fail(field, 'needs at least one message');
  const compiled: CompiledMessage[] = msgs.map((m, i) => {
    const where = `${field}[${i}].content`;
    const role = m.role === 'developer' ? 'system' : m.role;
    if (Array.isArray(m.content)) {
      return {
        role,
        content: m.content.map((p, j) => {
          const value = b.value(`${where}[${j}]`, p);
          const why = value.kind === 'literal' ? unsupported(p) : undefined;
          if (why !== undefined) b.issue(`${where}[${j}]`, why);
          return { value, origin: originOf(value), where: `${where}[${j}]` };
        }),
      };
    }
    const value = b.value(where, m.content);
    return { role, content: { value, origin: originOf(value), where } };
  });
  const render = async (input: GradeInput, ctx: GraderContext): Promise<RenderedPrompt> => {
    let size = 0;
    const slots: ImageSlot[] = [];
    const messages = compiled.map((m, mi): ChatMessage => {
      const parts: unknown[] = [];
      const add = (v: unknown, at: { origin: ImageOrigin; where: string }) => {
        const part = chatPart(v, at, images.floor);
        if (isImagePart(part)) slots.push({ message: mi, part: parts.length, origin: at.origin, where: at.where });
        else size += text((part as { text: unknown }).text).length;
        parts.push(part);
      };
      if (Array.isArray(m.content)) {
        for (const p of m.content) add(renderCompiled(p.value, input), p);
        return { role: m.role, content: parts };
      }
      const whole = m.content;
      const v = renderCompiled(whole.value, input);
      if (!Array.isArray(v)) {
        const t = text(v);
        size += t.length;
        return { role: m.role, content: t };
      }
      v.forEach((p, j) => add(p, { origin: whole.origin, where: `${whole.where} (part ${j})` }));
      return { role: m.role, content: parts };
    });
    checkSize(size);
    return resolveImages(messages, slots, images.vision, ctx, images.floor);
  };
  const responseImages = msgs.some((m, i) => {
    const c = compiled[i]!.content;
    return Array.isArray(c) && c.some((p, j) => p.origin === 'response' && isImagePart((m.content as unknown[])[j]));
  });
  return Object.assign(render, { responseImages });
}

/**
 * An `images` field (graders whose prompt is built in, not written as messages): templates each
 * giving one image URL or a list of them, sent as image parts before the text of the user message.
 */
export const imagesField = { images: z.array(z.string()).max(64).optional() };

/** An `images` field's images, resolved: the image parts to send, and what each image was. */
export interface ResolvedImages {
  parts: unknown[];
  images: ImageMeta[];
}

export type ImagesRenderer = (input: GradeInput, ctx: GraderContext) => Promise<ResolvedImages>;

/** Compiles an `images` field (each template gives one URL or a list of them); the renderer resolves them. */
export function compileImages(b: BuildContext, field: string, urls: readonly string[] | undefined, images: ImageOptions): ImagesRenderer {
  const compiled = (urls ?? []).map((u, i) => {
    const value = b.value(`${field}[${i}]`, u);
    return { value, origin: originOf(value), where: `${field}[${i}]` };
  });
  return async (input, ctx) => {
    if (compiled.length === 0) return { parts: [], images: [] };
    const parts: unknown[] = [];
    const slots: ImageSlot[] = [];
    for (const c of compiled) {
      const v = renderCompiled(c.value, input);
      const list = Array.isArray(v) ? v : [v];
      list.forEach((u, j) => {
        slots.push({ message: 0, part: parts.length, origin: c.origin, where: Array.isArray(v) ? `${c.where} (image ${j})` : c.where });
        parts.push(imagePart(u));
      });
    }
    const r = await resolveImages([{ role: 'user', content: parts }], slots, images.vision, ctx, images.floor);
    return { parts: r.messages[0]!.content as unknown[], images: r.images };
  };
}

/** The messages with the images first in the last user message (Qwen-VL's and LLaVA's order: image, then text). */
export function withImages(messages: ChatMessage[], r: ResolvedImages): ChatMessage[] {
  if (r.parts.length === 0) return messages;
  const out = messages.slice();
  let at = out.findLastIndex((m) => m.role === 'user');
  if (at < 0) {
    out.push({ role: 'user', content: [] });
    at = out.length - 1;
  }
  const m = out[at]!;
  out[at] = { role: m.role, content: [...r.parts, ...(typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content)] };
  return out;
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
