// The frame every simulated BFCL API class fits into: an environment shared by the instances of one
// episode (its work budget, the long-context extension data, objects Python keeps at module level
// such as mutable default arguments), the class description the executor binds calls with (public
// method names and Python parameter lists), and the instance interface the state checker reads.
import { EnvLimit, PyException } from '../../../py/errors.js';
import { pyStr } from '../../../py/format.js';
import { PyDict, pyDeepCopy, type PyValue } from '../../../py/values.js';

/** Long-context extension constants (BFCL's long_context.py), parsed, by constant name. */
export interface LongContextData {
  readonly values: Readonly<Record<string, PyValue>>;
}

export const LONG_CONTEXT_KEYS = [
  'AUTOMOBILE_EXTENSION',
  'BOOKING_RECORD_EXTENSION',
  'CAR_STATUS_METADATA_EXTENSION',
  'CREDIT_CARD_EXTENSION',
  'FILES_TAIL_USED',
  'FILE_CONTENT_EXTENSION',
  'INTERMEDIARY_CITIES',
  'LONG_WEATHER_EXTENSION',
  'MA_20_EXTENSION',
  'MA_5_EXTENSION',
  'ORDER_DETAIL_EXTENSION',
  'PARKING_BRAKE_INSTRUCTION',
  'POPULATE_FILE_EXTENSION',
  'TECHNOLOGY_EXTENSION',
  'TRANSACTION_HISTORY_EXTENSION',
  'WATCH_LIST_EXTENSION',
] as const;
export type LongContextKey = (typeof LONG_CONTEXT_KEYS)[number];

export interface EnvOptions {
  /** Work units one episode may spend (calls, items visited, lines scanned); past it the grade is refused. */
  maxSteps?: number;
  longContext?: LongContextData;
  /** datetime.today() as [year, month, day] (default: the local date now, as Python's). */
  today?: () => [number, number, number];
}

export const DEFAULT_MAX_STEPS = 2_000_000;

/** Data an episode needs is not configured (the long-context extension): the grade is refused. */
export class MissingData extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingData';
  }
}

const DEFAULT_ACCOUNT = 'default';

/** One account of the work budget ran out: `account` says whose calls spent it (see BfclEnv.account). */
export class WorkBudgetExceeded extends EnvLimit {
  constructor(
    readonly account: string,
    readonly maxSteps: number,
  ) {
    super(`${account === DEFAULT_ACCOUNT ? 'the episode' : `the ${account}'s calls`} used more than max_steps=${maxSteps} work units`);
    this.name = 'WorkBudgetExceeded';
  }
}

/**
 * What one episode's instances share (Python's module globals of the API files). The work budget
 * is kept per account: each account (the model's side, the ground truth's) may spend max_steps,
 * so one side's work never runs the other out of budget.
 */
export class BfclEnv {
  readonly maxSteps: number;
  private readonly modules = new Map<string, unknown>();
  private readonly lc = new Map<string, PyValue>();
  private readonly used = new Map<string, number>();
  private active = DEFAULT_ACCOUNT;

  constructor(readonly options: EnvOptions = {}) {
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  }

  /** Spends `n` work units of the active account; throws WorkBudgetExceeded past the budget. */
  spend(n = 1): void {
    const u = (this.used.get(this.active) ?? 0) + n;
    this.used.set(this.active, u);
    if (u > this.maxSteps) throw new WorkBudgetExceeded(this.active, this.maxSteps);
  }

  /** Runs `fn` charging its work to `account`. */
  account<T>(account: string, fn: () => T): T {
    const before = this.active;
    this.active = account;
    try {
      return fn();
    } finally {
      this.active = before;
    }
  }

  /** Work units spent by one account (capped at the budget). */
  usedBy(account: string): number {
    return Math.min(this.used.get(account) ?? 0, this.maxSteps);
  }

  /** Work units spent by all accounts together. */
  get stepsUsed(): number {
    let n = 0;
    for (const k of this.used.keys()) n += this.usedBy(k);
    return n;
  }

  /** A module-level object, created once per episode. */
  shared<T>(key: string, make: () => T): T {
    if (!this.modules.has(key)) this.modules.set(key, make());
    return this.modules.get(key) as T;
  }

