// BFCL multi-turn as an environment: an episode is one BFCL entry (base, long_context, miss_func,
// miss_param). It runs BFCL's multi-turn inference loop one model response at a time: reset builds
// the API instances from the entry's initial_config and gives the first user turn (and the tools);
// each step decodes the policy's response as BFCL's handlers do (function calling: the tool calls'
// JSON arguments; prompting: the text as Python calls), executes the calls on the live instances
// and answers the results as BFCL gives them to the model (one tool message per call, or one user
// message holding the repr of the results); a response with no calls, or one that does not decode,
// ends the turn and the next user turn follows (at a miss_func entry's held-back turn: the added
// functions). More than max_steps_per_turn (BFCL: 20) executed responses in one turn force-quit the
// entry. After the last turn the reward is the bfcl_multi_turn grader's verdict on the recorded
// per-turn calls (the same function), with BFCL's error_type; every step also gets a turn-level
// reward (progress towards the ground truth's state and results, tool errors) and a GiGPO anchor.
import { z } from 'zod';
import { GradeFailure } from '../../core/result.js';
import { BfclEnv, type LongContextData, MissingData } from './apis/api.js';
import { readConfigObject, readConfigText } from './apis/config.js';
import { Side } from './apis/executor.js';
import { LONG_CONTEXT_ENV, LONG_CONTEXT_EXPORT, loadLongContext } from './apis/long-context.js';
import { EnvLimit, PyException, Unsupported } from '../../py/errors.js';
import { jsonDumps, pyRepr } from '../../py/format.js';
import { PyDict, pyDeepCopy, type PyValue } from '../../py/values.js';
import { decodeFunctionCalling, decodePrompting } from './decode.js';
import { DEFAULT_LIMITS, scoreMultiTurn } from './grader.js';
import { actionMessage, ResponseFault } from '../../agents/action.js';
import { anchorId, DEFAULT_STEP_WEIGHTS } from '../../agents/credit.js';
import {
  EnvDataError,
  EnvOptionError,
  type EnvFamily,
  type Episode,
  type EpisodeState,
  type ResetResult,
  type StepResult,
  type ToolSchema,
} from '../../agents/env.js';
import { contentText, type AgentMessage } from '../../agents/trajectory.js';
import { BFCL_CATEGORIES, type BfclCategory, type BfclEntry, categoryOfId, funcDocs, loadCategory, readEntry } from './data.js';
import { toOpenAiTool, withHint } from './tools.js';
import { conditionsPerTurn, type FlatState, flattenState, type GroundTruthTrace, progressOf, turnScore } from './progress.js';

/** BFCL's MAXIMUM_STEP_LIMIT: executed responses per turn before the entry is force-quit. */
export const BFCL_MAX_STEPS_PER_TURN = 20;

/** The user message at a miss_func entry's held-back turn (this project's wording; `holdout_prompt` sets BFCL's). */
export const DEFAULT_HOLDOUT_PROMPT = 'More functions are available to you now. Please continue with the request.';

/** The system prompt of prompting mode (this project's wording; `system_prompt` replaces it). `{functions}` is the docs as JSON. */
export const DEFAULT_PROMPTING_SYSTEM = [
  "You can call functions to carry out the user's requests. To call functions, answer with nothing but a Python list of calls,",
  "for example [func_a(param1='value', param2=3), func_b(x=True)]. Keep calling functions until the current request is done;",
  'an answer without function calls ends your turn and the next request follows. If no function fits, or a required',
  'parameter is missing, say so instead of calling.',
  '',
  'The functions, in JSON:',
  '{functions}',
].join('\n');

/** Most ground-truth turns and calls per turn an inline entry may have (the grader's default limits). */
const MAX_TURNS = DEFAULT_LIMITS.max_turns;

const optionsSchema = z.strictObject({
  env: z.literal('bfcl_multi_turn').optional(),
  entry_id: z.string().min(1).max(200).optional(),
  category: z.enum(BFCL_CATEGORIES).optional(),
  index: z.number().int().nonnegative().optional(),
  entry: z.record(z.string(), z.unknown()).optional(),
  mode: z.enum(['fc', 'prompting']).optional(),
  max_steps_per_turn: z.number().int().positive().max(1000).optional(),
  model_name: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.:/-]+$/)
    .optional(),
  holdout_prompt: z.string().max(10_000).optional(),
  system_prompt: z.string().max(100_000).optional(),
});

