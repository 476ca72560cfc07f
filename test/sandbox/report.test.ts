// `arbiter sandbox check` as a process: the report of this machine (every limit named, with how it
// is enforced and what the probe inside the sandbox saw; every language toolchain with its version
// and a hello-world run in the sandbox), the text and --json forms, and the exit code: 0 when the
// sandbox is usable, 5 when it is not. Switching the memory cgroup or the native helper off shows
// in the report.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

function check(args: string[], env: Record<string, string | undefined> = {}) {
  return runCli(['sandbox', 'check', ...args], { env: { ...process.env, ...env } });
}

interface Report {
  usable: boolean;
  problem?: string;
  isolation: Record<string, string>;
  limits: { name: string; active: boolean; how: string; observed?: string }[];
  languages: { language: string; found: boolean; version: string; run?: string; runOk?: boolean }[];
}

const LIMITS = [
  'wall_time',
  'cpu_time',
  'memory_per_process',
  'memory_per_run',
  'processes',
  'file_size',
  'open_files',
  'core_dumps',
  'output',
  'tmp_size',
  'network',
  'seccomp',
  'processes_refused',
  'privileges',
];
const LANGS = ['python', 'javascript', 'typescript', 'c', 'cpp', 'go', 'rust', 'java', 'bash'];

describe('arbiter sandbox check', () => {
  it('--json: usable, every limit active with what the probe saw, every toolchain found and running in the sandbox', async () => {
    const r = await check(['--json']);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.usable).toBe(true);
    expect(rep.limits.map((l) => l.name)).toEqual(LIMITS);
    const by = Object.fromEntries(rep.limits.map((l) => [l.name, l]));
    // the default limits, as the kernel reports them to the sandboxed program
    expect(by.cpu_time!.observed).toBe('10 / 11 seconds');
    expect(by.processes!.observed).toBe('32 / 32 processes');
    expect(by.file_size!.observed).toBe('16777216 / 16777216 bytes');
    expect(by.open_files!.observed).toBe('64 / 64 files');
    expect(by.core_dumps!.observed).toBe('0 / 0 bytes');
    expect(by.network!.observed).toBe('interfaces: lo');
    expect(by.seccomp!.observed).toMatch(/^Seccomp: 2/);
    expect(by.processes_refused!.observed).toMatch(/: refused$/);
    expect(by.tmp_size!.observed).toBe('64 MiB; nothing else writable');
    expect(by.privileges!.observed).toMatch(/CapEff: 0+; NoNewPrivs: 1/);
    for (const l of rep.limits) if (l.name !== 'memory_per_run') expect(l.active, l.name).toBe(true);
    expect(by.memory_per_run!.how).toMatch(/^(cgroup v[12] |rlimits only)/);
    expect(rep.languages.map((l) => l.language)).toEqual(LANGS);
    for (const l of rep.languages) {
      expect(l.found, `${l.language}: ${l.version}`).toBe(true);
      expect(l.runOk, `${l.language}: ${l.run}`).toBe(true);
      expect(l.run).toMatch(/^ok \(\d+ ms/);
    }
    expect(rep.languages.find((l) => l.language === 'java')!.version).toMatch(/openjdk version/);
    expect(rep.languages.find((l) => l.language === 'go')!.version).toMatch(/^go version go1\./);
  }, 120_000);

  it('the text form has one line per limit and per language', async () => {
    const r = await check(['--no-languages']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^sandbox: usable\n/);
    for (const name of LIMITS) expect(r.stdout).toMatch(new RegExp(`^  ${name} +(active|INACTIVE) `, 'm'));
    for (const lang of LANGS) expect(r.stdout).toMatch(new RegExp(`^  ${lang} +found `, 'm'));
    // --no-languages: versions, no runs
    expect(r.stdout).not.toMatch(/sandbox run:/);
  });

  it('shows the memory cgroup switched off (rlimits only) and the setpriv/prlimit fallback', async () => {
    const r = await check(['--json', '--no-languages'], { ARBITER_SANDBOX_CGROUP: 'off', ARBITER_SANDBOX_NO_HELPER: '1' });
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(r.stdout) as Report;
    const run = rep.limits.find((l) => l.name === 'memory_per_run')!;
    expect(run.active).toBe(false);
    expect(run.how).toMatch(/^rlimits only/);
    expect(rep.isolation.helper).toMatch(/^fallback: .*setpriv.*prlimit/);
  });

  it('exits 5 with the reason when the sandbox cannot run (no bubblewrap on PATH)', async () => {
    const r = await check(['--json', '--no-languages'], { PATH: '/nonexistent' });
    expect(r.code).toBe(5);
    const rep = JSON.parse(r.stdout) as Report;
    expect(rep.usable).toBe(false);
    expect(rep.problem).toMatch(/bwrap|prlimit/);
  });
});
