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

/**
 * The defaults of qwen-vl-utils' vision_process.py (IMAGE_FACTOR, MIN_PIXELS = 4·28·28,
 * MAX_PIXELS = 16384·28·28), which are also the min/max_pixels of Qwen2.5-VL's released
 * preprocessor_config.json (so what vLLM serving the model uses); not the 1280·28·28 that the
 * transformers image processor class falls back to without a config.
 */
export const QWEN_VL_DEFAULTS = { factor: 28, minPixels: 4 * 28 * 28, maxPixels: 16384 * 28 * 28 } as const;

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
 * Checked against qwen-vl-utils' vision_process.py (Qwen2.5-VL repository): the same steps, Python's
 * half-to-even round; one difference kept on purpose: a floored side is at least `factor` (as in the
 * transformers processor vLLM runs), where vision_process.py would give 0 for a max_pixels below
 * 200·factor² and then fail to resize.
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
