// The FrozenLake environment family (RAGEN/StarPO's multi-turn text game): each turn the policy
// answers in text with up to `max_actions_per_turn` moves inside <answer>…</answer> (after a
// <think>…</think> block unless `think` is false), separated by "||"; the moves are Left, Down,
// Right, Up in any letter case, other words are dropped. A turn with a dropped word or no move at all
// costs `format_penalty`. The episode ends on the goal (1) or a hole (0), when `max_actions` moves
// are spent, or after `max_turns` turns; the final reward is the goal's 1 or 0 plus the penalties.
import { z } from 'zod';
import { actionMessage, ResponseFault } from '../../agents/action.js';
import { anchorId } from '../../agents/credit.js';
import { EnvOptionError, type EnvFamily, type Episode, type EpisodeState, type ResetResult, type StepResult } from '../../agents/env.js';
import { contentText, type AgentMessage } from '../../agents/trajectory.js';
import { floatRepr } from '../../py/repr.js';
import { PyRandom } from '../../py/random.js';
import { drawMap, type LakeMap, move, MOVES, NoMapError, render, SYMBOLS } from './map.js';

const optionsSchema = z
  .object({
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(0),
    size: z.number().int().min(2).max(16).default(4),
    p: z.number().gt(0).max(1).default(0.8),
    slippery: z.boolean().default(true),
    max_actions: z.number().int().min(1).max(1000).default(10),
    max_actions_per_turn: z.number().int().min(1).max(100).default(5),
    max_turns: z.number().int().min(1).max(1000).default(5),
    format_penalty: z.number().min(-1).max(0).default(-0.1),
    think: z.boolean().default(true),
  })
  .strict();

export type FrozenLakeOptions = z.infer<typeof optionsSchema>;

function parseOptions(o: Record<string, unknown>): FrozenLakeOptions {
  const r = optionsSchema.safeParse(o);
  if (!r.success) {
    const i = r.error.issues[0]!;
    const at = i.path.length ? i.path.join('.') : '(options)';
    throw new EnvOptionError(`frozenlake ${at}: ${i.code === 'unrecognized_keys' ? `unknown option(s) ${i.keys.join(', ')}` : i.message}`);
  }
  return r.data;
}

const SEPARATOR = '||';
/** A plain assistant system message, as RAGEN sends; the game's rules come in the first observation. */
const SYSTEM_PROMPT = 'You are a helpful assistant.';

/** The moves of one answer: the recognised ones (indices into MOVES), and whether any word was dropped. */
export function parseAnswer(text: string, think: boolean, maxPerTurn: number): { moves: number[]; wellFormed: boolean } {
  const m = (think ? /<think>([\s\S]*?)<\/think>\s*<answer>([\s\S]*?)<\/answer>/ : /<answer>([\s\S]*?)<\/answer>/).exec(text);
  if (!m) return { moves: [], wellFormed: false };
  const body = (think ? m[2]! : m[1]!).replace(/<\/?(?:think|answer)>/g, '');
  const words = body
    .split(SEPARATOR)
    .map((w) => w.trim())
    .filter(Boolean)
    .slice(0, maxPerTurn);
  const moves = words.map((w) => MOVES.findIndex((name) => name.toLowerCase() === w.toLowerCase())).filter((i) => i >= 0);
  return { moves, wellFormed: moves.length > 0 && moves.length === words.length };
}

