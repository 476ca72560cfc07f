// A tiny grid world whose true reward is known, for the worked examples of designed and learned
// rewards (docs/design.md): seeded maps (floor, walls, lava, one goal), episodes of epsilon-greedy
// walkers of several skills, each trajectory labelled with its outcome and its true return, and
// pairwise preferences between trajectories ordered by that return. Everything follows from the
// seed (src/core/random.ts), so scripts/make-design-data.mjs writes the same files on every machine.
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
  const steps: GridStep[] = [];
  for (let t = 0; t < maxSteps; t++) {
    let action: GridAction;
    if (rand() < epsilon) action = ACTIONS[Math.floor(rand() * 4)]!;
    else {
      // the move that gets nearest the goal (the first of equals)
      let best = Infinity;
      action = 'up';
      for (const a of ACTIONS) {
        const y = pos[0] + DELTA[a][0];
        const x = pos[1] + DELTA[a][1];
        const v = y < 0 || x < 0 || y >= n || x >= n ? Infinity : d[y * n + x]!;
        if (v < best) {
          best = v;
          action = a;
        }
      }
    }
    const y = pos[0] + DELTA[action][0];
    const x = pos[1] + DELTA[action][1];
    const inside = y >= 0 && x >= 0 && y < n && x < n;
    const raw = inside ? map.grid[y]![x]! : '#';
    const cell = raw === 'S' ? '.' : raw;
    const next: [number, number] = cell === '#' ? [...pos] : [y, x];
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
    const i = Math.floor(rand() * episodes.length);
    let j = Math.floor(rand() * (episodes.length - 1));
    if (j >= i) j++;
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
