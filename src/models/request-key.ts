// The cache key of a chat request: SHA-256 of a canonical JSON (sorted keys) of the endpoint and
// the full request body, so any change to model, messages or sampling parameters misses the cache.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level (arrays keep their order); undefined fields dropped. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const keys = Object.keys(v as Record<string, unknown>)
    .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** Version of the key scheme; bump when the stored value's shape changes. */
const KEY_VERSION = 1;

export function requestKey(baseURL: string, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ v: KEY_VERSION, base_url: baseURL, body })).digest('hex');
}
