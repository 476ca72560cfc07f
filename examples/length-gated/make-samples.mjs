// Builds samples.jsonl from real GSM8K model solutions (../shared/data/gsm8k, openai/grade-school-math,
// MIT): 25 problems x 2 solutions (GPT-3 6B fine-tuned, 175B verifier-selected), each with the
// official correctness label kept as sample.is_correct for checking. The structured form
// (output_json = {reasoning, answer}) is what a model with JSON output would return.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const src = fileURLToPath(new URL('../../../shared/data/gsm8k/example_model_solutions.jsonl', import.meta.url));
const rows = readFileSync(src, 'utf8').trim().split('\n').slice(0, 25).map((l) => JSON.parse(l));
const out = [];
rows.forEach((row, i) => {
  const gold = /A:\s*(.*?)\s*$/.exec(row.ground_truth)[1];
  for (const key of ['6b_finetuning', '175b_verification']) {
    const { solution, is_correct } = row[key];
    const m = /^([\s\S]*?)\n?A:\s*(.*?)\s*$/.exec(solution);
    const output_json = m ? { reasoning: m[1].trim(), answer: m[2] } : { reasoning: solution.trim(), answer: '' };
    out.push({ id: `${i}-${key}`, item: { question: row.question, answer: gold }, sample: { output_text: solution, output_json, is_correct } });
  }
});
writeFileSync(fileURLToPath(new URL('samples.jsonl', import.meta.url)), out.map((o) => JSON.stringify(o)).join('\n') + '\n');
console.log(`wrote ${out.length} samples`);
