#!/usr/bin/env node
// @ts-check
// Builds the sample files of the docs/recipes.md recipes from the shared benchmark data, at run time
// (the converted data is never committed). Two sources:
//   gsm8k     gsm8k/example_model_solutions.jsonl: the first N questions, each with its 4 recorded
//             model solutions (GPT-3 6B/175B, fine-tuned and verifier-selected, in that order) as one
//             group (uid = the question). item: {question, answer (the number after the reference's
//             "A:"), reference_solution, is_correct (the data's label, read by no grader), global_step}.
//             --per-step K puts K questions in each training step (global_step 0, 1, ...); default all
//             in step 0.
//   ifeval    ifeval/input_data.jsonl with GPT-4's responses (input_response_data_gpt4_*.jsonl, matched
//             by prompt text; the one prompt without a response is left out): the first N prompts, one
//             line each (uid = the prompt's key). item: {prompt, instruction_id_list, kwargs}, sample:
//             {output_text: the response}.
//   bfcl      bfcl/BFCL_v4_simple_python.json with its possible answers: the first N items, three
//             responses each in ToolRL's layout (<think>…</think> then one JSON call per line in a
//             <tool_call> block): `right` (the first accepted value of every required parameter; dotted
//             names written with _), `wrong` (the same with the first required value replaced by
//             {"wrong": true}, which no answer accepts) and `cut` (the right call cut off mid-JSON).
//             uid = the item's id. item: {question, ground_truth (BFCL's accepted answers)}.
//   prmbench  prmbench/<file>: the first N rows, each as two lines of one group (uid = the row's idx):
//             the original process (no error steps) and the modified one, with PRMBench's 1-based
//             error_steps. item: {question, error_steps, classification}, sample: {steps}.
// Usage: node scripts/recipe-samples.mjs gsm8k --limit 50 [--per-step 10] [-o FILE]
//        node scripts/recipe-samples.mjs ifeval --limit 100 [-o FILE]
//        node scripts/recipe-samples.mjs bfcl --limit 400 [-o FILE]
//        node scripts/recipe-samples.mjs prmbench --file prm800k_test_p1_4o_redundency.jsonl --limit 30 [-o FILE]
// Writes JSONL to FILE (creating its folder) or stdout. The data folder is $ARBITER_DATA, else
// ../shared/data beside the project (README "Benchmark data"). Needs `npm run build` first.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { dataRoot } from '../dist/io/data.js';

const MODELS = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];

/** @param {string} msg @returns {never} */
function fail(msg) {
  process.stderr.write(`recipe-samples: ${msg}\n`);
  process.exit(2);
}

const [source, ...rest] = process.argv.slice(2);
/** @type {Record<string, string>} */
const opts = {};
for (let i = 0; i < rest.length; i += 2) {
  const k = rest[i];
  const v = rest[i + 1];
  if (!k || !['--limit', '--per-step', '--file', '-o'].includes(k) || v === undefined)
    fail(`unknown or incomplete option ${k ?? ''} (see the usage at the top of this script)`);
  opts[k] = v;
}
/** @param {string} k @param {number} dflt */
const positiveInt = (k, dflt) => {
  if (opts[k] === undefined) return dflt;
  const n = Number(opts[k]);
  if (!Number.isInteger(n) || n < 1) fail(`${k} must be a positive integer, got ${opts[k]}`);
  return n;
};

/** @param {string} rel @param {number} limit @param {boolean} [all] @returns {any[]} the first `limit` rows (or all) of a JSONL file of the data folder */
function rows(rel, limit, all = false) {
  const path = join(dataRoot(), rel);
  if (!existsSync(path)) fail(`benchmark data missing: ${path} (set ARBITER_DATA to the folder holding it)`);
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (lines.length < limit) fail(`${rel} has ${lines.length} rows, fewer than --limit ${limit}`);
  return (all ? lines : lines.slice(0, limit)).map((l) => JSON.parse(l));
}

