// BFCL's multi_turn_checker over arbiter's simulated APIs: the model's and the ground truth's calls
// run turn by turn on two sets of instances of one episode; after each turn with ground-truth calls
// the model must have made calls (empty_turn_model_response), every involved instance's public
// attributes must equal the ground truth's (instance_state_mismatch), and the ground truth's
// results of the turn must all be among the model's results so far, as a multiset
// (execution_response_mismatch). The first failing turn decides, as in BFCL; the later turns are
// still checked to give per-turn steps. Optionally the irrelevance rule BFCL once applied: no calls
// in a turn whose ground truth is empty.
//
// Whose fault a refusal is decides the grade: what the model's output or calls cause (a call arbiter
// cannot evaluate, a value or work limit the model's calls reach, an output that does not decode)
// fails the entry at the turn it happens, a valid 0 naming the call; the ground truth is still run
// to the end, so a ground truth or item that cannot be run stays an invalid grade whatever the model did.
import { type BfclEnv, WorkBudgetExceeded } from './apis/api.js';
import { Directory, File } from './apis/classes/gorilla-file-system.js';
import { Side } from './apis/executor.js';
import { EnvLimit, PyException, Unsupported } from '../../py/errors.js';
import { pyRepr } from '../../py/format.js';
import { PyDict, pyEq, PyTuple, type PyValue } from '../../py/values.js';
import type { DecodedTurn } from './decode.js';

export const ERR = {
  empty: 'multi_turn:empty_turn_model_response',
  state: 'multi_turn:instance_state_mismatch',
  response: 'multi_turn:execution_response_mismatch',
  force: 'multi_turn:force_terminated',
  inference: 'multi_turn:inference_error',
  irrelevance: 'multi_turn:irrelevance_error:decoder_success',
  /** arbiter's: a model call uses Python arbiter does not evaluate (a builtin, a lambda, ...). */
  unevaluable: 'arbiter:model_call_not_evaluated',
  /** arbiter's: the model's output or calls went over a limit (calls per turn, call size, values, work). */
  limit: 'arbiter:model_limit_exceeded',
  /** arbiter's: the model's output does not decode into calls (a malformed tool call). */
  malformed: 'arbiter:model_output_malformed',
} as const;

/** Work-budget accounts of the two sides (BfclEnv.account). */
export const MODEL_ACCOUNT = 'model';
export const GT_ACCOUNT = 'ground truth';

/** The model's budget ran out: its fault only when max_steps is at least this many times what the ground truth needs. */
export const BUDGET_FACTOR = 10;

/** Something the model's output or calls caused that stops the check (a valid 0 at `turn`). */
export interface ModelFault {
  turn: number;
  type: string;
  message: string;
  /** The model call it happened in. */
  call?: string;
  /** The model's side ran out of its work budget. */
  budget?: boolean;
}

export interface TurnResult {
  turn: number;
  /** Ground-truth calls of the turn. */
  gt_calls: number;
  /** Model calls of the turn (after decoding). */
  model_calls: number;
  passed: boolean;
  error_type?: string;
  /** State differences: class -> attribute -> {model, ground_truth} (reprs, shortened). */
  differences?: Record<string, Record<string, { model: string; ground_truth: string }>>;
  /** Ground-truth results the model's results lacked (shortened). */
  missing?: string[];
}

export interface CheckResult {
  valid: boolean;
  error_type?: string;
  error_message?: string;
  failed_turn?: number;
  turns: TurnResult[];
  /** When checking the model's side stopped early (a model call that could not be evaluated, a limit). */
  stopped?: { turn: number; reason: string; call?: string };
}

export interface CheckInput {
  env: BfclEnv;
  model: DecodedTurn[];
  groundTruth: string[][];
  involvedClasses: readonly string[];
  scenario(className: string): PyValue | undefined;
  longContext: boolean;
  modelName: string;
  entryId: string;
  irrelevanceCheck: boolean;
  /** A fault found before anything ran (the output does not decode, a limit): only the ground truth runs. */
  fault?: ModelFault;
}

const SHOW = 300;
const short = (s: string): string => (s.length > SHOW ? `${s.slice(0, SHOW)}…` : s);

function reprShort(v: PyValue): string {
  try {
    return short(pyRepr(v));
  } catch (e) {
    if (e instanceof PyException || e instanceof EnvLimit) return `<${e instanceof PyException ? e.type : 'too large'}>`;
    throw e;
  }
}

/** `_is_subsequence_unordered(gt, model)`: the gt items not found (each model item used once). */
function missingItems(gt: readonly string[], model: readonly string[]): string[] {
  const pool = new Map<string, number>();
  for (const m of model) pool.set(m, (pool.get(m) ?? 0) + 1);
  const missing: string[] = [];
  for (const g of gt) {
    const n = pool.get(g) ?? 0;
    if (n > 0) pool.set(g, n - 1);
    else missing.push(g);
  }
  return missing;
}

