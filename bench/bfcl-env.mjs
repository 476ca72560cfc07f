// Benchmark of BFCL multi-turn as an environment, in process on one core: whole episodes (reset,
// one step per ground-truth turn with its calls as OpenAI tool calls, one reply per turn to end it,
// the final grade, per-step progress and anchors) per second over the 600 ground truths of base,
// miss_func and miss_param. Baseline in the same process: the bfcl_multi_turn grader alone on the
// episodes' recorded calls (what the final reward costs by itself).
// Usage: node bench/bfcl-env.mjs [--rounds 3]   (run `npm run build` first)
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { grade, loadGrader, Services } from '../dist/index.js';
import { getEnv, loadBfclCategory } from '../dist/envs/index.js';
import { API_CLASSES } from '../dist/envs/bfcl_multi_turn/apis/executor.js';
import { jsonDumps } from '../dist/py/format.js';
import { PyDict, PyTuple } from '../dist/py/values.js';
import { parsePythonExpr } from '../dist/extract/python-call.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('rounds', 3);

function literal(n) {
  if (n.k === 'int' || n.k === 'float' || n.k === 'str' || n.k === 'const') return n.v;
  if (n.k === 'list') return n.items.map(literal);
  if (n.k === 'tuple') return new PyTuple(n.items.map(literal));
  if (n.k === 'dict') return PyDict.of(n.entries.map(([k, v]) => [literal(k), literal(v)]));
  if (n.k === 'unary' && n.op === '-') return -literal(n.operand);
  throw new Error(`not a literal: ${n.k}`);
}

/** A ground-truth call as an OpenAI tool call (positional arguments named from the method's parameters). */
function toolCall(call, classes, id) {
  const ast = /** @type {any} */ (parsePythonExpr(call)); // a call node: func, args, keywords
  const name = ast.func.id;
  let spec;
  for (const c of classes) spec = API_CLASSES[c]?.methods[name] ?? spec;
  if (!spec) throw new Error(`no class of ${classes.join(', ')} has a method ${name}`);
  const params = spec.params.map((p) => (typeof p === 'string' ? p : p[0]));
  const kw = new PyDict();
  ast.args.forEach((a, i) => kw.set(params[i], literal(a)));
  for (const [k, v] of ast.keywords) kw.set(k, literal(v));
  return { id, type: 'function', function: { name, arguments: jsonDumps(kw) } };
}

const entries = /** @type {const} */ (['base', 'miss_func', 'miss_param']).flatMap((c) => loadBfclCategory(c));
const scripts = entries.map((e) =>
  e.groundTruth.map((turn, t) =>
    turn.length ? { role: 'assistant', content: null, tool_calls: turn.map((c, k) => toolCall(c, e.involvedClasses, `c${t}_${k}`)) } : null,
  ),
);
const found = getEnv('bfcl_multi_turn');
if (!found) throw new Error('the bfcl_multi_turn environment is not registered');
const family = found;
const steps = scripts.reduce((n, s) => n + s.length + s.filter(Boolean).length, 0);

async function episodes() {
  const records = [];
  for (let i = 0; i < entries.length; i++) {
    const ep = family.create({ entry_id: entries[i].id }, {});
    await ep.reset();
    for (const msg of scripts[i]) {
      if (msg) await ep.step(msg);
      await ep.step({ role: 'assistant', content: 'Done.' });
    }
    const st = ep.state();
    if (st.reward !== 1) throw new Error(`${entries[i].id}: reward ${st.reward}`);
    records.push({ item: st.item, sample: st.sample });
  }
  return records;
}

const g = loadGrader({
  type: 'bfcl_multi_turn',
  reference: '{{item.ground_truth}}',
  initial_config: '{{item.initial_config}}',
  involved_classes: '{{item.involved_classes}}',
  entry_id: '{{item.id}}',
});
const services = new Services();
let bestEnv = Infinity;
let bestGrade = Infinity;
let records;
for (let r = 0; r < ROUNDS; r++) {
  let t = performance.now();
  records = await episodes();
  bestEnv = Math.min(bestEnv, performance.now() - t);
  t = performance.now();
  for (const rec of records) {
    const out = await grade(g, rec, { services });
    if (out.score !== 1) throw new Error('grade is not 1');
  }
  bestGrade = Math.min(bestGrade, performance.now() - t);
}
await services.close();
const n = entries.length;
console.log(`${n} BFCL multi-turn entries (base, miss_func, miss_param) played with their ground truth, ${steps} steps, best of ${ROUNDS} rounds`);
console.log(
  `environment episodes: ${((n / bestEnv) * 1000).toFixed(0)} episodes/s, ${((steps / bestEnv) * 1000).toFixed(0)} steps/s, ${(bestEnv / n).toFixed(2)} ms/episode (${bestEnv.toFixed(0)} ms)`,
);
console.log(`baseline: the bfcl_multi_turn grader alone on the recorded calls: ${((n / bestGrade) * 1000).toFixed(0)} grades/s (${bestGrade.toFixed(0)} ms)`);
console.log(`ratio: an episode costs ${(bestEnv / bestGrade).toFixed(2)}x its final grade`);
