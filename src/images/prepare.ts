// Turns an image's bytes into what a model server is sent: the format sniffed from the magic number
// (never a declared type), the pixel count checked from the header before anything is decoded, the
// whole image decoded once with sharp (libvips) so a truncated or corrupt file is refused here, not
// by the model server, and resized per `vision` (the scale factors kept). An image that needs no
// change (PNG, JPEG or WebP, one frame, not resized) is sent as its own bytes; a resized one, a GIF
// or an animated image (its first frame) is re-encoded as PNG, lossless, so the model sees exactly
// the resized pixels. The content hash is of the bytes sent.
import { createHash } from 'node:crypto';
import type { Metadata } from 'sharp';
import { lazyRequire } from '../core/lazy.js';
import { fitMaxSide, scaleBetween, smartResize, type Size } from './resize.js';
import type { Resize } from './settings.js';
import { describeUnaccepted, MIME_TYPES, sniffFormat, type ImageFormat } from './sniff.js';
import { ImageError } from './sources.js';

// libvips loads only when an image is first prepared, not with every judge
const loadSharp = lazyRequire<typeof import('sharp').default>('sharp');

export interface PreparedImage {
  /** `data:image/…;base64,…` of the bytes sent. */
  dataUrl: string;
  /** sha256 (hex) of the bytes sent. */
  sha256: string;
  /** Format of the bytes read, and of the bytes sent. */
  format: ImageFormat;
  sentFormat: ImageFormat;
  /** Bytes sent. */
  bytes: number;
  /** Size as stored, and as sent. */
  original: Size;
  sent: Size;
  /** sent / original per axis: a coordinate in the original times sx (x) or sy (y) is the same place in the image sent. */
  scale: { sx: number; sy: number };
}

export interface PrepareLimits {
  maxImagePixels: number;
}

/** The size an image of `size` is sent at under `resize`. Throws ImageError when the rule refuses the shape. */
function targetSize(size: Size, resize: Resize): Size {
  if (resize.kind === 'max_side') return fitMaxSide(size, resize.maxSide);
  if (resize.kind === 'smart') {
    try {
      return smartResize(size, resize.opts);
    } catch (e) {
      throw new ImageError('too_large', `smart_resize refuses a ${size.width}x${size.height} image: ${(e as Error).message}`);
    }
  }
  return size;
}

/** Decodes, checks and (if asked) resizes `bytes`. Throws ImageError. */
export async function prepareImage(bytes: Buffer, resize: Resize, limits: PrepareLimits): Promise<PreparedImage> {
  const sharp = loadSharp();
  const format = sniffFormat(bytes);
  if (!format) throw new ImageError('format', `the image is ${describeUnaccepted(bytes)}; accepted formats are PNG, JPEG, WebP and GIF`);
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (e) {
    throw new ImageError('undecodable', `the ${format.toUpperCase()} image cannot be read: ${(e as Error).message}`);
  }
  if (meta.format !== format || !meta.width || !meta.height)
    throw new ImageError('undecodable', `the bytes start like ${format.toUpperCase()} but do not read as one (${meta.format ?? 'no format'})`);
  const frameHeight = meta.pageHeight ?? meta.height;
  const original = { width: meta.width, height: frameHeight };
  const pixels = original.width * original.height;
  if (pixels > limits.maxImagePixels)
    throw new ImageError(
      'too_large',
      `the image has ${original.width}x${original.height} = ${pixels} pixels (limit ${limits.maxImagePixels}, vision.max_image_pixels)`,
    );
  const sent = targetSize(original, resize);
  const resized = sent.width !== original.width || sent.height !== original.height;
  const reencode = resized || format === 'gif' || (meta.pages ?? 1) > 1;
  let out: Buffer;
  try {
    // failOn 'warning': a truncated or corrupt image is an error, not a partly grey picture
    const img = sharp(bytes, { limitInputPixels: limits.maxImagePixels, failOn: 'warning', animated: false });
    if (reencode) out = await (resized ? img.resize(sent.width, sent.height, { fit: 'fill' }) : img).png().toBuffer();
    else {
      await img.raw().toBuffer();
      out = bytes;
    }
  } catch (e) {
    throw new ImageError('undecodable', `the ${format.toUpperCase()} image cannot be decoded: ${(e as Error).message}`);
  }
  const sentFormat: ImageFormat = reencode ? 'png' : format;
  return {
    dataUrl: `data:${MIME_TYPES[sentFormat]};base64,${out.toString('base64')}`,
    sha256: createHash('sha256').update(out).digest('hex'),
    format,
    sentFormat,
    bytes: out.length,
    original,
    sent,
    scale: scaleBetween(original, sent),
  };
}
