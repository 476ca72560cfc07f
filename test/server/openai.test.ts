// OpenAI graders API shapes: /v1/graders/run (reward, sub_rewards, metadata.errors flags) and
// /v1/graders/validate, with named and inline graders, over real HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, endsWithAnswer, gsm8k, post, registerTestTypes, start, type Running } from './helpers.js';

let srv: Running;
let inline: Running;

beforeAll(async () => {
  registerTestTypes();
  const graders = {
    answer_check: ANSWER_CHECK,
    combo: {
      type: 'multi',
      graders: { acc: ANSWER_CHECK, short: { type: 'string_check', input: '{{sample.output_text}}', reference: 'A:', operation: 'like' } },
      calculate_output: 'acc * short',
    },
    buggy: { type: 'test_throw' },
    slow: { type: 'test_sleep', ms: 2000, timeout_ms: 50 },
  };
  srv = await start(graders, { fallbackReward: 0 });
  inline = await start({ answer_check: ANSWER_CHECK }, { allowInlineGraders: true });
});
afterAll(async () => {
  await srv.close();
  await inline.close();
});

const ERROR_FLAGS = [
  'formula_parse_error',
  'sample_parse_error',
  'truncated_observation_error',
  'unresponsive_reward_error',
  'invalid_variable_error',
  'other_error',
  'python_grader_server_error',
  'python_grader_runtime_error',
  'model_grader_server_error',
  'model_grader_refusal_error',
  'model_grader_parse_error',
];
const raised = (errors: Record<string, unknown>) => ERROR_FLAGS.filter((f) => errors[f] === true);

describe('/v1/graders/run', () => {
  it('grades real GSM8K solutions with the default grader in the OpenAI response shape', async () => {
    for (const d of gsm8k(20)) {
      const r = await post(`${srv.url}/v1/graders/run`, { model_sample: d.solution, item: { label: d.label } });
      expect(r.status).toBe(200);
      expect(r.body.reward).toBe(endsWithAnswer(d.solution, d.label) ? 1 : 0);
      expect(r.body.metadata).toMatchObject({ name: 'answer_check', type: 'string_check', valid: true });
      expect(raised(r.body.metadata.errors)).toEqual([]);
      expect(typeof r.body.metadata.execution_time).toBe('number');
      expect(r.body.sub_rewards).toEqual({});
    }
  });

  it('returns component scores as sub_rewards for a multi grader', async () => {
    const r = await post(`${srv.url}/v1/graders/run`, { grader: 'combo', model_sample: 'so A: 7', item: { label: '8' } });
    expect(r.body.reward).toBe(0);
    expect(r.body.sub_rewards).toEqual({ acc: 0, short: 1 });
    expect(r.body.metadata.scores).toEqual({ acc: 0, short: 1 });
  });

  it('maps error kinds to metadata.errors flags', async () => {
    const missing = await post(`${srv.url}/v1/graders/run`, { model_sample: 'A: 1', item: {} });
    expect(missing.status).toBe(200);
    expect(missing.body.reward).toBe(0);
    expect(raised(missing.body.metadata.errors)).toEqual(['invalid_variable_error']);
    expect(missing.body.metadata.error.kind).toBe('template_error');

    const badItem = await post(`${srv.url}/v1/graders/run`, { model_sample: 'A: 1', item: [1] });
    expect(raised(badItem.body.metadata.errors)).toEqual(['sample_parse_error']);

    const crash = await post(`${srv.url}/v1/graders/run`, { grader: 'buggy', model_sample: 'x' });
    expect(crash.status).toBe(200);
    expect(raised(crash.body.metadata.errors)).toEqual(['other_error']);
    expect(crash.body.metadata.error.message).toMatch(/boom from a buggy grader/);

    const slow = await post(`${srv.url}/v1/graders/run`, { grader: 'slow', model_sample: 'x' });
    expect(raised(slow.body.metadata.errors)).toEqual(['unresponsive_reward_error']);
    expect(slow.body.metadata.error.kind).toBe('timeout');
  });

  it('refuses inline grader configs unless enabled, and runs them when enabled', async () => {
    const cfg = { type: 'string_check', name: 'eq', input: '{{sample.output_text}}', reference: '{{item.reference_answer}}', operation: 'eq' };
    const off = await post(`${srv.url}/v1/graders/run`, { grader: cfg, model_sample: 'x', item: { reference_answer: 'x' } });
    expect(off.status).toBe(403);
    expect(off.body.error.code).toBe('inline_graders_disabled');
    const on = await post(`${inline.url}/v1/graders/run`, { grader: cfg, model_sample: 'x', item: { reference_answer: 'x' } });
    expect(on.status).toBe(200);
    expect(on.body.reward).toBe(1);
    expect(on.body.metadata.name).toBe('eq');
    const bad = await post(`${inline.url}/v1/graders/run`, { grader: { ...cfg, operation: 'nope' }, model_sample: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('operation');
  });

  it('fills sample.output_json when model_sample is JSON text', async () => {
    const cfg = { type: 'string_check', input: '{{sample.output_json.answer}}', reference: '42', operation: 'eq' };
    const r = await post(`${inline.url}/v1/graders/run`, { grader: cfg, model_sample: '{"answer": "42"}' });
    expect(r.body.reward).toBe(1);
  });

  it('answers 400 without model_sample and 404 for an unknown grader name', async () => {
    const a = await post(`${srv.url}/v1/graders/run`, { item: {} });
    expect(a.status).toBe(400);
    expect(a.body.error.message).toMatch(/model_sample/);
    const b = await post(`${srv.url}/v1/graders/run`, { grader: 'gsm9k', model_sample: 'x' });
    expect(b.status).toBe(404);
    expect(b.body.error.message).toMatch(/unknown grader "gsm9k"/);
  });
});

describe('/v1/graders/validate', () => {
  it('echoes a valid config and lists every problem of an invalid one with field paths', async () => {
    const ok = await post(`${srv.url}/v1/graders/validate`, { grader: ANSWER_CHECK });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ grader: ANSWER_CHECK });
    const bad = await post(`${srv.url}/v1/graders/validate`, {
      grader: { type: 'multi', graders: { a: { type: 'string_check', input: 'x', reference: 'y', operation: 'eqq' }, b: { type: 'nope' } } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_grader');
    expect(bad.body.error.details.map((i: { path: string }) => i.path).sort()).toEqual(['graders.a.operation', 'graders.b.type']);
  });
  it('validates a loaded grader by name', async () => {
    const r = await post(`${srv.url}/v1/graders/validate`, { grader: 'answer_check' });
    expect(r.body.grader).toMatchObject({ type: 'string_check', operation: 'like' });
  });
});
