// FrozenLake (src/envs/frozenlake/): maps drawn from a seed are the same every time, always have a
// path, and are what Python's random.Random draws with the same calls (checked against python3);
// a scripted shortest path on non-slippery ice reaches the goal with reward 1; answers with words
// that are not moves, no answer block, tool calls or too many moves cost the format penalty; holes,
// the action budget and the turn limit end the episode; slippery ice slips, the same way for a seed;
// and the family is served by `arbiter env serve` (the command, spawned) over real HTTP.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { EnvOptionError } from '../../dist/agents/index.js';
import { drawMap, frozenLakeEnv, hasPath, type LakeMap, MOVES, parseAnswer, render } from '../../dist/envs/frozenlake/index.js';
import { PyRandom } from '../../dist/py/random.js';
import { CLI, ROOT } from '../helpers/cli.js';

const DELTA = [
  [0, -1],
  [1, 0],
  [0, 1],
  [-1, 0],
] as const;

/** The moves of a shortest safe path from start to goal (breadth-first). */
function shortestPath(map: LakeMap): string[] {
  const n = map.size;
  const prev = new Map<number, [number, number]>(); // cell -> [previous cell, move]
  const key = (r: number, c: number) => r * n + c;
  const queue: [number, number][] = [[map.start[0], map.start[1]]];
  prev.set(key(map.start[0], map.start[1]), [-1, -1]);
  while (queue.length) {
    const [r, c] = queue.shift()!;
    if (r === map.goal[0] && c === map.goal[1]) {
      const moves: string[] = [];
      for (let k = key(r, c); prev.get(k)![0] >= 0; k = prev.get(k)![0]) moves.unshift(MOVES[prev.get(k)![1]]!);
      return moves;
    }
    DELTA.forEach(([dr, dc], m) => {
      const y = r + dr;
      const x = c + dc;
      if (y < 0 || x < 0 || y >= n || x >= n || map.rows[y]![x] === 'H' || prev.has(key(y, x))) return;
      prev.set(key(y, x), [key(r, c), m]);
      queue.push([y, x]);
    });
  }
  throw new Error('no path');
}

const answer = (moves: string[]) => ({ role: 'assistant', content: `<think>Plan.</think><answer>${moves.join(' || ')}</answer>` });

function episode(options: Record<string, unknown>) {
  return frozenLakeEnv.create(options, {});
}

describe('maps', () => {
  it('a seed draws the same map every time; every map has a path; start and goal differ; seeds differ', () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 60; seed++) {
      const a = drawMap(new PyRandom(BigInt(seed)), 4, 0.8);
      const b = drawMap(new PyRandom(BigInt(seed)), 4, 0.8);
      expect(b).toEqual(a);
      expect(hasPath(a.rows)).toBe(true);
      expect(a.start).not.toEqual(a.goal);
      expect(a.rows[a.start[0]]![a.start[1]]).toBe('S');
      expect(a.rows[a.goal[0]]![a.goal[1]]).toBe('G');
      seen.add(a.rows.map((r) => r.join('')).join('/'));
    }
    expect(seen.size).toBeGreaterThan(50);
  });

  it('is what Python draws with random.Random(seed) and the same calls', () => {
    const py = `
import json, random, sys
def path(b, n):
    todo, seen = [(r, c) for r in range(n) for c in range(n) if b[r][c] == "S"], set()
    while todo:
        r, c = todo.pop()
        if (r, c) in seen: continue
        seen.add((r, c))
        for dr, dc in [(0, -1), (1, 0), (0, 1), (-1, 0)]:
            y, x = r + dr, c + dc
            if 0 <= y < n and 0 <= x < n:
                if b[y][x] == "G": return True
                if b[y][x] != "H": todo.append((y, x))
    return False
out = []
for seed, n, p in json.loads(sys.argv[1]):
    rng = random.Random(seed)
    while True:
        b = [["F" if rng.random() < p else "H" for _ in range(n)] for _ in range(n)]
        s = (rng.randint(0, n - 1), rng.randint(0, n - 1)); g = (rng.randint(0, n - 1), rng.randint(0, n - 1))
        if s == g: continue
        b[s[0]][s[1]] = "S"; b[g[0]][g[1]] = "G"
        if path(b, n): break
    out.append(["".join(r) for r in b])
print(json.dumps(out))`;
    const cases: [number, number, number][] = [
      [0, 4, 0.8],
      [1, 4, 0.8],
      [42, 4, 0.8],
      [7, 6, 0.6],
      [123456789, 8, 0.7],
    ];
    const r = spawnSync('python3', ['-c', py, JSON.stringify(cases)], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const ours = cases.map(([seed, n, p]) => drawMap(new PyRandom(BigInt(seed)), n, p).rows.map((row) => row.join('')));
    expect(ours).toEqual(JSON.parse(r.stdout));
  });

  it('renders the player, ice, holes and the goal as RAGEN does (P _ O G, X in a hole, √ on the goal)', () => {
    const map: LakeMap = {
      size: 2,
      rows: [
        ['S', 'H'],
        ['F', 'G'],
      ],
      start: [0, 0],
      goal: [1, 1],
    };
    expect(render(map, [0, 0])).toBe('PO\n_G');
    expect(render(map, [0, 1])).toBe('_X\n_G');
    expect(render(map, [1, 1])).toBe('_O\n_√');
  });

  it('draws a map with a path even when nearly every cell is a hole (the start then touches the goal)', () => {
    const map = drawMap(new PyRandom(5n), 16, 1e-9);
    expect(hasPath(map.rows)).toBe(true);
    expect(Math.abs(map.start[0] - map.goal[0]) + Math.abs(map.start[1] - map.goal[1])).toBe(1);
  });
});

