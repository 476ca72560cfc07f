// URL prefixes an operator allows requests to (inline graders' model servers, image hosts): parsed
// once from the operator's list, and matched after WHATWG normalisation, as the HTTP client will
// resolve the URL.

export interface UrlPrefix {
  protocol: string;
  host: string; // hostname:port as URL normalises it (default port dropped)
  path: string; // always ends with '/'
  /** As the operator wrote it, for messages. */
  source: string;
}

/** Parses an operator's allow-list entry (`what` names the list in messages); throws RangeError for anything but a plain http(s) URL. */
export function parseUrlPrefix(source: string, what = 'inline network allow-list entry'): UrlPrefix {
  let u: URL;
  try {
    u = new URL(source);
  } catch {
    throw new RangeError(`${what} "${source}" is not a URL (e.g. http://127.0.0.1:8001/v1)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RangeError(`${what} "${source}" must be an http:// or https:// URL`);
  if (u.username || u.password || u.search || u.hash) throw new RangeError(`${what} "${source}" must not have credentials, a query or a fragment`);
  return { protocol: u.protocol, host: u.host, path: u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`, source };
}

/**
 * Whether `url` lies under an allowed prefix: same scheme, host and port, and a path equal to the
 * prefix's or below it on a segment boundary, compared after WHATWG normalisation (so `..`,
 * `%2e%2e`, default ports and host case resolve as the HTTP client will resolve them).
 */
export function urlAllowed(url: string, allow: readonly UrlPrefix[]): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password || u.search || u.hash) return false;
  const path = u.pathname.endsWith('/') ? u.pathname : `${u.pathname}/`;
  return allow.some((p) => p.protocol === u.protocol && p.host === u.host && path.startsWith(p.path));
}
