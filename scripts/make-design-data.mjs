#!/usr/bin/env node
// @ts-check
// Writes the worked example of docs/design.md from the grid world (src/design/gridworld.ts, built
// into dist/), deterministically: the task description, the trajectories as arbiter records (the
// trajectory in sample.trajectory; success, true return and length in item) and pairwise
// preferences ordered by the true return.
//   examples/design/task.md  examples/design/trajectories.jsonl  examples/design/preferences.jsonl
// Run: npm run build && node scripts/make-design-data.mjs [--out DIR]   (DIR defaults to
// examples/design/; test/design/gridworld.test.ts checks the committed files are what this writes).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gridWorldData, gridWorldRecords, TRUE_REWARD } from '../dist/design/gridworld.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--out');
const out = at > 0 ? process.argv[at + 1] : join(root, 'examples', 'design');
if (!out) throw new Error('--out needs a folder');

const TASK = `# Grid world: reach the goal

An agent walks on a square grid map. Cells: \`.\` floor, \`#\` wall (a move into it, or off the
map, is refused and the agent stays), \`~\` lava (the episode ends, a failure), \`S\` the start,
\`G\` the goal (the episode ends, a success). Each step the agent moves up, down, left or right.
Episodes also end after ${3 * 6} moves.

A good episode reaches the goal, in few moves, and never touches lava. Write a reward that ranks
episodes from best to worst.
`;

const { episodes, preferences } = gridWorldData();
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'task.md'), TASK);
writeFileSync(
  join(out, 'trajectories.jsonl'),
  gridWorldRecords(episodes)
    .map((r) => JSON.stringify(r))
    .join('\n') + '\n',
);
writeFileSync(join(out, 'preferences.jsonl'), preferences.map((p) => JSON.stringify(p)).join('\n') + '\n');
process.stderr.write(
  `wrote ${episodes.length} trajectories (${episodes.filter((e) => e.success).length} successful) and ${preferences.length} preferences to ${out}; true reward ${JSON.stringify(TRUE_REWARD)}\n`,
);
