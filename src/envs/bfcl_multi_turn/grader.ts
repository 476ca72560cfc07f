// `bfcl_multi_turn` grader: BFCL's multi-turn checker over arbiter's simulated APIs. The model's
// turns and the ground truth's run on instances built from the entry's initial_config; the score is
// 1 when every turn passes BFCL's checks, else 0, with BFCL's error_type, the first failing turn and
// why in the reason, and one step per turn. Untrusted input is bounded (turns, calls per turn, call
// size, total size, work units); what BFCL would do but arbiter cannot reproduce is an invalid grade.
import { z } from 'zod';
import { type CapabilityUse, PURE, raisedCaps } from '../../core/capabilities.js';
import { graderSchema, type GraderType } from '../../core/registry.js';
import { GradeFailure, type Outcome } from '../../core/result.js';
import type { GradeInput } from '../../core/sample.js';
import { compileTemplate, renderCompiled, renderValue, type ValueTemplate } from '../../core/template.js';
import { BfclEnv, type LongContextData, MissingData } from './apis/api.js';
import { MAX_AMBIGUOUS, type ReadResult, readConfigObject, readConfigText } from './apis/config.js';
import { LONG_CONTEXT_ENV, LONG_CONTEXT_EXPORT, loadLongContext } from './apis/long-context.js';
import { EnvLimit, PyException, Unsupported } from '../../py/errors.js';
import { pyDeepCopy } from '../../py/values.js';
import { type CheckResult, checkMultiTurn, CompareCrash, ERR, type ModelFault } from './checker.js';
import { BadTurns, type DecodedTurn, decodeTurns, type InputFormat } from './decode.js';

const DEFAULTS = { max_turns: 64, max_calls_per_turn: 64, max_call_chars: 20_000, max_chars: 1_000_000, max_steps: 2_000_000 };

const schema = graderSchema({
  /** The model's turns (a list per turn). Default `{{sample.output_turns}}`. */
  input: z.string().optional(),
  /** Ground-truth turns: lists of call strings (`{{item.ground_truth}}`). */
  reference: z.unknown(),
  /** The entry's initial_config: an object, or JSON text (exact int/float types). */
  initial_config: z.unknown(),
  /** The entry's involved_classes. */
  involved_classes: z.unknown(),
  /** `calls` (default): lists of call strings / tool calls; `bfcl_result`: BFCL result steps, decoded as BFCL's handlers do. */
  input_format: z.enum(['calls', 'bfcl_result']).optional(),
  /** Long-context entries (extension data from ARBITER_BFCL_LONG_CONTEXT). Default: from entry_id, else false. */
  long_context: z.boolean().optional(),
  /** The entry id (`{{item.id}}`): decides long_context as BFCL does and names the instances. */
  entry_id: z.string().optional(),
  /** BFCL's model name in instance names (only visible inside strings that mention a method call). */
  model_name: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:/-]+$/)
    .optional(),
  /** Also fail turns whose ground truth is empty when the model calls anything (BFCL's disabled irrelevance checker). */
  irrelevance_check: z.boolean().optional(),
  max_turns: z.number().int().positive().max(1000).optional(),
  max_calls_per_turn: z.number().int().positive().max(1000).optional(),
  max_call_chars: z.number().int().positive().max(1_000_000).optional(),
  /** Total size of the model's input (JSON characters). */
  max_chars: z.number().int().positive().max(100_000_000).optional(),
  /** Work units per grade (calls, items visited, lines scanned), model and ground truth together. */
  max_steps: z.number().int().positive().max(100_000_000).optional(),
});
type Config = z.infer<typeof schema>;

function capabilities(cfg: Config): readonly CapabilityUse[] {
  const caps = raisedCaps(cfg, DEFAULTS);
  if (cfg.long_context === false || (cfg.long_context === undefined && cfg.entry_id === undefined)) return [...PURE, ...caps];
  return [
    ...PURE,
    ...caps,
    {
      capability: 'server_env',
      field: cfg.long_context === true ? 'long_context' : 'entry_id',
      reason: `long-context entries read the file named by the server's ${LONG_CONTEXT_ENV}`,
    },
  ];
}

/** BFCL: long_context = "long_context" or "composite" in the category (the id without its last _part). */
function longContextOfId(id: string): boolean {
  const i = id.lastIndexOf('_');
  const category = i < 0 ? id : id.slice(0, i);
  return category.includes('long_context') || category.includes('composite');
}

function size(v: unknown): number {
  return typeof v === 'string' ? v.length : (JSON.stringify(v) ?? '').length;
}

