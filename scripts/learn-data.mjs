#!/usr/bin/env node
// The grid world of docs/design.md's learn, intrinsic-bonus and reward-machine examples, with a
// known true reward. A 5×5 grid: start (0,0), key K (3,1), door D (4,4), lava L (2,2) and (1,3).
// Policies of varying care (ε: the chance of a random move, else a step toward the key, then the
// door) walk up to 20 steps; an episode ends at the door holding the key or in lava. True reward
// per step: +1 reaching the door with the key, -1 entering lava, -0.05 otherwise. Each step
// carries its features (goal, lava, step: which of the three it was), so the true return is
// 1·goal - 1·lava - 0.05·step summed over the steps. Writes, into --out (default grid/):
//   trajectories.jsonl  {"id", "item": {"true_return"}, "sample": {"trajectory": [step, ...]}}
//   prefs.jsonl         {"chosen": {"segment": steps}, "rejected": {...}}: pairs of trajectories, the
//                       preference drawn as P(a ≻ b) = σ(3 · (R_a - R_b)) (Bradley–Terry, logistic noise)
// Usage: node scripts/learn-data.mjs [--out DIR] [--seed N] [--trajectories N] [--pairs N]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const out = opt('--out', 'grid');
const seed = Number(opt('--seed', '1'));
const nTraj = Number(opt('--trajectories', '300'));
const nPairs = Number(opt('--pairs', '1500'));
for (const [k, v] of /** @type {[string, number][]} */ ([
  ['--seed', seed],
  ['--trajectories', nTraj],
  ['--pairs', nPairs],
]))
  if (!Number.isSafeInteger(v) || v < 0) {
    process.stderr.write(`learn-data: ${k} must be a whole number\n`);
    process.exit(2);
  }

// mulberry32, as src/core/random.ts
let a = seed >>> 0;
const rnd = () => {
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

const SIZE = 5;
const KEY = [3, 1];
const DOOR = [4, 4];
const LAVA = ['2,2', '1,3'];
const MOVES = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];
const cellAt = (x, y) => (x === KEY[0] && y === KEY[1] ? 'K' : x === DOOR[0] && y === DOOR[1] ? 'D' : LAVA.includes(`${x},${y}`) ? 'L' : '.');

function episode() {
  const eps = 0.2 + 0.8 * rnd();
  let [x, y] = [0, 0];
  let hasKey = false;
  const steps = [];
  for (let t = 0; t < 20; t++) {
    const [tx, ty] = hasKey ? DOOR : KEY;
    let m;
    if (rnd() < eps) m = MOVES[Math.floor(rnd() * 4)];
    else m = x !== tx ? [Math.sign(tx - x), 0] : [0, Math.sign(ty - y)];
    x = Math.min(SIZE - 1, Math.max(0, x + m[0]));
    y = Math.min(SIZE - 1, Math.max(0, y + m[1]));
    const cell = cellAt(x, y);
    if (cell === 'K') hasKey = true;
    const goal = cell === 'D' && hasKey ? 1 : 0;
    const lava = cell === 'L' ? 1 : 0;
    const step = goal || lava ? 0 : 1;
    steps.push({ t, obs: { x, y }, cell, has_key: hasKey, features: { goal, lava, step } });
    if (goal || lava) break;
  }
  let ret = 0;
  for (const s of steps) ret += s.features.goal ? 1 : s.features.lava ? -1 : -0.05;
  return { steps, ret };
}

mkdirSync(out, { recursive: true });
const eps = Array.from({ length: nTraj }, episode);
writeFileSync(
  join(out, 'trajectories.jsonl'),
  eps.map((e, i) => JSON.stringify({ id: i, item: { true_return: e.ret }, sample: { trajectory: e.steps } })).join('\n') + '\n',
);
const prefs = [];
for (let k = 0; k < nPairs && nTraj > 1; k++) {
  const i = Math.floor(rnd() * nTraj);
  let j = Math.floor(rnd() * (nTraj - 1));
  if (j >= i) j += 1;
  const p = 1 / (1 + Math.exp(-3 * (eps[i].ret - eps[j].ret)));
  const [c, r] = rnd() < p ? [i, j] : [j, i];
  prefs.push(JSON.stringify({ chosen: { segment: eps[c].steps }, rejected: { segment: eps[r].steps } }));
}
writeFileSync(join(out, 'prefs.jsonl'), prefs.join('\n') + (prefs.length ? '\n' : ''));
process.stdout.write(`learn-data: ${nTraj} trajectories, ${prefs.length} preference pairs in ${out}/\n`);
