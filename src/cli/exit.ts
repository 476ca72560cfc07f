// Exit codes that scripts can trust, and turning known errors into one clear message.
import { ConfigError } from '../core/errors.js';
import { IoError } from '../io/errors.js';

export const EXIT = {
  /** The run completed (invalid samples included). */
  OK: 0,
  /** Unexpected internal failure. */
  INTERNAL: 1,
  /** Bad usage, bad grader config, unreadable input or unwritable output. */
  USAGE: 2,
  /** `validate` found problems. */
  INVALID: 3,
  /** `score` stopped by SIGINT (128 + 2): the output is complete up to the summary's count. */
  SIGINT: 130,
  /** `score` stopped by SIGTERM (128 + 15). */
  SIGTERM: 143,
  /** `monitor --fail-on-alert`: a monitor alerted. */
  ALERT: 4,
  /** `sandbox check`: the sandbox cannot run programs on this machine. */
  SANDBOX_UNUSABLE: 5,
  /** `score`: the run completed but no record got a valid grade (nothing to train on). */
  ALL_INVALID: 6,
  /** `score --stop-after-errors N`: stopped after N records in a row failed with the same setup error; the output is a prefix (--resume continues). */
  STOPPED_ON_ERRORS: 7,
  /** `score --max-invalid F`: the run completed, but more than the fraction F of its records are invalid. */
  TOO_MANY_INVALID: 8,
} as const;

/** Prints a known error and exits; rethrows nothing. */
export function die(e: unknown): never {
  if (e instanceof ConfigError || e instanceof IoError) {
    process.stderr.write(`arbiter: ${e.message}\n`);
    process.exit(EXIT.USAGE);
  }
  process.stderr.write(`arbiter: internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(EXIT.INTERNAL);
}
