// Benchmark: a CPU-heavy grader (`ifeval`, ~1 ms per response, on the 540 IFEval GPT-4 responses)
// and a cheap one (`math` on GSM8K solutions) in the main thread vs inside a `threads` grader
// (worker threads), through the library's gradeStream. Prints grades/s and the longest event-loop
// stall seen by a 5 ms timer (the point of threads: the loop stays free for other work, e.g. HTTP).
// Usage: node bench/threads.mjs [samples] [threads]
import './usage.mjs'; // --help: this file's opening comment (before the imports below run)
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { gradeStream, loadGrader, Services } from '../dist/index.js';

const n = Number(process.argv[2] ?? 4_000);
const threads = Number(process.argv[3] ?? availableParallelism());
const jsonl = (p) =>
  readFileSync(new URL(`../../shared/data/${p}`, import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const gsm = jsonl('gsm8k/example_model_solutions.jsonl');
const keys = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];
const mathSamples = Array.from({ length: n }, (_, i) => {
  const r = gsm[i % gsm.length];
  return { item: { answer: r.ground_truth }, sample: { output_text: r[keys[i % 4]].solution } };
});
const prompts = new Map(jsonl('ifeval/input_data.jsonl').map((r) => [r.prompt, r]));
const responses = jsonl('ifeval/input_response_data_gpt4_20231107_145030.jsonl').filter((r) => prompts.has(r.prompt));
const ifevalSamples = Array.from({ length: n }, (_, i) => {
  const r = responses[i % responses.length];
  const p = prompts.get(r.prompt);
  return { item: { instruction_id_list: p.instruction_id_list, kwargs: p.kwargs }, sample: { output_text: r.response } };
});
const ifeval = { type: 'ifeval', input: '{{sample.output_text}}', instruction_ids: '{{item.instruction_id_list}}', kwargs: '{{item.kwargs}}', mode: 'strict' };
const math = { type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' };

async function run(label, config, samples) {
  const services = new Services();
  const g = loadGrader(config);
  for await (const _ of gradeStream(g, samples.slice(0, 200), { services, concurrency: 256 })); // warm-up (workers start)
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 5);
    last = now;
  }, 5);
  const t0 = performance.now();
  let sum = 0;
  for await (const r of gradeStream(g, samples, { services, concurrency: 256 })) sum += r.score ?? 0;
  const s = (performance.now() - t0) / 1000;
  clearInterval(timer);
  worst = Math.max(worst, performance.now() - last - 5);
  await services.close();
  console.log(
    `${label.padEnd(20)} ${Math.round(n / s)
      .toLocaleString('en')
      .padStart(8)} grades/s   worst event-loop stall ${worst.toFixed(1)} ms   mean score ${(sum / n).toFixed(4)}`,
  );
  return n / s;
}

for (const [name, cfg, samples] of [
  ['ifeval', ifeval, ifevalSamples],
  ['math', math, mathSamples],
]) {
  console.log(`${name} on ${n} samples, ${threads} worker threads`);
  const a = await run('  main thread', cfg, samples);
  const b = await run(`  threads (${threads})`, { type: 'threads', threads, grader: cfg }, samples);
  console.log(`  ratio threads / main thread: ${(b / a).toFixed(2)}`);
}