export type BfclEnvOptions = z.infer<typeof optionsSchema>;

function parseOptions(o: Record<string, unknown>): BfclEnvOptions {
  const r = optionsSchema.safeParse(o);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const at = i.path.length ? i.path.join('.') : '(options)';
    throw new EnvOptionError(`${at}: ${i.code === 'unrecognized_keys' ? `unknown option(s) ${i.keys.join(', ')}` : i.message}`);
  }
  const d = r.data;
  const ways = [d.entry_id !== undefined, d.category !== undefined || d.index !== undefined, d.entry !== undefined].filter(Boolean).length;
  if (ways !== 1)
    throw new EnvOptionError(
      'give exactly one of "entry_id" (e.g. multi_turn_base_0), "category" with "index", or "entry" (a BFCL entry with its ground_truth)',
    );
  if ((d.category === undefined) !== (d.index === undefined)) throw new EnvOptionError('"category" and "index" go together');
  if (d.system_prompt !== undefined && d.mode !== 'prompting')
    throw new EnvOptionError('system_prompt: only prompting mode has a system prompt (BFCL sends none to function-calling models)');
  return d;
}

/** The entry an episode plays. */
function entryOf(o: BfclEnvOptions): BfclEntry {
  if (o.entry_id !== undefined) {
    const cat = categoryOfId(o.entry_id);
    if (!cat) throw new EnvOptionError(`entry_id ${o.entry_id} is not a multi_turn_{${BFCL_CATEGORIES.join(',')}}_N id`);
    const e = loadCategory(cat).find((x) => x.id === o.entry_id);
    if (!e) throw new EnvOptionError(`no entry ${o.entry_id} in ${cat}`);
    return e;
  }
  if (o.category !== undefined) {
    const all = loadCategory(o.category);
    const e = all[o.index!];
    if (!e) throw new EnvOptionError(`index ${o.index} is out of range: ${o.category} has ${all.length} entries`);
    return e;
  }
  const raw = o.entry!;
  const cfg = raw.initial_config ?? {};
  let text: string;
  try {
    if (typeof cfg === 'string') text = jsonDumps(PyDict.of([...readConfigText(cfg).scenarios]));
    else if (cfg && typeof cfg === 'object' && !Array.isArray(cfg)) {
      const r = readConfigObject(cfg as Record<string, unknown>, { floatAt: () => false });
      if (r.ambiguous.length)
        throw new EnvOptionError(`entry.initial_config: ${r.ambiguous.join(', ')} may be an int or a float in Python; pass initial_config as JSON text`);
      text = jsonDumps(PyDict.of([...r.scenarios]));
    } else throw new EnvOptionError('entry.initial_config must be an object or JSON text');
  } catch (e) {
    if (e instanceof EnvOptionError) throw e;
    throw new EnvOptionError(`entry.initial_config: ${(e as Error).message}`);
  }
  let entry: BfclEntry;
  try {
    const id = typeof raw.id === 'string' ? raw.id : '';
    entry = readEntry(raw, text, categoryOfId(id) ?? 'base', -1);
  } catch (e) {
    throw new EnvOptionError((e as Error).message);
  }
  if (entry.groundTruth.length > MAX_TURNS || entry.question.length > MAX_TURNS) throw new EnvOptionError(`entry has more than ${MAX_TURNS} turns`);
  const big = entry.groundTruth.findIndex((t) => t.length > DEFAULT_LIMITS.max_calls_per_turn);
  if (big >= 0) throw new EnvOptionError(`entry.ground_truth[${big}] has more than ${DEFAULT_LIMITS.max_calls_per_turn} calls`);
  return entry;
}

/** BFCL: long_context = "long_context" or "composite" in the category (the id without its last _part). */
function longContextOf(id: string): boolean {
  const i = id.lastIndexOf('_');
  const category = i < 0 ? id : id.slice(0, i);
  return category.includes('long_context') || category.includes('composite');
}

