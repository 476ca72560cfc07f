// The `vision` config field every model grader takes: how images are sized for the model
// (`max_side`, or Qwen2-VL / Qwen2.5-VL's `smart_resize`) and the limits on bytes and pixels per image
// and per request, with their defaults. A config the operator loads may set any limit; a request's
// inline config may only lower them (raised ones are `unsafe` capabilities, as other inline caps).
import { z } from 'zod';
import { joinCapabilityPath, raisedCaps, type CapabilityUse } from '../core/capabilities.js';
import type { BuildContext } from '../core/registry.js';
import { QWEN_VL_DEFAULTS, type SmartResizeOptions } from './resize.js';

/** Default limits (each a `vision` field of the same name). */
const VISION_LIMITS = {
  /** Bytes of one image as read (data URL decoded, file, or fetched body): 10 MiB. */
  max_image_bytes: 10 * 1024 * 1024,
  /** Pixels of one image as stored (width × height of its first frame): 25 million (5000 × 5000). */
  max_image_pixels: 25_000_000,
  /** Images in one model request. */
  max_images: 16,
  /** Bytes of all images one request sends (after resizing and re-encoding): 32 MiB. */
  max_request_bytes: 32 * 1024 * 1024,
  /** Pixels of all images one request sends (after resizing): 50 million. */
  max_request_pixels: 50_000_000,
} as const;

const limit = z.number().int().positive().max(1e12);

const visionSchema = z.strictObject({
  /** Shrink each image so its longer side is at most this many pixels (aspect kept; never enlarged). */
  max_side: z.number().int().min(1).max(65_535).optional(),
  /** Resize as Qwen2-VL / Qwen2.5-VL's processor does (true: its defaults), so pixel coordinates match the model's. */
  smart_resize: z
    .union([
      z.literal(true),
      z.strictObject({
        factor: z.number().int().min(1).max(1024).optional(),
        min_pixels: limit.optional(),
        max_pixels: limit.optional(),
      }),
    ])
    .optional(),
  max_image_bytes: limit.optional(),
  max_image_pixels: limit.optional(),
  max_images: z.number().int().positive().max(10_000).optional(),
  max_request_bytes: limit.optional(),
  max_request_pixels: limit.optional(),
});

export type VisionConfig = z.infer<typeof visionSchema>;

/** The `vision` field, for a grader schema. */
export const visionField = { vision: visionSchema.optional() };

export type Resize = { kind: 'none' } | { kind: 'max_side'; maxSide: number } | { kind: 'smart'; opts: Required<SmartResizeOptions> };

export interface VisionSettings {
  resize: Resize;
  maxImageBytes: number;
  maxImagePixels: number;
  maxImages: number;
  maxRequestBytes: number;
  maxRequestPixels: number;
}

/** Resolves `vision` (defaults filled in); with a build context, refuses settings that cannot hold together. */
export function visionSettings(cfg: VisionConfig | undefined, b?: BuildContext): VisionSettings {
  const v = cfg ?? {};
  if (v.max_side !== undefined && v.smart_resize !== undefined)
    b?.fail('vision', 'give at most one of "max_side" and "smart_resize" (smart_resize has its own max_pixels)');
  let resize: Resize = { kind: 'none' };
  if (v.max_side !== undefined) resize = { kind: 'max_side', maxSide: v.max_side };
  else if (v.smart_resize !== undefined) {
    const s = v.smart_resize === true ? {} : v.smart_resize;
    const opts = {
      factor: s.factor ?? QWEN_VL_DEFAULTS.factor,
      minPixels: s.min_pixels ?? QWEN_VL_DEFAULTS.minPixels,
      maxPixels: s.max_pixels ?? QWEN_VL_DEFAULTS.maxPixels,
    };
    if (opts.minPixels > opts.maxPixels) b?.fail('vision.smart_resize', `min_pixels (${opts.minPixels}) is above max_pixels (${opts.maxPixels})`);
    resize = { kind: 'smart', opts };
  }
  return {
    resize,
    maxImageBytes: v.max_image_bytes ?? VISION_LIMITS.max_image_bytes,
    maxImagePixels: v.max_image_pixels ?? VISION_LIMITS.max_image_pixels,
    maxImages: v.max_images ?? VISION_LIMITS.max_images,
    maxRequestBytes: v.max_request_bytes ?? VISION_LIMITS.max_request_bytes,
    maxRequestPixels: v.max_request_pixels ?? VISION_LIMITS.max_request_pixels,
  };
}

/** The `vision` limits a config raises above their defaults: `unsafe`, so an inline config may only lower them. */
export function visionCapabilities(cfg: { vision?: VisionConfig | undefined }): CapabilityUse[] {
  if (!cfg.vision) return [];
  return raisedCaps(cfg.vision, VISION_LIMITS).map((u) => ({ ...u, field: joinCapabilityPath('vision', u.field) }));
}
