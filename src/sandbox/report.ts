// The kernel-limits report (`arbiter sandbox check`): runs the sandbox's start-up self-test and a
// probe inside the sandbox, and says for this machine how each limit is enforced (or that it is
// not): isolation (bubblewrap, uid leases or a user namespace, native helper or fallback), the
// seccomp filter (and whether a graded program can create processes: it should not), the memory cgroup (v1, v2 or rlimits only), every rlimit as the kernel reports
// it to the sandboxed program, wall time, output and /tmp caps, the network; then each language's
// toolchain, found or missing, with its version and a hello-world run in the sandbox.
import { execFile } from 'node:child_process';
import { hostTools, runtimeFor, runtimeVersion } from './host.js';
import { compileProgram, LANGUAGES, runProgram, type LanguageName } from './languages.js';
import { DEFAULT_LIMITS, type SandboxLimits } from './limits.js';
import type { SandboxPool } from './pool.js';
import { seccompArch } from './seccomp.js';

export interface LimitReport {
  /** Short name: `cpu_time`, `memory`, `network`, ... */
  name: string;
  active: boolean;
  /** How it is enforced here (or why it is not). */
  how: string;
  /** What the probe inside the sandbox saw, when there is something to show. */
  observed?: string;
}

export interface LanguageReport {
  language: LanguageName;
  found: boolean;
  /** The toolchain's version line, or why it is missing. */
  version: string;
  /** The executable the sandbox runs (the compiler for compiled languages). */
  path?: string;
  /** A hello-world compiled (where compiled) and run in the sandbox: `ok (N ms)` or what failed. */
  run?: string;
  runOk?: boolean;
}

export interface SandboxReport {
  usable: boolean;
  /** Why not, when not usable. */
  problem?: string;
  isolation: { bwrap: string; helper: string; users: string; namespaces: string };
  limits: LimitReport[];
  languages: LanguageReport[];
}

const HELLO: Record<LanguageName, string> = {
  python: 'print(input())\n',
  javascript: "console.log(require('fs').readFileSync(0, 'utf8').trim());\n",
  typescript: "const s: string = require('fs').readFileSync(0, 'utf8').trim();\nconsole.log(s);\n",
  c: '#include <stdio.h>\nint main(void) { char b[64]; if (!fgets(b, sizeof b, stdin)) return 1; fputs(b, stdout); return 0; }\n',
  cpp: '#include <iostream>\n#include <string>\nint main() { std::string s; std::getline(std::cin, s); std::cout << s << "\\n"; }\n',
  go: 'package main\n\nimport (\n\t"bufio"\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n\ts, _ := bufio.NewReader(os.Stdin).ReadString(10)\n\tfmt.Print(s)\n}\n',
  rust: 'fn main() { let mut s = String::new(); std::io::stdin().read_line(&mut s).unwrap(); print!("{}", s); }\n',
  java: 'public class Main { public static void main(String[] a) throws Exception { System.out.println(new java.io.BufferedReader(new java.io.InputStreamReader(System.in)).readLine()); } }\n',
  bash: 'read -r s; echo "$s"\n',
};

/** What the probe prints, section by section (markers keep the parsing simple). */
const PROBE = [
  'echo "== limits"; cat /proc/self/limits',
  'echo "== status"; grep -E "^(Uid|Seccomp|Seccomp_filters|NoNewPrivs|CapEff):" /proc/self/status',
  'echo "== net"; tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "',
  'echo "== tmp"; stat -f -c "%b %S" /tmp',
  'echo "== write"; for d in / /usr /etc /dev /proc; do if (: > "$d/.arbiter-probe") 2>/dev/null; then echo "writable $d"; fi; done',
].join('; ');

function sections(out: string): Record<string, string> {
  const s: Record<string, string> = {};
  let cur = '';
  for (const line of out.split('\n')) {
    const m = /^== (\w+)$/.exec(line);
    if (m) {
      cur = m[1]!;
      s[cur] = '';
    } else if (cur) s[cur] += `${line}\n`;
  }
  return s;
}

/** The soft and hard values of one line of /proc/self/limits ("Max cpu time  10  11  seconds"). */
function limitLine(limits: string, label: string): string | undefined {
  const line = limits.split('\n').find((l) => l.startsWith(label));
  if (!line) return undefined;
  const rest = line.slice(label.length).trim().split(/\s+/);
  return rest.slice(0, 2).join(' / ') + (rest[2] ? ` ${rest[2]}` : '');
}

function version(file: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000, encoding: 'utf8' }, (err, stdout, stderr) => {
      resolve(((String(stdout).trim() || String(stderr).trim()).split('\n')[0] ?? '').trim() || (err ? err.message : ''));
    });
  });
}

const MiB = 1024 * 1024;

