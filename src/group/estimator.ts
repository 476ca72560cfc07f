// The contract of an advantage estimator and the registry every estimator declares itself in: its
// name, the zod shape of its own options, how it reads a line, and its compute function (one group
// at a time, or a whole batch). Config parsing, line reading, streaming and the contract tests all
// go through this registry; adding an estimator is one file in ./estimators/ plus one line in
// ./estimators/index.ts.
import type { z } from 'zod';
import type { ConfigIssue } from '../core/errors.js';
import type { AdvantageConfig } from './config.js';
import type { Row } from './rows.js';

export interface Estimator<O = Record<string, unknown>> {
  /** The config's `estimator` value (the trainer's own name). */
  name: string;
  /** One line: what the advantage of a line is. */
  summary: string;
  /** Where the definition comes from (trainer file and function). */
  source: string;
  /** The estimator's own options (each optional), beside the common ones (group_size, batch_size, filters). */
  options: z.ZodRawShape;
  /** Accepts `group_of_one` ("zero" | "trainer"); default true. */
  groupOfOne?: boolean;
  /**
   * Why `group_size` has no effect with these options (then it is refused with this text), or
   * undefined when it applies. Default: refused when the scope is "batch".
   */
  groupSizeRefusal?(options: O): string | undefined;
  /** Accepts the group filters (filter_groups, rollout_filter_*); default true. */
  filters?: boolean;
  /** Cross-field checks on the parsed options (each problem names its field). */
  check?(raw: Record<string, unknown>): ConfigIssue[];
  /** The options with every default filled in. */
  resolve(raw: Record<string, unknown>): O;
  /** 'group': each uid group is computed on its own (streams); 'batch': statistics span the batch. */
  scope: 'group' | 'batch' | ((options: O) => 'group' | 'batch');
  /** Emits `token_advantages` (one per response token). */
  tokenLevel?: boolean;
  /** Needs `response_length` on every line. */
  needsLength?: boolean;
  /** Needs `uid` on every line (default true). */
  needsUid?: boolean;
  /** Input fields it reads besides uid, score, valid and components (`arbiter score --advantages` carries them). */
  reads?: readonly string[];
  /**
   * Reads the reward fields of a record (after uid and response_length) into `row`; default:
   * `readScore` (`score`, with `valid: false` / `score: null` an invalid grade). Returns the row,
   * masked (badRow) when a field is malformed.
   */
  read?(rec: Record<string, unknown>, row: Row, cfg: AdvantageConfig<O>): Row;
  /** Computes one uid group (scope "group"): sets `adv` on the live rows, masks the rest. */
  group?(rows: Row[], cfg: AdvantageConfig<O>): void;
  /** Computes a batch (scope "batch"). Default: `group` over each uid group. */
  batch?(rows: Row[], cfg: AdvantageConfig<O>): void;
}

const registry = new Map<string, Estimator<never>>();

/** Declares an estimator (one call per estimator file); a second one with the same name is a bug. */
export function defineEstimator<O>(e: Estimator<O>): Estimator<O> {
  if (registry.has(e.name)) throw new Error(`advantage estimator "${e.name}" is defined twice`);
  if (!e.group && !e.batch) throw new Error(`advantage estimator "${e.name}" has neither a group nor a batch function`);
  registry.set(e.name, e as unknown as Estimator<never>);
  return e;
}

export function getEstimator(name: string): Estimator | undefined {
  return registry.get(name) as Estimator | undefined;
}

/** Every registered estimator name, in registration order. */
export function estimatorNames(): string[] {
  return [...registry.keys()];
}

/** Every registered estimator (the contract suite runs over these). */
export function estimators(): Estimator[] {
  return [...registry.values()] as unknown as Estimator[];
}