describe('answers', () => {
  it('reads moves inside <think>…</think><answer>…</answer>, any case, split on ||, at most max_actions_per_turn', () => {
    expect(parseAnswer('<think>go</think> <answer>Left || down||RIGHT</answer>', true, 5)).toEqual({ moves: [0, 1, 2], wellFormed: true });
    expect(parseAnswer('<answer>Left</answer>', true, 5)).toEqual({ moves: [], wellFormed: false });
    expect(parseAnswer('<answer>Left</answer>', false, 5)).toEqual({ moves: [0], wellFormed: true });
    expect(parseAnswer('<think>x</think><answer>Left || Fly</answer>', true, 5)).toEqual({ moves: [0], wellFormed: false });
    expect(parseAnswer('<think>x</think><answer>Up||Up||Up||Up||Up||Up||Up</answer>', true, 5)).toEqual({ moves: [3, 3, 3, 3, 3], wellFormed: true });
    expect(parseAnswer('Left', true, 5)).toEqual({ moves: [], wellFormed: false });
  });
});

describe('episodes', () => {
  it('a scripted shortest path on non-slippery ice reaches the goal: reward 1, ended by the goal', async () => {
    for (const seed of [0, 1, 2, 5, 9]) {
      const options = { seed, slippery: false, max_actions: 50, max_turns: 20 };
      const ep = episode(options);
      const r = await ep.reset();
      expect(r.observation).toMatch(/Turn 1:\nState:\n[P_OG\n]+\nYou have 50 actions left\./);
      const map = drawMap(new PyRandom(BigInt(seed)), 4, 0.8);
      const path = shortestPath(map);
      let last: Awaited<ReturnType<typeof ep.step>> | undefined;
      for (let i = 0; i < path.length; i += 5) last = await ep.step(answer(path.slice(i, i + 5)));
      expect(last).toMatchObject({ reward: 1, done: true, info: { ended_by: 'goal', success: true, penalty: 0 } });
      expect(last!.observation).toMatch(/^Reward:\n1\.0\n\nState:\n.*√/s);
      expect(ep.state()).toMatchObject({ done: true, reward: 1, success: true, turns: Math.ceil(path.length / 5) });
    }
  });

  it('a word that is not a move, no answer block or a tool call costs the format penalty; the turn limit ends the episode', async () => {
    const ep = episode({ seed: 0, slippery: false, max_turns: 3, format_penalty: -0.25 });
    await ep.reset();
    const a = await ep.step({ role: 'assistant', content: 'Left' });
    expect(a).toMatchObject({ reward: 0, done: false, info: { moves: [], well_formed: false, actions_left: 10 } });
    const b = await ep.step({ role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'Left', arguments: '{}' } }] });
    expect(b).toMatchObject({ done: false, info: { moves: [], well_formed: false } });
    const c = await ep.step({ role: 'assistant', content: '<think>x</think><answer>Jump</answer>' });
    expect(c).toMatchObject({ done: true, reward: -0.75, info: { ended_by: 'max_turns', success: false, penalty: -0.75 } });
    await expect(ep.step(answer(['Left']))).rejects.toBeInstanceOf(EnvOptionError);
  });

  it('a hole ends the episode with reward 0; the action budget ends it too', async () => {
    // find a seed whose start has a hole next to it on non-slippery ice
    let found = false;
    for (let seed = 0; seed < 200 && !found; seed++) {
      const map = drawMap(new PyRandom(BigInt(seed)), 4, 0.8);
      const m = DELTA.findIndex(([dr, dc]) => map.rows[map.start[0] + dr]?.[map.start[1] + dc] === 'H');
      if (m < 0) continue;
      found = true;
      const ep = episode({ seed, slippery: false });
      await ep.reset();
      const s = await ep.step(answer([MOVES[m]!, MOVES[m]!]));
      expect(s).toMatchObject({ done: true, reward: 0, info: { ended_by: 'hole', success: false, moves: [MOVES[m]] } });
      expect(s.observation).toMatch(/X/);
    }
    expect(found).toBe(true);
    // back and forth beside the start, on ice: the budget of 3 moves ends the episode
    const safe = (map: LakeMap, r: number, c: number) => (map.rows[r]?.[c] ?? 'F') === 'F';
    let seed = 0;
    let map = drawMap(new PyRandom(0n), 4, 0.8);
    while (!safe(map, map.start[0], map.start[1] - 1) || !safe(map, map.start[0], map.start[1] + 1)) map = drawMap(new PyRandom(BigInt(++seed)), 4, 0.8);
    const ep = episode({ seed, slippery: false, max_actions: 3, max_turns: 10 });
    await ep.reset();
    const s = await ep.step(answer(['Left', 'Right', 'Left', 'Right', 'Left']));
    expect(s).toMatchObject({ done: true, reward: 0, info: { moves: ['Left', 'Right', 'Left'], actions_left: 0, ended_by: 'max_actions' } });
  });

  it('slippery ice slips (to either side of the intended move), the same way for a seed', async () => {
    const run = async () => {
      const ep = episode({ seed: 11, slippery: true, max_actions: 200, max_turns: 100, size: 8, p: 1 });
      await ep.reset();
      const observations: string[] = [];
      for (let i = 0; i < 40; i++) {
        const s = await ep.step(answer(['Right']));
        observations.push(s.observation);
        if (s.done) break;
      }
      return observations;
    };
    const a = await run();
    expect(await run()).toEqual(a);
    // on a map without holes, "Right" sometimes moves the player down or up: some rows change
    const rowOf = (o: string) => o.split('\n').findIndex((l) => /[P√]/.test(l));
    expect(new Set(a.map(rowOf)).size).toBeGreaterThan(1);
  });

  it('refuses unknown and out-of-range options', () => {
    expect(() => episode({ seed: -1 })).toThrow(/seed/);
    expect(() => episode({ size: 1 })).toThrow(/size/);
    expect(() => episode({ format_penalty: 0.5 })).toThrow(/format_penalty/);
    expect(() => episode({ slipery: true })).toThrow(/unknown option\(s\) slipery/);
    expect(frozenLakeEnv.rewardRange({ max_turns: 4, format_penalty: -0.5 })).toEqual([-2, 1]);
  });
});

