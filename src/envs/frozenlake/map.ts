// FrozenLake's world (RAGEN/StarPO's text FrozenLake over gymnasium's toy-text rules): a square map
// drawn from a seed until the goal can be reached from the start, moves that stop at the edge and,
// on slippery ice, go the intended way or either way beside it with equal chances, and the text
// rendering the policy reads. The seed drives Python's random.Random (src/py/random.ts), so a map
// can be redrawn in Python with the same calls.
import type { PyRandom } from '../../py/random.js';

/** A cell: frozen (safe), hole (the episode ends, no reward), start, goal (the episode ends, reward 1). */
export type Cell = 'F' | 'H' | 'S' | 'G';

/** The moves, in gymnasium's order (0 left, 1 down, 2 right, 3 up). */
export const MOVES = ['Left', 'Down', 'Right', 'Up'] as const;

const DELTA: Record<number, readonly [number, number]> = { 0: [0, -1], 1: [1, 0], 2: [0, 1], 3: [-1, 0] };

/** What each symbol of the rendering stands for. */
export const SYMBOLS: Readonly<Record<string, string>> = {
  P: 'you',
  _: 'frozen ice (safe)',
  O: 'a hole',
  G: 'the goal',
  X: 'you, fallen into a hole',
  '√': 'you, on the goal',
};

/** Draws that may be made before a map with a path is given up on (a clear error, never a hang). */
export const MAX_DRAWS = 10_000;

export class NoMapError extends Error {
  override name = 'NoMapError';
}

export interface LakeMap {
  readonly size: number;
  /** Rows of cells, row 0 at the top. */
  readonly rows: readonly (readonly Cell[])[];
  readonly start: readonly [number, number];
  readonly goal: readonly [number, number];
}

/** True when the goal can be reached from the start over cells that are not holes. */
export function hasPath(rows: readonly (readonly Cell[])[]): boolean {
  const n = rows.length;
  const seen = new Set<number>();
  const todo: [number, number][] = [];
  for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) if (rows[r]![c] === 'S') todo.push([r, c]);
  while (todo.length) {
    const [r, c] = todo.pop()!;
    if (seen.has(r * n + c)) continue;
    seen.add(r * n + c);
    for (const [dr, dc] of Object.values(DELTA)) {
      const y = r + dr;
      const x = c + dc;
      if (y < 0 || x < 0 || y >= n || x >= n) continue;
      const cell = rows[y]![x]!;
      if (cell === 'G') return true;
      if (cell !== 'H') todo.push([y, x]);
    }
  }
  return false;
}

/**
 * The map of a seed: each cell frozen with probability `pFrozen` (random() < pFrozen, row by row),
 * then the start and the goal at randint positions (row, then column), redrawn until they differ
 * and a path joins them. `rng` continues to drive the slippery moves of the episode.
 */
export function drawMap(rng: PyRandom, size: number, pFrozen: number): LakeMap {
  const hi = BigInt(size - 1);
  for (let draw = 0; draw < MAX_DRAWS; draw++) {
    const rows: Cell[][] = Array.from({ length: size }, () => Array.from({ length: size }, () => (rng.random() < pFrozen ? 'F' : 'H')));
    const start = [Number(rng.randint(0n, hi)), Number(rng.randint(0n, hi))] as const;
    const goal = [Number(rng.randint(0n, hi)), Number(rng.randint(0n, hi))] as const;
    if (start[0] === goal[0] && start[1] === goal[1]) continue;
    rows[start[0]]![start[1]] = 'S';
    rows[goal[0]]![goal[1]] = 'G';
    if (hasPath(rows)) return { size, rows, start, goal };
  }
  throw new NoMapError(`no ${size}x${size} map with a path from start to goal in ${MAX_DRAWS} draws at p=${pFrozen}: raise p`);
}

/** Where a move from `pos` lands (the edge stops it) and the direction actually taken. */
export function move(map: LakeMap, pos: readonly [number, number], intended: number, slippery: boolean, rng: PyRandom): [number, number] {
  const dir = slippery ? (intended + Number(rng.randint(0n, 2n)) + 3) % 4 : intended; // intended-1, intended, intended+1
  const [dr, dc] = DELTA[dir]!;
  const r = Math.min(Math.max(pos[0] + dr, 0), map.size - 1);
  const c = Math.min(Math.max(pos[1] + dc, 0), map.size - 1);
  return [r, c];
}

/** The text rendering: one line per row; P is the player (X in a hole, √ on the goal), _ ice, O a hole, G the goal. */
export function render(map: LakeMap, pos: readonly [number, number]): string {
  return map.rows
    .map((row, r) =>
      row
        .map((cell, c) => {
          if (r === pos[0] && c === pos[1]) return cell === 'H' ? 'X' : cell === 'G' ? '√' : 'P';
          return cell === 'H' ? 'O' : cell === 'G' ? 'G' : '_';
        })
        .join(''),
    )
    .join('\n');
}