/** @type {object[]} */
const out = [];
if (source === 'gsm8k') {
  const limit = positiveInt('--limit', 50);
  const perStep = positiveInt('--per-step', Number.MAX_SAFE_INTEGER);
  rows('gsm8k/example_model_solutions.jsonl', limit).forEach((r, q) => {
    const m = /A:\s*(.*)\s*$/.exec(r.ground_truth);
    if (!m) fail(`gsm8k question ${q}: the reference solution has no final "A:" line`);
    const item = { question: r.question, answer: m[1].trim(), reference_solution: r.ground_truth, global_step: Math.floor(q / perStep) };
    for (const model of MODELS) {
      out.push({
        id: `gsm8k-${q}-${model}`,
        uid: `gsm8k-${q}`,
        item: { ...item, is_correct: r[model].is_correct },
        sample: { output_text: r[model].solution },
      });
    }
  });
} else if (source === 'ifeval') {
  const limit = positiveInt('--limit', 100);
  const responses = new Map(rows('ifeval/input_response_data_gpt4_20231107_145030.jsonl', 0, true).map((r) => [r.prompt, r.response]));
  for (const r of rows('ifeval/input_data.jsonl', 0, true)) {
    if (out.length >= limit) break;
    const response = responses.get(r.prompt);
    if (typeof response !== 'string') continue;
    out.push({
      id: `ifeval-${r.key}`,
      uid: `ifeval-${r.key}`,
      item: { prompt: r.prompt, instruction_id_list: r.instruction_id_list, kwargs: r.kwargs },
      sample: { output_text: response },
    });
  }
  if (out.length < limit) fail(`ifeval has ${out.length} prompts with a response, fewer than --limit ${limit}`);
} else if (source === 'bfcl') {
  const limit = positiveInt('--limit', 400);
  const answers = new Map(rows('bfcl/possible_answer/BFCL_v4_simple_python.json', 0, true).map((r) => [r.id, r.ground_truth]));
  /** @param {unknown} v @returns {unknown} a concrete value from an accepted one (an accepted dict holds accepted values per key) */
  const concrete = (v) => {
    if (Array.isArray(v)) return v.map(concrete);
    if (v && typeof v === 'object') {
      /** @type {[string, unknown][]} */
      const kept = [];
      for (const [k, vals] of Object.entries(/** @type {Record<string, unknown[]>} */ (v))) {
        const real = vals.filter((x) => x !== '');
        if (real.length) kept.push([k, concrete(real[0])]);
      }
      return Object.fromEntries(kept);
    }
    return v;
  };
  for (const q of rows('bfcl/BFCL_v4_simple_python.json', limit)) {
    const gt = answers.get(q.id);
    if (!gt) fail(`bfcl ${q.id} has no possible answer`);
    const [name, params] = Object.entries(gt[0])[0];
    /** @type {Record<string, unknown>} */
    const right = {};
    for (const [k, vals] of Object.entries(/** @type {Record<string, unknown[]>} */ (params))) if (!vals.includes('')) right[k] = concrete(vals[0]);
    const first = Object.keys(right)[0];
    const wrong = first === undefined ? right : { ...right, [first]: { wrong: true } };
    const call = (/** @type {Record<string, unknown>} */ p) => JSON.stringify({ name: name.replaceAll('.', '_'), parameters: p });
    const text = (/** @type {string} */ body) => `<think>I will call the tool.</think>\n<tool_call>\n${body}\n</tool_call>`;
    const full = call(right);
    const item = { question: q.question, ground_truth: gt };
    out.push({ id: `${q.id}-right`, uid: q.id, item, sample: { output_text: text(full) } });
    out.push({ id: `${q.id}-wrong`, uid: q.id, item, sample: { output_text: text(call(wrong)) } });
    out.push({ id: `${q.id}-cut`, uid: q.id, item, sample: { output_text: text(full.slice(0, Math.floor(full.length / 2))) } });
  }
} else if (source === 'prmbench') {
  const file = opts['--file'] ?? fail('prmbench needs --file (a file of prmbench/, e.g. prm800k_test_p1_4o_redundency.jsonl)');
  const limit = positiveInt('--limit', 30);
  for (const r of rows(`prmbench/${file}`, limit)) {
    const group = { uid: r.idx };
    out.push({
      id: `${r.idx}-original`,
      ...group,
      item: { question: r.original_question, error_steps: [], classification: 'original' },
      sample: { steps: r.original_process },
    });
    out.push({
      id: `${r.idx}-modified`,
      ...group,
      item: { question: r.modified_question, error_steps: r.error_steps, classification: r.classification },
      sample: { steps: r.modified_process },
    });
  }
} else {
  fail(`the first argument is the source, gsm8k, ifeval, bfcl or prmbench (got ${source ?? 'nothing'})`);
}

const text = out.map((o) => JSON.stringify(o)).join('\n') + '\n';
if (opts['-o']) {
  mkdirSync(dirname(opts['-o']), { recursive: true });
  writeFileSync(opts['-o'], text);
} else process.stdout.write(text);
