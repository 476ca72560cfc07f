// What the intrinsic-bonus graders (count_bonus, episodic_bonus, rnd_bonus) share, after
// RLeXplore's BaseReward: the state key of a step (a hashed field, or a per-step grader's score),
// running mean/std (OpenAI baselines' RunningMeanStd: mean 0, var 1, count 1e-4, batch-parallel
// update with the population variance), the scaling of a trajectory's raw bonuses ("rms": divided
// by the running std of the bonuses, or of their discounted returns with `gamma`; "minmax": to
// [0, 1] over the trajectory; "none"), the weight beta·(1-kappa)^n (n trajectories graded before),
// and the per-run state kept in memory and, with `state_file`, restored from and saved to a file.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { z } from 'zod';
import type { Grader, GraderContext } from '../../core/grader.js';
import type { BuildContext, CapabilityUse } from '../../core/registry.js';
import { GradeFailure } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { getPath } from '../../io/path.js';
import { gradeStep, type Step } from './steps.js';

export const keySchema = z.union([z.strictObject({ field: z.string().min(1) }), z.strictObject({ grader: z.record(z.string(), z.unknown()) })]);

/** Fields every bonus type has. */
export const bonusFields = {
  normalize: z.enum(['rms', 'minmax', 'none']).optional(),
  /** Discount of the intrinsic returns whose running std "rms" divides by (default: the bonuses' own std). */
  gamma: z.number().min(0).max(1).optional(),
  beta: z.number().finite().optional(),
  kappa: z.number().min(0).max(1).optional(),
  /** JSON file the run's state is restored from (when it exists) and saved to after each grade. */
  state_file: z.string().min(1).optional(),
};
export interface BonusConfig {
  normalize?: 'rms' | 'minmax' | 'none' | undefined;
  gamma?: number | undefined;
  beta?: number | undefined;
  kappa?: number | undefined;
  state_file?: string | undefined;
}

/** `state_file` reads and writes a file the operator names: never from a request's inline grader. */
export function bonusCapabilities(cfg: BonusConfig): readonly CapabilityUse[] {
  const pure: CapabilityUse = { capability: 'pure', field: '', reason: 'computes its score from the trajectory and its own run state' };
  if (cfg.state_file === undefined) return [pure];
  return [pure, { capability: 'unsafe', field: 'state_file', reason: `"state_file" reads and writes the file ${cfg.state_file}` }];
}

export interface RmsState {
  mean: number[];
  var: number[];
  count: number;
}

export const newRms = (dim: number): RmsState => ({ mean: new Array(dim).fill(0), var: new Array(dim).fill(1), count: 1e-4 });

/** Folds a batch of vectors into the running mean and (population) variance. */
export function updateRms(s: RmsState, batch: readonly (readonly number[])[]): void {
  const n = batch.length;
  if (n === 0) return;
  const dim = s.mean.length;
  for (let j = 0; j < dim; j++) {
    let m = 0;
    for (const x of batch) m += x[j]!;
    m /= n;
    let v = 0;
    for (const x of batch) v += (x[j]! - m) ** 2;
    v /= n;
    const delta = m - s.mean[j]!;
    const tot = s.count + n;
    const m2 = s.var[j]! * s.count + v * n + (delta * delta * s.count * n) / tot;
    s.mean[j] = s.mean[j]! + (delta * n) / tot;
    s.var[j] = m2 / tot;
  }
  s.count += n;
}

/** The run state every bonus keeps: trajectories graded, the reward scaler's statistics. */
export interface BaseState {
  graded: number;
  reward_rms: RmsState;
}

export const newBaseState = (): BaseState => ({ graded: 0, reward_rms: newRms(1) });

/** Scales a trajectory's raw bonuses as `normalize` says (updating the running statistics) and applies the weight. */
export function scaleBonuses(raw: readonly number[], cfg: BonusConfig, st: BaseState): number[] {
  const mode = cfg.normalize ?? 'rms';
  let out: number[];
  if (mode === 'none') out = [...raw];
  else if (mode === 'minmax') {
    const lo = Math.min(...raw);
    const hi = Math.max(...raw);
    out = raw.map((r) => (r - lo) / (hi - lo + 1e-11));
  } else {
    let ret = 0;
    const seen = cfg.gamma === undefined ? raw.map((r) => [r]) : raw.map((r) => [(ret = ret * cfg.gamma! + r)]);
    updateRms(st.reward_rms, seen);
    const sd = Math.sqrt(st.reward_rms.var[0]!);
    out = raw.map((r) => r / sd);
  }
  const w = (cfg.beta ?? 1) * (1 - (cfg.kappa ?? 0)) ** st.graded;
  st.graded += 1;
  return out.map((r) => r * w);
}

/** Canonical JSON (keys sorted) of a value: equal values give equal text. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** A step's state key: the SHA-256 (first 16 hex digits) of the canonical JSON of a field, or a grader's score. */
export type StateKey = (input: GradeInput, step: Step, t: number, ctx: GraderContext) => Promise<string>;

export function buildStateKey(key: z.infer<typeof keySchema>, b: BuildContext): StateKey {
  if ('grader' in key) {
    const g: Grader = b.child(key.grader, 'key.grader', 'key');
    return async (input, step, t, ctx) => `score:${await gradeStep(g, input, step, t, ctx, 'state key grader')}`;
  }
  const field = key.field;
  return async (_input, step, t) => {
    const v = getPath(step, field);
    if (v === undefined) throw new GradeFailure('bad_input', `step ${t} has no field "${field}" (the state key)`);
    return createHash('sha256').update(canonical(v)).digest('hex').slice(0, 16);
  };
}

/** The run state of one grader: kept in memory, restored from `file` on first use, saved after each grade. */
export class RunState<S extends BaseState> {
  private state: S | undefined;
  constructor(
    private readonly kind: string,
    private readonly file: string | undefined,
    private readonly fresh: () => S,
    private readonly check: (s: unknown) => s is S,
  ) {}

  get(): S {
    if (this.state) return this.state;
    if (this.file !== undefined && existsSync(this.file)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(this.file, 'utf8'));
      } catch (e) {
        throw new GradeFailure('config_error', `state_file ${this.file} could not be read: ${(e as Error).message}`);
      }
      const p = parsed as { kind?: unknown; state?: unknown };
      if (p?.kind !== this.kind || !this.check(p.state)) throw new GradeFailure('config_error', `state_file ${this.file} is not a ${this.kind} state`);
      this.state = p.state;
    } else this.state = this.fresh();
    return this.state;
  }

  save(): void {
    if (this.file === undefined || !this.state) return;
    const tmp = `${this.file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify({ kind: this.kind, state: this.state }));
    renameSync(tmp, this.file);
  }
}

const isNums = (x: unknown): x is number[] => Array.isArray(x) && x.every((v) => typeof v === 'number');
export const isRms = (x: unknown): x is RmsState => {
  const r = x as RmsState;
  return typeof r === 'object' && r !== null && isNums(r.mean) && isNums(r.var) && typeof r.count === 'number';
};
export const isBaseState = (x: unknown): x is BaseState => {
  const s = x as BaseState;
  return typeof s === 'object' && s !== null && typeof s.graded === 'number' && isRms(s.reward_rms);
};