  /** A long-context constant (copied once per episode, so mutations stay inside it). */
  longContext(key: LongContextKey): PyValue {
    let v = this.lc.get(key);
    if (v === undefined) {
      const source = this.options.longContext?.values[key];
      if (source === undefined) throw new MissingData(`the long-context data has no ${key}`);
      v = pyDeepCopy(source);
      this.lc.set(key, v);
    }
    return v;
  }

  hasLongContext(): boolean {
    return this.options.longContext !== undefined;
  }

  today(): [number, number, number] {
    if (this.options.today) return this.options.today();
    const d = new Date();
    return [d.getFullYear(), d.getMonth() + 1, d.getDate()];
  }
}

/** A Python parameter: a name, and a default (a factory, so mutable defaults can be shared). */
export type Param = string | [string, (env: BfclEnv) => PyValue];

export interface MethodSpec<I> {
  params: readonly Param[];
  call(self: I, args: PyValue[]): PyValue;
}

/** One simulated API class. */
export interface ApiClass<I extends ApiInstance = ApiInstance> {
  /** Python class name, as in `involved_classes`. */
  readonly name: string;
  /** Stateless classes are not loaded from initial_config (BFCL's STATELESS_CLASSES). */
  readonly stateless?: boolean;
  /** Public methods, by name. */
  readonly methods: Readonly<Record<string, MethodSpec<I>>>;
  create(env: BfclEnv): I;
}

export abstract class ApiInstance {
  constructor(readonly env: BfclEnv) {}
  /** `_load_scenario(deepcopy(config), long_context)`. */
  abstract loadScenario(scenario: PyDict, longContext: boolean): void;
  /** The public instance attributes (vars() without `_` names), in assignment order. */
  abstract stateAttrs(): [string, PyValue][];
}

/** `scenario.get(key, default)`. */
export function getOr(scenario: PyDict, key: string, dflt: () => PyValue): PyValue {
  const v = scenario.get(key);
  return v === undefined ? dflt() : v;
}

/** A method spec from a parameter list and an implementation over the bound arguments. */
export function method<I>(params: readonly Param[], call: (self: I, args: PyValue[]) => PyValue): MethodSpec<I> {
  return { params, call };
}

function nameList(names: string[]): string {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0]!;
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
}

/** Binds positional and keyword arguments to a method's parameters as Python does, with its TypeErrors. */
export function bindArgs(qualname: string, spec: MethodSpec<unknown>, env: BfclEnv, positional: PyValue[], keywords: [string, PyValue][]): PyValue[] {
  const names = spec.params.map((p) => (typeof p === 'string' ? p : p[0]));
  const out: (PyValue | undefined)[] = new Array(names.length).fill(undefined);
  if (positional.length > names.length) {
    const required = spec.params.filter((p) => typeof p === 'string').length;
    const takes = required === names.length ? `${names.length + 1}` : `from ${required + 1} to ${names.length + 1}`;
    const plural = takes === '1' ? 'argument' : 'arguments';
    throw new PyException('TypeError', `${qualname}() takes ${takes} positional ${plural} but ${positional.length + 1} were given`);
  }
  positional.forEach((v, i) => {
    out[i] = v;
  });
  for (const [k, v] of keywords) {
    const i = names.indexOf(k);
    if (i < 0) throw new PyException('TypeError', `${qualname}() got an unexpected keyword argument '${k}'`);
    if (out[i] !== undefined) throw new PyException('TypeError', `${qualname}() got multiple values for argument '${k}'`);
    out[i] = v;
  }
  const missing: string[] = [];
  spec.params.forEach((p, i) => {
    if (out[i] !== undefined) return;
    if (typeof p === 'string') missing.push(p);
    else out[i] = p[1](env);
  });
  if (missing.length) {
    throw new PyException(
      'TypeError',
      `${qualname}() missing ${missing.length} required positional argument${missing.length > 1 ? 's' : ''}: ${nameList(missing)}`,
    );
  }
  return out as PyValue[];
}

/** An f-string piece: `str(v)`. */
export const f = (v: PyValue): string => pyStr(v);

/** A fresh dict from JS entries (string keys). */
export function dict(entries: Record<string, PyValue>): PyDict {
  return PyDict.of(Object.entries(entries));
}