function readGroundTruth(v: unknown): string[][] {
  if (!Array.isArray(v)) throw new GradeFailure('bad_input', `reference (ground truth) must be a list of turns, got ${v === null ? 'null' : typeof v}`);
  return v.map((turn, t) => {
    if (!Array.isArray(turn) || !turn.every((c) => typeof c === 'string')) {
      throw new GradeFailure('bad_input', `reference turn ${t} must be a list of call strings`);
    }
    return turn as string[];
  });
}

function readClasses(v: unknown): string[] {
  if (!Array.isArray(v) || !v.every((c) => typeof c === 'string')) throw new GradeFailure('bad_input', 'involved_classes must be a list of class names');
  return v as string[];
}

function longContextData(): LongContextData {
  const path = process.env[LONG_CONTEXT_ENV];
  if (!path) {
    throw new GradeFailure(
      'config_error',
      `long-context entries need BFCL's long-context data: set ${LONG_CONTEXT_ENV} to the JSON that python3 ${LONG_CONTEXT_EXPORT} exports from a BFCL checkout`,
    );
  }
  try {
    return loadLongContext(path);
  } catch (e) {
    throw new GradeFailure('config_error', `${LONG_CONTEXT_ENV}: ${(e as Error).message}`);
  }
}

interface Run {
  check: CheckResult;
  stepsUsed: number;
}

export const bfclMultiTurn: GraderType<Config> = {
  type: 'bfcl_multi_turn',
  summary: "BFCL multi-turn: the model's calls and the ground truth's run on simulated APIs; state and results compared after every turn",
  schema,
  capabilities,
  cpu_heavy: true,
  build(cfg, b) {
    if (cfg.reference === undefined) b.fail('reference', 'required field is missing (the ground-truth turns, e.g. "{{item.ground_truth}}")');
    if (cfg.initial_config === undefined) b.fail('initial_config', 'required field is missing (e.g. "{{item.initial_config}}")');
    if (cfg.involved_classes === undefined) b.fail('involved_classes', 'required field is missing (e.g. "{{item.involved_classes}}")');
    const input = b.template('input', cfg.input ?? '{{sample.output_turns}}');
    const reference: ValueTemplate = b.value('reference', cfg.reference);
    const initialConfig: ValueTemplate = b.value('initial_config', cfg.initial_config);
    const involved: ValueTemplate = b.value('involved_classes', cfg.involved_classes);
    const entryId = cfg.entry_id === undefined ? undefined : compileTemplate(cfg.entry_id);
    const format: InputFormat = cfg.input_format ?? 'calls';
    const lim = { ...DEFAULTS, ...Object.fromEntries(Object.entries(cfg).filter(([k, v]) => k in DEFAULTS && v !== undefined)) } as typeof DEFAULTS;
    const modelName = cfg.model_name ?? 'model';

    const opts: ScoreOptions = { format, limits: lim, modelName, longContext: cfg.long_context, irrelevanceCheck: cfg.irrelevance_check === true };
    return (s: GradeInput) =>
      scoreMultiTurn(
        {
          turns: renderValue(input, s),
          reference: () => renderCompiled(reference, s),
          involvedClasses: () => renderCompiled(involved, s),
          initialConfig: () => renderCompiled(initialConfig, s),
          entryId: () => (entryId === undefined ? undefined : String(renderValue(entryId, s))),
        },
        opts,
      );
  },
};

/** The fields of one grade, as the grader's templates render them (read lazily, in the grader's order). */
export interface ScoreFields {
  /** The model's turns: a list, or JSON text of it. */
  turns: unknown;
  reference(): unknown;
  involvedClasses(): unknown;
  initialConfig(): unknown;
  entryId(): string | undefined;
}

export type Limits = typeof DEFAULTS;