/** The function docs of an entry at its start (held-back ones removed) and those held back, per turn. */
function docsOf(entry: BfclEntry): { initial: Record<string, unknown>[]; held: Map<number, { json: Record<string, unknown>; py: PyValue }[]> } {
  const all = entry.involvedClasses.flatMap((c) => {
    try {
      return funcDocs(c);
    } catch (e) {
      if (e instanceof EnvDataError) throw new EnvOptionError(e.message);
      throw e;
    }
  });
  const docs = [...all];
  const held = new Map<number, { json: Record<string, unknown>; py: PyValue }[]>();
  for (const [turn, names] of Object.entries(entry.missedFunction)) {
    const list: { json: Record<string, unknown>; py: PyValue }[] = [];
    for (const n of names) {
      const i = docs.findIndex((d) => d.name === n);
      if (i < 0) continue; // BFCL skips a name it does not find
      list.push({ json: docs[i]!.json, py: docs[i]!.py });
      docs.splice(i, 1);
    }
    held.set(Number(turn), list);
  }
  // BFCL adds its language hint to the docs present at the start only
  return { initial: docs.map(withHint), held };
}

function promptingSystem(template: string, docs: readonly Record<string, unknown>[]): string {
  return template.replace('{functions}', JSON.stringify(docs, null, 4));
}

/** A tool error: the call raised, or the API answered {"error": ...}. */
function isToolError(result: string): boolean {
  return result.startsWith('Error during execution:') || result.startsWith('{"error": ');
}

export interface BfclStepInfo {
  /** Agent step (assistant message) index in the episode. */
  turn: number;
  /** The BFCL turn (user turn) the step acted in. */
  bfcl_turn: number;
  tool_calls: number;
  tool_errors: number;
  progress: number;
  step_reward: number;
  anchor: string;
}

class EpisodeStop extends Error {
  constructor(
    readonly kind: 'bad_input' | 'limit_exceeded' | 'config_error',
    message: string,
  ) {
    super(message);
  }
}

export class BfclEpisode implements Episode {
  readonly env = 'bfcl_multi_turn';
  readonly entry: BfclEntry;
  readonly mode: 'fc' | 'prompting';
  readonly systemPrompt: string;
  readonly item: Record<string, unknown>;
  private readonly maxStepsPerTurn: number;
  private readonly modelName: string;
  private readonly holdoutPrompt: string;
  private readonly longContext: boolean;
  private readonly model: Side;
  private readonly fp: string;
  private currentTools: ToolSchema[];
  private readonly held: Map<number, { json: Record<string, unknown>; py: PyValue }[]>;
  private messages: AgentMessage[] = [];
  private started = false;
  private done = false;
  private forceQuit = false;
  private reward: number | null = null;
  private rewardInfo: Record<string, unknown> | null = null;
  private error: { kind: string; message: string } | undefined;
  private turn = 0;
  private stepsInTurn = 0;
  /** The model's executed calls per turn (what the grader reads as output_turns). */
  private readonly outputTurns: string[][] = [];
  /** The model's results in the current turn. */
  private turnResults: string[] = [];
  /** The ground truth played through (state before it and after each turn, results): progress is measured against it. */
  private readonly trace: GroundTruthTrace;
  private readonly conditions: number;
  /** The model's state when the current turn began. */
  private turnStart: FlatState = new Map();
  /** Scores of the finished turns, summed. */
  private finishedScore = 0;
  private progress = 0;
  /** Why the episode ended early for what the policy's own response caused (the reward is the floor). */
  private fault: string | undefined;
  private readonly credit: BfclStepInfo[] = [];
  private lastObservation = '';
  private cachedAnchor: string | undefined;

