// Grader capabilities: what running a grader can reach beyond the sample it grades. Every grader
// type declares them in its registration (from its validated config); the registry adds those of
// its children, so a composite's set is the union of its tree. Surfaces that run untrusted configs
// (the server's inline graders) decide from this list what to allow.

/**
 * - `pure`: computes from the sample and item alone (CPU and memory only).
 * - `sandboxed_code`: runs programs inside the bubblewrap sandbox.
 * - `network`: sends requests to a model server (`url` says where, when the config fixes it).
 * - `server_env`: reads the process environment (an API key, a default URL) and uses it.
 * - `unsafe`: an explicit escape from a protection (`unsafe_*` switches, unsandboxed code, …).
 */
export type Capability = 'pure' | 'sandboxed_code' | 'network' | 'server_env' | 'unsafe';

export const CAPABILITIES: readonly Capability[] = ['pure', 'sandboxed_code', 'network', 'server_env', 'unsafe'];

export interface CapabilityUse {
  capability: Capability;
  /**
   * The config field that causes it: relative to the grader in a declaration ("" = the grader
   * itself), and from the root of the config tree in `Grader.capabilities`.
   */
  field: string;
  /** What it does, in words (used in refusals). */
  reason: string;
  /** For `network`: the URL requests go to, after resolution (absent when it is not in the config). */
  url?: string;
}

/** A type's declaration: a fixed list, or a function of its validated config. */
export type CapabilityDeclaration<C> = readonly CapabilityUse[] | ((config: C) => readonly CapabilityUse[]);

/** Own capability of a grader that only computes (composites too: their children add their own). */
export const PURE: readonly CapabilityUse[] = Object.freeze([{ capability: 'pure', field: '', reason: 'computes its score from the sample and item' }]);

/** A `code`/`python`-style grader: sandboxed, unless its unsafe switch (`field`) is on. */
export function sandboxedCode(unsafeOn: boolean | undefined, field: string): readonly CapabilityUse[] {
  if (unsafeOn)
    return [{ capability: 'unsafe', field, reason: `"${field}": true runs the code without the sandbox, with the server's own user, files and network` }];
  return [{ capability: 'sandboxed_code', field: '', reason: 'runs code in the sandbox' }];
}

/** An `unsafe_*`-style switch that is on. */
export function unsafeSwitch(field: string, what: string): CapabilityUse[] {
  return [{ capability: 'unsafe', field, reason: `"${field}" ${what}` }];
}

/** A declaration's field joined below a node's path (`graders.b` + `unsafe_no_sandbox`). */
export function joinCapabilityPath(base: string, field: string): string {
  if (!field) return base;
  if (!base) return field;
  return field.startsWith('[') ? base + field : `${base}.${field}`;
}

/**
 * Input caps and work budgets a config sets above the type's defaults (`max_bytes`, `max_tests`,
 * `max_steps`, …): `unsafe`, so a request's inline grader may lower a limit, never raise it above
 * the operator's; graders the operator loads may set any value. `defaults` maps each config field
 * to its default.
 */
export function raisedCaps(config: object, defaults: Readonly<Record<string, number>>): CapabilityUse[] {
  const out: CapabilityUse[] = [];
  for (const [field, d] of Object.entries(defaults)) {
    const v = Object.hasOwn(config, field) ? (config as Record<string, unknown>)[field] : undefined;
    if (typeof v !== 'number' || v <= d) continue;
    out.push({ capability: 'unsafe', field, reason: `"${field}": ${v} raises a limit above its default (${d}); a request may lower limits, never raise them` });
  }
  return out;
}
