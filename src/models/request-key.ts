// The cache key of a model request: SHA-256 of a canonical JSON (sorted keys) of the endpoint, the
// identity of the API key (a hash, never the key) and the full request body, so any change to
// model, messages, sampling parameters, endpoint or key misses the cache.
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level (arrays keep their order); undefined fields dropped. */
export function canonicalJson(v: unknown): string {
  if (typeof v === 'bigint') return v.toString(); // an integer past 2^53, parsed exactly
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map((x) => (x === undefined ? 'null' : canonicalJson(x))).join(',')}]`;
  const keys = Object.keys(v as Record<string, unknown>)
    .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

/** Version of the key scheme; bump when the stored value's shape or the key's inputs change. */
const KEY_VERSION = 2;

/** A stable, non-reversible name for an API key (what caches and shared-client keys hold instead of it). */
export function keyIdentity(apiKey: string | undefined): string {
  return createHash('sha256')
    .update(`arbiter-api-key\0${apiKey ?? ''}`)
    .digest('hex')
    .slice(0, 32);
}

export function requestKey(baseURL: string, body: unknown, keyId = keyIdentity(undefined)): string {
  return createHash('sha256')
    .update(canonicalJson({ v: KEY_VERSION, base_url: baseURL, key: keyId, body }))
    .digest('hex');
}

/** A short hash of any settings object (for keying shared clients by everything that changes them). */
export function settingsKey(settings: unknown): string {
  return createHash('sha256').update(canonicalJson(settings)).digest('hex').slice(0, 32);
}
