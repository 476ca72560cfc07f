// Benchmark: the hostile inputs of issue 11 item 2 through the library (time per grade and the
// result), then /healthz latency over loopback HTTP while a BPE-hostile grade grinds on the server,
// against the idle latency measured first in the same run (the ratio is the figure that matters:
// before, /healthz waited for the whole grade).
// Usage: node bench/budgets.mjs
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { grade, loadGrader, Services } from '../dist/index.js';
import { createServer } from '../dist/server/index.js';

const bpeHostile = (n) => {
  let s = '';
  for (let i = 0; s.length < n; ) {
    for (let k = 0; k < 64; k++, i++) s += String.fromCharCode(0x4e00 + ((i * 7919) % 20000));
    s += ' ';
  }
  return s.slice(0, n);
};
const cjk = (n) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20000))).join('');

/** @type {[string, Record<string, unknown>, string][]} */
const attacks = [
  ['format (a|a)*$, 40 a + !', { type: 'format', check: 'regex', pattern: '(a|a)*$', timeout_ms: 1000 }, 'a'.repeat(40) + '!'],
  ['format (a+){12}$, 60 a + !', { type: 'format', check: 'regex', pattern: '(a+){12}$', timeout_ms: 1000 }, 'a'.repeat(60) + '!'],
  ['format a*a*a*a*a*a*b, 5,000 a', { type: 'format', check: 'regex', pattern: 'a*a*a*a*a*a*b', timeout_ms: 1000 }, 'a'.repeat(5000)],
  ['format (.*?,){11}P, 200 commas', { type: 'format', check: 'regex', pattern: '(.*?,){11}P', timeout_ms: 1000 }, ','.repeat(200)],
  ['format (a+){12}$, 1,000,000 a + !', { type: 'format', check: 'regex', pattern: '(a+){12}$', timeout_ms: 1000 }, 'a'.repeat(999_999) + '!'],
  [
    'ifeval language, 190k a-run (loose)',
    { type: 'ifeval', mode: 'loose', instruction_ids: ['language:response_language'], kwargs: [{ language: 'en' }] },
    'a'.repeat(190_000),
  ],
  [
    'ifeval language, 190k CJK (loose)',
    { type: 'ifeval', mode: 'loose', instruction_ids: ['language:response_language'], kwargs: [{ language: 'zh' }] },
    cjk(190_000),
  ],
  ['length tokens, 200k BPE-hostile', { type: 'length', unit: 'tokens', budget: 1000 }, bpeHostile(200_000)],
];

const services = new Services();
// warm-up: load the tokenizer and the language profiles outside the timings
await grade(loadGrader(attacks[5][1]), { item: {}, output_text: 'warm up' }, { services });
await grade(loadGrader(attacks[7][1]), { item: {}, output_text: 'warm up' }, { services });
console.log('attack'.padEnd(40), 'ms'.padStart(8), '  result');
for (const [label, config, text] of attacks) {
  const g = loadGrader(config);
  const t0 = performance.now();
  const r = await grade(g, { item: {}, output_text: text }, { services });
  const ms = performance.now() - t0;
  console.log(label.padEnd(40), ms.toFixed(0).padStart(8), ' ', r.valid ? `valid, score ${r.score}` : `invalid ${r.error?.kind}`);
}
await services.close();

// /healthz while a grade grinds
const server = createServer({ graders: { len: loadGrader({ type: 'length', unit: 'tokens', budget: 1000 }) } });
const url = await server.listen({ host: '127.0.0.1', port: 0 });
const post = (text) =>
  fetch(`${url}/v1/score`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ samples: [{ item: {}, sample: { output_text: text } }] }),
  }).then(async (r) => /** @type {{ results: { valid: boolean, error?: { kind: string } }[] }} */ (await r.json()));
const health = async () => {
  const t0 = performance.now();
  const h = /** @type {{ in_flight: number }} */ (await (await fetch(`${url}/healthz`)).json());
  return { ms: performance.now() - t0, inFlight: h.in_flight };
};
await post('warm up');
const idle = [];
for (let i = 0; i < 200; i++) idle.push((await health()).ms);
let done = false;
const t0 = performance.now();
const pending = post(bpeHostile(200_000)).finally(() => (done = true));
const busy = [];
while (!done && busy.length < 100_000) {
  const h = await health();
  if (h.inFlight >= 1 && !done) busy.push(h.ms);
}
const r = await pending;
const gradeMs = performance.now() - t0;
await server.close();
const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)] ?? NaN, max: s[s.length - 1] ?? NaN };
};
const a = stat(idle);
const b = stat(busy);
console.log(`\n/healthz idle:                  median ${a.median.toFixed(2)} ms, max ${a.max.toFixed(2)} ms (${idle.length} requests)`);
console.log(
  `/healthz while a grade grinds:  median ${b.median.toFixed(2)} ms, max ${b.max.toFixed(2)} ms (${busy.length} requests during a ${gradeMs.toFixed(0)} ms grade, result ${r.results[0].valid ? 'valid' : r.results[0].error?.kind})`,
);
console.log(`ratio busy/idle: median ${(b.median / a.median).toFixed(2)}x, max ${(b.max / a.max).toFixed(2)}x`);
