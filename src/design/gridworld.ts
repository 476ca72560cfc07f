// The grid worlds whose true reward is known, for the worked examples of designed and learned
// rewards (docs/design.md). One mechanism: a map of rows of cells, the four moves, epsilon-greedy
// walkers (a random move with chance epsilon, else the world's greedy one), pairs of episodes
// drawn for preferences. Two layouts: the maze (seeded maps of floor, walls, lava and one goal;
// episodes labelled with their outcome and true return, preferences ordered by it; written by
// scripts/make-design-data.mjs) and the key-door world (a fixed 5×5 map: fetch the key, then the
// door, avoid lava; steps carrying the true reward's features, preferences drawn with
// Bradley–Terry noise; written by scripts/learn-data.mjs). Everything follows from the seed
// (src/core/random.ts), so the scripts write the same files on every machine.
import { seededRandom } from '../core/random.js';

/** The true reward: a cost per move, a bonus on reaching the goal, a penalty on stepping into lava. */
export const TRUE_REWARD = { step: -0.02, goal: 1, lava: -1 } as const;

export const ACTIONS = ['up', 'down', 'left', 'right'] as const;
export type GridAction = (typeof ACTIONS)[number];

const DELTA: Record<GridAction, readonly [number, number]> = { up: [-1, 0], down: [1, 0], left: [0, -1], right: [0, 1] };

export interface GridStep {
  t: number;
  pos: [number, number];
  action: GridAction;
  next: [number, number];
  /** The cell moved into: `.` floor, `#` a wall (the move is refused), `~` lava, `G` the goal. */
  cell: string;
}

export interface GridTrajectory {
  /** Rows of the map, row 0 at the top: `.` floor, `#` wall, `~` lava, `S` start, `G` goal. */
  grid: string[];
  start: [number, number];
  goal: [number, number];
  steps: GridStep[];
}

export interface GridEpisode {
  id: string;
  trajectory: GridTrajectory;
  /** The walker reached the goal. */
  success: boolean;
  /** The sum of the true reward over the steps. */
  return: number;
  /** The walker's chance of a random move (its skill). */
  epsilon: number;
}

export interface GridPreference {
  chosen: string;
  rejected: string;
  /** The two have the same true return (the order carries no preference). */
  tie?: true;
}

export interface GridWorldOptions {
  seed?: number;
  /** Side of each square map (default 6). */
  size?: number;
  maps?: number;
  /** Episodes per map (default 12). */
  episodes?: number;
  maxSteps?: number;
  /** Pairs of episodes labelled with a preference (default 3 per episode). */
  pairs?: number;
}

/** The cell `a` moves into from `pos`, or undefined off the map. */
function moveTarget(grid: readonly string[], pos: readonly [number, number], a: GridAction): { at: [number, number]; cell: string } | undefined {
  const y = pos[0] + DELTA[a][0];
  const x = pos[1] + DELTA[a][1];
  if (y < 0 || x < 0 || y >= grid.length || x >= grid[y]!.length) return undefined;
  return { at: [y, x], cell: grid[y]![x]! };
}

/** An epsilon-greedy walker's move: with chance `epsilon` a random one of `order`, else `greedy`'s. */
function chooseMove(rand: () => number, epsilon: number, order: readonly GridAction[], greedy: () => GridAction): GridAction {
  return rand() < epsilon ? order[Math.floor(rand() * order.length)]! : greedy();
}

/** Two different episodes of `n`, uniformly. */
function drawPair(rand: () => number, n: number): [number, number] {
  const i = Math.floor(rand() * n);
  let j = Math.floor(rand() * (n - 1));
  if (j >= i) j++;
  return [i, j];
}

/** The true reward of one step (what the designed reward should rank like). */
export function stepReward(s: GridStep): number {
  return TRUE_REWARD.step + (s.cell === 'G' ? TRUE_REWARD.goal : s.cell === '~' ? TRUE_REWARD.lava : 0);
}

/** The true return of a trajectory: its step rewards summed left to right. */
export function trueReturn(t: GridTrajectory): number {
  let total = 0;
  for (const s of t.steps) total += stepReward(s);
  return total;
}