  constructor(o: BfclEnvOptions) {
    this.entry = entryOf(o);
    this.mode = o.mode ?? 'fc';
    this.maxStepsPerTurn = o.max_steps_per_turn ?? BFCL_MAX_STEPS_PER_TURN;
    this.modelName = o.model_name ?? 'model';
    this.holdoutPrompt = o.holdout_prompt ?? DEFAULT_HOLDOUT_PROMPT;
    this.longContext = longContextOf(this.entry.id);
    const { initial, held } = docsOf(this.entry);
    this.held = held;
    this.currentTools = this.mode === 'fc' ? initial.map(toOpenAiTool) : [];
    this.systemPrompt = this.mode === 'prompting' ? promptingSystem(o.system_prompt ?? DEFAULT_PROMPTING_SYSTEM, initial) : '';
    this.item = { ...this.entry.raw, initial_config: this.entry.initialConfigText, ground_truth: this.entry.groundTruth };
    this.fp = anchorId([this.entry.id, this.entry.initialConfigText, JSON.stringify(this.entry.groundTruth)]);
    let lc: LongContextData | undefined;
    if (this.longContext) {
      const path = process.env[LONG_CONTEXT_ENV];
      if (!path)
        throw new EnvDataError(
          `long-context entries need BFCL's long-context data: set ${LONG_CONTEXT_ENV} on the server (export it with python3 ${LONG_CONTEXT_EXPORT})`,
        );
      try {
        lc = loadLongContext(path);
      } catch (e) {
        throw new EnvDataError(`${LONG_CONTEXT_ENV}: ${(e as Error).message}`);
      }
    }
    const scenarios = readConfigText(this.entry.initialConfigText).scenarios;
    const common = {
      involvedClasses: this.entry.involvedClasses,
      scenario: (cls: string) => (scenarios.has(cls) ? pyDeepCopy(scenarios.get(cls)!) : undefined),
      longContext: this.longContext,
      entryId: this.entry.id,
    };
    try {
      // the model's instances are named as in BFCL's inference loop, the ground truth's as its checker names them
      this.model = new Side({ ...common, env: new BfclEnv({ longContext: lc }), modelName: this.modelName, evalRun: false });
      // the ground truth is played through once, up front: progress is measured against its states, and an
      // entry whose ground truth cannot run is refused here rather than graded invalid at the end
      const gt = new Side({ ...common, env: new BfclEnv({ longContext: lc }), modelName: `${this.modelName}_ground_truth` });
      const initial = flattenState(gt);
      const after: FlatState[] = [];
      const results: string[][] = [];
      for (const turn of this.entry.groundTruth) {
        results.push(gt.execute(turn));
        after.push(flattenState(gt));
      }
      this.trace = { initial, after, results };
      this.conditions = conditionsPerTurn(this.trace).reduce((a, b) => a + b, 0);
    } catch (e) {
      if (e instanceof MissingData) throw new EnvDataError(e.message);
      if (e instanceof Unsupported) throw new EnvOptionError(`${this.entry.id}: ${e.message} (arbiter cannot say what BFCL would do)`);
      if (e instanceof PyException) throw new EnvOptionError(`${this.entry.id}: loading the scenario raises ${e.type}: ${e.text()} (BFCL would crash)`);
      if (e instanceof EnvLimit) throw new EnvOptionError(`${this.entry.id}: ${e.message}`);
      throw e;
    }
  }

  get tools(): readonly ToolSchema[] {
    return this.currentTools;
  }

  async reset(): Promise<ResetResult> {
    if (this.started) throw new EnvOptionError('the episode was already reset; start a new one');
    this.started = true;
    if (this.systemPrompt) this.messages.push({ role: 'system', content: this.systemPrompt });
    const added = this.beginTurn();
    return {
      observation: this.lastObservation,
      info: {
        env: this.env,
        entry_id: this.entry.id,
        category: this.entry.category,
        mode: this.mode,
        bfcl_turns: this.entry.question.length,
        tools: this.currentTools,
        system_prompt: this.systemPrompt,
        messages: added,
        anchor: this.anchor(),
        max_steps_per_turn: this.maxStepsPerTurn,
      },
    };
  }

  /** Starts turn `this.turn`: its user messages (or, at a held-back turn, the added functions), the ground truth's calls. */
  private beginTurn(): AgentMessage[] {
    const t = this.turn;
    const held = this.held.get(t);
    let added: AgentMessage[];
    if (held) {
      if (this.mode === 'fc') {
        // BFCL extends the function list (these docs never got the language hint) and recompiles the tools
        this.currentTools = [...this.currentTools, ...held.map((d) => toOpenAiTool(d.json))];
        added = [{ role: 'user', content: this.holdoutPrompt }];
      } else added = [{ role: 'user', content: `${pyRepr(held.map((d) => d.py))}\n${this.holdoutPrompt}` }];
    } else added = this.entry.question[t]!.map((m) => ({ role: m.role as AgentMessage['role'], content: m.content }));
    this.messages.push(...added);
    this.lastObservation = contentText(added[added.length - 1]?.content);
    this.outputTurns.push([]);
    this.stepsInTurn = 0;
    this.turnResults = [];
    this.turnStart = flattenState(this.model);
    return added;
  }

