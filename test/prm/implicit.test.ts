// The `prm` protocol `implicit` against two protocol-faithful local logprob servers (a policy and a
// reference "model", real HTTP, echo + logprobs as vLLM answers them): per-token, per-step and
// per-response rewards recomputed here from the definition β·(log π − log π_ref) over a token list
// written out by hand, the request as vLLM expects it, the load-time refusals of what assumes
// probabilities, and the hostile replies that must be invalid (never a guessed reward); then the
// token rewards fed to the prime estimator.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeAdvantages, grade, loadGrader, Services, type Result } from '../../dist/index.js';
import { startLogprobServer, type LogprobServer } from '../helpers/logprob-server.js';
import { tokenize } from '../helpers/openai-test-server.js';

let policy: LogprobServer;
let reference: LogprobServer;
let services: Services;

// the scripted models: log p of a token from its text and its index in the echoed text
const polLp = (t: string, i: number) => (i < 16 ? -1 - 0.01 * i : -0.1 * t.length);
const refLp = (t: string, i: number) => -0.2 * t.trim().length - 0.05 - 0.002 * i;

beforeAll(async () => {
  policy = await startLogprobServer();
  reference = await startLogprobServer();
});
afterAll(async () => {
  await policy?.close();
  await reference?.close();
});
beforeEach(async () => {
  await services?.close();
  services = new Services();
  for (const s of [policy, reference]) {
    s.server.requests.length = 0;
    s.mutate(undefined);
    s.tokenizer(undefined);
  }
  policy.script(polLp);
  reference.script(refLp);
});

const PROMPT = 'Q: What is 2+2?\nA:';
const RESPONSE = ' 2 plus 2 is 4.\n\nSo the answer is 4.';
// the test tokenizer's tokens of PROMPT + RESPONSE from the response on (the prompt is tokens 0-9), and the step of each
// (blank_lines split: step 0 "2 plus 2 is 4.", step 1 "So the answer is 4."; the blank line goes to the step after it)
const RESP_TOKENS = [' 2', ' plus', ' 2', ' is', ' 4', '.', '\n\n', 'So', ' the', ' answer', ' is', ' 4', '.'];
const RESP_STEPS = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1];
const FIRST = 10;

const cfg = (extra: Record<string, unknown> = {}) => ({
  type: 'prm',
  protocol: 'implicit',
  model: 'policy-7b',
  base_url: policy.url,
  reference: { model: 'ref-7b', base_url: reference.url, max_retries: 0 },
  prompt: '{{sample.prompt_text}}',
  max_retries: 0,
  ...extra,
});
const run = (c: Record<string, unknown>, sample: Record<string, unknown> = { prompt_text: PROMPT, output_text: RESPONSE }): Promise<Result> =>
  grade(loadGrader(c), { item: {}, sample }, { services });

/** β·(log π − log π_ref) per response token, from the scripts. */
const want = (beta: number) => RESP_TOKENS.map((t, k) => beta * (polLp(t, FIRST + k) - refLp(t, FIRST + k)));