/** The state comparison failed in a way Python would crash on (e.g. recursion in a cyclic directory tree). */
export class CompareCrash extends Error {}

/** Deeper than Python's comparison can recurse (or cyclic): walks each container once. */
export function tooDeep(v: PyValue, limit = 800): boolean {
  const depthOf = new Map<object, number>();
  const onPath = new Set<object>();
  const walk = (x: PyValue): number => {
    let kids: PyValue[];
    if (Array.isArray(x)) kids = x;
    else if (x instanceof PyDict) kids = x.entries().map(([, w]) => w);
    else if (x instanceof PyTuple) kids = [...x.items];
    else if (x instanceof Directory) kids = [x.name, x.contents];
    else if (x instanceof File) kids = [x.name, x.content];
    else return 0;
    const known = depthOf.get(x as object);
    if (known !== undefined) return known;
    if (onPath.has(x as object)) return Number.POSITIVE_INFINITY;
    onPath.add(x as object);
    let d = 0;
    for (const k of kids) {
      d = Math.max(d, 1 + walk(k));
      if (d > limit) break;
    }
    onPath.delete(x as object);
    depthOf.set(x as object, d);
    return d;
  };
  return walk(v) > limit;
}

function compareStates(model: Side, gt: Side): Record<string, Record<string, { model: string; ground_truth: string }>> {
  const out: Record<string, Record<string, { model: string; ground_truth: string }>> = {};
  for (const [className, g] of gt.bound) {
    const m = model.bound.get(className)!;
    const mAttrs = new Map(m.inst.stateAttrs());
    for (const [attr, gv] of g.inst.stateAttrs()) {
      const mv = mAttrs.get(attr)!;
      let equal: boolean;
      try {
        equal = pyEq(mv, gv);
      } catch (e) {
        if (!(e instanceof PyException)) throw e;
        const what = `comparing ${className}.${attr} raised ${e.type}: ${e.text()}`;
        // the ground truth's own state too deep or cyclic: BFCL's checker would crash on any model
        if (tooDeep(gv)) throw new CompareCrash(`${what} (the ground truth's state is too deep or cyclic; BFCL's checker would crash)`);
        throw new ModelStateCrash(`${what}: the model's ${className}.${attr} is too deep or cyclic (BFCL's checker would crash)`);
      }
      if (!equal) {
        out[className] ??= {};
        out[className][attr] = { model: reprShort(mv), ground_truth: reprShort(gv) };
      }
    }
  }
  return out;
}

/** The model's state cannot be compared (its own calls built a cycle or too deep a tree). */
class ModelStateCrash extends Error {}

/** A model-side refusal as a fault at `turn`, or undefined when `e` is not one. */
function faultOf(e: unknown, turn: number, call?: string): ModelFault | undefined {
  const at = call === undefined ? '' : ` in the call ${JSON.stringify(short(call))}`;
  if (e instanceof Unsupported) return { turn, type: ERR.unevaluable, message: `${e.message}${at}: arbiter does not evaluate it`, ...(call ? { call } : {}) };
  if (e instanceof EnvLimit)
    return { turn, type: ERR.limit, message: `${e.message}${at}`, ...(call ? { call } : {}), ...(e instanceof WorkBudgetExceeded ? { budget: true } : {}) };
  if (e instanceof ModelStateCrash) return { turn, type: ERR.limit, message: e.message };
  return undefined;
}

/**
 * Runs BFCL's check. A model-side refusal fails the entry at its turn (a later one, after the
 * deciding failure, only stops the model's side); the ground truth always runs to the end, and
 * whatever it cannot run (Unsupported / EnvLimit / CompareCrash / PyException) is thrown.
 */
