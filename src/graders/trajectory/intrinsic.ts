// What the intrinsic-bonus graders (count_bonus, episodic_bonus, rnd_bonus) share, after
// RLeXplore's BaseReward: the state key of a step (a hashed field, or a per-step grader's score),
// running mean/std (OpenAI baselines' RunningMeanStd: mean 0, var 1, count 1e-4, batch-parallel
// update with the population variance), the scaling of a trajectory's raw bonuses ("rms": divided
// by the running std of the bonuses, or of their discounted returns with `gamma`; "minmax": to
// [0, 1] over the trajectory; "none"), the weight beta·(1-kappa)^n (n trajectories graded before),
// and the per-run state kept in memory and, with `state_file`, restored from and saved to a file
// (asynchronous coalesced writes, flushed when the services close).
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import type { Grader, GraderContext } from '../../core/grader.js';
import type { BuildContext, CapabilityUse } from '../../core/registry.js';
import { GradeFailure } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import type { Services } from '../../core/services.js';
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
  /** JSON file the run's state is restored from (when it exists) and saved to after each grade (asynchronously; see RunState). */
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

/** Run states with changes not yet on disk: written synchronously if the process exits first. */
const unsaved = new Set<RunState<BaseState>>();
let exitHooked = false;
let writes = 0;
let instances = 0;
const tmpName = (file: string) => `${file}.tmp-${process.pid}-${++writes}`;

/**
 * The run state of one grader: kept in memory, restored from `file` on first use, saved after each
 * grade. Saving is asynchronous and coalesced: at most one write in flight; grades that finish
 * while it runs are written together by the next one, which takes the latest state. Each write is
 * atomic (a temporary file renamed over `file`), so the file always holds a whole state. `flush`
 * (called by `Services.close()`, which every command and the server call at their end) waits for
 * the last write; a process that exits without it writes the latest state synchronously on
 * `exit`. A crash (SIGKILL, power loss) loses the grades since the last completed write: a restart
 * continues from that earlier state. A write that fails makes every later grade of this grader
 * invalid (`config_error`) and `flush` reject (closing the services then warns on stderr).
 */
export class RunState<S extends BaseState> {
  private state: S | undefined;
  private dirty = false;
  private writing: Promise<void> | undefined;
  private failed: Error | undefined;
  private readonly id = ++instances;
  constructor(
    private readonly kind: string,
    private readonly file: string | undefined,
    private readonly fresh: () => S,
    /** The state from its stored form, or undefined when it is not one. */
    private readonly decode: (stored: unknown) => S | undefined,
    /** The stored (JSON) form of the state. */
    private readonly encode: (s: S) => unknown = (s) => s,
  ) {}

  get(): S {
    if (this.failed) throw new GradeFailure('config_error', `state_file ${this.file} could not be saved: ${this.failed.message}`);
    if (this.state) return this.state;
    if (this.file !== undefined && existsSync(this.file)) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(this.file, 'utf8'));
      } catch (e) {
        throw new GradeFailure('config_error', `state_file ${this.file} could not be read: ${(e as Error).message}`);
      }
      const p = parsed as { kind?: unknown; state?: unknown };
      const st = p?.kind === this.kind ? this.decode(p.state) : undefined;
      if (!st) throw new GradeFailure('config_error', `state_file ${this.file} is not a ${this.kind} state`);
      this.state = st;
    } else this.state = this.fresh();
    return this.state;
  }

  /** Schedules a write of the current state; `services` closing flushes it. */
  save(services: Services): void {
    if (this.file === undefined || !this.state) return;
    // a failed last write has no grade left to fail: the operator is told on stderr
    services.get(
      `run-state:${this.id}`,
      () => this,
      (r) => r.flush().catch((e: Error) => process.emitWarning(e.message)),
    );
    this.dirty = true;
    unsaved.add(this as unknown as RunState<BaseState>);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', () => {
        for (const r of unsaved) r.writeNow();
      });
    }
    this.writing ??= this.writeLoop();
  }

  /** Resolves when the latest state is on disk; rejects when a write failed. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed) throw new Error(`state_file ${this.file} could not be saved: ${this.failed.message}`);
  }

  private text(): string {
    return JSON.stringify({ kind: this.kind, state: this.encode(this.state!) });
  }

  private async writeLoop(): Promise<void> {
    const file = this.file!;
    try {
      // grades finishing in the same turn of the event loop share this write
      await Promise.resolve();
      while (this.dirty && !this.failed) {
        this.dirty = false;
        const tmp = tmpName(file);
        try {
          await writeFile(tmp, this.text());
          await rename(tmp, file);
        } catch (e) {
          this.failed = e as Error;
          await rm(tmp, { force: true }).catch(() => {});
        }
      }
    } finally {
      this.writing = undefined;
      if (!this.dirty || this.failed) unsaved.delete(this as unknown as RunState<BaseState>);
    }
  }

  /** The synchronous last write, at process exit. */
  private writeNow(): void {
    if (!this.dirty || this.failed) return;
    const tmp = tmpName(this.file!);
    try {
      writeFileSync(tmp, this.text());
      renameSync(tmp, this.file!);
      this.dirty = false;
    } catch {
      // exiting: nothing left to report to
    }
  }
}

/** A stored state that is used as it is, when `is` accepts it. */
export const stored =
  <S>(is: (x: unknown) => x is S) =>
  (x: unknown): S | undefined =>
    is(x) ? x : undefined;

const isNums = (x: unknown): x is number[] => Array.isArray(x) && x.every((v) => typeof v === 'number');
export const isRms = (x: unknown): x is RmsState => {
  const r = x as RmsState;
  return typeof r === 'object' && r !== null && isNums(r.mean) && isNums(r.var) && typeof r.count === 'number';
};
export const isBaseState = (x: unknown): x is BaseState => {
  const s = x as BaseState;
  return typeof s === 'object' && s !== null && typeof s.graded === 'number' && isRms(s.reward_rms);
};
