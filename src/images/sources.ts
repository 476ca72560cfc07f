// Where an image's bytes come from, under the operator's control: a `data:` URL (base64) in a
// sample, item or config; a file under a folder the operator allowed (the real path, symlinks
// resolved, must lie inside it; no `..`); or an http(s) URL under a prefix the operator allowed
// (fetched with the shared bounded transport: a byte cap while the body streams, a deadline, and
// every redirect checked against the same allow-list). Nothing else is read, and a request (an
// inline config) reaches no folder or host beyond the operator's.
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Services } from '../core/services.js';
import { boundedFetch, TransportError } from '../models/transport.js';
import { parseUrlPrefix, urlAllowed, type UrlPrefix } from '../models/url-prefix.js';

/** The operator's image sources (services option `images`; CLI `--image-dir`, `--image-url`). */
interface ImageSourceOptions {
  /** Folders image files may be read from. */
  dirs?: readonly string[];
  /** URL prefixes (e.g. `https://cdn.example.com/images/`) images may be fetched from. */
  urls?: readonly string[];
}

/** Deadline of one image fetch (connect, redirects and the whole body), ms. */
const IMAGE_FETCH_TIMEOUT_MS = 30_000;
/** Redirects followed per image fetch (each one checked against the allow-list). */
const MAX_REDIRECTS = 3;

/**
 * Why an image could not be had. `disallowed`: a source the operator did not allow; `missing`: no
 * such file or URL (404); `too_large`: over a byte or pixel limit; `undecodable`/`format`: the bytes
 * are not an accepted image; `unavailable`: reading or fetching failed for a reason that is nobody's
 * data (an I/O error, a server error, a timeout when `timedOut`).
 */
export type ImageProblem = 'disallowed' | 'missing' | 'too_large' | 'undecodable' | 'format' | 'unavailable';

export class ImageError extends Error {
  constructor(
    readonly problem: ImageProblem,
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'ImageError';
  }
}

export type SourceKind = 'data' | 'file' | 'url';

export interface ImageBytes {
  bytes: Buffer;
  source: SourceKind;
}

/** The operator's allow-lists, resolved once per Services (folders by their real path). */
export class ImageAccess {
  readonly prefixes: readonly UrlPrefix[];
  private readonly dirsGiven: readonly string[];
  private realDirs?: Promise<string[]>;

  constructor(opts: ImageSourceOptions = {}) {
    this.dirsGiven = (opts.dirs ?? []).map((d) => resolve(d));
    this.prefixes = (opts.urls ?? []).map((u) => parseUrlPrefix(u, 'image URL allow-list entry'));
  }

  /** The allowed folders by their real paths (a folder that does not exist allows nothing). */
  dirs(): Promise<string[]> {
    this.realDirs ??= Promise.all(this.dirsGiven.map((d) => realpath(d).catch(() => undefined))).then((ds) => ds.filter((d): d is string => !!d));
    return this.realDirs;
  }

  get anyDir(): boolean {
    return this.dirsGiven.length > 0;
  }

  /** The first allowed folder as given (relative paths are read under it). */
  get firstDir(): string | undefined {
    return this.dirsGiven[0];
  }
}

/** The services' image access (from `services.options.images`), made once. */
export function imageAccess(services: Services): ImageAccess {
  return services.get('images.access', () => new ImageAccess((services.options.images as ImageSourceOptions | undefined) ?? {}));
}

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;

/** Reads the bytes `url` names, within `maxBytes`. Throws ImageError. */
export async function readImageSource(url: string, access: ImageAccess, maxBytes: number, signal?: AbortSignal): Promise<ImageBytes> {
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'data') return { bytes: fromDataUrl(url, maxBytes), source: 'data' };
  if (scheme === 'http' || scheme === 'https') return { bytes: await fetchImage(url, access, maxBytes, signal), source: 'url' };
  if (scheme === 'file') {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch (e) {
      throw new ImageError('disallowed', `image URL ${clip(url)} is not a local file URL (${(e as Error).message})`);
    }
    return { bytes: await readImageFile(path, access, maxBytes), source: 'file' };
  }
  // a Windows drive letter is no scheme
  if (scheme !== undefined && !/^[a-zA-Z]:[\\/]/.test(url))
    throw new ImageError('disallowed', `image source ${clip(url)} has the scheme "${scheme}:"; images come from data:, http(s): URLs or file paths`);
  if (url === '') throw new ImageError('missing', 'the image URL is empty');
  return { bytes: await readImageFile(url, access, maxBytes), source: 'file' };
}

function clip(s: string): string {
  return s.length > 120 ? `${JSON.stringify(s.slice(0, 100))}… (${s.length} characters)` : JSON.stringify(s);
}