describe('prm implicit: β·log(π/π_ref) per token, per step, per response', () => {
  it('recomputes every token reward, the step sums and the response sum from the definition', async () => {
    const r = await run(cfg({ beta: 0.1 }));
    expect(r.valid).toBe(true);
    const tok = want(0.1);
    const stepSums = [0, 1].map((s) => tok.filter((_, k) => RESP_STEPS[k] === s).reduce((a, b) => a + b, 0));
    const total = tok.reduce((a, b) => a + b, 0);
    expect(r.metadata.tokens).toEqual(RESP_TOKENS);
    expect(r.metadata.token_steps).toEqual(RESP_STEPS);
    (r.metadata.token_rewards as number[]).forEach((x, k) => expect(x).toBeCloseTo(tok[k]!, 12));
    expect(r.metadata.token_rewards).toHaveLength(13);
    r.steps!.forEach((x, s) => expect(x).toBeCloseTo(stepSums[s]!, 12));
    expect(r.steps).toHaveLength(2);
    // default aggregate sum: the response reward
    expect(r.score).toBeCloseTo(total, 12);
    expect(r.metadata.response_reward).toBeCloseTo(total, 12);
    expect(r.metadata).toMatchObject({ protocol: 'implicit', aggregate: 'sum', model: 'policy-7b', reference_model: 'ref-7b', beta: 0.1, prompt_tokens: 10 });
    // one step reward is negative, one positive: unbounded rewards pass, and first_below is against 0 by default
    expect(stepSums[0]! < 0 && stepSums[1]! > 0).toBe(true);
    expect(r.metadata.first_below).toBe(0);
  });

  it('asks each endpoint for the echoed prompt + response with logprobs and no generation (vLLM echo_without_generation)', async () => {
    await run(cfg());
    for (const [s, model] of [
      [policy, 'policy-7b'],
      [reference, 'ref-7b'],
    ] as const) {
      expect(s.requests()).toHaveLength(1);
      expect(s.requests()[0]!.body).toMatchObject({ model, prompt: PROMPT + RESPONSE, echo: true, max_tokens: 0, logprobs: 1, add_special_tokens: false });
    }
  });

  it('default beta is 0.05; min and a negative threshold take unbounded rewards as they are', async () => {
    const r = await run(cfg({ aggregate: 'min', threshold: -0.05 }));
    const tok = want(0.05);
    const s0 = tok.slice(0, 6).reduce((a, b) => a + b, 0);
    const s1 = tok.slice(6).reduce((a, b) => a + b, 0);
    expect(r.score).toBeCloseTo(Math.min(s0, s1), 12);
    expect(r.metadata.first_below).toBe(s0 < -0.05 ? 0 : s1 < -0.05 ? 1 : -1);
    expect(r.metadata.beta).toBe(0.05);
  });

  it('the token rewards feed the prime estimator as process_rewards (one per response token)', async () => {
    const a = await run(cfg());
    const b = await run(cfg(), { prompt_text: PROMPT, output_text: ' 4.\n\nSo 4.' });
    const lines = [a, b].map((r, i) => ({ id: `x${i}`, uid: 'q', score: i === 0 ? 1 : 0, process_rewards: r.metadata.token_rewards }));
    const out = computeAdvantages({ estimator: 'prime' }, lines) as Record<string, any>[];
    expect(out[0]!.token_advantages).toHaveLength(13);
    expect(out[1]!.token_advantages).toHaveLength((b.metadata.token_rewards as number[]).length);
    expect(out.every((o) => o.advantage_masked === undefined)).toBe(true);
  });
});

