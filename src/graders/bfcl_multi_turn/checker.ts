// BFCL's multi_turn_checker over arbiter's simulated APIs: the model's and the ground truth's calls
// run turn by turn on two sets of instances of one episode; after each turn with ground-truth calls
// the model must have made calls (empty_turn_model_response), every involved instance's public
// attributes must equal the ground truth's (instance_state_mismatch), and the ground truth's
// results of the turn must all be among the model's results so far, as a multiset
// (execution_response_mismatch). The first failing turn decides, as in BFCL; the later turns are
// still checked to give per-turn steps. Optionally the irrelevance rule BFCL once applied: no calls
// in a turn whose ground truth is empty.
import type { BfclEnv } from '../../envs/bfcl/api.js';
import { Side } from '../../envs/bfcl/executor.js';
import { EnvLimit, PyException, Unsupported } from '../../py/errors.js';
import { pyRepr } from '../../py/format.js';
import { pyEq, type PyValue } from '../../py/values.js';
import type { DecodedTurn } from './decode.js';

export const ERR = {
  empty: 'multi_turn:empty_turn_model_response',
  state: 'multi_turn:instance_state_mismatch',
  response: 'multi_turn:execution_response_mismatch',
  force: 'multi_turn:force_terminated',
  inference: 'multi_turn:inference_error',
  irrelevance: 'multi_turn:irrelevance_error:decoder_success',
} as const;

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
  /** When checking stopped early after the deciding failure (a later turn could not be evaluated). */
  stopped?: { turn: number; reason: string };
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
        if (e instanceof PyException) throw new CompareCrash(`comparing ${className}.${attr} raised ${e.type}: ${e.text()} (BFCL's checker would crash)`);
        throw e;
      }
      if (!equal) {
        out[className] ??= {};
        out[className][attr] = { model: reprShort(mv), ground_truth: reprShort(gv) };
      }
    }
  }
  return out;
}

/** Runs BFCL's check. Throws Unsupported / EnvLimit / CompareCrash when the deciding turns cannot be evaluated. */
export function checkMultiTurn(c: CheckInput): CheckResult {
  const turns: TurnResult[] = [];
  if (c.model.length !== c.groundTruth.length) {
    return {
      valid: false,
      error_type: ERR.force,
      error_message: `Model was force-terminated during inference phase. The length of the model result turns (${c.model.length}) does not match the length of the ground truth turns (${c.groundTruth.length}).`,
      failed_turn: Math.min(c.model.length, c.groundTruth.length),
      turns: c.groundTruth.map((g, i) => ({ turn: i, gt_calls: g.length, model_calls: c.model[i]?.steps.flat().length ?? 0, passed: false })),
    };
  }
  const common = { env: c.env, involvedClasses: c.involvedClasses, scenario: c.scenario, longContext: c.longContext, entryId: c.entryId };
  const modelSide = new Side({ ...common, modelName: c.modelName });
  const gtSide = new Side({ ...common, modelName: `${c.modelName}_ground_truth` });
  const allModel: string[] = [];
  let first: { turn: number; type: string; message: string } | undefined;
  let irrelevance: { turn: number; message: string } | undefined;
  let stopped: CheckResult['stopped'];

  for (let t = 0; t < c.groundTruth.length; t++) {
    const gt = c.groundTruth[t]!;
    const steps = c.model[t]!.steps;
    const r: TurnResult = { turn: t, gt_calls: gt.length, model_calls: steps.reduce((n, s) => n + s.length, 0), passed: true };
    try {
      for (const step of steps) allModel.push(...modelSide.execute(step));
      const gtResults = gtSide.execute(gt);
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
        const diffs = compareStates(modelSide, gtSide);
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
    } catch (e) {
      // A turn after the deciding failure that cannot be evaluated does not change the verdict.
      if (first && (e instanceof Unsupported || e instanceof EnvLimit || e instanceof CompareCrash)) {
        stopped = { turn: t, reason: e.message };
        for (let u = t; u < c.groundTruth.length; u++) {
          turns.push({ turn: u, gt_calls: c.groundTruth[u]!.length, model_calls: c.model[u]!.steps.flat().length, passed: false, error_type: 'not_evaluated' });
        }
        break;
      }
      throw e;
    }
    turns.push(r);
  }

  if (first) return { valid: false, error_type: first.type, error_message: first.message, failed_turn: first.turn, turns, ...(stopped ? { stopped } : {}) };
  if (irrelevance) return { valid: false, error_type: ERR.irrelevance, error_message: irrelevance.message, failed_turn: irrelevance.turn, turns };
  return { valid: true, turns };
}
