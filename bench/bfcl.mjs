// Throughput of the bfcl_multi_turn grader on every BFCL multi-turn ground truth (replayed as the
// model's turns, so each grade runs the model's and the ground truth's calls and compares state after
// every turn), through the public grade() API, in grades/s and executed calls/s; and as a ratio to
// the baseline measured in the same command: the same calls executed once on the simulated APIs
// (envs/bfcl_multi_turn/apis Side), without decoding, a second side, state comparison or templates. long_context is
// included when ARBITER_BFCL_LONG_CONTEXT names the export (src/envs/bfcl_multi_turn/apis/long-context-export.py).
//   node bench/bfcl.mjs [rounds=3]
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { grade, loadGrader, Services } from '../dist/index.js';
import { BfclEnv, loadLongContext, readConfigObject, Side } from '../dist/envs/bfcl_multi_turn/apis/index.js';
import { pyDeepCopy } from '../dist/py/values.js';

const ROUNDS = Number(process.argv[2] ?? 3);
const dir = fileURLToPath(new URL('../../shared/data/bfcl/multi_turn/', import.meta.url));
const lines = (f) =>
  readFileSync(dir + f, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const lcPath = process.env.ARBITER_BFCL_LONG_CONTEXT;
const cats = ['base', 'miss_func', 'miss_param', ...(lcPath ? ['long_context'] : [])];
const items = cats.flatMap((cat) => {
  const gt = new Map(lines(`possible_answer/BFCL_v4_multi_turn_${cat}.json`).map((a) => [a.id, a.ground_truth]));
  return lines(`BFCL_v4_multi_turn_${cat}.json`).map((e) => ({ cat, item: { ...e, ground_truth: gt.get(e.id) } }));
});
const calls = items.reduce((n, x) => n + x.item.ground_truth.flat().length, 0);
const lc = lcPath ? loadLongContext(lcPath) : undefined;

const services = new Services();
const g = loadGrader({
  type: 'bfcl_multi_turn',
  reference: '{{item.ground_truth}}',
  initial_config: '{{item.initial_config}}',
  involved_classes: '{{item.involved_classes}}',
  entry_id: '{{item.id}}',
});

async function gradeAll() {
  for (const { item } of items) {
    const r = await grade(g, { item, sample: { output_turns: item.ground_truth } }, { services });
    if (r.score !== 1) throw new Error(`${item.id}: ${r.reason ?? r.error?.message}`);
  }
}

function executeAll() {
  for (const { cat, item } of items) {
    const read = readConfigObject(item.initial_config, { floatAt: () => false });
    const side = new Side({
      env: new BfclEnv({ longContext: lc }),
      involvedClasses: item.involved_classes,
      scenario: (c) => (read.scenarios.has(c) ? pyDeepCopy(/** @type {import('../dist/py/values.js').PyValue} */ (read.scenarios.get(c))) : undefined),
      longContext: cat === 'long_context',
      modelName: 'bench',
      entryId: item.id,
    });
    for (const turn of item.ground_truth) side.execute(turn);
  }
}

async function best(fn) {
  await fn(); // warm-up (JIT)
  let ms = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    await fn();
    ms = Math.min(ms, performance.now() - t0);
  }
  return ms;
}

const baseMs = await best(executeAll);
const gradeMs = await best(gradeAll);
console.log(`${items.length} BFCL multi-turn ground truths (${cats.join(', ')}), ${calls} ground-truth calls, best of ${ROUNDS} rounds`);
if (!lcPath) console.log('long_context skipped: set ARBITER_BFCL_LONG_CONTEXT to include it');
console.log(`baseline: the calls executed once on the simulated APIs: ${((calls / baseMs) * 1000).toFixed(0)} calls/s (${baseMs.toFixed(0)} ms)`);
console.log(
  `bfcl_multi_turn grade (both sides + state checks): ${((items.length / gradeMs) * 1000).toFixed(0)} grades/s, ${(((2 * calls) / gradeMs) * 1000).toFixed(0)} executed calls/s, ${(gradeMs / items.length).toFixed(2)} ms/grade (${gradeMs.toFixed(0)} ms)`,
);
console.log(`ratio: a grade costs ${(gradeMs / baseMs).toFixed(2)}x executing its ground truth once`);
await services.close();
