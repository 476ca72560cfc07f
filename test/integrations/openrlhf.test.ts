// OpenRLHF, from its own calling convention (test/integrations/clients/openrlhf.py reproduces
// openrlhf/utils/agent.py and samples_generator.py): HTTP mode against /get_reward, the
// reward-function file and the agent file in integrations/, and its retry behaviour (5 tries,
// Retry-After ignored) against arbiter's error statuses.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGrader } from '../../dist/index.js';
import { createServer } from '../../dist/server/index.js';
import { DEFAULT_MAX_QUEUE } from '../../dist/server/index.js';
import { ANSWER_CHECK, endsWithAnswer, get, gsm8k, registerTestTypes, SHIPPED_GSM8K, start, type Running } from '../server/helpers.js';
import { CLIENTS, INTEGRATIONS, runPython } from './run-python.js';

const CLIENT = `${CLIENTS}openrlhf.py`;
let srv: Running;
let dflt: Running;

const chatml = (q: string) => `<|im_start|>user\n${q}<|im_end|>\n<|im_start|>assistant\n`;
const data = gsm8k(24);
const samples = data.map((d) => ({ prompt: chatml(d.question), query: chatml(d.question) + d.solution + '<|im_end|>', label: d.label }));
const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));

beforeAll(async () => {
  registerTestTypes();
  srv = await start({
    answer_check: ANSWER_CHECK,
    gsm8k: SHIPPED_GSM8K,
    mixed: {
      type: 'multi',
      graders: { acc: ANSWER_CHECK, polite: { type: 'string_check', input: '{{sample.output_text}}', reference: 'thank', operation: 'ilike' } },
      calculate_output: 'acc',
    },
  });
  // default admission options, a grader slower than the burst's arrival
  dflt = await start({ slow: { type: 'test_sleep', ms: 20 } }, { concurrency: 4 });
});
afterAll(async () => {
  await srv.close();
  await dflt.close();
});

describe('OpenRLHF HTTP mode (--reward.remote_url http://HOST:PORT/get_reward)', () => {
  it('grades with the shipped graders/gsm8k.json at the URL integrations/README.md gives (?grader=gsm8k): --data.label_key is item.label', async () => {
    const r = await runPython(CLIENT, { mode: 'http', url: `${srv.url}/get_reward?grader=gsm8k`, samples });
    expect(r.stderr).toBe('');
    expect(r.out.samples.map((s: { reward: number[] }) => s.reward)).toEqual(expected.map((x) => [x]));
    expect(expected).toContain(1);
    expect(expected).toContain(0);
  });

  it('gets float rewards for every sample, so torch.tensor infers float32 (not int64)', async () => {
    const r = await runPython(CLIENT, { mode: 'http', url: `${srv.url}/get_reward`, samples });
    expect(r.stderr).toBe('');
    const out = r.out.samples;
    expect(out.map((s: { reward: number[] }) => s.reward)).toEqual(expected.map((x) => [x]));
    expect(new Set(out.map((s: { reward_dtype: string }) => s.reward_dtype))).toEqual(new Set(['float32']));
    expect(new Set(out.map((s: { score_dtype: string }) => s.score_dtype))).toEqual(new Set(['float32']));
    expect(out[0].extra_logs).toEqual({ arbiter_invalid: 'float32' });
    expect(r.out.attempt_errors.flat()).toEqual([]);
  });

  it('selects a grader with ?grader= in the URL and logs its components in extra_logs', async () => {
    const r = await runPython(CLIENT, { mode: 'http', url: `${srv.url}/get_reward?grader=mixed`, samples: samples.slice(0, 3) });
    expect(r.out.samples[0].extra_logs).toEqual({ arbiter_invalid: 'float32', acc: 'float32', polite: 'float32' });
    expect(r.out.samples.map((s: { reward: number[] }) => s.reward)).toEqual(expected.slice(0, 3).map((x) => [x]));
  });

  it('retries an unknown grader 5 times without reading the 404 body, then leaves the reward None', async () => {
    const r = await runPython(CLIENT, { mode: 'http', url: `${srv.url}/get_reward?grader=nope`, samples: samples.slice(0, 1), retry_sleep: 0.01 });
    expect(r.out.samples[0].reward).toBeNull();
    expect(r.out.attempt_errors[0]).toEqual(new Array(5).fill({ status: 404, retry_after: null }));
  });

  it('default admission holds the largest rollout OpenRLHF sends at once (its ProRL example: 512 prompts x 16 samples)', async () => {
    const s = createServer({ graders: { g: loadGrader(ANSWER_CHECK) } });
    expect(s.options.concurrency + s.options.maxQueue).toBeGreaterThanOrEqual(512 * 16);
    await s.close();
  });

  it(`never sees a 429 from a default-sized queue (${DEFAULT_MAX_QUEUE}) during a 600-request rollout burst`, async () => {
    const burst = Array.from({ length: 600 }, (_, i) => ({ prompt: 'P:', query: `P:A: ${i}`, label: String(i) }));
    const r = await runPython(CLIENT, { mode: 'http', url: `${dflt.url}/get_reward`, samples: burst, retry_sleep: 1 });
    expect(r.code).toBe(0);
    expect(r.out.attempt_errors.flat()).toEqual([]);
    expect(r.out.samples.every((s: { reward: number[] }) => s.reward[0] === 1)).toBe(true);
    const m = (await get(`${dflt.url}/metrics`)).text;
    expect(/arbiter_queue_rejections_total\{route="\/get_reward"\} (\d+)/.exec(m)?.[1] ?? '0').toBe('0');
  });
});

