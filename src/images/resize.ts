// The one home of the rules that size an image for a model, and of the scale factors that carry a
// coordinate between the original image and the one the model saw. Two rules: `fitMaxSide` (a
// config's `max_side`: shrink so the longer side is at most that, never enlarge) and `smartResize`
// (Qwen2-VL / Qwen2.5-VL's own rule: both sides multiples of `factor`, the pixel count within
// [min_pixels, max_pixels]), which is what those models' absolute pixel coordinates refer to.

export interface Size {
  width: number;
  height: number;
}

/** The size after shrinking so that max(width, height) <= maxSide (aspect kept, sides rounded, at least 1); unchanged when it already fits. */
export function fitMaxSide(size: Size, maxSide: number): Size {
  const long = Math.max(size.width, size.height);
  if (long <= maxSide) return { width: size.width, height: size.height };
  const s = maxSide / long;
  return { width: Math.max(1, Math.round(size.width * s)), height: Math.max(1, Math.round(size.height * s)) };
}

export interface SmartResizeOptions {
  factor?: number;
  minPixels?: number;
  maxPixels?: number;
}

export const QWEN_VL_DEFAULTS = { factor: 28, minPixels: 56 * 56, maxPixels: 14 * 14 * 4 * 1280 } as const;

/** Python's round(): half to even. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d > 0.5) return f + 1;
  if (d < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Qwen2.5-VL's smart_resize: each side rounded to a multiple of `factor`; if the pixel count then
 * exceeds maxPixels (or falls below minPixels) both sides are scaled by sqrt of the ratio and
 * floored (or ceiled) to the factor. Throws for an aspect ratio over 200, as the model's processor does.
 */
export function smartResize(size: Size, opts: SmartResizeOptions = {}): Size {
  const factor = opts.factor ?? QWEN_VL_DEFAULTS.factor;
  const minPixels = opts.minPixels ?? QWEN_VL_DEFAULTS.minPixels;
  const maxPixels = opts.maxPixels ?? QWEN_VL_DEFAULTS.maxPixels;
  const { width, height } = size;
  if (Math.max(width, height) / Math.min(width, height) > 200) throw new Error(`aspect ratio over 200 (${width}x${height})`);
  let h = Math.max(factor, roundHalfEven(height / factor) * factor);
  let w = Math.max(factor, roundHalfEven(width / factor) * factor);
  if (h * w > maxPixels) {
    const beta = Math.sqrt((height * width) / maxPixels);
    h = Math.max(factor, Math.floor(height / beta / factor) * factor);
    w = Math.max(factor, Math.floor(width / beta / factor) * factor);
  } else if (h * w < minPixels) {
    const beta = Math.sqrt(minPixels / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return { width: w, height: h };
}

/** The factors that take a coordinate in `from` to the same place in `to` (x by sx, y by sy). */
export function scaleBetween(from: Size, to: Size): { sx: number; sy: number } {
  return { sx: to.width / from.width, sy: to.height / from.height };
}
