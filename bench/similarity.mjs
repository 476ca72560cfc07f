// Throughput of the text_similarity metrics (and format/length/repetition) on real GSM8K model
// solutions vs their reference solutions, through the public grade() API, each as a ratio to
// string_check on the same pairs (the cheapest grader: the baseline). Also bit-parallel LCS vs a
// plain dynamic-programming LCS on long strings.
//   node bench/similarity.mjs [pairs=400] [rounds=3]
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { grade, loadGrader, Services } from '../dist/index.js';
import { lcsLength } from '../dist/graders/text_similarity/lcs.js';

const PAIRS = Number(process.argv[2] ?? 400);
const ROUNDS = Number(process.argv[3] ?? 3);
const src = fileURLToPath(new URL('../../shared/data/gsm8k/example_model_solutions.jsonl', import.meta.url));
const rows = readFileSync(src, 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l));
const inputs = [];
for (const r of rows) {
  for (const k of ['6b_finetuning', '175b_verification']) if (inputs.length < PAIRS) inputs.push({ item: { ref: r.ground_truth }, output_text: r[k].solution });
}
const avgChars = Math.round(inputs.reduce((s, x) => s + x.output_text.length + x.item.ref.length, 0) / inputs.length / 2);

const services = new Services();
async function rate(cfg) {
  const g = loadGrader(cfg);
  await grade(g, inputs[0], { services }); // warm-up (loads tokenizers)
  let best = Infinity;
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (const x of inputs) {
      const res = await grade(g, x, { services });
      if (!res.valid) throw new Error(`${cfg.type}: ${res.error?.message}`);
    }
    best = Math.min(best, performance.now() - t0);
  }
  return (inputs.length / best) * 1000;
}

const base = { input: '{{sample.output_text}}', reference: '{{item.ref}}' };
await rate({ type: 'string_check', ...base, operation: 'eq' }); // warm-up: the first few thousand grades run cold (JIT)
const baseline = await rate({ type: 'string_check', ...base, operation: 'eq' });
console.log(`${inputs.length} GSM8K solution/reference pairs, ~${avgChars} chars each, best of ${ROUNDS} rounds`);
console.log(`baseline string_check: ${baseline.toFixed(0)} grades/s`);
/** @type {Record<string, any>[]} */
const cases = [
  ...['fuzzy_match', 'bleu', 'gleu', 'meteor', 'rouge_1', 'rouge_2', 'rouge_l', 'exact_match', 'f1'].map((m) => ({
    type: 'text_similarity',
    ...base,
    evaluation_metric: m,
  })),
  { type: 'format', check: 'regex', pattern: '\\nA: -?[\\d,.]+\\s*$' },
  { type: 'format', check: 'tags', tags: ['think', 'answer'] },
  { type: 'length', unit: 'tokens', budget: 512 },
  { type: 'length', unit: 'words', budget: 512 },
  { type: 'repetition', n: 3 },
];
for (const c of cases) {
  const r = await rate(c);
  const label = c.evaluation_metric ?? (c.check ? `format/${c.check}` : c.unit ? `${c.type}/${c.unit}` : c.type);
  console.log(`${label.padEnd(16)} ${r.toFixed(0).padStart(8)} grades/s   ${(r / baseline).toFixed(3)}x of string_check`);
}
await services.close();

// LCS: Hyyrö bit-parallel vs the textbook O(nm) table, on 2,000-character texts
function dpLcs(a, b) {
  let prev = new Uint32Array(b.length + 1);
  let cur = new Uint32Array(b.length + 1);
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1] + 1 : Math.max(prev[j], cur[j - 1]);
    [prev, cur] = [cur, prev];
  }
  return prev[b.length];
}
const text = (s) => Array.from(s, (c) => c.codePointAt(0));
const A = text(
  inputs
    .map((x) => x.output_text)
    .join(' ')
    .slice(0, 2000),
);
const B = text(
  inputs
    .map((x) => x.item.ref)
    .join(' ')
    .slice(0, 2000),
);
const time = (f) => {
  const t0 = performance.now();
  let v = 0;
  for (let i = 0; i < 20; i++) v = f();
  return [(performance.now() - t0) / 20, v];
};
const [tb, vb] = time(() => lcsLength(A, B));
const [td, vd] = time(() => dpLcs(A, B));
if (vb !== vd) throw new Error(`LCS mismatch ${vb} vs ${vd}`);
console.log(`LCS of two 2,000-char texts: bit-parallel ${tb.toFixed(2)} ms, DP ${td.toFixed(2)} ms, speed-up ${(td / tb).toFixed(1)}x (same length ${vb})`);
