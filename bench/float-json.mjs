// The reply writers that keep rewards floats (dist/server/formats/float-json.js, what the routes
// run) against what the routes used before, on the same replies; prints replies/s and the ratio:
//  - /get_reward: getRewardJSON vs the compiled fast-json-stringify schema serializer (which
//    writes 1.0 as "1"), OpenRLHF-shaped replies of 1 and 1000 samples;
//  - /v1/score: scoreJSON vs JSON.stringify, 1000 results of a 2-component multi grader.
//   node bench/float-json.mjs [--rounds 5] [--ms 400]
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import fastJson from 'fast-json-stringify';
import { getRewardJSON, scoreJSON } from '../dist/server/formats/float-json.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('rounds', 5);
const MS = arg('ms', 400);

const numbers = { type: 'array', items: { type: 'number' } };
const compiled = fastJson(
  /** @type {any} */ ({
    type: 'object',
    properties: { rewards: numbers, scores: numbers, extra_logs: { type: 'object', additionalProperties: numbers } },
    required: ['rewards', 'scores', 'extra_logs'],
  }),
);

function payload(n) {
  const rewards = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : i % 3 === 1 ? 0 : 0.9 + (i % 7) / 100));
  const extra_logs = { arbiter_invalid: rewards.map(() => 0), acc: rewards.map((r) => (r > 0.5 ? 1 : 0)), concise: rewards.map((r) => r / 2) };
  return { rewards, extra_logs };
}

function rate(fn) {
  let n = 0;
  let sink = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < MS) {
    for (let i = 0; i < 100; i++) sink += fn().length;
    n += 100;
  }
  if (sink < 0) console.log(sink);
  return (n * 1000) / (performance.now() - t0);
}

const med = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
function compare(label, old, neu, oldName) {
  if (JSON.stringify(JSON.parse(neu())) !== JSON.stringify(JSON.parse(old()))) throw new Error(`${label}: the writers disagree on values`);
  const a = [];
  const b = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(rate(old));
    b.push(rate(neu));
  }
  const [ra, rb] = [med(a), med(b)];
  console.log(
    `${label}: ${oldName} ${Math.round(ra).toLocaleString()} replies/s, float writer ${Math.round(rb).toLocaleString()} replies/s, ratio float/before ${(rb / ra).toFixed(2)}`,
  );
}

for (const n of [1, 1000]) {
  const p = payload(n);
  const old = () => compiled({ rewards: p.rewards, scores: p.rewards, extra_logs: p.extra_logs });
  const logs = new Map(Object.entries(p.extra_logs));
  const neu = () => getRewardJSON(p.rewards, p.extra_logs.arbiter_invalid, logs);
  compare(`/get_reward, ${n} sample(s)`, old, neu, 'fast-json-stringify');
}

const meta = (g, t) => ({ grader: g, type: t, duration_ms: 0.0123 });
const results = Array.from({ length: 1000 }, (_, i) => ({
  score: i % 2 ? 1 : 0.9,
  valid: true,
  reason: 'extracted 42 from "A: 42", equal to the reference',
  components: {
    correct: { score: i % 2, valid: true, metadata: meta('correct', 'math') },
    concise: { score: 0.9, valid: true, metadata: meta('concise', 'length') },
  },
  metadata: { ...meta('gsm8k', 'multi'), passed: true },
}));
const ids = results.map((_, i) => i);
const summary = { count: 1000, valid: 1000, invalid: 0, mean_score: 0.95, error_kinds: {} };
compare(
  '/v1/score, 1000 results',
  () => JSON.stringify({ grader: 'gsm8k', results: results.map((r, i) => ({ id: ids[i], ...r })), summary }),
  () => scoreJSON('gsm8k', results, ids, summary),
  'JSON.stringify',
);
