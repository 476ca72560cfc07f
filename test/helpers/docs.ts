// The docs' shell blocks, read from the pages themselves so a test runs exactly what a page says.
// A test runs a block through `docBlock(page, key)` (the one block of the page that contains `key`),
// written with both arguments as string literals: test/core/docs-walk.test.ts reads those calls
// statically and fails for any block of README.md, integrations/README.md or docs/*.md that no test
// claims. `docWorkdir()` lays out a scratch folder like the project root, with `arbiter` on PATH,
// and `runDoc` runs a block there with bash, as a user would paste it.
import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CLI, type CliResult, ROOT, runProcess } from './cli.js';
import { DATA_DIR } from './data.js';

/** The shell blocks (```bash / ```sh / ```shell) of a page, as written. */
export function shellBlocks(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  return [...text.matchAll(/^```(?:bash|sh|shell)\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

/** The one shell block of `page` that contains `key`; throws when none or several do. */
export function docBlock(page: string, key: string): string {
  const hits = shellBlocks(page).filter((b) => b.includes(key));
  if (hits.length !== 1) throw new Error(`${page}: ${hits.length} shell blocks contain ${JSON.stringify(key)} (want exactly 1)`);
  return hits[0]!;
}

/** A scratch folder laid out like the project root: examples/ copied (commands write beside the examples), graders/, scripts/, integrations/, dist/, bench/ linked, `arbiter` on PATH, ../shared/data beside it. */
export function docWorkdir(): string {
  const root = mkdtempSync(join(tmpdir(), 'arbiter-doc-'));
  mkdirSync(join(root, 'shared'));
  symlinkSync(DATA_DIR, join(root, 'shared', 'data'));
  const dir = join(root, 'project');
  mkdirSync(dir);
  cpSync(join(ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
  for (const d of ['graders', 'scripts', 'integrations', 'dist', 'bench']) symlinkSync(join(ROOT, d), join(dir, d));
  mkdirSync(join(dir, 'bin'));
  const shim = join(dir, 'bin', 'arbiter');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

/** Runs a block (or any script) with bash in `dir` (default: a fresh docWorkdir), `arbiter` and node on PATH. */
export function runDoc(script: string, opts: { dir?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; stdin?: string } = {}): Promise<CliResult> {
  const dir = opts.dir ?? docWorkdir();
  return runProcess('bash', ['-e', '-c', script], {
    cwd: dir,
    env: { ...process.env, ...opts.env, PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}` },
    timeoutMs: opts.timeoutMs ?? 120_000,
    ...(opts.stdin !== undefined ? { stdin: opts.stdin } : {}),
  });
}

/**
 * Lines of the docs that start programs this project does not ship (a trainer, a machine's set-up),
 * so no test here can run them as written: each names why, and the file that exercises the same path
 * instead (a trainer's own client code in test/integrations/, or .ci/run for the set-up). `runDocSession`
 * skips them; test/core/docs-walk.test.ts checks that the evidence exists and names the program.
 */
export const EXTERNAL: readonly { prefix: string; why: string; evidence: string; names: string }[] = [
  { prefix: './scripts/setup.sh', why: 'sets the machine up (apt, npm ci, build)', evidence: '.ci/run', names: './scripts/setup.sh' },
  { prefix: 'npm test', why: 'the whole suite', evidence: '.ci/run', names: 'npm test' },
  { prefix: 'python3 -m openrlhf.', why: "OpenRLHF's trainer", evidence: 'test/integrations/openrlhf.test.ts', names: 'get_reward' },
  { prefix: 'python3 -m verl.', why: "verl's trainer", evidence: 'test/integrations/verl.test.ts', names: 'compute_score' },
  { prefix: 'python3 train.py', why: "slime's trainer", evidence: 'test/integrations/slime.test.ts', names: 'remote_rm' },
  { prefix: 'gym env start', why: "NeMo-Gym's launcher", evidence: 'test/integrations/nemo-gym.test.ts', names: 'integrations/nemo_gym/app.py' },
];

/**
 * Where a line's code ends, read as bash does: a `#` after whitespace outside quotes starts a
 * comment; `quote` is the quote still open at the end (a single-quoted text going on to the next line).
 */
function scan(line: string, quote: string): { code: string; quote: string } {
  let q = quote;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (q) {
      if (c === q) q = '';
      else if (c === '\\' && q === '"') i++;
    } else if (c === "'" || c === '"') q = c;
    else if (c === '\\') i++;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return { code: line.slice(0, i).trimEnd(), quote: '' };
  }
  return { code: line, quote: q };
}