export function checkMultiTurn(c: CheckInput): CheckResult {
  const turns: TurnResult[] = [];
  const common = { env: c.env, involvedClasses: c.involvedClasses, scenario: c.scenario, longContext: c.longContext, entryId: c.entryId };
  const gtSide = new Side({ ...common, modelName: `${c.modelName}_ground_truth`, account: GT_ACCOUNT });
  const runGroundTruth = (from: number) => {
    for (let t = from; t < c.groundTruth.length; t++) gtSide.execute(c.groundTruth[t]!);
  };
  const modelCalls = (t: number) => c.model[t]?.steps.flat().length ?? 0;
  if (c.fault) {
    runGroundTruth(0);
    return {
      valid: false,
      error_type: c.fault.type,
      error_message: c.fault.message,
      failed_turn: c.fault.turn,
      turns: c.groundTruth.map((g, i) => ({ turn: i, gt_calls: g.length, model_calls: modelCalls(i), passed: false, error_type: 'not_evaluated' })),
      stopped: { turn: c.fault.turn, reason: c.fault.message, ...(c.fault.call ? { call: c.fault.call } : {}) },
    };
  }
  if (c.model.length !== c.groundTruth.length) {
    runGroundTruth(0);
    return {
      valid: false,
      error_type: ERR.force,
      error_message: `Model was force-terminated during inference phase. The length of the model result turns (${c.model.length}) does not match the length of the ground truth turns (${c.groundTruth.length}).`,
      failed_turn: Math.min(c.model.length, c.groundTruth.length),
      turns: c.groundTruth.map((g, i) => ({ turn: i, gt_calls: g.length, model_calls: modelCalls(i), passed: false })),
    };
  }
  const modelSide = new Side({ ...common, modelName: c.modelName, account: MODEL_ACCOUNT });
  const allModel: string[] = [];
  let first: { turn: number; type: string; message: string } | undefined;
  let irrelevance: { turn: number; message: string } | undefined;
  let stopped: ModelFault | undefined;

  for (let t = 0; t < c.groundTruth.length; t++) {
    const gt = c.groundTruth[t]!;
    const steps = c.model[t]!.steps;
    const r: TurnResult = { turn: t, gt_calls: gt.length, model_calls: steps.reduce((n, s) => n + s.length, 0), passed: true };
    if (!stopped) {
      calls: for (const step of steps) {
        for (const call of step) {
          try {
            allModel.push(...modelSide.execute([call]));
          } catch (e) {
            stopped = faultOf(e, t, call);
            if (!stopped) throw e;
            break calls;
          }
        }
      }
    }
    const gtResults = gtSide.execute(gt);
    if (stopped) {
      // the model's side cannot go on: this turn fails (when nothing failed before) and later ones are not evaluated
      r.passed = false;
      r.error_type = first ? 'not_evaluated' : stopped.type;
      first ??= { turn: t, type: stopped.type, message: stopped.message };
      turns.push(r);
      continue;
    }
    const empty = steps.length === 0 || (steps.length === 1 && steps[0]!.length === 0);
    if (gt.length > 0 && empty) {
      r.passed = false;
      r.error_type = ERR.empty;
      first ??= { turn: t, type: ERR.empty, message: `Model response list is empty for turn ${t}` };
    } else if (gt.length === 0) {
      if (c.irrelevanceCheck && !empty) {
        r.passed = false;
        r.error_type = ERR.irrelevance;
        irrelevance ??= { turn: t, message: `Model outputs valid function calls when it should not for turn ${t}.` };
      }
    } else {
      let diffs: ReturnType<typeof compareStates>;
      try {
        diffs = compareStates(modelSide, gtSide);
      } catch (e) {
        stopped = faultOf(e, t);
        if (!stopped) throw e;
        r.passed = false;
        r.error_type = first ? 'not_evaluated' : stopped.type;
        first ??= { turn: t, type: stopped.type, message: stopped.message };
        turns.push(r);
        continue;
      }
      const cls = Object.keys(diffs)[0];
      if (cls !== undefined) {
        r.passed = false;
        r.error_type = ERR.state;
        r.differences = diffs;
        first ??= { turn: t, type: ERR.state, message: `Model instance for ${cls} does not match the state with ground truth instance.` };
      } else {
        const missing = missingItems(gtResults, allModel);
        if (missing.length) {
          r.passed = false;
          r.error_type = ERR.response;
          r.missing = missing.map(short);
          first ??= {
            turn: t,
            type: ERR.response,
            message: `Model response execution results so far does not contain all the ground truth response execution results for turn ${t}.`,
          };
        }
      }
    }
    turns.push(r);
  }

  if (stopped?.budget && c.env.usedBy(GT_ACCOUNT) * BUDGET_FACTOR > c.env.maxSteps) {
    // the model's side ran out of a budget too small for this entry: not the model's fault
    throw new EnvLimit(
      `the model's calls used more than max_steps=${c.env.maxSteps} work units, but the ground truth alone needs ${c.env.usedBy(GT_ACCOUNT)}: max_steps must be at least ${BUDGET_FACTOR}× that to grade this entry`,
    );
  }
  const stop = stopped ? { stopped: { turn: stopped.turn, reason: stopped.message, ...(stopped.call ? { call: stopped.call } : {}) } } : {};
  if (first) return { valid: false, error_type: first.type, error_message: first.message, failed_turn: first.turn, turns, ...stop };
  if (irrelevance) return { valid: false, error_type: ERR.irrelevance, error_message: irrelevance.message, failed_turn: irrelevance.turn, turns };
  return { valid: true, turns };
}
