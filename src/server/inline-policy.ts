// What an inline grader (a config sent in a request) may use: the operator's policy over the
// capabilities the grader's config tree declares. Pure graders and sandboxed code are allowed;
// network only to base URLs on the operator's allow-list; server secrets and unsafe switches never.
// A request can never widen what the operator set up.
import type { CapabilityUse } from '../core/capabilities.js';
import type { Grader } from '../core/grader.js';

export interface InlinePolicy {
  /** URL prefixes inline graders may call (normalised); empty = no network for inline graders. */
  allowNetwork: readonly UrlPrefix[];
  /** True when this server runs code without the sandbox: then no inline code runs at all. */
  codeUnsandboxed: boolean;
}

export interface UrlPrefix {
  protocol: string;
  host: string; // hostname:port as URL normalises it (default port dropped)
  path: string; // always ends with '/'
  /** As the operator wrote it, for messages. */
  source: string;
}

export interface PolicyViolation {
  /** Field path from the request body, e.g. `grader.graders.b.unsafe_no_sandbox`. */
  path: string;
  /** The capability refused there. */
  capability: string;
  message: string;
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

function join(field: string): string {
  if (!field) return 'grader';
  return field.startsWith('[') ? `grader${field}` : `grader.${field}`;
}

function refusal(use: CapabilityUse, policy: InlinePolicy): string | undefined {
  switch (use.capability) {
    case 'pure':
      return undefined;
    case 'sandboxed_code':
      return policy.codeUnsandboxed
        ? 'this server runs code without the sandbox (--unsafe-no-sandbox or ARBITER_UNSAFE_NO_SANDBOX=1), so it runs no code from a request'
        : undefined;
    case 'network':
      if (policy.allowNetwork.length === 0)
        return `${use.reason}; this server allows no network access to inline graders (the operator can allow base URLs with --inline-allow-network)`;
      if (use.url === undefined) return `${use.reason}; inline graders must name an allowed base URL`;
      if (!urlAllowed(use.url, policy.allowNetwork))
        return `${use.url} is not under a base URL this server allows inline graders to call (URLs with credentials, a query or a fragment never are)`;
      return undefined;
    case 'server_env':
      return `${use.reason}; inline graders never read the server's environment or secrets`;
    case 'unsafe':
      return `${use.reason}; unsafe settings are never taken from a request`;
    default:
      return `unknown capability "${String((use as CapabilityUse).capability)}"`;
  }
}

/** Every use of the grader's tree that the policy refuses (at most one per field path). */
export function checkInline(grader: Grader, policy: InlinePolicy): PolicyViolation[] {
  const out: PolicyViolation[] = [];
  const seen = new Set<string>();
  for (const use of grader.capabilities) {
    const why = refusal(use, policy);
    if (why === undefined) continue;
    const path = join(use.field);
    if (seen.has(path)) continue;
    seen.add(path);
    out.push({ path, capability: use.capability, message: why });
  }
  return out;
}