/** A block's logical lines: continuations (a trailing backslash, or a quoted text left open) joined; blank and comment lines and trailing comments dropped. */
export function logicalLines(block: string): string[] {
  const out: string[] = [];
  let acc = '';
  let quote = '';
  for (const raw of block.replace(/\\\n\s*/g, ' ').split('\n')) {
    const r = scan(raw, quote);
    acc = quote ? `${acc}\n${r.code}` : r.code;
    quote = r.quote;
    if (quote) continue;
    const l = acc.trim();
    if (l !== '' && l !== '...') out.push(l);
    acc = '';
  }
  if (acc.trim()) out.push(acc.trim());
  return out;
}

export const isExternal = (line: string) => EXTERNAL.some((e) => line.startsWith(e.prefix));

/** A server a doc line started in the background. */
export interface DocServer {
  line: string;
  /** The URL it printed (arbiter serve / env serve), if any. */
  url?: string;
  output(): string;
}

export interface DocSession {
  /** What each foreground line printed, in order. */
  runs: { line: string; result: CliResult }[];
  servers: DocServer[];
  stop(): Promise<void>;
}

// programs that serve until stopped: started in the background and waited for
const SERVERS: { prefix: RegExp; ready: RegExp }[] = [
  { prefix: /^arbiter (env )?serve\b/, ready: /listening on (http:\/\/\S+)/ },
  { prefix: /^redis-server\b/, ready: /Ready to accept connections/ },
  { prefix: /^arbiter worker\b/, ready: /^/ },
];

/**
 * Runs a block line by line in `dir` as a user would in one terminal per server: a line that starts
 * a server (arbiter serve / env serve / worker, redis-server) runs in the background and is waited
 * for (its "listening on" line, Redis's ready line); every other line runs to its end with bash and
 * must exit 0, else this throws naming the line. Lines of EXTERNAL programs are skipped. `stop()`
 * ends the servers (SIGTERM, then SIGKILL).
 */
export async function runDocSession(block: string, opts: { dir?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<DocSession> {
  const dir = opts.dir ?? docWorkdir();
  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env, PATH: `${join(dir, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}` };
  const children: ChildProcess[] = [];
  const session: DocSession = {
    runs: [],
    servers: [],
    async stop() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.exitCode !== null || c.signalCode !== null) return resolve();
              const kill = setTimeout(() => c.kill('SIGKILL'), 10_000);
              c.once('close', () => {
                clearTimeout(kill);
                resolve();
              });
              c.kill('SIGTERM');
            }),
        ),
      );
    },
  };
  try {
    for (const line of logicalLines(block)) {
      if (isExternal(line)) continue;
      const server = SERVERS.find((s) => s.prefix.test(line));
      if (!server) {
        // an `export` holds for the lines after it, as in the user's shell
        const result = await runProcess('bash', ['-e', '-o', 'pipefail', '-c', line.startsWith('export ') ? `${line}; env -0` : line], {
          cwd: dir,
          env,
          timeoutMs: opts.timeoutMs ?? 120_000,
        });
        if (result.code !== 0) throw new Error(`\`${line}\` exited ${result.code}: ${result.stderr.slice(-3000)}`);
        if (line.startsWith('export ')) {
          for (const kv of result.stdout.split('\0')) {
            const eq = kv.indexOf('=');
            if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1);
          }
          result.stdout = '';
        }
        session.runs.push({ line, result });
        continue;
      }
      // exec: the signal reaches the server itself, not a shell around it
      const child = spawn('bash', ['-c', `exec ${line}`], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      children.push(child);
      let out = '';
      const started = new Promise<DocServer>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`\`${line}\` did not start in time: ${out.slice(-2000)}`)), 60_000);
        const seen = () => {
          const m = server.ready.exec(out);
          if (!m) return;
          clearTimeout(timer);
          resolve({ line, ...(m[1] ? { url: m[1] } : {}), output: () => out });
        };
        for (const s of [child.stdout!, child.stderr!])
          s.setEncoding('utf8').on('data', (d: string) => {
            out += d;
            seen();
          });
        child.once('close', (code) => {
          clearTimeout(timer);
          reject(new Error(`\`${line}\` exited ${code} while starting: ${out.slice(-2000)}`));
        });
        seen();
      });
      session.servers.push(await started);
    }
  } catch (e) {
    await session.stop();
    throw e;
  }
  return session;
}
