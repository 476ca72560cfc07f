// Images in a model request's messages: every `image_url` (or OpenAI Responses `input_image`) part a
// grader's messages hold is resolved through the operator's sources, checked and resized, and sent
// as a data URL of the bytes (so the request body, and every cache key made from it, holds the
// image's content, never a path or URL). Limits per image and per request apply; an image that
// cannot be had is never dropped from the prompt: the grade fails, with the kind decided by whose
// image it is (`origin`): the config's or the item's → invalid (config_error, bad_input,
// limit_exceeded); the response's (a template of `sample.*` only) → a ResponseFault, the valid floor.
import type { GraderContext } from '../core/grader.js';
import { GradeFailure, ResponseFault, type ErrorKind } from '../core/result.js';
import type { ChatMessage } from '../models/types.js';
import { prepareImage, type PreparedImage } from './prepare.js';
import type { VisionSettings } from './settings.js';
import { ImageError, imageAccess, readImageSource, type SourceKind } from './sources.js';

/** Whose image it is: a literal in the config, the item's data, or the response's (sample.* only). */
export type ImageOrigin = 'config' | 'item' | 'response';

/** Where an image part sits in the rendered messages, and whose it is. */
export interface ImageSlot {
  message: number;
  part: number;
  origin: ImageOrigin;
  /** The config field it came from, e.g. `input[0].content[1]`. */
  where: string;
}

/** What a grade's metadata says about each image sent (`metadata.images`). */
export interface ImageMeta {
  where: string;
  origin: ImageOrigin;
  source: SourceKind;
  format: string;
  sent_format: string;
  /** sha256 of the bytes sent. */
  sha256: string;
  bytes: number;
  width: number;
  height: number;
  sent_width: number;
  sent_height: number;
  /** sent / original per axis (multiply an original coordinate to get the sent one). */
  scale: { sx: number; sy: number };
}

const IMAGE_TYPES = new Set(['image_url', 'input_image']);
const TEXT_TYPES = new Set(['text', 'input_text', 'output_text']);

/** Whether a content part is an image part (`image_url`, `input_image`). */
export function isImagePart(p: unknown): p is Record<string, unknown> {
  return !!p && typeof p === 'object' && !Array.isArray(p) && IMAGE_TYPES.has((p as Record<string, unknown>).type as string);
}

/** Whether a content part is a text part (`text`, `input_text`, `output_text`). */
export function isTextPart(p: unknown): boolean {
  return !!p && typeof p === 'object' && !Array.isArray(p) && TEXT_TYPES.has((p as Record<string, unknown>).type as string);
}

/** The chat API's image part for a URL (detail kept when it is one of OpenAI's values). */
export function imagePart(url: unknown, detail?: unknown): { type: 'image_url'; image_url: { url: unknown; detail?: string } } {
  return { type: 'image_url', image_url: typeof detail === 'string' && ['auto', 'low', 'high'].includes(detail) ? { url, detail } : { url } };
}

/** An image part as the chat API takes it: `{type: image_url, image_url: {url, detail?}}` from either spelling. */
export function normalizeImagePart(p: Record<string, unknown>): ReturnType<typeof imagePart> {
  const iu = p.image_url;
  if (iu && typeof iu === 'object' && !Array.isArray(iu))
    return imagePart((iu as Record<string, unknown>).url, (iu as Record<string, unknown>).detail ?? p.detail);
  return imagePart(iu, p.detail);
}

const WHOSE: Record<ImageOrigin, string> = { config: 'in the grader config', item: "from the item's data", response: 'from the response' };

/** The failure for an image that cannot be sent, by whose image it is. */
function imageFailure(
  problem: ImageError['problem'],
  message: string,
  slot: Pick<ImageSlot, 'origin' | 'where'>,
  floor: number,
  timedOut = false,
): GradeFailure | ResponseFault {
  const text = `image at ${slot.where} (${WHOSE[slot.origin]}): ${message}`;
  if (problem === 'unavailable') return new GradeFailure(timedOut ? 'timeout' : 'bad_input', text);
  if (slot.origin === 'response')
    return new ResponseFault(problem === 'too_large' ? 'limit_exceeded' : 'bad_input', text, { floor, metadata: { image: { where: slot.where, problem } } });
  let kind: ErrorKind;
  if (problem === 'too_large') kind = 'limit_exceeded';
  else if (problem === 'disallowed' || slot.origin === 'config') kind = 'config_error';
  else kind = 'bad_input';
  return new GradeFailure(kind, text);
}

/**
 * Resolves every image slot of `messages` (new message and part objects; the given ones are not
 * changed). The config's and item's images are counted against the per-request limits first, so a
 * limit the response's images push over is the response's doing. Throws GradeFailure/ResponseFault.
 */
export async function resolveImages(
  messages: ChatMessage[],
  slots: readonly ImageSlot[],
  vision: VisionSettings,
  ctx: GraderContext,
  floor: number,
): Promise<{ messages: ChatMessage[]; images: ImageMeta[] }> {
  if (slots.length === 0) return { messages, images: [] };
  const order = slots.map((_, i) => i).sort((a, b) => Number(slots[a]!.origin === 'response') - Number(slots[b]!.origin === 'response'));
  const access = imageAccess(ctx.services);
  const out = messages.map((m) => ({ ...m, content: Array.isArray(m.content) ? [...m.content] : m.content }));
  const images: ImageMeta[] = new Array(slots.length);
  let totalBytes = 0;
  let totalPixels = 0;
  for (let i = 0; i < order.length; i++) {
    const at = order[i]!;
    const slot = slots[at]!;
    if (i + 1 > vision.maxImages)
      throw imageFailure('too_large', `the request would hold ${slots.length} images (limit ${vision.maxImages}, vision.max_images)`, slot, floor);
    const content = out[slot.message]!.content as unknown[];
    const part = content[slot.part] as ReturnType<typeof imagePart>;
    const url = part.image_url.url;
    if (typeof url !== 'string')
      throw imageFailure(
        'undecodable',
        `the image URL must be a string (a data: URL, a file path or an http(s) URL), got ${url === null ? 'null' : typeof url}`,
        slot,
        floor,
      );
    let img: PreparedImage;
    let source: SourceKind;
    try {
      const got = await readImageSource(url, access, vision.maxImageBytes, ctx.signal);
      source = got.source;
      img = await prepareImage(got.bytes, vision.resize, vision);
    } catch (e) {
      if (e instanceof ImageError) throw imageFailure(e.problem, e.message, slot, floor, e.timedOut);
      throw e;
    }
    totalBytes += img.bytes;
    totalPixels += img.sent.width * img.sent.height;
    if (totalBytes > vision.maxRequestBytes)
      throw imageFailure(
        'too_large',
        `the request's images come to ${totalBytes} bytes with this one (limit ${vision.maxRequestBytes}, vision.max_request_bytes)`,
        slot,
        floor,
      );
    if (totalPixels > vision.maxRequestPixels)
      throw imageFailure(
        'too_large',
        `the request's images come to ${totalPixels} pixels with this one (limit ${vision.maxRequestPixels}, vision.max_request_pixels)`,
        slot,
        floor,
      );
    content[slot.part] = imagePart(img.dataUrl, part.image_url.detail);
    images[at] = {
      where: slot.where,
      origin: slot.origin,
      source,
      format: img.format,
      sent_format: img.sentFormat,
      sha256: img.sha256,
      bytes: img.bytes,
      width: img.original.width,
      height: img.original.height,
      sent_width: img.sent.width,
      sent_height: img.sent.height,
      scale: img.scale,
    };
  }
  return { messages: out, images };
}