describe('OpenRLHF reward-function file (--reward.remote_url integrations/openrlhf_reward.py)', () => {
  it('loads as OpenRLHF loads it, forwards to /get_reward and returns float32 tensors', async () => {
    const r = await runPython(
      CLIENT,
      { mode: 'func', file: `${INTEGRATIONS}openrlhf_reward.py`, samples: samples.slice(0, 8) },
      { ARBITER_URL: srv.url, ARBITER_GRADER: 'mixed' },
    );
    expect(r.stderr).toBe('');
    for (const [i, s] of r.out.samples.entries()) {
      expect(s.rewards).toEqual({ dtype: 'float32', values: [expected[i]] });
      expect(s.scores).toEqual({ dtype: 'float32', values: [expected[i]] });
      expect(Object.keys(s.extra_logs)).toEqual(['arbiter_invalid', 'acc', 'polite']);
      expect(s.extra_logs.arbiter_invalid).toEqual({ dtype: 'float32', values: [0] });
    }
  });

  it('raises instead of inventing a reward when the server refuses (unknown grader)', async () => {
    const r = await runPython(
      CLIENT,
      { mode: 'func', file: `${INTEGRATIONS}openrlhf_reward.py`, samples: samples.slice(0, 1) },
      { ARBITER_URL: srv.url, ARBITER_GRADER: 'nope' },
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ArbiterError: .*HTTP 404: .*unknown grader \\"nope\\"/);
  });
});

describe('OpenRLHF agent file (--train.agent_func_path integrations/openrlhf_agent.py)', () => {
  it('ends each episode with the server reward as a tensor whose .item() is a float', async () => {
    const r = await runPython(
      CLIENT,
      { mode: 'agent', file: `${INTEGRATIONS}openrlhf_agent.py`, samples: samples.slice(0, 8) },
      { ARBITER_URL: srv.url, ARBITER_GRADER: 'answer_check' },
    );
    expect(r.stderr).toBe('');
    expect(r.out.samples.map((s: { total_reward: number }) => s.total_reward)).toEqual(expected.slice(0, 8));
    for (const s of r.out.samples) {
      expect(s).toMatchObject({ total_type: 'float', done: true, feedback: '' });
      expect(s.extra_logs.arbiter_invalid).toEqual({ dtype: 'float32', values: [0] });
    }
  });
});