/** Bytes of a base64 `data:` URL (its media type is ignored: the bytes say what they are). */
function fromDataUrl(url: string, maxBytes: number): Buffer {
  const comma = url.indexOf(',');
  if (comma < 0) throw new ImageError('undecodable', 'the data: URL has no "," before its data');
  const meta = url.slice(5, comma);
  if (!/;base64$/i.test(meta))
    throw new ImageError('undecodable', `the data: URL is not base64 ("data:${clip(meta).slice(1, -1)},…"); images are sent as data:image/…;base64,…`);
  const data = url.slice(comma + 1).replace(/\s+/g, '');
  const pad = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  const n = Math.floor((data.length * 3) / 4) - pad;
  if (n > maxBytes) throw new ImageError('too_large', `the data: URL holds ${n} bytes (limit ${maxBytes}, vision.max_image_bytes)`);
  if (data.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new ImageError('undecodable', 'the data: URL is not valid base64');
  return Buffer.from(data, 'base64');
}

/** A file under an allowed folder, by its real path; at most maxBytes. */
async function readImageFile(given: string, access: ImageAccess, maxBytes: number): Promise<Buffer> {
  if (!access.anyDir)
    throw new ImageError(
      'disallowed',
      `image file ${clip(given)}: no image folder is allowed (the operator allows folders with --image-dir or the services option images.dirs)`,
    );
  if (given.split(/[\\/]/).includes('..')) throw new ImageError('disallowed', `image file ${clip(given)}: paths with ".." are not read`);
  if (given.includes('\0')) throw new ImageError('disallowed', `image file ${clip(given)}: the path holds a NUL character`);
  const path = isAbsolute(given) ? given : join(access.firstDir!, given);
  let real: string;
  try {
    real = await realpath(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new ImageError('missing', `image file ${clip(given)} does not exist`);
    throw new ImageError('unavailable', `image file ${clip(given)} cannot be read (${code ?? (e as Error).message})`);
  }
  const dirs = await access.dirs();
  if (!dirs.some((d) => real.startsWith(d.endsWith(sep) ? d : d + sep)))
    throw new ImageError('disallowed', `image file ${clip(given)} is not inside a folder the operator allows (its real path, links resolved, is outside them)`);
  let fh: Awaited<ReturnType<typeof open>> | undefined;
  try {
    fh = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
    const st = await fh.stat();
    if (!st.isFile()) throw new ImageError('missing', `image file ${clip(given)} is not a regular file`);
    if (st.size > maxBytes) throw new ImageError('too_large', `image file ${clip(given)} has ${st.size} bytes (limit ${maxBytes}, vision.max_image_bytes)`);
    const buf = Buffer.alloc(st.size + 1);
    let got = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
      if (got > maxBytes) throw new ImageError('too_large', `image file ${clip(given)} grew past ${maxBytes} bytes while read (vision.max_image_bytes)`);
      if (got === buf.length) break;
    }
    return buf.subarray(0, got);
  } catch (e) {
    if (e instanceof ImageError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ImageError('disallowed', `image file ${clip(given)} became a symbolic link while read`);
    throw new ImageError('unavailable', `image file ${clip(given)} cannot be read (${code ?? (e as Error).message})`);
  } finally {
    await fh?.close();
  }
}

/** An image over HTTP from an allowed prefix: redirects followed by hand, each target checked. */
async function fetchImage(url: string, access: ImageAccess, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  if (access.prefixes.length === 0)
    throw new ImageError(
      'disallowed',
      `image URL ${clip(url)}: no image URL is allowed (the operator allows URL prefixes with --image-url or the services option images.urls)`,
    );
  const timer = AbortSignal.timeout(IMAGE_FETCH_TIMEOUT_MS);
  const s = signal ? AbortSignal.any([signal, timer]) : timer;
  const get = boundedFetch({ maxBytes, field: 'vision.max_image_bytes' });
  let at = url;
  for (let hop = 0; ; hop++) {
    if (!urlAllowed(at, access.prefixes))
      throw new ImageError('disallowed', `image URL ${clip(at)}${hop ? ` (a redirect from ${clip(url)})` : ''} is not under a URL prefix the operator allows`);
    let res: Response;
    try {
      res = await get(at, { redirect: 'manual', signal: s, headers: { accept: 'image/png, image/jpeg, image/webp, image/gif' } });
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (timer.aborted) throw new ImageError('unavailable', `image URL ${clip(url)}: no complete answer within ${IMAGE_FETCH_TIMEOUT_MS} ms`, true);
      if (e instanceof TransportError && e.failure === 'too_large')
        throw new ImageError('too_large', `image URL ${clip(url)} sent more than ${maxBytes} bytes (vision.max_image_bytes)`);
      const err = e as Error & { cause?: { code?: string; message?: string } };
      throw new ImageError('unavailable', `image URL ${clip(url)} could not be fetched (${err.cause?.code ?? err.cause?.message ?? err.message})`);
    }
    if (res.status >= 300 && res.status < 400 && res.headers.has('location')) {
      if (hop >= MAX_REDIRECTS) throw new ImageError('unavailable', `image URL ${clip(url)} redirects more than ${MAX_REDIRECTS} times`);
      at = new URL(res.headers.get('location')!, at).href;
      continue;
    }
    if (res.status === 404 || res.status === 410) throw new ImageError('missing', `image URL ${clip(at)} answered HTTP ${res.status}`);
    if (res.status !== 200) throw new ImageError('unavailable', `image URL ${clip(at)} answered HTTP ${res.status}`);
    return Buffer.from(await res.arrayBuffer());
  }
}
