// Start-up at load for the commands that grade (score, eval, search, worker): their graders'
// tokenizers, language profiles and worker threads are started and warmed before the first record
// (core/startup.ts), so no grade pays for them inside its timeout_ms; `--verbose` prints the time.
import type { Grader } from '../core/grader.js';
import type { Services } from '../core/services.js';
import { formatStartup, warmGrader, type StartupItem } from '../core/startup.js';

/** The `--verbose` option of a grading command: `.option(...VERBOSE_OPTION)`. */
export const VERBOSE_OPTION = ['--verbose', "print the graders' start-up time (tokenizers, worker threads; never counted in a timeout_ms) on stderr"] as const;

/**
 * Warms every grader with these services (`deadline`: their grades run under a deadline, as a
 * queue worker's do) and, when `verbose`, prints what was started and how long it took.
 */
export async function startGraders(
  graders: readonly (Grader | undefined)[],
  services: Services,
  opts: { verbose?: boolean; deadline?: boolean; prefix?: string } = {},
): Promise<void> {
  const t0 = performance.now();
  const items: StartupItem[] = [];
  for (const g of graders) if (g) items.push(...(await warmGrader(g, services, { deadline: opts.deadline === true })).items);
  if (opts.verbose) process.stderr.write(`${opts.prefix ?? 'arbiter'}: ${formatStartup({ ms: Math.round(performance.now() - t0), items })}\n`);
}