function drawMap(rand: () => number, n: number): { grid: string[]; start: [number, number]; goal: [number, number] } {
  for (;;) {
    const cells: string[][] = Array.from({ length: n }, () => Array.from({ length: n }, () => (rand() < 0.12 ? '#' : rand() < 0.12 ? '~' : '.')));
    const start: [number, number] = [n - 1, 0];
    const goal: [number, number] = [Math.floor(rand() * 2), n - 1 - Math.floor(rand() * 2)];
    cells[start[0]]![start[1]] = 'S';
    cells[goal[0]]![goal[1]] = 'G';
    const grid = cells.map((r) => r.join(''));
    if (distances(grid, goal)[start[0] * n + start[1]]! < Infinity) return { grid, start, goal };
  }
}

/** Moves from each cell to the goal over floor (BFS), Infinity where it cannot be reached. */
function distances(grid: string[], goal: [number, number]): number[] {
  const n = grid.length;
  const d = new Array<number>(n * n).fill(Infinity);
  d[goal[0] * n + goal[1]] = 0;
  const todo: [number, number][] = [goal];
  for (let k = 0; k < todo.length; k++) {
    const [r, c] = todo[k]!;
    for (const [dr, dc] of Object.values(DELTA)) {
      const y = r + dr;
      const x = c + dc;
      if (y < 0 || x < 0 || y >= n || x >= n) continue;
      const cell = grid[y]![x]!;
      if (cell === '#' || cell === '~' || d[y * n + x]! < Infinity) continue;
      d[y * n + x] = d[r * n + c]! + 1;
      todo.push([y, x]);
    }
  }
  return d;
}

function walk(rand: () => number, map: { grid: string[]; start: [number, number]; goal: [number, number] }, epsilon: number, maxSteps: number): GridTrajectory {
  const n = map.grid.length;
  const d = distances(map.grid, map.goal);
  let pos: [number, number] = [...map.start];
  // the move that gets nearest the goal (the first of equals)
  const greedy = (): GridAction => {
    let best = Infinity;
    let action: GridAction = 'up';
    for (const a of ACTIONS) {
      const to = moveTarget(map.grid, pos, a);
      const v = to ? d[to.at[0] * n + to.at[1]]! : Infinity;
      if (v < best) {
        best = v;
        action = a;
      }
    }
    return action;
  };
  const steps: GridStep[] = [];
  for (let t = 0; t < maxSteps; t++) {
    const action = chooseMove(rand, epsilon, ACTIONS, greedy);
    // off the map is a wall: the move is refused
    const to = moveTarget(map.grid, pos, action) ?? { at: pos, cell: '#' };
    const cell = to.cell === 'S' ? '.' : to.cell;
    const next: [number, number] = cell === '#' ? [...pos] : to.at;
    steps.push({ t, pos, action, next, cell });
    pos = next;
    if (cell === 'G' || cell === '~') break;
  }
  return { grid: map.grid, start: map.start, goal: map.goal, steps };
}

const SKILLS = [0.05, 0.25, 0.5, 0.8] as const;

/** The episodes and preferences of one seed. */
export function gridWorldData(opts: GridWorldOptions = {}): { episodes: GridEpisode[]; preferences: GridPreference[] } {
  const rand = seededRandom(opts.seed ?? 7);
  const size = opts.size ?? 6;
  const episodes: GridEpisode[] = [];
  for (let m = 0; m < (opts.maps ?? 3); m++) {
    const map = drawMap(rand, size);
    for (let e = 0; e < (opts.episodes ?? 12); e++) {
      const epsilon = SKILLS[e % SKILLS.length]!;
      const trajectory = walk(rand, map, epsilon, opts.maxSteps ?? 3 * size);
      const last = trajectory.steps[trajectory.steps.length - 1];
      episodes.push({ id: `gw-${m}-${e}`, trajectory, success: last?.cell === 'G', return: round6(trueReturn(trajectory)), epsilon });
    }
  }
  const preferences: GridPreference[] = [];
  const want = opts.pairs ?? 3 * episodes.length;
  for (let k = 0; k < want; k++) {
    const [i, j] = drawPair(rand, episodes.length);
    const a = episodes[i]!;
    const b = episodes[j]!;
    if (a.return === b.return) preferences.push({ chosen: a.id, rejected: b.id, tie: true });
    else preferences.push(a.return > b.return ? { chosen: a.id, rejected: b.id } : { chosen: b.id, rejected: a.id });
  }
  return { episodes, preferences };
}

