// LLaMA-Factory PPO with `reward_model_type: api` (`reward_model: http://HOST:PORT/v1/score/evaluation`),
// from its own calling convention (test/integrations/clients/llamafactory.py reproduces
// get_rewards_from_server and get_rewards): prompt + response decoded together with their special
// tokens, {"model": "model", "messages": [...]} per mini-batch, `scores` read from the reply into a
// float32 tensor, no retry, the status unchecked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start, type Running } from '../server/helpers.js';
import { CLIENTS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}llamafactory.py`;
let srv: Running;

const EXACT = { type: 'string_check', input: '{{sample.output_text}}', reference: 'The answer is 5.', operation: 'eq' };
const SEES_PROMPT = { type: 'string_check', input: '{{item.prompt}}', reference: 'What is 2 + 3?', operation: 'like' };

beforeAll(async () => {
  srv = await start({ exact: EXACT, sees_prompt: SEES_PROMPT }, { fallbackReward: -1 });
});
afterAll(async () => {
  await srv.close();
});

/** How LLaMA-Factory's templates decode one turn (skip_special_tokens=False keeps the markers and the EOS). */
const decoded = {
  qwen: (q: string, a: string) =>
    `<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n${a}<|im_end|>`,
  llama3: (q: string, a: string) =>
    `<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n${q}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n${a}<|eot_id|>`,
  gemma: (q: string, a: string) => `<bos><start_of_turn>user\n${q}<end_of_turn>\n<start_of_turn>model\n${a}<end_of_turn>\n`,
  deepseek3: (q: string, a: string) => `<｜begin▁of▁sentence｜><｜User｜>${q}<｜Assistant｜>${a}<｜end▁of▁sentence｜>`,
  mistral: (q: string, a: string) => `<s>[INST] ${q} [/INST] ${a}</s>`,
};

describe('LLaMA-Factory reward_model_type api', () => {
  it('grades the response of each decoded text (prompt and end-of-sequence tokens removed): float32 rewards', async () => {
    const q = 'What is 2 + 3?';
    const batch = Object.values(decoded).flatMap((f) => [f(q, 'The answer is 5.'), f(q, 'The answer is 6.')]);
    const r = await runPython(CLIENT, { url: `${srv.url}/v1/score/evaluation?grader=exact`, batches: [batch, batch.slice(0, 2)] });
    expect(r.stderr).toBe('');
    const one = Object.keys(decoded).flatMap(() => [1, 0]);
    expect(r.out.rewards).toEqual([...one, 1, 0]);
    expect(new Set(r.out.types)).toEqual(new Set(['float']));
    expect(r.out.mean).toBeCloseTo(6 / 12, 6);
  });

  it('the prompt is not graded as the response: a prompt holding the reference does not score', async () => {
    const text = decoded.qwen('Say: The answer is 5.', 'No.');
    const r = await runPython(CLIENT, { url: `${srv.url}/v1/score/evaluation?grader=exact`, batches: [[text]] });
    expect(r.out.rewards).toEqual([0]);
    // and it is there for graders that ask for it, as item.prompt
    const p = await runPython(CLIENT, { url: `${srv.url}/v1/score/evaluation?grader=sees_prompt`, batches: [[decoded.llama3('What is 2 + 3?', 'x')]] });
    expect(p.out.rewards).toEqual([1]);
  });

  it('a template without a known marker: the fallback reward (flagged in arbiter_invalid), or graded with ?response_after=', async () => {
    const alpaca = '### Instruction:\nWhat is 2 + 3?\n\n### Response:\nThe answer is 5.</s>';
    const r = await runPython(CLIENT, { url: `${srv.url}/v1/score/evaluation?grader=exact`, batches: [[alpaca, decoded.qwen('q', 'The answer is 5.')]] });
    expect(r.out.rewards).toEqual([-1, 1]);
    const raw = await fetch(`${srv.url}/v1/score/evaluation?grader=exact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'model', messages: [alpaca] }),
    });
    expect(raw.headers.get('x-arbiter-invalid')).toBe('1');
    expect(JSON.parse(await raw.text())).toMatchObject({ object: 'score.evaluation', model: 'model', scores: [-1], arbiter_invalid: [1] });
    const marked = await runPython(CLIENT, {
      url: `${srv.url}/v1/score/evaluation?grader=exact&response_after=${encodeURIComponent('### Response:\n')}`,
      batches: [[alpaca]],
    });
    expect(marked.out.rewards).toEqual([1]);
  });

  it('a refused request reaches the trainer as the KeyError LLaMA-Factory raises, with the reason in the body', async () => {
    const r = await runPython(CLIENT, { url: `${srv.url}/v1/score/evaluation?grader=nope`, batches: [[decoded.qwen('q', 'a')]] });
    expect(r.out.error).toBe("KeyError: 'scores'");
    expect(r.out.status).toBe(404);
    expect(JSON.parse(r.out.body).error.message).toMatch(/nope/);
  });
});