/** Runs the self-test and the probes on `pool` (which it does not close). */
export async function sandboxReport(pool: SandboxPool, opts: { languages?: boolean } = {}): Promise<SandboxReport> {
  const t = hostTools();
  const bwrap = t.bwrap ? `${t.bwrap} (${await version(t.bwrap, ['--version'])})` : 'not found';
  const helper = t.sandboxExec
    ? `native helper ${t.sandboxExec} (rlimits, cgroup join and uid drop in one exec; closes inherited fds)`
    : `fallback: ${t.setpriv ?? 'setpriv missing'} + ${t.prlimit ?? 'prlimit missing'} (no native helper built)`;
  const problem = await pool.unavailable();
  const users = pool.unsafe
    ? 'none: the pool runs without the sandbox (unsafe)'
    : t.isRoot
      ? `uid leases: each slot runs as its own unprivileged uid (${pool.uids.length ? `${pool.uids[0]}..${pool.uids.at(-1)}` : 'none leased'}), all capabilities dropped`
      : 'user namespace: the program runs as the calling user mapped inside a new user namespace';
  const isolation = { bwrap, helper, users, namespaces: 'pid, net, ipc, uts, cgroup (where supported), mount; read-only root and /dev, private /tmp' };
  // the probe writes into every directory it sees: only ever inside the sandbox
  if (pool.unsafe)
    return { usable: false, problem: 'this pool runs without the sandbox; nothing is enforced but rlimits', isolation, limits: [], languages: [] };
  const languages = await languageReports(pool, Boolean(opts.languages) && !problem);
  if (problem) return { usable: false, problem, isolation, limits: [], languages };

  const L: SandboxLimits = DEFAULT_LIMITS;
  // (the probe is a shell script: its subshells and pipes are processes)
  const r = await pool.run({ argv: ['/bin/sh', '-c', PROBE], limits: { wallMs: 15_000 }, allowSpawn: true });
  // a program's run as graded programs have it (no allowSpawn): a fork must fail; `$(...)` forks
  const fork = await pool.run({ argv: ['/bin/sh', '-c', 'x=$(echo forked) && echo "$x" || echo refused'], limits: { wallMs: 15_000 } });
  // (dash reports a refused fork as "Cannot fork" and exits 2 without reaching the `||`)
  const forkRefused = fork.stdout.trim() === 'refused' || (fork.stdout.trim() === '' && /Cannot fork|fork: Operation not permitted/.test(fork.stderr));
  const forkSeen = forkRefused ? 'refused' : fork.stdout.trim() || `${fork.status}: ${(fork.message ?? '') + ' ' + fork.stderr.trim().slice(0, 200)}`;
  const out = sections(r.stdout);
  const lim = out.limits ?? '';
  const st = out.status ?? '';
  const seccompMode = /^Seccomp:\s*(\d)/m.exec(st)?.[1];
  const arch = seccompArch();
  const ifaces = (out.net ?? '').split('\n').filter(Boolean);
  const [blocks, bsize] = (out.tmp ?? '').trim().split(/\s+/).map(Number);
  const tmpBytes = blocks !== undefined && bsize !== undefined ? blocks * bsize : NaN;
  const writable = (out.write ?? '').split('\n').filter(Boolean);
  const rl = (label: string, name: string, how: string, want: string): LimitReport => {
    const seen = limitLine(lim, label);
    return { name, active: seen !== undefined && !/^unlimited/.test(seen), how: `${how} (default ${want})`, ...(seen ? { observed: seen } : {}) };
  };
  const cgroup = pool.memoryControl.startsWith('cgroup');
  const limits: LimitReport[] = [
    { name: 'wall_time', active: true, how: `supervisor timer kills the sandbox's pid namespace (default ${L.wallMs} ms)` },
    rl('Max cpu time', 'cpu_time', 'RLIMIT_CPU, SIGXCPU at the soft limit, SIGKILL one second later', `${L.cpuSeconds} s`),
    rl(
      'Max address space',
      'memory_per_process',
      'RLIMIT_AS (RLIMIT_DATA for node, the JVM and Go, which reserve address space up front)',
      `${L.memoryBytes / MiB} MiB`,
    ),
    {
      name: 'memory_per_run',
      active: cgroup,
      how: cgroup
        ? `${pool.memoryControl}: one memory cgroup per slot bounds all processes and /tmp together`
        : `${pool.memoryControl} (bounded by processes x per-process memory + /tmp; run_memory_mb is refused)`,
    },
    rl(
      'Max processes',
      'processes',
      t.isRoot ? 'RLIMIT_NPROC per leased uid: bounds the whole run' : 'RLIMIT_NPROC counted per user namespace (Linux 5.14+)',
      String(L.processes),
    ),
    rl('Max file size', 'file_size', 'RLIMIT_FSIZE: SIGXFSZ or EFBIG past it', `${L.fileSizeBytes / MiB} MiB`),
    rl('Max open files', 'open_files', 'RLIMIT_NOFILE', String(L.openFiles)),
    rl('Max core file size', 'core_dumps', 'RLIMIT_CORE = 0', '0'),
    { name: 'output', active: true, how: `supervisor caps stdout and stderr, each, and kills the run past it (default ${L.outputBytes / MiB} MiB)` },
    {
      name: 'tmp_size',
      active: Number.isFinite(tmpBytes) && tmpBytes <= L.tmpBytes,
      how: `private tmpfs /tmp, the only writable file system (default ${L.tmpBytes / MiB} MiB)`,
      observed: `${Number.isFinite(tmpBytes) ? `${Math.round(tmpBytes / MiB)} MiB` : 'unknown'}; ${writable.length ? `also writable: ${writable.join(', ')}` : 'nothing else writable'}`,
    },
    {
      name: 'network',
      active: ifaces.every((i) => i === 'lo'),
      how: 'a new network namespace with only loopback',
      observed: `interfaces: ${ifaces.join(', ') || 'none'}`,
    },
    {
      name: 'seccomp',
      active: seccompMode === '2',
      how: arch
        ? `filter for ${process.arch}: refuses new namespaces, mounts, SysV memory, keyrings, bpf, userfaultfd, perf_event_open, io_uring, ptrace, process_vm_readv/writev and administrative calls; foreign ABIs kill`
        : `no filter for ${process.arch}: nested namespaces are not refused`,
      observed: `Seccomp: ${seccompMode ?? 'unknown'}${/^Seccomp_filters:\s*(\d+)/m.exec(st) ? `, filters: ${/^Seccomp_filters:\s*(\d+)/m.exec(st)![1]}` : ''}`,
    },
    {
      name: 'processes_refused',
      active: forkSeen === 'refused',
      how: arch
        ? 'seccomp: fork, vfork and clone without CLONE_THREAD fail with EPERM for graded programs (threads work); allowed for compile steps, bash programs, /run_code and graders with allow_processes: true'
        : `no filter for ${process.arch}: programs can create processes`,
      observed: `a shell's $(...) in a program's run: ${forkSeen.slice(0, 300)}`,
    },
    {
      name: 'privileges',
      active: /^CapEff:\s*0+$/m.test(st) && /^NoNewPrivs:\s*1/m.test(st),
      how: 'no capabilities, no_new_privs',
      observed: st
        .split('\n')
        .filter((l) => /^(Uid|CapEff|NoNewPrivs)/.test(l))
        .map((l) => l.replace(/\s+/g, ' '))
        .join('; '),
    },
  ];
  if (r.status !== 'ok') {
    return { usable: false, problem: `the probe failed in the sandbox: ${r.message ?? r.status} ${r.stderr.slice(0, 300)}`, isolation, limits, languages };
  }
  return { usable: true, isolation, limits, languages };
}

