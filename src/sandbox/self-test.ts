// What a pool checks before it trusts a way of running programs: the sandbox itself (once, before
// the first run: the tools are there, uids leased, cgroups set up, a trivial program runs), and
// for each warm mode a probe program run at its first eligible run that prints exactly "ok" only
// when confined as it should be (warm-python.ts and spares.ts run them and switch the mode off
// when they fail).
import { leaseUids } from './uid-lease.js';
import type { SandboxLimits } from './limits.js';
import { BASE_ENV, type RunOutcome, type RunRequest, type RunResult } from './run.js';
import type { PoolContext } from './slots.js';

/** What the modes say until the first run has checked them. */
export const NOT_PROBED = 'not probed yet';

export const SANDBOX_HINT = 'install bubblewrap (scripts/setup.sh) or, for trusted code only, pass --unsafe-no-sandbox (config: "unsafe_no_sandbox": true)';

/** A warm mode's probe: its one file, its stdin, environment and limits. */
export interface Probe {
  file: string;
  source: string;
  stdin: string;
  env: Record<string, string>;
  limits: Partial<SandboxLimits>;
}

/** The warm Python probe: a forked program with a slot uid, no privileges, the seccomp filter, pid 2, its own /tmp, stdin and environment, and no fork. */
export const PYTHON_PROBE: Probe = {
  file: 'main.py',
  source: [
    'import os, sys',
    // (the probe may not create processes: a fork that works means the filter is wrong)
    'def nofork():',
    '  try: p = os.fork()',
    '  except PermissionError: return True',
    '  if p == 0: os._exit(0)',
    '  os.waitpid(p, 0)',
    '  return False',
    "f = dict(l.split(':', 1) for l in open('/proc/self/status').read().splitlines() if ':' in l)",
    "checks = {'uid': os.getuid() not in (0, 65534), 'nnp': f['NoNewPrivs'].strip() == '1', 'seccomp': f['Seccomp'].strip() == '2',",
    "  'caps': int(f['CapEff'], 16) == 0 and int(f['CapBnd'], 16) == 0, 'pid': os.getpid() == 2, 'tmp': os.listdir('/tmp') == ['main.py'],",
    "  'stdin': sys.stdin.read() == 'ping', 'env': dict(os.environ) == {'A': 'b', 'PWD': '/tmp'}, 'nofork': nofork()}",
    "print('ok' if all(checks.values()) else 'failed: ' + ' '.join(k for k, v in checks.items() if not v))",
  ].join('\n'),
  stdin: 'ping',
  env: { A: 'b' },
  limits: { wallMs: 15_000 },
};

/** The JavaScript spare probe: not root, no privileges, the seccomp filter, no child processes, its main file, stdin and /tmp. */
export const JS_PROBE: Probe = {
  file: 'main.js',
  source: [
    "const fs = require('fs');",
    "const st = fs.readFileSync('/proc/self/status', 'utf8');",
    // (the probe may not create processes)
    "let nofork = false; try { require('child_process').execFileSync('/bin/true'); } catch (e) { nofork = e.code === 'EPERM'; }",
    'const ok = process.getuid() !== 0 && /NoNewPrivs:\\s+1/.test(st) && /Seccomp:\\s+2/.test(st) && /CapEff:\\s+0+\\n/.test(st)',
    "  && nofork && require.main === module && process.argv[1] === '/tmp/main.js' && fs.readFileSync(0, 'utf8') === 'ping' && fs.readdirSync('/tmp').join() === 'main.js';",
    "console.log(ok ? 'ok' : 'failed ' + process.argv.join(' '));",
  ].join('\n'),
  stdin: 'ping',
  env: BASE_ENV,
  limits: { wallMs: 15_000, memoryKind: 'data', processes: 64 },
};

/** Why a warm mode's self-test probe failed (it prints exactly "ok" when confined as it should be). */
export function selfTestFailure(r: RunOutcome): string | undefined {
  if (r.status === 'ok' && r.stdout.trim() === 'ok') return undefined;
  return `the self-test failed: ${r.status} ${(r.message ?? '').slice(0, 300)} ${r.stdout.trim().slice(0, 200)} ${r.stderr.trim().slice(-300)}`;
}

/**
 * Undefined when the sandbox works, else why not: the tools it needs, the slots' uids (leased when
 * root), their cgroups, and a trivial program run cold in slot 0 (`run`; once more without the
 * cgroups when the run cannot join them).
 */
export async function checkSandbox(ctx: PoolContext, unsafe: boolean, run: (req: RunRequest) => Promise<RunResult>): Promise<string | undefined> {
  const t = ctx.tools;
  const slots = ctx.slots;
  if (!t.prlimit && !t.sandboxExec) return 'prlimit (util-linux) not found on PATH';
  if (unsafe) {
    slots.memoryControl = 'rlimits only: unsandboxed';
    return undefined;
  }
  if (!t.bwrap) return `bubblewrap (bwrap) not found on PATH; ${SANDBOX_HINT}`;
  if (t.isRoot && !t.setpriv && !t.sandboxExec) return `setpriv (util-linux) not found; it is needed to drop root inside the sandbox`;
  if (t.isRoot) {
    const l = await leaseUids(ctx.concurrency, ctx.uidBase);
    if (typeof l === 'string') return l;
    slots.lease = l;
    if (ctx.closed) {
      slots.lease.release();
      return 'the sandbox pool is closed';
    }
  }
  slots.setUpCgroups();
  let r = await run({ argv: ['/bin/true'], limits: { wallMs: 15_000 } });
  if (r.status !== 'ok' && slots.cold.length) {
    // the cgroup exists but this kernel or setup may refuse to let the sandbox join it: try without
    slots.dropCgroups(`rlimits only: a run could not join the cgroup: ${(r.message ?? '') + ' ' + r.stderr.trim().slice(0, 200)}`);
    r = await run({ argv: ['/bin/true'], limits: { wallMs: 15_000 } });
  }
  if (r.status !== 'ok') return `bubblewrap is not usable here: ${r.message ?? r.stderr.trim().slice(0, 300)}; ${SANDBOX_HINT}`;
  return undefined;
}