  /** The current turn's score against the ground truth's turn (see progress.ts); 0 past the ground truth's turns. */
  private turnScore(): number {
    const t = this.turn;
    if (t >= this.trace.after.length) return 0;
    return turnScore(this.turnStart, flattenState(this.model), this.trace.after[t]!, this.trace.results[t]!, this.turnResults);
  }

  /** The anchor of the current state, computed once per state (a step's next_anchor is the next step's anchor). */
  private anchor(): string {
    this.cachedAnchor ??= this.computeAnchor();
    return this.cachedAnchor;
  }

  private computeAnchor(): string {
    let sig: string;
    try {
      sig = [...this.model.bound]
        .map(
          ([cls, b]) =>
            `${cls}=${b.inst
              .stateAttrs()
              .map(([k, v]) => `${k}:${pyRepr(v)}`)
              .join(',')}`,
        )
        .join(';');
    } catch (e) {
      if (!(e instanceof PyException || e instanceof EnvLimit)) throw e;
      // a state Python cannot print (a cyclic tree): the calls that built it stand for it
      sig = `calls:${anchorId(this.outputTurns.map((t) => t.join('\n')))}`;
    }
    return anchorId([this.fp, String(this.turn), sig, this.lastObservation]);
  }

  /** The policy's response as BFCL's handler decodes it: calls, [] (no calls), or undefined (it does not decode). */
  private decode(msg: AgentMessage): string[] | undefined {
    if (this.mode === 'prompting') {
      if (typeof msg.content !== 'string') return undefined; // BFCL strips the content: None raises
      return decodePrompting(msg.content);
    }
    const calls = msg.tool_calls ?? [];
    if (calls.length === 0) return [];
    return decodeFunctionCalling(calls.map((c) => ({ [c.function.name]: c.function.arguments })));
  }

