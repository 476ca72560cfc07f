// Advantage configs: `{"estimator": "grpo", ...}` validated with zod against the registered
// estimator's own options plus the common ones (group_size, batch_size, group_of_one, the group
// filters), strict (unknown fields are refused, an option of another estimator is named as such),
// and resolved into one structure with the trainers' defaults.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { parseJsonText } from '../config/load.js';
import { zodIssues } from '../core/registry.js';
import { estimatorNames, estimators, getEstimator, type Estimator } from './estimator.js';
import './estimators/index.js';

/** Estimator names, in registration order (see src/group/estimators/index.ts). */
export const ESTIMATORS: readonly string[] = estimatorNames();
export type EstimatorName = string;

/** Options every estimator takes (group_of_one only where the estimator declares it). */
const COMMON = {
  /** Lines per group (verl rollout.n, TRL num_generations): a group is complete once it has this many, so output streams. */
  group_size: z.number().int().min(1).max(1_000_000).optional(),
  /** Lines per training batch: consecutive chunks of this many lines are independent batches. */
  batch_size: z.number().int().min(1).max(100_000_000).optional(),
  /** verl DAPO dynamic sampling (algorithm.filter_groups): drop groups whose metric is the same on every line. */
  filter_groups: z
    .strictObject({
      enable: z.boolean(),
      metric: z.string().min(1).optional(),
      max_num_gen_batches: z.number().int().optional(),
    })
    .optional(),
  /** RAGEN StarPO-S (actor_rollout_ref.rollout.rollout_filter_ratio): keep this fraction of the batch's groups by reward std. */
  rollout_filter_ratio: z.number().gt(0).max(1).optional(),
  rollout_filter_type: z.enum(['std', 'std_rev']).optional(),
};
const GROUP_OF_ONE = { group_of_one: z.enum(['zero', 'trainer']).optional() };

/** The group filters of a config, resolved. */
export interface GroupFilters {
  /** DAPO: drop a group whose `metric` is equal on every scorable line ("score", a component name, or a numeric field). */
  equal?: { metric: string };
  /** StarPO-S: keep floor(ratio × groups) groups of the batch with the highest (std) or lowest (std_rev) score std. */
  top?: { ratio: number; type: 'std' | 'std_rev' };
}

/** A validated config with every default filled in. */
export interface AdvantageConfig<O = Record<string, unknown>> {
  estimator: string;
  /** The registered estimator. */
  spec: Estimator<O>;
  /** Its own options, defaults filled in. */
  options: O;
  /** The config as written (for echoing back). */
  source: Record<string, unknown>;
  /** A group with one scorable line: advantage 0 (default) or the trainer's own arithmetic. */
  groupOfOne: 'zero' | 'trainer';
  groupSize?: number;
  batchSize?: number;
  /** 'group': each uid group is computed on its own (streams); 'batch': the batch is held (statistics, or a filter, span it). */
  scope: 'group' | 'batch';
  tokenLevel: boolean;
  needsLength: boolean;
  needsUid: boolean;
  filters: GroupFilters;
}

const resolved = new WeakSet<object>();

/** True for a config returned by parseAdvantageConfig (never for a raw object). */
export function isAdvantageConfig(x: unknown): x is AdvantageConfig {
  return typeof x === 'object' && x !== null && resolved.has(x);
}

function fail(issues: ConfigIssue[], file?: string): never {
  throw new ConfigError(issues, file, 'advantage config');
}

function schemaOf(e: Estimator) {
  return z.strictObject({ estimator: z.literal(e.name), ...COMMON, ...(e.groupOfOne === false ? {} : GROUP_OF_ONE), ...e.options });
}

/** The estimators other than `est` that take option `k`. */
function ownersOf(k: string, est: string): string[] {
  return estimators()
    .filter((e) => e.name !== est && (k in e.options || (k === 'group_of_one' && e.groupOfOne !== false)))
    .map((e) => e.name);
}

