// Real processes for the queue tests: a redis-server on a free loopback port in a temp dir (no
// persistence, so a restart forgets everything; or an fsynced append-only file, so it forgets nothing), `arbiter worker --events` processes whose JSON
// event lines can be awaited, `arbiter serve` processes, a gate that holds a judge's requests, and a
// TCP proxy that cuts connections. Everything is waited on by events
// (lines printed, processes exiting), never by sleeping.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** Fails with a clear message when redis-server is not installed (scripts/setup.sh installs it). */
function requireRedis(): void {
  const r = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0)
    throw new Error('redis-server is not installed: the queue tests need it (run scripts/setup.sh, or apt-get install redis-server)');
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/** Resolves when `child` prints a line matching `re` on `stream`; rejects if it exits first. */
function waitLine(child: ChildProcess, stream: 'stdout' | 'stderr', re: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let buf = '';
    const onData = (d: Buffer) => {
      buf += d.toString('utf8');
      const m = re.exec(buf);
      if (m) {
        child[stream]!.off('data', onData);
        child.off('exit', onExit);
        resolve(m[0]);
      }
    };
    const onExit = (code: number | null) => reject(new Error(`${what} exited (${code}) before it was ready: ${buf.slice(-2000)}`));
    child[stream]!.on('data', onData);
    child.once('exit', onExit);
  });
}

export interface RedisProc {
  port: number;
  url: string;
  /** Stops it (SIGTERM by default; with no persistence it forgets every job) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
}

/**
 * A redis-server of its own. By default without persistence (a restart forgets every job); with
 * `persist`, an append-only file synced on every write in its directory, so even a SIGKILLed
 * server comes back with every job and event it had acknowledged.
 */
export async function startRedis(opts: { persist?: boolean } = {}): Promise<RedisProc> {
  requireRedis();
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-redis-'));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const proc: RedisProc = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      const persistence = opts.persist ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no'];
      const c = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = c;
      await waitLine(c, 'stdout', /Ready to accept connections/, 'redis-server');
      c.stdout!.resume();
      c.stderr!.resume();
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      child = undefined;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill(signal);
      await exited;
    },
  };
  await proc.start();
  // the directory goes when the test process ends
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return proc;
}

interface WorkerEvent {
  event: string;
  worker: string;
  queue?: string;
  grader?: string;
  job?: string;
  samples?: number;
  message?: string;
}

export interface WorkerProc {
  child: ChildProcess;
  id: string;
  events: WorkerEvent[];
  stderr(): string;
  /** Resolves with the first event (already seen or to come) matching `pred`. */
  waitFor(pred: (e: WorkerEvent) => boolean, what: string): Promise<WorkerEvent>;
  /** Sends a signal and resolves with the exit code (or signal name). */
  kill(sig?: NodeJS.Signals): Promise<number | string | null>;
  exited: Promise<number | string | null>;
}

export async function startWorker(url: string, args: string[], env: Record<string, string> = {}): Promise<WorkerProc> {
  const child = spawn(process.execPath, [CLI, 'worker', '--queue', url, '--events', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const events: WorkerEvent[] = [];
  const waiters: { pred: (e: WorkerEvent) => boolean; resolve: (e: WorkerEvent) => void }[] = [];
  let err = '';
  let buf = '';
  const exited = new Promise<number | string | null>((r) => child.once('close', (code, sig) => r(code ?? sig)));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      let e: WorkerEvent;
      try {
        e = JSON.parse(line) as WorkerEvent;
      } catch {
        continue;
      }
      events.push(e);
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i]!.pred(e)) {
          waiters[i]!.resolve(e);
          waiters.splice(i, 1);
        }
      }
    }
  });
  const waitFor = (pred: (e: WorkerEvent) => boolean, what: string) => {
    const seen = events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise<WorkerEvent>((resolve, reject) => {
      waiters.push({ pred, resolve });
      void exited.then((code) => reject(new Error(`worker exited (${code}) while waiting for ${what}: ${err.slice(-2000)}`)));
    });
  };
  const ready = await Promise.race([
    waitFor((e) => e.event === 'ready', 'ready'),
    exited.then((c) => Promise.reject(new Error(`worker exited (${c}) before it was ready: ${err}`))),
  ]);
  return {
    child,
    id: ready.worker,
    events,
    stderr: () => err,
    waitFor,
    kill(sig = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(sig);
      return exited;
    },
    exited,
  };
}

/** Holds the next `n` judge requests until released; answers every other one at once. */
export class Gate {
  private toHold = 0;
  private held: (() => void)[] = [];
  private onHeld?: { n: number; resolve: () => void };
  total = 0;

  handler = () => {
    this.total++;
    if (this.toHold > 0) {
      this.toHold--;
      return new Promise<{ content: string }>((resolve) => {
        this.held.push(() => resolve({ content: 'Score: 7' }));
        if (this.onHeld && this.held.length >= this.onHeld.n) this.onHeld.resolve();
      });
    }
    return { content: 'Score: 7' };
  };

  /** Holds the next n requests; resolves once all n are held. */
  hold(n: number): Promise<void> {
    this.toHold = n;
    this.held = [];
    return new Promise((resolve) => (this.onHeld = { n, resolve }));
  }

  release(): void {
    this.toHold = 0;
    for (const r of this.held) r();
    this.held = [];
  }
}

/** The queue tests' judge: a score_model on the local test server (`Score: N` replies, range 0-10, no cache or retries). */
export function judgeConfig(baseUrl: string): Record<string, unknown> {
  return {
    type: 'score_model',
    name: 'judge',
    model: 'm',
    base_url: baseUrl,
    api_key: 'EMPTY',
    cache: false,
    max_retries: 0,
    range: [0, 10],
    input: [{ role: 'user', content: 'Rate: {{sample.output_text}}' }],
  };
}

/** Writes grader configs into a temp dir; returns their paths. */
export function graderFiles(graders: Record<string, unknown>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'arbiter-queue-graders-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(graders)) {
    const p = join(dir, `${k}.json`);
    writeFileSync(p, JSON.stringify(v));
    out[k] = p;
  }
  return out;
}

export async function postJSON(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** Runs the built CLI to its end (bounded: killed after 60 s), with extra environment variables. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * A TCP proxy on loopback in front of a port: a worker that talks to Redis through it can be cut
 * off (every connection destroyed, new ones refused) and reconnected, like a network partition.
 */
export class CutProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  private cutOff = false;
  port = 0;
  constructor(private readonly target: number) {}

  async start(): Promise<this> {
    this.server = createServer((client) => {
      if (this.cutOff) {
        client.destroy();
        return;
      }
      const upstream = connect(this.target, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {});
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this;
  }

  cut(): void {
    this.cutOff = true;
    for (const s of this.sockets) s.destroy();
  }

  restore(): void {
    this.cutOff = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
