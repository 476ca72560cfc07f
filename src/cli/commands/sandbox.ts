// `arbiter sandbox check`: the kernel-limits report of this machine (which limit is enforced and
// how, each language's toolchain); exit 0 when the sandbox can run programs, 5 when it cannot.
import type { Command } from 'commander';
import { SandboxPool } from '../../sandbox/pool.js';
import { formatReport, sandboxReport } from '../../sandbox/report.js';
import { die, EXIT } from '../exit.js';

export function register(program: Command): void {
  const sandbox = program.command('sandbox').description('inspect the code sandbox of this machine');
  sandbox
    .command('check')
    .description(
      'run the sandbox self-test and print, for this machine, each limit (active or not, and how: cgroup v1/v2 or rlimits, uid leases or a user namespace, seccomp, native helper or fallback) and each language toolchain (found or missing, its version, a hello-world run in the sandbox); exit 0 when the sandbox is usable, 5 when it is not',
    )
    .option('--json', 'print the report as JSON')
    .option('--no-languages', 'skip the hello-world run of each language (versions are still reported)')
    .action(async (opts: { json?: boolean; languages: boolean }) => {
      const pool = new SandboxPool({ concurrency: 2 });
      try {
        const r = await sandboxReport(pool, { languages: opts.languages });
        process.stdout.write(opts.json ? `${JSON.stringify(r, null, 2)}\n` : formatReport(r));
        pool.close();
        process.exit(r.usable ? EXIT.OK : EXIT.SANDBOX_UNUSABLE);
      } catch (e) {
        pool.close();
        die(e);
      }
    });
}