/** Six decimals: the return as the data files carry it (sums of -0.02 steps have float noise). */
function round6(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** The episodes as arbiter records: the trajectory in `sample`, the labels in `item`. */
export function gridWorldRecords(episodes: GridEpisode[]): { id: string; sample: { trajectory: GridTrajectory }; item: Record<string, unknown> }[] {
  return episodes.map((e) => ({
    id: e.id,
    sample: { trajectory: e.trajectory },
    item: { success: e.success, return: e.return, steps: e.trajectory.steps.length },
  }));
}

/**
 * The key-door world: a 5×5 map, row 0 at the top, from (0, 0): the key `K`, the door `D`, lava
 * `L`. A step is a move (one off the map stays put); the episode ends at the door holding the key or
 * in lava, else after 20 steps. Its true reward: +1 reaching the door with the key, -1 entering
 * lava, -0.05 for any other step; each step's `features` say which of the three it was.
 */
const KEY_DOOR_MAP = ['.....', '...L.', '..L..', '.K...', '....D'];
const KEY_DOOR_REWARD = { goal: 1, lava: -1, step: -0.05 } as const;
/** The order a random move is drawn from. */
const KEY_DOOR_MOVES: readonly GridAction[] = ['down', 'up', 'right', 'left'];
const KEY_DOOR_STEPS = 20;

export interface KeyDoorStep {
  t: number;
  /** The position after the move: x the row, y the column. */
  obs: { x: number; y: number };
  cell: string;
  has_key: boolean;
  features: { goal: number; lava: number; step: number };
}

export interface KeyDoorEpisode {
  steps: KeyDoorStep[];
  /** The true return: the step rewards summed left to right. */
  return: number;
}

export interface KeyDoorOptions {
  seed?: number;
  /** Episodes (default 300). */
  trajectories?: number;
  /** Preference pairs (default 1500; none with fewer than two episodes). */
  pairs?: number;
}

/** One walker of a random care (epsilon uniform in [0.2, 1)): greedy steps go toward the key, then the door, along the rows first. */
function keyDoorEpisode(rand: () => number): KeyDoorEpisode {
  const epsilon = 0.2 + 0.8 * rand();
  let pos: [number, number] = [0, 0];
  let hasKey = false;
  const greedy = (): GridAction => {
    const [tx, ty] = hasKey ? [4, 4] : [3, 1];
    if (pos[0] !== tx) return tx > pos[0] ? 'down' : 'up';
    return ty > pos[1] ? 'right' : 'left';
  };
  const steps: KeyDoorStep[] = [];
  for (let t = 0; t < KEY_DOOR_STEPS; t++) {
    const to = moveTarget(KEY_DOOR_MAP, pos, chooseMove(rand, epsilon, KEY_DOOR_MOVES, greedy));
    if (to) pos = to.at;
    const cell = KEY_DOOR_MAP[pos[0]]![pos[1]]!;
    if (cell === 'K') hasKey = true;
    const goal = cell === 'D' && hasKey ? 1 : 0;
    const lava = cell === 'L' ? 1 : 0;
    steps.push({ t, obs: { x: pos[0], y: pos[1] }, cell, has_key: hasKey, features: { goal, lava, step: goal || lava ? 0 : 1 } });
    if (goal || lava) break;
  }
  let ret = 0;
  for (const s of steps) ret += s.features.goal ? KEY_DOOR_REWARD.goal : s.features.lava ? KEY_DOOR_REWARD.lava : KEY_DOOR_REWARD.step;
  return { steps, return: ret };
}

/**
 * The key-door world's episodes and preference pairs of one seed: each pair two different
 * episodes, the first chosen with P = σ(3 · (R_a − R_b)) (Bradley–Terry with logistic noise).
 */
export function keyDoorData(opts: KeyDoorOptions = {}): { episodes: KeyDoorEpisode[]; preferences: { chosen: KeyDoorEpisode; rejected: KeyDoorEpisode }[] } {
  const rand = seededRandom(opts.seed ?? 1);
  const n = opts.trajectories ?? 300;
  const episodes = Array.from({ length: n }, () => keyDoorEpisode(rand));
  const preferences: { chosen: KeyDoorEpisode; rejected: KeyDoorEpisode }[] = [];
  for (let k = 0; k < (opts.pairs ?? 1500) && n > 1; k++) {
    const [i, j] = drawPair(rand, n);
    const p = 1 / (1 + Math.exp(-3 * (episodes[i]!.return - episodes[j]!.return)));
    const [c, r] = rand() < p ? [i, j] : [j, i];
    preferences.push({ chosen: episodes[c]!, rejected: episodes[r]! });
  }
  return { episodes, preferences };
}