describe('arbiter env serve (the command) over HTTP', () => {
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('serves frozenlake: reset, the shortest path step by step, reward 1, /state the trajectory', async () => {
    child = spawn(process.execPath, [CLI, 'env', 'serve', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    const url = await new Promise<string>((resolve, reject) => {
      child!.stderr!.setEncoding('utf8').on('data', (d: string) => {
        err += d;
        const m = /listening on (http:\/\/\S+)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child!.on('exit', (code) => reject(new Error(`env serve exited ${code}: ${err}`)));
    });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as any };
    };
    const envs = (await (await fetch(`${url}/envs`)).json()) as { envs: Record<string, unknown> };
    expect(Object.keys(envs.envs)).toContain('frozenlake');
    const bad = await post('/reset', { env: 'frozenlake', size: 99 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toMatch(/size/);

    const r = await post('/reset', { env: 'frozenlake', seed: 2, slippery: false, max_actions: 50, max_turns: 20 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ done: false });
    const sid = r.json.session_id;
    const path = shortestPath(drawMap(new PyRandom(2n), 4, 0.8));
    let s: { status: number; json: any } | undefined;
    for (const m of path) {
      s = await post('/step', { session_id: sid, action: { role: 'assistant', content: `<think>.</think><answer>${m}</answer>` } });
      expect(s.status).toBe(200);
    }
    expect(s!.json).toMatchObject({ reward: 1, done: true });
    const st = await post('/state', { session_id: sid });
    expect(st.json).toMatchObject({ env: 'frozenlake', done: true, reward: 1, turns: path.length, success: true });
    expect(st.json.messages.filter((m: { role: string }) => m.role === 'assistant')).toHaveLength(path.length);
  });
});
