// Advantage-estimator configs: `{"estimator": "grpo", ...}` validated with zod (strict: unknown
// fields are refused), then checked for options that would have no effect with that estimator, and
// resolved into one flat structure with the trainers' defaults.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { ConfigError, type ConfigIssue } from '../core/errors.js';
import { parseJsonText } from '../config/load.js';
import { zodIssues } from '../core/registry.js';

/** Estimator names: verl's own (core_algos.AdvantageEstimator), verl-agent's `gigpo`, and TRL's GRPO. */
export const ESTIMATORS = ['grpo', 'rloo', 'opo', 'grpo_passk', 'reinforce_plus_plus', 'reinforce_plus_plus_baseline', 'gigpo', 'trl_grpo'] as const;
export type EstimatorName = (typeof ESTIMATORS)[number];

const streaming = {
  /** Lines per group (verl rollout.n, TRL num_generations): a group is complete once it has this many, so output streams. */
  group_size: z.number().int().min(1).max(1_000_000).optional(),
  /** Lines per training batch: consecutive chunks of this many lines are independent batches. */
  batch_size: z.number().int().min(1).max(100_000_000).optional(),
};
const groupOfOne = z.enum(['zero', 'trainer']).optional();
const eps = z.number().positive().max(1).optional();

const schemas = {
  grpo: z.strictObject({ estimator: z.literal('grpo'), epsilon: eps, norm_adv_by_std_in_grpo: z.boolean().optional(), group_of_one: groupOfOne, ...streaming }),
  grpo_passk: z.strictObject({ estimator: z.literal('grpo_passk'), epsilon: eps, norm_adv_by_std_in_grpo: z.boolean().optional(), ...streaming }),
  rloo: z.strictObject({ estimator: z.literal('rloo'), group_of_one: groupOfOne, ...streaming }),
  opo: z.strictObject({ estimator: z.literal('opo'), group_of_one: groupOfOne, ...streaming }),
  reinforce_plus_plus: z.strictObject({
    estimator: z.literal('reinforce_plus_plus'),
    gamma: z.number().min(0).max(1).optional(),
    batch_size: streaming.batch_size,
  }),
  reinforce_plus_plus_baseline: z.strictObject({
    estimator: z.literal('reinforce_plus_plus_baseline'),
    group_of_one: groupOfOne,
    batch_size: streaming.batch_size,
  }),
  gigpo: z.strictObject({
    estimator: z.literal('gigpo'),
    mode: z.enum(['mean_norm', 'mean_std_norm']).optional(),
    step_advantage_w: z.number().finite().optional(),
    gamma: z.number().min(0).max(1).optional(),
    epsilon: eps,
    enable_similarity: z.literal(false).optional(),
    group_of_one: groupOfOne,
    ...streaming,
  }),
  trl_grpo: z.strictObject({
    estimator: z.literal('trl_grpo'),
    scale_rewards: z.union([z.enum(['group', 'batch', 'none']), z.boolean()]).optional(),
    reward_weights: z.array(z.number().finite()).min(1).max(1000).optional(),
    multi_objective_aggregation: z.enum(['sum_then_normalize', 'normalize_then_sum']).optional(),
    /** Read the rewards from these components of each line (`components.<name>.score`) instead of `scores`. */
    reward_components: z.array(z.string().min(1)).min(1).max(1000).optional(),
    group_of_one: groupOfOne,
    ...streaming,
  }),
};

/** A validated config with every default filled in. */
export interface AdvantageConfig {
  estimator: EstimatorName;
  /** The config as written (for echoing back). */
  source: Record<string, unknown>;
  epsilon: number;
  /** grpo / grpo_passk: divide by the group std (false = Dr.GRPO). */
  normByStd: boolean;
  gamma: number;
  /** A group with one scorable line: advantage 0 (default) or the trainer's own arithmetic. */
  groupOfOne: 'zero' | 'trainer';
  groupSize?: number;
  batchSize?: number;
  /** 'group': each uid group is computed on its own (streams); 'batch': statistics span the batch. */
  scope: 'group' | 'batch';
  /** Emits token_advantages (one per response token). */
  tokenLevel: boolean;
  /** Needs response_length on every line. */
  needsLength: boolean;
  /** Needs uid on every line. */
  needsUid: boolean;
  // trl_grpo
  scaleRewards: 'group' | 'batch' | 'none';
  aggregation: 'sum_then_normalize' | 'normalize_then_sum';
  rewardWeights?: number[];
  rewardComponents?: string[];
  // gigpo
  mode: 'mean_norm' | 'mean_std_norm';
  stepAdvantageW: number;
}

const resolved = new WeakSet<object>();

/** True for a config returned by parseAdvantageConfig (never for a raw object). */
export function isAdvantageConfig(x: unknown): x is AdvantageConfig {
  return typeof x === 'object' && x !== null && resolved.has(x);
}

