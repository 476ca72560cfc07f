// Starts `arbiter serve` or `arbiter env serve` (the built CLI) as a child process on a free port and waits for its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  stderr(): string;
  /** What it printed on stdout so far (the JSON log lines of --log-level). */
  stdout(): string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function serve(args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  return serveCommand(['serve'], args, env);
}

/** Any CLI server command (`['serve']`, `['env', 'serve']`) that prints "listening on URL" on stderr. */
export function serveCommand(command: string[], args: string[], env: Record<string, string> = {}): Promise<ServeProcess> {
  const what = `arbiter ${command.join(' ')}`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...command, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let err = '';
    let out = '';
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${what} did not start in time: ${err}`));
    }, 30_000);
    child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      const m = /listening on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          url: m[1]!,
          stderr: () => err,
          stdout: () => out,
          stop: (signal = 'SIGTERM') => {
            child.kill(signal);
            return exited;
          },
        });
      }
    });
    child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`${what} exited with ${code}: ${err}`), { code, stderr: err }));
    });
  });
}