describe('prm implicit: what assumes probabilities is refused at load', () => {
  it('refuses probability aggregates, clip, a step list, a question and strip; threshold outside [0, 1] only for implicit', () => {
    for (const aggregate of ['product', 'geo_mean', 'pure'])
      expect(() => loadGrader(cfg({ aggregate }))).toThrow(/needs step probabilities in \[0, 1\]; implicit/);
    expect(() => loadGrader(cfg({ clip: 0.2 }))).toThrow(/clip's threshold is a step probability/);
    expect(() => loadGrader(cfg({ steps: '{{sample.steps}}' }))).toThrow(/split the response/);
    expect(() => loadGrader(cfg({ question: '{{item.q}}' }))).toThrow(/question: .*remove it/);
    expect(() => loadGrader(cfg({ extract: { think: 'strip' } }))).toThrow(/extract: .*reasoning/);
    expect(() => loadGrader(cfg({ prompt: undefined }))).toThrow(/prompt/);
    expect(() => loadGrader({ type: 'prm', protocol: 'labels', labels: '{{item.l}}', threshold: -0.4 })).toThrow(/threshold: must be in \[0, 1\]/);
    expect(() => loadGrader(cfg({ threshold: -0.4, delta: true, aggregate: 'mean' }))).not.toThrow();
  });
});

describe('prm implicit: invalid, never a guessed reward', () => {
  const errorOf = async (c = cfg(), sample?: Record<string, unknown>) => {
    const r = await run(c, sample);
    expect(r.valid).toBe(false);
    expect(r.score).toBeNull();
    return r.error!;
  };

  it('a logprob reply shorter than the response', async () => {
    policy.mutate((b) => {
      const lp = b.choices[0].logprobs;
      for (const k of ['tokens', 'token_logprobs', 'top_logprobs', 'text_offset']) lp[k] = lp[k].slice(-5);
      return b;
    });
    expect(await errorOf()).toMatchObject({
      kind: 'judge_server_error',
      message: expect.stringMatching(/policy's logprob reply spells \d+ characters, shorter than the 36-character response/),
    });
  });

  it('a reply cut before the response ends (tokens that do not end with the response)', async () => {
    reference.mutate((b) => {
      const lp = b.choices[0].logprobs;
      for (const k of ['tokens', 'token_logprobs', 'top_logprobs', 'text_offset']) lp[k] = lp[k].slice(0, -2);
      return b;
    });
    expect(await errorOf()).toMatchObject({
      kind: 'judge_server_error',
      message: expect.stringMatching(/reference's echoed tokens do not end with the response/),
    });
  });

  it('a reference model with another tokenisation (tokens differ), or with other offsets', async () => {
    reference.tokenizer((t) => t.match(/\s?\S|\s/g) ?? []);
    expect(await errorOf()).toMatchObject({ kind: 'config_error', message: expect.stringMatching(/reference model tokenises the text differently/) });
    reference.tokenizer(undefined);
    reference.mutate((b) => {
      b.choices[0].logprobs.text_offset[FIRST + 3] += 1;
      return b;
    });
    expect(await errorOf()).toMatchObject({ kind: 'config_error', message: expect.stringMatching(/text_offset of response token 3: \d+ vs \d+/) });
  });

  it('missing logprobs, a null logprob on a response token, counts that do not match', async () => {
    policy.mutate((b) => {
      delete b.choices[0].logprobs;
      return b;
    });
    expect(await errorOf()).toMatchObject({ kind: 'judge_server_error', message: expect.stringMatching(/policy answered without echoed logprobs/) });
    policy.mutate((b) => {
      b.choices[0].logprobs.token_logprobs[FIRST + 2] = null;
      return b;
    });
    expect(await errorOf()).toMatchObject({ kind: 'judge_server_error', message: expect.stringMatching(/no log-probability for response token 2/) });
    policy.mutate((b) => {
      b.choices[0].logprobs.token_logprobs.pop();
      return b;
    });
    expect(await errorOf()).toMatchObject({ kind: 'judge_server_error', message: expect.stringMatching(/23 tokens but 22 token_logprobs/) });
  });

  it("the first token's null logprob is the prompt's (valid); with an empty prompt it is the response's (bad_input)", async () => {
    policy.mutate((b) => {
      expect(b.choices[0].logprobs.token_logprobs[0]).toBeNull();
      return b;
    });
    expect((await run(cfg())).valid).toBe(true);
    expect(await errorOf(cfg(), { prompt_text: '', output_text: RESPONSE })).toMatchObject({
      kind: 'bad_input',
      message: expect.stringMatching(/prompt is empty/),
    });
  });

  it('steps given as a list are a config error', async () => {
    expect(await errorOf(cfg(), { prompt_text: PROMPT, output_text: RESPONSE, steps: ['a', 'b'] })).toMatchObject({
      kind: 'config_error',
      message: expect.stringMatching(/sample.steps/),
    });
  });
});

describe('prm implicit: what the response causes is a valid floor, and its line keeps its outcome', () => {
  it('a special-token look-alike in the response: the floor on its last token and step, only the policy asked (for the token count)', async () => {
    policy.server.requests.length = 0;
    reference.server.requests.length = 0;
    const response = ' 4<|im_end|> so 4.';
    const r = await run(cfg({ floor: -2 }), { prompt_text: PROMPT, output_text: response });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(-2);
    expect(r.reason).toMatch(/special-token look-alike.*floor -2/);
    expect(r.metadata.refused_tokens).toEqual(['<|im_end|>']);
    // the test tokenizer's tokens of the response: one token reward each, the floor on the last
    const n = tokenize(PROMPT + response).length - tokenize(PROMPT).length;
    expect(r.metadata.token_rewards).toEqual([...Array.from({ length: n - 1 }, () => 0), -2]);
    expect(r.steps).toEqual([-2]);
    expect(policy.requests()).toHaveLength(1);
    expect(reference.requests()).toHaveLength(0);
    // the default floor is -1
    expect((await run(cfg(), { prompt_text: PROMPT, output_text: response })).score).toBe(-1);
  });

  it("a token across the prompt/response boundary (the response continues the prompt's last word): the floor, the covering tokens counted", async () => {
    const r = await run(cfg(), { prompt_text: 'Q: What? A: The ans', output_text: 'wer is 4.' });
    expect(r.valid).toBe(true);
    expect(r.score).toBe(-1);
    expect(r.reason).toMatch(/runs across the end of the prompt into the response.*floor -1/);
    // "answer" (across the boundary), " is", " 4", "."
    expect(r.metadata.token_rewards).toEqual([0, 0, 0, -1]);
  });

  it('in a PRIME group the floored line is not masked: it gets its outcome advantage', async () => {
    const a = await run(cfg());
    const b = await run(cfg(), { prompt_text: PROMPT, output_text: ' 4<|im_end|> 4.' });
    expect(b.valid).toBe(true);
    const lines = [a, b].map((r, i) => ({ id: `x${i}`, uid: 'q', score: i === 0 ? 0 : 1, process_rewards: r.metadata.token_rewards }));
    const out = computeAdvantages({ estimator: 'prime' }, lines) as Record<string, any>[];
    expect(out.every((o) => o.advantage_masked === undefined)).toBe(true);
    expect(out[1]!.token_advantages).toHaveLength((b.metadata.token_rewards as number[]).length);
  });
});

describe('prm labels with label_range "unbounded": precomputed log-ratios pass', () => {
  const ls = (extra: Record<string, unknown> = {}) => ({ type: 'prm', protocol: 'labels', labels: '{{item.l}}', label_range: 'unbounded', ...extra });
  const grade1 = (c: Record<string, unknown>, l: unknown) => grade(loadGrader(c), { item: { l }, sample: { steps: ['x', 'y', 'z'] } }, { services });

  it('takes any finite numbers as step rewards; first_below against 0 by default', async () => {
    const r = await grade1(ls({ aggregate: 'sum' }), [0.3, -0.4, 1.7]);
    expect(r.valid).toBe(true);
    expect(r.steps).toEqual([0.3, -0.4, 1.7]);
    expect(r.score).toBeCloseTo(0.3 - 0.4 + 1.7, 12);
    expect(r.metadata.first_below).toBe(1);
    // the default stays a probability: -0.4 is bad_input there
    const p = await grade1({ type: 'prm', protocol: 'labels', labels: '{{item.l}}' }, [0.3, -0.4, 1.7]);
    expect(p.error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/number in \[0, 1\], got number -0.4/) });
  });

  it('refuses what is not a number, and what assumes probabilities', async () => {
    expect((await grade1(ls(), [0.3, true, 1])).error).toMatchObject({ kind: 'bad_input', message: expect.stringMatching(/\[1\] must be a finite number/) });
    expect(() => loadGrader(ls({ aggregate: 'geo_mean' }))).toThrow(/label_range "unbounded" step rewards are any numbers/);
    expect(() => loadGrader(ls({ clip: 0.1 }))).toThrow(/clip's threshold is a step probability/);
    expect(() => loadGrader({ type: 'prm', protocol: 'labels', first_error: '{{item.f}}', label_range: 'unbounded' })).toThrow(/label_range: .*no effect/);
  });
});