export interface ScoreOptions {
  format: InputFormat;
  limits: Limits;
  modelName: string;
  /** Overrides what the entry id says. */
  longContext?: boolean;
  irrelevanceCheck: boolean;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({ ...DEFAULTS });

/**
 * One grade of the bfcl_multi_turn grader on rendered fields: the grader and the BFCL environment
 * (its final reward) both call this. What the model's output causes (it does not decode, it is over
 * a limit, a call arbiter cannot evaluate) is a valid 0 naming it; GradeFailure is thrown only for
 * what the model cannot be blamed for (the item, the ground truth, the configuration).
 */
export function scoreMultiTurn(f: ScoreFields, o: ScoreOptions): Outcome {
  // the item first: a bad item is invalid whatever the model output
  const gt = readGroundTruth(f.reference());
  if (gt.length > o.limits.max_turns) throw new GradeFailure('limit_exceeded', `the ground truth has ${gt.length} turns, over max_turns ${o.limits.max_turns}`);
  gt.forEach((turn, t) => {
    if (turn.length > o.limits.max_calls_per_turn)
      throw new GradeFailure('limit_exceeded', `ground-truth turn ${t} has ${turn.length} calls, over max_calls_per_turn ${o.limits.max_calls_per_turn}`);
  });
  const classes = readClasses(f.involvedClasses());
  const id = f.entryId();
  const longContext = o.longContext ?? (id !== undefined && longContextOfId(id));
  const lcData = longContext ? longContextData() : undefined;

  const { decoded, fault } = readModelTurns(f.turns, gt.length, o);

  const cfgValue = f.initialConfig();
  const readWith = (floatAt: (i: number) => boolean): ReadResult => {
    try {
      if (typeof cfgValue === 'string') return readConfigText(cfgValue);
      if (cfgValue === null || typeof cfgValue !== 'object' || Array.isArray(cfgValue))
        throw new GradeFailure('bad_input', 'initial_config must be an object or JSON text');
      return readConfigObject(cfgValue as Record<string, unknown>, { floatAt });
    } catch (e) {
      if (e instanceof GradeFailure) throw e;
      throw translate(e, 'reading initial_config');
    }
  };

  const run = (read: ReadResult): Run => {
    const env = new BfclEnv({ maxSteps: o.limits.max_steps, longContext: lcData });
    try {
      const check = checkMultiTurn({
        env,
        model: decoded,
        groundTruth: gt,
        involvedClasses: classes,
        scenario: (cls) => (read.scenarios.has(cls) ? pyDeepCopy(read.scenarios.get(cls)!) : undefined),
        longContext,
        modelName: o.modelName,
        entryId: id ?? 'entry',
        irrelevanceCheck: o.irrelevanceCheck,
        ...(fault ? { fault } : {}),
      });
      return { check, stepsUsed: env.stepsUsed };
    } catch (e) {
      throw translate(e, "executing the ground truth's calls");
    }
  };

  const first = readWith(() => false);
  const result = run(first);
  let readings = 1;
  if (first.ambiguous.length > 0) {
    // An integral number whose Python type the object form lost: grade under every reading.
    if (first.ambiguous.length > MAX_AMBIGUOUS) {
      throw new GradeFailure(
        'bad_input',
        `initial_config has ${first.ambiguous.length} integral numbers whose int/float type is unknown (${first.ambiguous.slice(0, 3).join(', ')}…); pass initial_config as JSON text`,
      );
    }
    const n = 1 << first.ambiguous.length;
    for (let mask = 1; mask < n; mask++) {
      const other = run(readWith((i) => ((mask >> i) & 1) === 1));
      readings++;
      const verdict = (c: CheckResult) => JSON.stringify([c.valid, c.error_type, c.failed_turn, c.turns.map((t) => t.passed)]);
      if (verdict(other.check) !== verdict(result.check)) {
        throw new GradeFailure(
          'bad_input',
          `the outcome depends on whether ${first.ambiguous.join(', ')} ${first.ambiguous.length > 1 ? 'are ints or floats' : 'is an int or a float'} in Python, which initial_config as an object does not say; pass initial_config as JSON text`,
        );
      }
    }
  }

  const c = result.check;
  const steps = c.turns.map((t) => (t.passed ? 1 : 0));
  const metadata: Record<string, unknown> = {
    turns: c.turns,
    steps_used: result.stepsUsed,
    long_context: longContext,
    ...(readings > 1 ? { int_float_readings: readings } : {}),
    ...(c.stopped ? { stopped: c.stopped } : {}),
    ...(o.format === 'bfcl_result' && !fault ? { dropped_steps: decoded.map((d) => d.dropped) } : {}),
  };
  if (c.valid) return { score: 1, reason: `all ${gt.length} turns match the ground truth's state and results`, steps, metadata };
  metadata.error_type = c.error_type;
  metadata.error_message = c.error_message;
  metadata.failed_turn = c.failed_turn;
  return { score: 0, reason: reasonOf(c), steps, metadata };
}

/** The model's turns decoded, or the fault that stops them (a valid 0): over a limit, not a list, a call that does not decode. */
function readModelTurns(turns: unknown, gtTurns: number, o: ScoreOptions): { decoded: DecodedTurn[]; fault?: ModelFault } {
  const fail = (type: string, message: string, turn = 0) => ({ decoded: [], fault: { turn, type, message } });
  let raw = turns;
  if (size(raw) > o.limits.max_chars) return fail(ERR.limit, `the model's turns are ${size(raw)} characters, over max_chars ${o.limits.max_chars}`);
  if (typeof raw === 'string') {
    try {
      raw = JSON.parse(raw);
    } catch {
      return fail(ERR.inference, 'Error during inference phase. Model did not output a list of model responses. (the output is a string that is not JSON)');
    }
  }
  if (!Array.isArray(raw)) return fail(ERR.inference, 'Error during inference phase. Model did not output a list of model responses.');
  if (raw.length > o.limits.max_turns)
    return fail(
      ERR.force,
      `Model was force-terminated during inference phase. The length of the model result turns (${raw.length}) does not match the length of the ground truth turns (${gtTurns}). (over max_turns ${o.limits.max_turns})`,
      gtTurns,
    );
  let decoded: DecodedTurn[];
  try {
    decoded = decodeTurns(raw, o.format);
  } catch (e) {
    const turn = /^turn (\d+)/.exec((e as Error).message);
    const at = turn ? Number(turn[1]) : 0;
    if (e instanceof BadTurns) return fail(ERR.malformed, `the model's output does not decode: ${e.message}`, at);
    if (e instanceof Unsupported) return fail(ERR.unevaluable, `decoding the model output: ${e.message}; arbiter does not evaluate it`, at);
    if (e instanceof EnvLimit) return fail(ERR.limit, `decoding the model output: ${e.message}`, at);
    throw e;
  }
  for (let t = 0; t < decoded.length; t++) {
    const calls = decoded[t]!.steps.flat();
    if (calls.length > o.limits.max_calls_per_turn)
      return fail(ERR.limit, `turn ${t} has ${calls.length} calls, over max_calls_per_turn ${o.limits.max_calls_per_turn}`, t);
    for (const c of calls)
      if (c.length > o.limits.max_call_chars)
        return fail(ERR.limit, `a call in turn ${t} is ${c.length} characters, over max_call_chars ${o.limits.max_call_chars}`, t);
  }
  return { decoded };
}

function reasonOf(c: CheckResult): string {
  const t = c.failed_turn;
  const turn = t === undefined ? undefined : c.turns[t];
  switch (c.error_type) {
    case ERR.force:
      return `turn count differs: ${c.error_message}`;
    case ERR.empty:
      return `turn ${t}: the model made no call where the ground truth makes ${turn?.gt_calls} (${ERR.empty})`;
    case ERR.state: {
      const [cls, attrs] = Object.entries(turn?.differences ?? {})[0] ?? ['?', {}];
      const parts = Object.entries(attrs)
        .slice(0, 3)
        .map(([a, d]) => `${a}: model ${d.model} vs ground truth ${d.ground_truth}`);
      return `turn ${t}: ${cls} state differs from the ground truth's (${parts.join('; ')}) (${ERR.state})`;
    }
    case ERR.response:
      return `turn ${t}: the model's results so far lack ${turn?.missing?.length} of the ground truth's (${turn?.missing?.slice(0, 2).join(' | ')}) (${ERR.response})`;
    case ERR.irrelevance:
      return `turn ${t}: the model made calls where the ground truth makes none (${ERR.irrelevance})`;
    case ERR.unevaluable:
    case ERR.limit:
    case ERR.malformed:
      return `turn ${t}: ${c.error_message}; the model's output scores 0 (${c.error_type})`;
    case ERR.inference:
      return `the model did not output a list of turns (${ERR.inference})`;
    default:
      return `${c.error_type}: ${c.error_message}`;
  }
}

/** What the item (ground truth, initial_config, classes) or the configuration causes: invalid grades; anything else is a bug. */
function translate(e: unknown, what: string): unknown {
  if (e instanceof GradeFailure) return e;
  if (e instanceof EnvLimit) return new GradeFailure('limit_exceeded', `${what}: ${e.message}`);
  if (e instanceof Unsupported) return new GradeFailure('bad_input', `${what}: ${e.message}; arbiter cannot say what BFCL would do`);
  if (e instanceof MissingData) return new GradeFailure('config_error', `${what}: ${e.message}`);
  if (e instanceof CompareCrash) return new GradeFailure('bad_input', e.message);
  if (e instanceof PyException) return new GradeFailure('bad_input', `${what}: Python raised ${e.type}: ${e.text()} (BFCL would crash here)`);
  return e;
}