  async step(action: unknown): Promise<StepResult> {
    if (!this.started) throw new EnvOptionError('call reset before step');
    if (this.done) throw new EnvOptionError('the episode is done');
    const stepIndex = this.credit.length;
    let msg: AgentMessage;
    try {
      msg = actionMessage(action, stepIndex);
    } catch (e) {
      if (!(e instanceof ResponseFault)) throw e;
      // the policy's own response is at fault: the episode ends at the floor, naming it
      this.messages.push({
        role: 'assistant',
        content: typeof (action as { content?: unknown })?.content === 'string' ? (action as { content: string }).content : null,
      });
      return this.endByFault(stepIndex, `the response is at fault: ${e.message}`);
    }
    const anchor = this.anchor();
    this.cachedAnchor = undefined; // the step changes what the anchor covers
    const t = this.turn;
    const added: AgentMessage[] = [];
    let errors = 0;
    let calls: string[] | undefined;
    let decodeError: string | undefined;
    try {
      try {
        calls = this.decode(msg);
      } catch (e) {
        if (!(e instanceof Unsupported || e instanceof EnvLimit)) throw e;
        // the prompting decoder would eval what arbiter does not evaluate, or the text is over a limit: the model's doing
        this.messages.push(msg);
        return this.endByFault(stepIndex, `the response cannot be decoded as BFCL decodes it (${e.message})`);
      }
      if (calls === undefined) {
        decodeError =
          this.mode === 'fc' ? 'a tool call does not decode (its arguments are not a JSON object)' : 'the response does not decode as a list of Python calls';
        errors = 1;
      }
      this.messages.push(msg);
      let turnEnded = !calls || calls.length === 0;
      if (calls?.length) {
        const results: string[] = [];
        for (const call of calls) {
          try {
            results.push(...this.model.execute([call]));
          } catch (e) {
            if (!(e instanceof Unsupported || e instanceof EnvLimit)) throw e;
            // a call arbiter cannot evaluate, or one over a limit: the model's doing, so the floor
            this.outputTurns[t]!.push(...calls.slice(0, results.length + 1));
            const why = e instanceof Unsupported ? `${e.message}: arbiter does not evaluate it` : e.message;
            return this.endByFault(stepIndex, `the model's call ${JSON.stringify(call.slice(0, 200))} cannot be run (${why})`);
          }
        }
        this.outputTurns[t]!.push(...calls);
        this.turnResults.push(...results);
        errors = results.filter(isToolError).length;
        if (this.mode === 'fc') {
          results.forEach((r, k) => added.push({ role: 'tool', tool_call_id: msg.tool_calls![k]!.id, content: r }));
        } else {
          const shown = results.map((r, k) =>
            PyDict.of([
              ['role', 'tool'],
              ['name', calls![k]!],
              ['content', r],
            ]),
          );
          added.push({ role: 'user', content: pyRepr(shown) });
        }
        this.lastObservation = contentText(added[added.length - 1]!.content);
        this.stepsInTurn++;
        if (this.stepsInTurn > this.maxStepsPerTurn) {
          this.forceQuit = true;
          turnEnded = true;
        }
      }
      this.messages.push(...added);
      const { info, q } = this.creditStep(stepIndex, calls?.length ?? 0, errors, anchor);
      if (turnEnded) {
        this.finishedScore += q;
        this.turn++;
        if (this.forceQuit || this.turn >= this.entry.question.length) this.finish();
        else added.push(...this.beginTurn());
      }
      const out: StepResult = {
        observation: this.done ? '' : this.lastObservation,
        reward: this.done ? this.reward : 0,
        done: this.done,
        info: {
          ...info,
          ...(decodeError ? { decode_error: decodeError } : {}),
          turn_ended: turnEnded,
          messages: added,
          ...(turnEnded && !this.done && this.held.has(this.turn) && this.mode === 'fc' ? { tools: this.currentTools } : {}),
          next_anchor: this.done ? null : this.anchor(),
        },
      };
      if (this.done) this.doneInfo(out);
      return out;
    } catch (e) {
      const stop = this.stopOf(e);
      if (!stop) throw e;
      // the episode cannot go on as BFCL would run it: it ends unscored, saying why
      if (!this.messages.includes(msg)) this.messages.push(msg);
      this.done = true;
      this.reward = null;
      this.error = { kind: stop.kind, message: stop.message };
      this.rewardInfo = { reward: null, valid: false, error: this.error };
      const out: StepResult = { observation: '', reward: null, done: true, info: { turn: stepIndex, bfcl_turn: t, messages: [], next_anchor: null } };
      this.doneInfo(out);
      return out;
    }
  }

  /**
   * Progress after a step (this turn's score so far on top of the finished turns') and the step's
   * credit record: the progress gained (a potential difference) minus the tool-error penalty.
   */
  private creditStep(stepIndex: number, toolCalls: number, errors: number, anchor: BfclStepInfo['anchor']): { info: BfclStepInfo; q: number } {
    const q = this.turnScore();
    const before = this.progress;
    this.progress = progressOf(this.finishedScore + q, this.conditions);
    const info: BfclStepInfo = {
      turn: stepIndex,
      bfcl_turn: this.turn,
      tool_calls: toolCalls,
      tool_errors: errors,
      progress: this.progress,
      step_reward: DEFAULT_STEP_WEIGHTS.progress * (this.progress - before) - DEFAULT_STEP_WEIGHTS.tool_error * errors,
      anchor,
    };
    this.credit.push(info);
    return { info, q };
  }

  /**
   * Ends the episode for what the policy's response caused (a call arbiter cannot run, a limit): the
   * final grade runs on the calls so far (a valid 0, or invalid when the item is at fault) and its
   * reason names the response.
   */
  private endByFault(stepIndex: number, why: string): StepResult {
    const t = this.turn;
    this.fault = `turn ${t}: ${why}; the episode ended there`;
    const { info } = this.creditStep(stepIndex, 0, 1, this.anchor());
    this.finish();
    if (this.rewardInfo?.valid) this.rewardInfo = { ...this.rewardInfo, reward: 0, reason: `${this.fault} (${this.rewardInfo.reason})`, fault: this.fault };
    if (this.reward !== null) this.reward = 0;
    const out: StepResult = { observation: '', reward: this.reward, done: true, info: { ...info, fault: this.fault, messages: [], next_anchor: null } };
    this.doneInfo(out);
    return out;
  }

