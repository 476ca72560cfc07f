// The V8 flags `arbiter serve` runs under, and the re-start of the command in a node process that
// has them. V8 sizes its young generation when the process starts (v8.setFlagsFromString cannot
// change it later), and the server's per-request garbage is collected faster with a larger
// semi-space: with node's default the young generation stays small and is scavenged about every 30
// ms under load (node --trace-gc; docs/server.md, "The fourth round"). Flags the user gave node (its
// command line or NODE_OPTIONS) for the same setting are kept as given and nothing is re-started.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** What `arbiter serve` adds to node's flags (the largest semi-space of the young generation, in MB). */
export const SERVE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** The setting a flag changes (`--max-semi-space-size=64` → `max-semi-space-size`; `_` and `-` alike). */
function settingOf(flag: string): string {
  return flag.replace(/^--?/, '').split('=')[0]!.replace(/_/g, '-');
}

/** The flags of `flags` whose setting node was not already given (its command line, NODE_OPTIONS). */
export function missingNodeFlags(
  flags: readonly string[],
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter((a) => a.startsWith('-')).map(settingOf));
  return flags.filter((f) => !given.has(settingOf(f)));
}

/**
 * Runs this command again in a node process with `flags` added, when node lacks any of them; the
 * new process's exit (code or signal) becomes this one's, SIGINT/SIGTERM/SIGHUP are passed on to
 * it, and it exits by itself if this process dies (its IPC channel closes). Resolves false, doing
 * nothing, when node already has every flag's setting: the caller goes on in this process.
 */
export function restartWithNodeFlags(flags: readonly string[]): Promise<boolean> {
  const missing = missingNodeFlags(flags);
  if (!missing.length) return Promise.resolve(false);
  const child = spawn(process.execPath, [...process.execArgv, ...missing, ...process.argv.slice(1)], {
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    // its own process group: a Ctrl-C reaches it once, passed on from here, not also from the terminal
    detached: true,
    env: { ...process.env, ARBITER_PARENT_WATCH: '1' },
  });
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  for (const s of signals) process.on(s, () => child.kill(s));
  return new Promise<boolean>(() => {
    child.on('error', (e) => {
      process.stderr.write(`arbiter: could not start node with ${missing.join(' ')}: ${e.message}\n`);
      process.exit(1);
    });
    child.on('exit', (code, signal) => {
      if (!signal) process.exit(code ?? 1);
      // ended by a signal: so does this process (its handlers gone, the default action ends it);
      // should the signal not end it (ignored by the parent's disposition), it exits as a shell
      // reports a signal's end, 128 + the signal's number
      for (const s of signals) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      setImmediate(() => process.exit(128 + (constants.signals[signal] ?? 0)));
    });
  });
}

/** In a process started by restartWithNodeFlags: stops (SIGTERM to itself) when the process that started it is gone. */
export function stopWithParent(): void {
  if (process.env.ARBITER_PARENT_WATCH !== '1' || !process.send) return;
  delete process.env.ARBITER_PARENT_WATCH;
  // as if it had been sent SIGTERM (the server finishes what is in flight and exits)
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  // the channel must not keep the server alive by itself, nor stop it from exiting
  process.channel?.unref();
}
