// TRL, from its own calling conventions (test/integrations/clients/trl_trainers.py reproduces
// GRPOTrainer._calculate_rewards and AsyncGRPOTrainer's spawned rollout worker): the reward
// function pickles into a spawned process, reads assistant content given as content parts, keeps
// TRL's own objects (environments, trainer_state, log_*) out of the item, and returns None
// (TRL: NaN, skipped) for samples the server cannot grade.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endsWithAnswer, gsm8k, SHIPPED_GSM8K, start, type Running } from '../server/helpers.js';
import { CLIENTS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}trl_trainers.py`;
let srv: Running;

beforeAll(async () => {
  srv = await start({
    // the shipped graders/gsm8k.json: TRL's label_key column arrives as item.label
    'openai/gsm8k': SHIPPED_GSM8K,
    // 1 only when the item holds the dataset columns and nothing TRL added
    item_fields: {
      type: 'format',
      check: 'json',
      input: '{{item}}',
      schema: {
        type: 'object',
        required: ['answer', 'split', 'label', 'prompt'],
        properties: { split: { const: 'train' } },
        not: {
          anyOf: [
            { required: ['environments'] },
            { required: ['trainer_state'] },
            { required: ['log_extra'] },
            { required: ['log_metric'] },
            { required: ['completion_ids'] },
          ],
        },
      },
    },
  });
});
afterAll(() => srv.close());

const data = gsm8k(12);
const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));
const columns = { answer: data.map((d) => d.label), split: data.map(() => 'train') };
const chat = (text: string) => [
  { role: 'assistant', content: [{ type: 'text', text: text.slice(0, 10) }, { type: 'image' }, { type: 'text', text: text.slice(10) }] },
];

describe('TRL GRPOTrainer', () => {
  it('grades assistant content given as content parts, with the dataset columns as the item', async () => {
    const r = await runPython(
      CLIENT,
      {
        mode: 'grpo',
        make: { grader: 'openai/gsm8k' },
        prompts: data.map((d) => [{ role: 'user', content: d.question }]),
        completions: data.map((d) => chat(d.solution)),
        columns,
        environments: true,
      },
      { ARBITER_URL: srv.url },
    );
    expect(r.stderr).toBe('');
    expect(r.out).toEqual({ name: 'arbiter_openai_gsm8k', rewards: expected, types: ['float'] });
  });

  it('keeps environments, trainer_state, log_extra and log_metric out of the item', async () => {
    const r = await runPython(
      CLIENT,
      {
        mode: 'grpo',
        make: { grader: 'item_fields' },
        prompts: ['q1', 'q2'],
        completions: ['a', 'b'],
        columns: { answer: ['1', '2'], split: ['train', 'train'] },
        environments: true,
      },
      { ARBITER_URL: srv.url },
    );
    expect(r.out.rewards).toEqual([1, 1]);
  });

  it('returns None (NaN in TRL) by default for a sample the server cannot grade', async () => {
    const r = await runPython(
      CLIENT,
      { mode: 'grpo', make: { grader: 'openai/gsm8k', label_key: 'gold' }, prompts: ['q', 'q'], completions: ['A: 1', 'A: 2'], columns: { gold: ['1', '2'] } },
      { ARBITER_URL: srv.url },
    );
    expect(r.out.rewards).toEqual([1, 1]);
    const missing = await runPython(
      CLIENT,
      { mode: 'grpo', make: { grader: 'openai/gsm8k' }, prompts: ['q'], completions: ['A: 1'], columns: {} },
      { ARBITER_URL: srv.url },
    );
    expect(missing.out.rewards).toEqual(['nan']);
    const fb = await runPython(
      CLIENT,
      { mode: 'grpo', make: { grader: 'openai/gsm8k' }, prompts: ['q'], completions: ['A: 1'], columns: {} },
      { ARBITER_URL: srv.url, ARBITER_FALLBACK_REWARD: '-1' },
    );
    expect(fb.out.rewards).toEqual([-1]);
  });
});

describe('TRL AsyncGRPOTrainer', () => {
  it('pickles the reward function into a spawned process and scores there', async () => {
    const r = await runPython(
      CLIENT,
      {
        mode: 'async_grpo',
        make: { grader: 'openai/gsm8k', label_key: 'answer' },
        prompts: data.map((d) => [{ role: 'user', content: d.question }]),
        completions: data.map((d) => [
          { role: 'assistant', content: d.solution },
          { role: 'tool', name: 'calc', content: '4' },
          { role: 'assistant', content: d.solution },
        ]),
        columns,
      },
      { ARBITER_URL: srv.url },
    );
    expect(r.stderr).toBe('');
    expect(r.out).toMatchObject({ name: 'arbiter_openai_gsm8k', rewards: expected, types: ['float'] });
  });
});