  private stopOf(e: unknown): EpisodeStop | undefined {
    if (e instanceof EpisodeStop) return e;
    if (e instanceof Unsupported) return new EpisodeStop('bad_input', `${e.message}; arbiter cannot say what BFCL would do`);
    if (e instanceof EnvLimit) return new EpisodeStop('limit_exceeded', e.message);
    if (e instanceof MissingData) return new EpisodeStop('config_error', e.message);
    return undefined;
  }

  private doneInfo(out: StepResult): void {
    out.info.reward = this.reward;
    out.info.truncated = this.forceQuit;
    out.info.reward_info = this.rewardInfo;
    if (this.rewardInfo?.error_type !== undefined) out.info.error_type = this.rewardInfo.error_type;
    if (this.error) out.info.error = this.error;
  }

  /** The final reward: the bfcl_multi_turn grader's, on this episode's recorded calls. */
  private finish(): void {
    this.done = true;
    try {
      const r = scoreMultiTurn(
        {
          turns: this.outputTurns,
          reference: () => this.entry.groundTruth,
          involvedClasses: () => this.entry.involvedClasses,
          initialConfig: () => this.entry.initialConfigText,
          entryId: () => this.entry.id,
        },
        { format: 'calls', limits: { ...DEFAULT_LIMITS }, modelName: this.modelName, irrelevanceCheck: false },
      );
      this.reward = r.score;
      const md = r.metadata ?? {};
      this.rewardInfo = {
        reward: r.score,
        valid: true,
        reason: r.reason ?? null,
        error_type: md.error_type ?? null,
        error_message: md.error_message ?? null,
        failed_turn: md.failed_turn ?? null,
        turns_passed: r.steps ?? [],
      };
      const last = this.credit[this.credit.length - 1];
      if (last && r.score !== null) last.step_reward += DEFAULT_STEP_WEIGHTS.outcome * r.score;
    } catch (e) {
      if (!(e instanceof GradeFailure)) throw e;
      this.reward = null;
      this.error = { kind: e.kind, message: e.message };
      this.rewardInfo = { reward: null, valid: false, error: this.error };
    }
  }

  state(): EpisodeState {
    return {
      env: this.env,
      entry_id: this.entry.id,
      category: this.entry.category,
      mode: this.mode,
      done: this.done,
      truncated: this.forceQuit,
      reward: this.reward,
      turns: this.credit.length,
      bfcl_turn: this.turn,
      messages: this.messages,
      item: this.item,
      sample: { output_turns: this.outputTurns },
      credit: this.credit,
      reward_info: this.rewardInfo,
      ...(this.fault ? { fault: this.fault } : {}),
      ...(this.error ? { error: this.error } : {}),
    };
  }

  close(): void {
    this.done = true;
  }
}

function toolsOptions(q: Record<string, unknown>): Record<string, unknown> {
  // query strings: the index as a number
  const o: Record<string, unknown> = { ...q };
  if (typeof o.index === 'string' && /^\d+$/.test(o.index)) o.index = Number(o.index);
  return o;
}

export const bfclMultiTurnEnv: EnvFamily = {
  name: 'bfcl_multi_turn',
  describe() {
    const categories: Record<string, unknown> = {};
    for (const c of BFCL_CATEGORIES) {
      let entries: number | null = null;
      try {
        entries = loadCategory(c as BfclCategory).length;
      } catch {
        entries = null;
      }
      categories[c] = { entries, ...(c === 'long_context' ? { needs: LONG_CONTEXT_ENV } : {}) };
    }
    return {
      categories,
      options: ['entry_id | category + index | entry', 'mode (fc | prompting)', 'max_steps_per_turn', 'model_name', 'holdout_prompt', 'system_prompt'],
      not_available: 'memory and web_search categories: no data in this distribution (and WebSearchAPI, MemoryAPI_vector are not simulated)',
    };
  },
  tools(options) {
    const o = parseOptions(toolsOptions(options));
    const e = new BfclEpisode(o);
    return { tools: e.tools, system_prompt: e.systemPrompt };
  },
  rewardRange(options) {
    parseOptions(options);
    return [0, 1];
  },
  example(seed) {
    // base has 200 entries
    return { category: 'base', index: seed % 200 };
  },
  create(options) {
    return new BfclEpisode(parseOptions(options));
  },
};