async function languageReports(pool: SandboxPool, run: boolean): Promise<LanguageReport[]> {
  const names = Object.keys(LANGUAGES) as LanguageName[];
  return Promise.all(
    names.map(async (language): Promise<LanguageReport> => {
      const rt = await runtimeFor(language);
      if (typeof rt === 'string') return { language, found: false, version: rt };
      const rep: LanguageReport = { language, found: true, version: await runtimeVersion(language), path: rt.aux?.java ? `${rt.exe}, ${rt.aux.java}` : rt.exe };
      if (!run) return rep;
      const t0 = performance.now();
      const c = await compileProgram(pool, language, HELLO[language]);
      if (!c.ok) return { ...rep, run: `${c.kind}: ${c.message.slice(0, 300)}`, runOk: false };
      const r = await runProgram(pool, c.program, { stdin: 'arbiter\n' });
      const ok = r.status === 'ok' && r.stdout === 'arbiter\n';
      return {
        ...rep,
        runOk: ok,
        run: ok ? `ok (${Math.round(performance.now() - t0)} ms, compile included)` : `${r.status}: ${(r.message ?? '') + ' ' + r.stderr.slice(0, 300)}`,
      };
    }),
  );
}

/** The report as text, one line per item. */
export function formatReport(r: SandboxReport): string {
  const out: string[] = [];
  out.push(`sandbox: ${r.usable ? 'usable' : `NOT usable: ${r.problem}`}`);
  out.push(`  bubblewrap   ${r.isolation.bwrap}`);
  out.push(`  exec         ${r.isolation.helper}`);
  out.push(`  users        ${r.isolation.users}`);
  out.push(`  namespaces   ${r.isolation.namespaces}`);
  if (r.limits.length) {
    out.push('limits (default values; a grader or request may lower or raise them):');
    const w = Math.max(...r.limits.map((l) => l.name.length));
    for (const l of r.limits) out.push(`  ${l.name.padEnd(w)}  ${l.active ? 'active  ' : 'INACTIVE'}  ${l.how}${l.observed ? `; seen: ${l.observed}` : ''}`);
  }
  out.push('languages:');
  const w = Math.max(...r.languages.map((l) => l.language.length));
  for (const l of r.languages)
    out.push(
      `  ${l.language.padEnd(w)}  ${l.found ? 'found  ' : 'MISSING'}  ${l.version}${l.path ? ` (${l.path})` : ''}${l.run ? `; sandbox run: ${l.run}` : ''}`,
    );
  return out.join('\n') + '\n';
}
