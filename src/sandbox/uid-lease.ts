// Host-wide leases of sandbox uids. When arbiter runs as root, each pool slot runs its programs
// as its own unprivileged uid, because Linux counts RLIMIT_NPROC per user: two slots sharing a
// uid would share one process budget, and a fork bomb in one would make the other's fork()
// fail. Pools live in many places at once (each `threads` worker, the library's default pool
// beside a CLI pool, several servers), so a uid must be unique per host, not per pool.
//
// A lease is an abstract unix socket named after the uid, bound by the pool for its lifetime.
// The kernel keeps such names unique within a network namespace and frees them when the holder
// exits, however it exits (SIGKILL and crashed workers included), so there are no stale locks to
// recover and no pid-reuse races. Sandboxed programs have their own network namespace and cannot
// see or take these names. Processes in other network namespaces (containers that share the
// host's uids but not its network) do not see them either: give those distinct uid ranges.
import { createServer, type Server } from 'node:net';

/** Uids handed out start here (ARBITER_SANDBOX_UID_BASE), and span this many values. */
export const DEFAULT_UID_BASE = 1_990_000_000;
export const UID_SPAN = 65_536;
const NAME_PREFIX = 'arbiter-sandbox-uid-';

export interface UidLease {
  readonly uids: readonly number[];
  /** Frees the uids (idempotent). */
  release(): void;
}

function bindName(name: string): Promise<Server | undefined> {
  return new Promise((resolve) => {
    const s = createServer((c) => c.destroy());
    s.once('error', () => resolve(undefined));
    s.listen({ path: '\0' + name, exclusive: true }, () => {
      s.unref();
      resolve(s);
    });
  });
}

/** Checks a uid range: whole uids, inside 1..2^31-1, so that no run can become root or -1. */
export function checkUidRange(base: number, span = UID_SPAN): string | undefined {
  if (!Number.isInteger(base) || base < 1 || base + span > 2 ** 31 - 1)
    return `sandbox uid base must be a whole number with base + ${span} below 2^31 (ARBITER_SANDBOX_UID_BASE), got ${base}`;
  return undefined;
}

/**
 * Leases `count` uids from [base, base + span), starting at a random place so that pools rarely
 * probe the same names. Resolves to a message when the range has not enough free uids.
 */
export async function leaseUids(count: number, base = DEFAULT_UID_BASE, span = UID_SPAN): Promise<UidLease | string> {
  const bad = checkUidRange(base, span);
  if (bad) return bad;
  const start = Math.floor(Math.random() * span);
  const servers: Server[] = [];
  const uids: number[] = [];
  for (let k = 0; k < span && uids.length < count; k++) {
    const uid = base + ((start + k) % span);
    const s = await bindName(NAME_PREFIX + uid);
    if (s) {
      servers.push(s);
      uids.push(uid);
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    for (const s of servers) s.close();
  };
  if (uids.length < count) {
    release();
    return `only ${uids.length} of the ${count} sandbox uids needed are free in ${base}..${base + span - 1} (other pools hold the rest); lower the concurrency or set ARBITER_SANDBOX_UID_BASE to a free range`;
  }
  return { uids, release };
}
