#!/usr/bin/env node
// Writes the key-door grid world of docs/design.md's learn, intrinsic-bonus and reward-machine
// examples (src/design/gridworld.ts, built into dist/: a 5×5 map, the key, then the door, lava; true
// reward +1 at the door holding the key, -1 entering lava, -0.05 otherwise; each step carries its
// features goal, lava and step, so the true return is 1·goal - 1·lava - 0.05·step summed over the
// steps). Writes, into --out (default grid/):
//   trajectories.jsonl  {"id", "item": {"true_return"}, "sample": {"trajectory": [step, ...]}}
//   prefs.jsonl         {"chosen": {"segment": steps}, "rejected": {...}}: pairs of trajectories, the
//                       preference drawn as P(a ≻ b) = σ(3 · (R_a - R_b)) (Bradley–Terry, logistic noise)
// Usage: npm run build && node scripts/learn-data.mjs [--out DIR] [--seed N] [--trajectories N] [--pairs N]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { keyDoorData } from '../dist/design/gridworld.js';

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

const { episodes, preferences } = keyDoorData({ seed, trajectories: nTraj, pairs: nPairs });
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'trajectories.jsonl'),
  episodes.map((e, i) => JSON.stringify({ id: i, item: { true_return: e.return }, sample: { trajectory: e.steps } })).join('\n') + '\n',
);
const prefs = preferences.map((p) => JSON.stringify({ chosen: { segment: p.chosen.steps }, rejected: { segment: p.rejected.steps } }));
writeFileSync(join(out, 'prefs.jsonl'), prefs.join('\n') + (prefs.length ? '\n' : ''));
process.stdout.write(`learn-data: ${nTraj} trajectories, ${prefs.length} preference pairs in ${out}/\n`);
