// Graceful shutdown on SIGTERM/SIGINT: stop accepting, finish in-flight requests (bounded by a
// grace period), close services, exit. A second signal exits at once.
import type { ArbiterServer } from './app.js';

export function closeOnSignals(server: ArbiterServer, opts: { graceMs: number; log?: (msg: string) => void; exit?: (code: number) => void }): () => void {
  const log = opts.log ?? ((m: string) => process.stderr.write(m + '\n'));
  const exit = opts.exit ?? ((c: number) => process.exit(c));
  let stopping = false;
  const onSignal = (sig: NodeJS.Signals) => {
    if (stopping) {
      log(`arbiter serve: ${sig} again, exiting now`);
      exit(1);
      return;
    }
    stopping = true;
    log(`arbiter serve: ${sig} received, finishing in-flight requests (up to ${Math.round(opts.graceMs / 1000)} s)`);
    const timer = setTimeout(() => {
      log('arbiter serve: grace period over, exiting with requests still running');
      exit(1);
    }, opts.graceMs);
    timer.unref();
    server.close().then(
      () => {
        clearTimeout(timer);
        log('arbiter serve: stopped');
        exit(0);
      },
      (e: Error) => {
        log(`arbiter serve: error while closing: ${e.message}`);
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
