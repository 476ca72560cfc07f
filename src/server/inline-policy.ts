// What an inline grader (a config sent in a request) may use: the operator's policy over the
// capabilities the grader's config tree declares. Pure graders and sandboxed code are allowed;
// network only to base URLs on the operator's allow-list; server secrets and unsafe switches never.
// A request can never widen what the operator set up.
import type { CapabilityUse } from '../core/capabilities.js';
import type { Grader } from '../core/grader.js';
import { urlAllowed, type UrlPrefix } from '../models/url-prefix.js';

export interface InlinePolicy {
  /** URL prefixes inline graders may call (normalised); empty = no network for inline graders. */
  allowNetwork: readonly UrlPrefix[];
  /** True when this server runs code without the sandbox: then no inline code runs at all. */
  codeUnsandboxed: boolean;
}

export interface PolicyViolation {
  /** Field path from the request body, e.g. `grader.graders.b.unsafe_no_sandbox`. */
  path: string;
  /** The capability refused there. */
  capability: string;
  message: string;
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