function instructions(o: FrozenLakeOptions): string {
  const format = o.think ? '<think>your reasoning</think><answer>Move || Move</answer>' : '<answer>Move || Move</answer>';
  return [
    `FrozenLake: walk from your square to the goal G across a ${o.size}x${o.size} frozen lake without stepping into a hole.`,
    o.slippery ? 'The ice is slippery: a move may take you to either side of the way you meant.' : 'The ice is not slippery: every move goes the way you mean.',
    `Symbols: ${Object.entries(SYMBOLS)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    `Moves: ${MOVES.join(', ')}. Give up to ${o.max_actions_per_turn} per turn, separated by "${SEPARATOR}", and ${o.max_actions} in all.`,
    `Answer as ${format} and nothing else.`,
  ].join('\n');
}

export class FrozenLakeEpisode implements Episode {
  readonly env = 'frozenlake';
  readonly tools = [] as const;
  readonly systemPrompt = SYSTEM_PROMPT;
  private readonly o: FrozenLakeOptions;
  private map!: LakeMap;
  private rng!: PyRandom;
  private pos: [number, number] = [0, 0];
  private messages: AgentMessage[] = [];
  private started = false;
  private done = false;
  private reward: number | null = null;
  private actionsLeft: number;
  private turns: { turn: number; moves: string[]; well_formed: boolean; anchor: string }[] = [];
  private penalty = 0;
  private endedBy: 'goal' | 'hole' | 'max_actions' | 'max_turns' | 'agent_fault' | null = null;

  constructor(options: FrozenLakeOptions) {
    this.o = options;
    this.actionsLeft = options.max_actions;
  }

  private observation(turn: number): string {
    return `Turn ${turn}:\nState:\n${render(this.map, this.pos)}\nYou have ${this.actionsLeft} actions left.`;
  }

  async reset(): Promise<ResetResult> {
    this.rng = new PyRandom(BigInt(this.o.seed));
    try {
      this.map = drawMap(this.rng, this.o.size, this.o.p);
    } catch (e) {
      if (e instanceof NoMapError) throw new EnvOptionError(e.message);
      throw e;
    }
    this.pos = [this.map.start[0], this.map.start[1]];
    this.actionsLeft = this.o.max_actions;
    this.turns = [];
    this.penalty = 0;
    this.done = false;
    this.reward = null;
    this.endedBy = null;
    this.started = true;
    const observation = `${instructions(this.o)}\n${this.observation(1)}`;
    this.messages = [
      { role: 'system', content: this.systemPrompt },
      { role: 'user', content: observation },
    ];
    return { observation, info: { env: this.env, seed: this.o.seed, size: this.o.size, slippery: this.o.slippery, anchor: this.anchor(), tools: [] } };
  }

  private anchor(): string {
    return anchorId(['frozenlake', String(this.o.seed), render(this.map, this.pos), String(this.actionsLeft)]);
  }

  async step(action: unknown): Promise<StepResult> {
    if (!this.started) throw new EnvOptionError('call reset before step');
    if (this.done) throw new EnvOptionError('the episode is done');
    let msg: AgentMessage;
    try {
      msg = actionMessage(action, this.turns.length);
    } catch (e) {
      if (!(e instanceof ResponseFault)) throw e;
      return this.end('agent_fault', `the agent's action is at fault: ${e.message}`);
    }
    const anchor = this.anchor();
    const text = contentText(msg.content);
    const { moves, wellFormed } = msg.tool_calls?.length
      ? { moves: [], wellFormed: false } // FrozenLake has no tools: a tool call is a malformed answer
      : parseAnswer(text, this.o.think, this.o.max_actions_per_turn);
    if (!wellFormed) this.penalty += this.o.format_penalty;
    const taken: string[] = [];
    for (const m of moves.slice(0, this.actionsLeft)) {
      this.pos = move(this.map, this.pos, m, this.o.slippery, this.rng);
      this.actionsLeft--;
      taken.push(MOVES[m]!);
      const cell = this.map.rows[this.pos[0]]![this.pos[1]];
      if (cell === 'G') this.endedBy = 'goal';
      else if (cell === 'H') this.endedBy = 'hole';
      if (this.endedBy) break;
    }
    this.turns.push({ turn: this.turns.length, moves: taken, well_formed: wellFormed, anchor });
    if (!this.endedBy && this.actionsLeft === 0) this.endedBy = 'max_actions';
    if (!this.endedBy && this.turns.length >= this.o.max_turns) this.endedBy = 'max_turns';
    const gained = this.endedBy === 'goal' ? 1 : 0;
    const observation = `Reward:\n${floatRepr(gained)}\n\n${this.endedBy ? `State:\n${render(this.map, this.pos)}` : this.observation(this.turns.length + 1)}`;
    this.messages.push(msg, { role: 'user', content: observation });
    const info: Record<string, unknown> = { moves: taken, well_formed: wellFormed, actions_left: this.actionsLeft, anchor };
    if (this.endedBy) {
      this.done = true;
      this.reward = gained + this.penalty;
      info.ended_by = this.endedBy;
      info.success = this.endedBy === 'goal';
      info.penalty = this.penalty;
    }
    return { observation, reward: this.done ? this.reward! : 0, done: this.done, info };
  }

  private end(by: 'agent_fault', reason: string): StepResult {
    this.done = true;
    this.endedBy = by;
    this.reward = this.penalty + this.o.format_penalty;
    return { observation: '', reward: this.reward, done: true, info: { ended_by: by, reason, success: false } };
  }

  state(): EpisodeState {
    return {
      env: this.env,
      seed: this.o.seed,
      done: this.done,
      reward: this.reward,
      turns: this.turns.length,
      messages: this.messages,
      item: { seed: this.o.seed, size: this.o.size, slippery: this.o.slippery, map: this.started ? render(this.map, this.map.start) : null },
      ended_by: this.endedBy,
      success: this.endedBy === 'goal',
      credit: this.turns,
    };
  }

  close(): void {
    this.done = true;
  }
}

export const frozenLakeEnv: EnvFamily = {
  name: 'frozenlake',
  describe() {
    return {
      options: Object.keys(optionsSchema.shape),
      defaults: optionsSchema.parse({}),
      reward: 'goal 1, else 0, plus format_penalty for each turn whose answer had a word that is not a move or no move',
    };
  },
  tools(options) {
    parseOptions(options);
    return { tools: [], system_prompt: SYSTEM_PROMPT };
  },
  rewardRange(options) {
    const o = parseOptions(options);
    return [o.format_penalty * o.max_turns, 1];
  },
  example(seed) {
    return { seed };
  },
  create(options) {
    return new FrozenLakeEpisode(parseOptions(options));
  },
};