function fail(issues: ConfigIssue[], file?: string): never {
  throw new ConfigError(issues, file, 'advantage config');
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
  if (typeof name !== 'string' || !(ESTIMATORS as readonly string[]).includes(name)) {
    const what = name === undefined ? 'required field "estimator" is missing' : `unknown estimator ${JSON.stringify(name)}`;
    fail([{ path: 'estimator', message: `${what} (known: ${ESTIMATORS.join(', ')})` }], file);
  }
  const est = name as EstimatorName;
  if (est === 'gigpo' && obj.enable_similarity === true) {
    fail(
      [
        {
          path: 'enable_similarity',
          message: 'similarity-based step groups are not supported: anchor observations are grouped by exact equality (leave enable_similarity out or false)',
        },
      ],
      file,
    );
  }
  const parsed = schemas[est].safeParse(raw);
  if (!parsed.success) {
    // an option of another estimator is named as such, so "no effect here" is clear
    const extra: ConfigIssue[] = [];
    const rest = parsed.error.issues.filter((i) => {
      if (i.code !== 'unrecognized_keys' || i.path.length) return true;
      for (const k of i.keys) {
        const owners = ESTIMATORS.filter((e) => e !== est && k in schemas[e].shape);
        extra.push({
          path: k,
          message: owners.length
            ? `has no effect with ${est} (it is an option of ${owners.join(', ')})`
            : `unknown field for ${est} (its options: ${Object.keys(schemas[est].shape)
                .filter((x) => x !== 'estimator')
                .join(', ')})`,
        });
      }
      return false;
    });
    fail([...extra, ...zodIssues(new z.ZodError(rest), '')], file);
  }
  const c = parsed.data as Record<string, unknown>;
  const issues: ConfigIssue[] = [];

  let scaleRewards: AdvantageConfig['scaleRewards'] = 'group';
  const sr = c.scale_rewards;
  if (sr === true) scaleRewards = 'group';
  else if (sr === false) scaleRewards = 'none';
  else if (typeof sr === 'string') scaleRewards = sr as AdvantageConfig['scaleRewards'];
  const aggregation = (c.multi_objective_aggregation as AdvantageConfig['aggregation'] | undefined) ?? 'sum_then_normalize';
  if (est === 'trl_grpo') {
    if (aggregation === 'normalize_then_sum' && sr !== undefined) {
      issues.push({
        path: 'scale_rewards',
        message:
          'has no effect with multi_objective_aggregation "normalize_then_sum" (TRL normalises each reward per group, then the sum over the batch); leave it out',
      });
    }
    const w = c.reward_weights as number[] | undefined;
    const comps = c.reward_components as string[] | undefined;
    if (w && comps && w.length !== comps.length)
      issues.push({ path: 'reward_weights', message: `has ${w.length} weights but reward_components names ${comps.length} rewards` });
    if (comps && new Set(comps).size !== comps.length) issues.push({ path: 'reward_components', message: 'names a component twice' });
  }

  let scope: AdvantageConfig['scope'] = 'group';
  if (est === 'reinforce_plus_plus' || est === 'reinforce_plus_plus_baseline') scope = 'batch';
  if (est === 'trl_grpo' && (aggregation === 'normalize_then_sum' || scaleRewards === 'batch')) scope = 'batch';
  if (scope === 'batch' && c.group_size !== undefined) {
    issues.push({
      path: 'group_size',
      message: `has no effect: ${est}${est === 'trl_grpo' ? ` with ${aggregation === 'normalize_then_sum' ? 'normalize_then_sum' : 'scale_rewards "batch"'}` : ''} uses statistics over the whole batch, so no group can be finished early (set batch_size to bound memory)`,
    });
  }
  if (est === 'gigpo' && c.group_size !== undefined) {
    issues.push({
      path: 'group_size',
      message: 'has no effect: a GiGPO group holds every step of every trajectory of a prompt, so its line count varies (set batch_size to bound memory)',
    });
  }
  if (issues.length) fail(issues, file);

  const defaultsEps = est === 'trl_grpo' ? 1e-4 : 1e-6;
  const cfg: AdvantageConfig = {
    estimator: est,
    source: { ...obj },
    epsilon: (c.epsilon as number | undefined) ?? defaultsEps,
    normByStd: (c.norm_adv_by_std_in_grpo as boolean | undefined) ?? true,
    gamma: (c.gamma as number | undefined) ?? 1.0,
    groupOfOne: (c.group_of_one as 'zero' | 'trainer' | undefined) ?? 'zero',
    scope,
    tokenLevel: est === 'reinforce_plus_plus' || est === 'reinforce_plus_plus_baseline',
    needsLength: est === 'opo' || est === 'reinforce_plus_plus' || est === 'reinforce_plus_plus_baseline',
    needsUid: est !== 'reinforce_plus_plus',
    scaleRewards,
    aggregation,
    mode: (c.mode as AdvantageConfig['mode'] | undefined) ?? 'mean_norm',
    stepAdvantageW: (c.step_advantage_w as number | undefined) ?? 1.0,
  };
  if (c.group_size !== undefined) cfg.groupSize = c.group_size as number;
  if (c.batch_size !== undefined) cfg.batchSize = c.batch_size as number;
  if (c.reward_weights !== undefined) cfg.rewardWeights = c.reward_weights as number[];
  if (c.reward_components !== undefined) cfg.rewardComponents = c.reward_components as string[];
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