/** Validates an advantage config object; throws ConfigError naming every problem's field. */
export function parseAdvantageConfig(raw: unknown, file?: string): AdvantageConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    fail(
      [{ path: '', message: `an advantage config must be a JSON object, got ${Array.isArray(raw) ? 'an array' : raw === null ? 'null' : typeof raw}` }],
      file,
    );
  const obj = raw as Record<string, unknown>;
  const name = obj.estimator;
  const spec = typeof name === 'string' ? getEstimator(name) : undefined;
  if (!spec) {
    const what = name === undefined ? 'required field "estimator" is missing' : `unknown estimator ${JSON.stringify(name)}`;
    fail([{ path: 'estimator', message: `${what} (known: ${estimatorNames().join(', ')})` }], file);
  }
  const est = spec.name;
  const schema = schemaOf(spec);
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    // an option of another estimator is named as such, so "no effect here" is clear
    const extra: ConfigIssue[] = [];
    const rest = parsed.error.issues.filter((i) => {
      if (i.code !== 'unrecognized_keys' || i.path.length) return true;
      for (const k of i.keys) {
        const owners = ownersOf(k, est);
        extra.push({
          path: k,
          message: owners.length
            ? `has no effect with ${est} (it is an option of ${owners.join(', ')})`
            : `unknown field for ${est} (its options: ${Object.keys(schema.shape)
                .filter((x) => x !== 'estimator')
                .join(', ')})`,
        });
      }
      return false;
    });
    fail([...extra, ...zodIssues(new z.ZodError(rest), '')], file);
  }
  const c = parsed.data as Record<string, unknown>;
  const issues: ConfigIssue[] = spec.check ? spec.check(c) : [];
  if (issues.length) fail(issues, file);
  const options = spec.resolve(c);

  // the group filters
  const filters: GroupFilters = {};
  const fg = c.filter_groups as { enable: boolean; metric?: string; max_num_gen_batches?: number } | undefined;
  if (fg?.max_num_gen_batches !== undefined)
    issues.push({
      path: 'filter_groups.max_num_gen_batches',
      message:
        "has no effect here: it bounds how often verl re-generates to refill the batch, and arbiter grades the lines it is given (the dropped groups are reported; re-generating is the trainer's loop)",
    });
  if (fg && !fg.enable && fg.metric !== undefined) issues.push({ path: 'filter_groups.metric', message: 'has no effect while filter_groups.enable is false' });
  if (fg?.enable) filters.equal = { metric: fg.metric ?? 'score' };
  const ratio = c.rollout_filter_ratio as number | undefined;
  if (c.rollout_filter_type !== undefined && ratio === undefined)
    issues.push({ path: 'rollout_filter_type', message: 'has no effect without rollout_filter_ratio' });
  // RAGEN: a ratio of 1 keeps every group
  if (ratio !== undefined && ratio < 1) filters.top = { ratio, type: (c.rollout_filter_type as 'std' | 'std_rev' | undefined) ?? 'std' };
  if (spec.filters === false && (filters.equal || ratio !== undefined))
    issues.push({
      path: filters.equal ? 'filter_groups' : 'rollout_filter_ratio',
      message: `has no effect with ${est}: ${spec.needsUid === false ? 'it does not group lines by uid' : 'its groups are not one score per line (they hold the steps of several trajectories)'}`,
    });

  const own = typeof spec.scope === 'function' ? spec.scope(options) : spec.scope;
  const scope: AdvantageConfig['scope'] = own === 'batch' || filters.top ? 'batch' : 'group';
  if (c.group_size !== undefined) {
    const why = spec.groupSizeRefusal
      ? spec.groupSizeRefusal(options)
      : own === 'batch'
        ? `${est} uses statistics over the whole batch, so no group can be finished early (set batch_size to bound memory)`
        : undefined;
    if (why) issues.push({ path: 'group_size', message: `has no effect: ${why}` });
    else if (filters.top)
      issues.push({
        path: 'group_size',
        message: 'has no effect: rollout_filter_ratio ranks the groups of the whole batch, so no group can be finished early (set batch_size to bound memory)',
      });
  }
  if (issues.length) fail(issues, file);

  const cfg: AdvantageConfig = {
    estimator: est,
    spec,
    options,
    source: { ...obj },
    groupOfOne: (c.group_of_one as 'zero' | 'trainer' | undefined) ?? 'zero',
    scope,
    tokenLevel: spec.tokenLevel === true,
    needsLength: spec.needsLength === true,
    needsUid: spec.needsUid !== false,
    filters,
  };
  if (c.group_size !== undefined) cfg.groupSize = c.group_size as number;
  if (c.batch_size !== undefined) cfg.batchSize = c.batch_size as number;
  resolved.add(cfg);
  return cfg;
}

/** Reads and validates an advantage config file (JSON); errors name the file, line and field. */
export async function loadAdvantageConfigFile(file: string): Promise<AdvantageConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    fail([{ path: '', message: `cannot read advantage config file: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` }], file);
  }
  let raw: unknown;
  try {
    raw = parseJsonText(text, file);
  } catch (e) {
    if (e instanceof ConfigError) fail(e.issues, file);
    throw e;
  }
  return parseAdvantageConfig(raw, file);
}
