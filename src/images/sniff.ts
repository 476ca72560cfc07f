// What kind of image a byte string is, read from its leading bytes (magic numbers) only: PNG, JPEG,
// WebP and GIF are accepted; a declared MIME type (a data URL's, a server's Content-Type) is never
// trusted. Anything else is named as well as the bytes allow (SVG, HTML, TIFF, …) for the refusal.

export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

export const MIME_TYPES: Readonly<Record<ImageFormat, string>> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp', gif: 'image/gif' };

const starts = (b: Uint8Array, sig: readonly number[], at = 0) => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

/** The accepted format the bytes are, by their magic number; undefined for anything else. */
export function sniffFormat(b: Uint8Array): ImageFormat | undefined {
  if (starts(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (starts(b, [0xff, 0xd8, 0xff])) return 'jpeg';
  if (starts(b, ascii('RIFF')) && starts(b, ascii('WEBP'), 8)) return 'webp';
  if (starts(b, ascii('GIF87a')) || starts(b, ascii('GIF89a'))) return 'gif';
  return undefined;
}

/** A name for bytes that are not an accepted image (for the refusal's message). */
export function describeUnaccepted(b: Uint8Array): string {
  if (b.length === 0) return 'no bytes';
  const head = Buffer.from(b.subarray(0, 512))
    .toString('latin1')
    .replace(/^\uFEFF|^\xEF\xBB\xBF/, '')
    .trimStart()
    .toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg')) || head.startsWith('<!doctype svg'))
    return 'an SVG image (vector images are not accepted: render it to PNG first)';
  if (head.startsWith('<')) return 'markup (HTML or XML), not an image';
  if (starts(b, [0x49, 0x49, 0x2a, 0x00]) || starts(b, [0x4d, 0x4d, 0x00, 0x2a])) return 'a TIFF image';
  if (starts(b, ascii('BM'))) return 'a BMP image';
  if (starts(b, ascii('ftyp'), 4)) return 'an ISO media file (HEIC/AVIF or video)';
  if (starts(b, [0x25, 0x50, 0x44, 0x46])) return 'a PDF document';
  return `bytes starting ${Buffer.from(b.subarray(0, 8)).toString('hex')}`;
}
