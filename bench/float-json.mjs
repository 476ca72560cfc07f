// The /get_reward reply writer: arbiter's float writer (getRewardJSON in
// dist/server/formats/float-json.js, what the route runs) vs the compiled fast-json-stringify serializer the route used before (same schema,
// but it writes 1.0 as "1"), on OpenRLHF-shaped replies. Prints replies/s for each and the ratio.
//   node bench/float-json.mjs [--rounds 5] [--ms 400]
import fastJson from 'fast-json-stringify';
import { getRewardJSON } from '../dist/server/formats/float-json.js';

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROUNDS = arg('rounds', 5);
const MS = arg('ms', 400);

const numbers = { type: 'array', items: { type: 'number' } };
const compiled = fastJson({
  type: 'object',
  properties: { rewards: numbers, scores: numbers, extra_logs: { type: 'object', additionalProperties: numbers } },
  required: ['rewards', 'scores', 'extra_logs'],
});


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

for (const n of [1, 1000]) {
  const p = payload(n);
  const old = () => compiled({ rewards: p.rewards, scores: p.rewards, extra_logs: p.extra_logs });
  const logs = new Map(Object.entries(p.extra_logs));
  const neu = () => getRewardJSON(p.rewards, p.extra_logs.arbiter_invalid, logs);
  if (JSON.stringify(JSON.parse(neu())) !== JSON.stringify(JSON.parse(old()))) throw new Error('the writers disagree on values');
  const a = [];
  const b = [];
  for (let r = 0; r < ROUNDS; r++) {
    a.push(rate(old));
    b.push(rate(neu));
  }
  const med = (xs) => xs.sort((x, y) => x - y)[xs.length >> 1];
  const [ra, rb] = [med(a), med(b)];
  console.log(`${n} sample(s)/reply: fast-json-stringify ${Math.round(ra).toLocaleString()} replies/s, float writer ${Math.round(rb).toLocaleString()} replies/s, ratio float/compiled ${(rb / ra).toFixed(2)}`);
}
