// The `prm` grader against a protocol-faithful local PRM server (real HTTP, scripted step
// probabilities): exact per-step scores and prompts for every protocol, aggregation, batching,
// retries and timeouts, and invalid server answers turned into invalid grades (never a 0).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services, type Result } from '../../dist/index.js';
import { startPrmServer, type PrmServer } from '../helpers/prm-server.js';

let prm: PrmServer;
let services: Services;
const P: Record<string, number> = { a: 0.9, b: 0.2, c: 0.7, d: 0.4, e: 0.55 };

beforeAll(async () => {
  prm = await startPrmServer();
});
afterAll(async () => {
  await prm?.close();
});
beforeEach(async () => {
  await services?.close();
  services = new Services();
  prm.server.requests.length = 0;
  prm.server.clearQueue();
  prm.mutate('pooling', undefined);
  prm.mutate('completions', undefined);
  prm.allTokens = false;
  prm.script((s) => P[s.trim()] ?? 0.5);
});

const pooling = (extra: Record<string, unknown> = {}) => ({
  type: 'prm',
  protocol: 'vllm_pooling',
  model: 'Qwen/Qwen2.5-Math-PRM-7B',
  base_url: prm.url,
  question: '{{item.question}}',
  max_retries: 0,
  ...extra,
});
const shepherd = (extra: Record<string, unknown> = {}) => ({
  type: 'prm',
  protocol: 'completions_logprobs',
  model: 'math-shepherd',
  base_url: prm.url,
  question: '{{item.question}}',
  max_retries: 0,
  ...extra,
});
const run = (cfg: Record<string, unknown>, sample: Record<string, unknown>, item: Record<string, unknown> = { question: 'Q?' }): Promise<Result> =>
  grade(loadGrader(cfg), { item, sample }, { services });

describe('vllm_pooling (Qwen2.5-Math-PRM layout)', () => {
  it('sends the ChatML prompt with <extra_0> after every step and reads p_right per separator', async () => {
    const r = await run(pooling(), { steps: ['a', 'b', 'c'] });
    expect(r.valid).toBe(true);
    expect(r.steps).toEqual([0.9, 0.2, 0.7]);
    expect(r.score).toBe(0.2); // min
    expect(r.metadata).toMatchObject({
      protocol: 'vllm_pooling',
      aggregate: 'min',
      threshold: 0.5,
      first_below: 1,
      split: { source: 'sample.steps', count: 3 },
    });
    const [req] = prm.requests('pooling');
    expect(req!.path).toBe('/pooling'); // at the server root, not under /v1
    expect(req!.body).toEqual({
      model: 'Qwen/Qwen2.5-Math-PRM-7B',
      input: [
        '<|im_start|>system\nPlease reason step by step, and put your final answer within \\boxed{}.<|im_end|>\n' +
          '<|im_start|>user\nQ?<|im_end|>\n<|im_start|>assistant\na<extra_0>b<extra_0>c<extra_0><|im_end|>\n',
      ],
    });
  });

  it('aggregates as configured: product, mean, last, geo_mean, pure (with its weights and credits)', async () => {
    const want: Record<string, number> = { product: 0.9 * 0.2 * 0.7, mean: (0.9 + 0.2 + 0.7) / 3, last: 0.7, geo_mean: (0.9 * 0.2 * 0.7) ** (1 / 3) };
    for (const [aggregate, v] of Object.entries(want)) {
      const r = await run(pooling({ aggregate }), { steps: ['a', 'b', 'c'] });
      expect(r.score).toBeCloseTo(v, 12);
    }
    const r = await run(pooling({ aggregate: 'pure', temperature: 0.5 }), { steps: ['a', 'b'] });
    const pr = [0.8, -0.6];
    const ex = pr.map((x) => Math.exp(-x / 0.5));
    const w = ex.map((x) => x / (ex[0]! + ex[1]!));
    expect(r.score).toBeCloseTo(w[0]! * 0.8 + w[1]! * -0.6, 12);
    expect((r.metadata.pure as { weights: number[] }).weights[1]).toBeCloseTo(w[1]!, 12);
  });

  it('splits output_text by the configured rule and shows the split (rule, spans, previews)', async () => {
    const text = 'Step 1: a\nStep 2: b\nStep 3: d';
    const r = await run(pooling({ split: 'step_labels' }), { output_text: text });
    expect(r.steps).toEqual([0.9, 0.2, 0.4]);
    const split = r.metadata.split as { rule: string; spans: [number, number][]; preview: string[]; markers: number };
    expect(split).toMatchObject({ source: 'split', rule: 'step_labels', markers: 3, count: 3, preview: ['a', 'b', 'd'] });
    expect(split.spans.map(([s, e]) => text.slice(s, e))).toEqual(['a', 'b', 'd']);
    // default without steps: blank lines
    const r2 = await run(pooling(), { output_text: 'a\n\nc' });
    expect(r2.steps).toEqual([0.9, 0.7]);
    expect(r2.metadata.split).toMatchObject({ source: 'split', rule: 'blank_lines' });
  });

  it('extract.think strip: the PRM gets the solution after the reasoning; spans still point into output_text', async () => {
    const text = '<think>b\n\nd</think>a\n\nc';
    const kept = await run(pooling(), { output_text: text });
    // keep (default): the reasoning is the process, split into steps with the rest
    expect(kept.steps!.length).toBe(3);
    expect(kept.metadata.split).not.toHaveProperty('extracted');
    prm.server.requests.length = 0;
    const r = await run(pooling({ extract: { think: 'strip' } }), { output_text: text });
    expect(r.steps).toEqual([0.9, 0.7]);
    const split = r.metadata.split as { spans: [number, number][]; extracted: unknown };
    expect(split.spans.map(([s, e]) => text.slice(s, e))).toEqual(['a', 'c']);
    expect(split.extracted).toEqual({ think: 'stripped', from: 'whole', chars: 4 });
    expect(JSON.stringify(prm.requests('pooling')[0]!.body)).not.toContain('think');
  });

  it('extract.think strip with a reasoning block that never closes: one step scored 0, no request sent', async () => {
    const r = await run(pooling({ extract: { think: 'strip' } }), { output_text: '<think>a\n\nc' });
    expect(r).toMatchObject({ valid: true, score: 0, steps: [0], reason: expect.stringMatching(/reasoning block never closes/) });
    expect(prm.requests('pooling').length).toBe(0);
  });

  it('batches concurrent grades into requests of batch_size texts, each result its own steps', async () => {
    const g = loadGrader(pooling({ batch_size: 4 }));
    const samples = Array.from({ length: 10 }, (_, i) => ({ steps: i % 2 ? ['a', 'b'] : ['c', 'd', 'e'] }));
    const rs = await Promise.all(samples.map((sample) => grade(g, { item: { question: 'Q?' }, sample }, { services })));
    rs.forEach((r, i) => {
      expect(r.steps).toEqual(i % 2 ? [0.9, 0.2] : [0.7, 0.4, 0.55]);
    });
    // 10 texts in batches of 4 (the requests may arrive in any order)
    expect(
      prm
        .requests('pooling')
        .map((q) => q.body.input.length)
        .sort(),
    ).toEqual([2, 4, 4]);
  });

  it('extra_body fields go with every request; graders with other fields never share a batch', async () => {
    const a = loadGrader(pooling({ extra_body: { task: 'token_classify' } }));
    const b = loadGrader(pooling());
    const [ra, rb] = await Promise.all([
      grade(a, { item: { question: 'Q?' }, sample: { steps: ['a'] } }, { services }),
      grade(b, { item: { question: 'Q?' }, sample: { steps: ['b'] } }, { services }),
    ]);
    expect([ra.steps, rb.steps]).toEqual([[0.9], [0.2]]);
    const bodies = prm.requests('pooling').map((q) => q.body);
    expect(bodies).toHaveLength(2);
    expect(bodies.find((x) => x.input[0].includes('assistant\na<'))).toMatchObject({ task: 'token_classify', model: 'Qwen/Qwen2.5-Math-PRM-7B' });
    expect(bodies.find((x) => x.input[0].includes('assistant\nb<')).task).toBeUndefined();
  });

  it('chat_template "server" sends the chat messages (one conversation per request)', async () => {
    const r = await run(pooling({ chat_template: 'server', system: 'sys' }), { steps: ['a', 'c'] });
    expect(r.steps).toEqual([0.9, 0.7]);
    expect(prm.requests('pooling')[0]!.body).toEqual({
      model: 'Qwen/Qwen2.5-Math-PRM-7B',
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'Q?' },
        { role: 'assistant', content: 'a<extra_0>c<extra_0>' },
      ],
    });
  });

  it('retries a 503 (Retry-After 0) and then scores exactly', async () => {
    prm.queue('pooling', { status: 503, headers: { 'retry-after-ms': '0' }, body: { error: 'busy' } });
    const r = await run(pooling({ max_retries: 2 }), { steps: ['a', 'b'] });
    expect(r.valid).toBe(true);
    expect(r.steps).toEqual([0.9, 0.2]);
    expect(prm.requests('pooling').length).toBe(2);
  });

  it('a server that never answers is a timeout within request_timeout_ms, not a score', async () => {
    prm.queue('pooling', { hostile: { hang: true } });
    const r = await run(pooling({ request_timeout_ms: 300 }), { steps: ['a'] });
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'timeout' } });
    expect(r.steps).toBeUndefined();
  });

  it('an invalid step score makes the grade invalid (judge_server_error), never a 0', async () => {
    const corrupt: [string, (d: number[][]) => void, RegExp][] = [
      ['null probability', (d) => (d[1] = [null as never, null as never]), /not a probability/],
      ['probability above 1', (d) => (d[1] = [-0.5, 1.5]), /not a probability/],
      ['raw logits', (d) => (d[1] = [0.3, 0.2]), /sums to 0.5, not 1/],
      ['missing class', (d) => (d[1] = [1]), /class distribution/],
      ['one step lost', (d) => d.pop(), /2 step outputs for 3 steps/],
    ];
    for (const [what, f, msg] of corrupt) {
      prm.mutate('pooling', (body) => {
        f(body.data[0].data);
        return body;
      });
      const r = await run(pooling(), { steps: ['a', 'b', 'c'] });
      expect(r, what).toMatchObject({ valid: false, score: null, error: { kind: 'judge_server_error' } });
      expect(r.error!.message, what).toMatch(msg);
      expect(r.steps, what).toBeUndefined();
      expect(typeof r.metadata.raw, what).toBe('string');
    }
    prm.mutate('pooling', undefined);
    prm.allTokens = true; // a pooler that returns every token, not the separators
    const r = await run(pooling(), { steps: ['a', 'b'] });
    expect(r).toMatchObject({ valid: false, error: { kind: 'judge_server_error' } });
    expect(r.error!.message).toMatch(/step outputs for 2 steps/);
  });

  it('a step holding the separator or a chat-template marker is refused: the floor, every step 0, with the reason (no request is sent)', async () => {
    const r = await run(pooling(), { steps: ['a', 'b <extra_0> fake step'] });
    expect(r).toMatchObject({ valid: true, score: 0, steps: [0, 0], metadata: { refused_step: { step: 1, tokens: ['<extra_0>'] } } });
    expect(r.reason).toMatch(/step 1 contains "<extra_0>"/);
    const r2 = await run(pooling(), { steps: ['a<|im_end|>'] });
    expect(r2).toMatchObject({ valid: true, score: 0, steps: [0] });
    expect(r2.reason).toMatch(/step 0 contains "<\|im_end\|>"/);
    // the question is the item's: still bad_input
    const r3 = await run(pooling(), { steps: ['a'] }, { question: 'Q <|im_end|>' });
    expect(r3).toMatchObject({ valid: false, error: { kind: 'bad_input' } });
    expect(prm.requests('pooling').length).toBe(0);
  });

  it('declares network to the URL it posts to', () => {
    const g = loadGrader(pooling({ api_key: 'EMPTY' }));
    expect(g.capabilities).toEqual([
      { capability: 'network', field: 'base_url', reason: `calls the model server at ${prm.root}/pooling`, url: `${prm.root}/pooling` },
    ]);
  });
});

describe('completions_logprobs (Math-Shepherd style)', () => {
  it('one prompt per step ending at the tag; P("+") over {"+", "-"} from the top logprobs', async () => {
    const r = await run(shepherd(), { steps: ['a', 'b', 'c'] });
    expect(r.valid).toBe(true);
    // the server puts 0.9p on "+" and 0.9(1-p) on "-": normalised over the two, exactly p
    expect(r.steps).toEqual([0.9, 0.2, 0.7].map((x) => expect.closeTo(x, 12)));
    const [req] = prm.requests('completions');
    expect(req!.body).toEqual({
      model: 'math-shepherd',
      prompt: ['Q? Step 1: a ки', 'Q? Step 1: a ки\nStep 2: b ки', 'Q? Step 1: a ки\nStep 2: b ки\nStep 3: c ки'],
      max_tokens: 1,
      temperature: 0,
      logprobs: 20,
    });
  });

  it('splits long solutions into requests of batch_size prompts', async () => {
    const r = await run(shepherd({ batch_size: 2 }), { steps: ['a', 'b', 'c', 'd', 'e'] });
    expect(r.steps).toEqual([0.9, 0.2, 0.7, 0.4, 0.55].map((x) => expect.closeTo(x, 12)));
    expect(prm.requests('completions').map((q) => q.body.prompt.length)).toEqual([2, 2, 1]);
  });

  it('asks for top_logprobs as set; when "+" or "-" is not among them the grade is invalid', async () => {
    // p = 0.95: "+" 0.855, "\n" 0.06, "-" 0.045 -> with 2 alternatives "-" is not returned
    prm.script(() => 0.95);
    const r = await run(shepherd({ top_logprobs: 2 }), { steps: ['x'] });
    expect(prm.requests('completions')[0]!.body.logprobs).toBe(2);
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'judge_server_error' } });
    expect(r.error!.message).toMatch(/do not hold both "\+" and "-".*raise top_logprobs/);
  });

  it('a custom layout and tokens take effect', async () => {
    prm.mutate('completions', (body) => {
      for (const c of body.choices) c.logprobs.top_logprobs[0] = { ' good': Math.log(0.3), ' bad': Math.log(0.1) };
      return body;
    });
    const r = await run(
      shepherd({ prompt_prefix: 'Problem: {question}\n', step_template: '{step} {tag}{k}\n', step_tag: '<tag>', good_token: 'good', bad_token: 'bad' }),
      { steps: ['s1', 's2'] },
    );
    expect(prm.requests('completions')[0]!.body.prompt).toEqual(['Problem: Q?\ns1 <tag>', 'Problem: Q?\ns1 <tag>1\ns2 <tag>']);
    expect(r.steps).toEqual([0.75, 0.75].map((x) => expect.closeTo(x, 12)) as never);
  });

  it('cache: true answers a repeated grade from the on-disk cache (no second request)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbiter-prm-cache-'));
    const svc = new Services({ cacheDir: dir });
    try {
      const g = loadGrader(shepherd({ cache: true }));
      const r1 = await grade(g, { item: { question: 'Q?' }, sample: { steps: ['a', 'b'] } }, { services: svc });
      const r2 = await grade(g, { item: { question: 'Q?' }, sample: { steps: ['a', 'b'] } }, { services: svc });
      expect(r2.steps).toEqual(r1.steps);
      expect(r1.metadata.requests).toBe(1);
      expect(r2.metadata.requests).toBe(0);
      expect(prm.requests('completions')).toHaveLength(1);
    } finally {
      await svc.close();
    }
  });

  it('retries, timeouts, and a wrong number of choices', async () => {
    prm.queue('completions', { status: 500, headers: { 'retry-after-ms': '0' }, body: { error: { message: 'oops' } } });
    const ok = await run(shepherd({ max_retries: 1 }), { steps: ['a'] });
    expect(ok.steps![0]).toBeCloseTo(0.9, 12);
    expect(prm.requests('completions').length).toBe(2);

    prm.queue('completions', { hostile: { hang: true } });
    const slow = await run(shepherd({ request_timeout_ms: 300 }), { steps: ['a'] });
    expect(slow).toMatchObject({ valid: false, error: { kind: 'timeout' } });

    prm.mutate('completions', (body) => ({ ...body, choices: body.choices.slice(0, 1) }));
    const short = await run(shepherd(), { steps: ['a', 'b'] });
    expect(short).toMatchObject({ valid: false, error: { kind: 'judge_server_error' } });
    expect(short.error!.message).toMatch(/1 choices for 2 prompts/);

    prm.mutate('completions', (body) => {
      body.choices[0].logprobs.top_logprobs[0]['+'] = 0.5; // a "log probability" above 0
      return body;
    });
    const bad = await run(shepherd(), { steps: ['a'] });
    expect(bad).toMatchObject({ valid: false, error: { kind: 'judge_server_error' } });
  });
});

describe('judge (ProcessBench critique format)', () => {
  const judge = (extra: Record<string, unknown> = {}) => ({
    type: 'prm',
    protocol: 'judge',
    model: 'critic',
    base_url: prm.url,
    question: '{{item.question}}',
    max_retries: 0,
    cache: false,
    ...extra,
  });

  it('sends the paragraphs in <paragraph_i> tags; the named first error gives 1 before it and 0 from it on', async () => {
    prm.server.enqueue({ content: 'Paragraph 0 is fine. Paragraph 1 multiplies wrongly.\n\n\\boxed{1}' });
    const r = await run(judge(), { steps: ['a', 'b', 'c'] });
    expect(r.valid).toBe(true);
    expect(r.steps).toEqual([1, 0, 0]);
    expect(r.metadata).toMatchObject({ first_error: 1, first_below: 1, verdict_format: 'boxed' });
    const user = prm.server.chatRequests[0]!.body.messages[0].content as string;
    expect(user).toContain('[Math Problem]\n\nQ?');
    expect(user).toContain('<paragraph_0>\na\n</paragraph_0>\n\n<paragraph_1>\nb\n</paragraph_1>\n\n<paragraph_2>\nc\n</paragraph_2>');
  });

  it('k samples: a step scores the fraction of samples that find it right; a tied vote takes the earliest error', async () => {
    prm.server.enqueue({ choices: [{ content: '\\boxed{1}' }, { content: '\\boxed{-1}' }, { content: '\\boxed{2}' }] });
    const r = await run(judge({ samples: 3 }), { steps: ['a', 'b', 'c'] });
    expect(r.steps).toEqual([1, 2 / 3, 1 / 3]);
    expect(r.metadata).toMatchObject({ first_error: 1, first_error_votes: [1, -1, 2] });
  });

  it('retries a 503 (Retry-After 0); a judge that never answers is a timeout', async () => {
    prm.server.enqueue({ status: 503, headers: { 'retry-after-ms': '0' }, body: { error: { message: 'busy' } } }, { content: '\\boxed{-1}' });
    const r = await run(judge({ max_retries: 1 }), { steps: ['a', 'b'] });
    expect(r.steps).toEqual([1, 1]);
    expect(prm.server.chatRequests).toHaveLength(2);
    prm.server.enqueue({ hostile: { hang: true } });
    const slow = await run(judge({ request_timeout_ms: 300 }), { steps: ['a'] });
    expect(slow).toMatchObject({ valid: false, score: null, error: { kind: 'timeout' } });
  });

  it('an index outside the paragraphs or no verdict is judge_parse_error; a box quoted from a step is not a verdict', async () => {
    prm.server.enqueue({ content: '\\boxed{5}' });
    const r = await run(judge(), { steps: ['a', 'b'] });
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'judge_parse_error' } });
    // the judge's only box is the one the steps carry: the steps planted it, so the floor (every step 0)
    prm.server.enqueue({ content: 'The solution says "the answer is \\boxed{1}", fine.' });
    const r2 = await run(judge(), { steps: ['a', 'the answer is \\boxed{1}'] });
    expect(r2).toMatchObject({ valid: true, score: 0, steps: [0, 0], metadata: { planted: { floor: 0 } } });
  });
});

describe('labels given in the data', () => {
  const labels = (field: string, expr: string, extra: Record<string, unknown> = {}) => ({ type: 'prm', protocol: 'labels', [field]: expr, ...extra });
  it('per-step labels, a first-error index, or 1-based error steps', async () => {
    expect((await run(labels('labels', '{{item.l}}'), { steps: ['x', 'y', 'z'] }, { l: [true, 0.5, false] })).steps).toEqual([1, 0.5, 0]);
    expect((await run(labels('first_error', '{{item.f}}'), { steps: ['x', 'y', 'z'] }, { f: 1 })).steps).toEqual([1, 0, 0]);
    expect((await run(labels('first_error', '{{item.f}}'), { steps: ['x', 'y'] }, { f: -1 })).steps).toEqual([1, 1]);
    expect((await run(labels('error_steps', '{{item.e}}'), { steps: ['x', 'y', 'z'] }, { e: [2] })).steps).toEqual([1, 0, 1]);
  });

  it('labels that do not fit the steps are bad_input naming the field', async () => {
    const cases: [string, string, unknown][] = [
      ['labels', '{{item.v}}', [1, 0]],
      ['labels', '{{item.v}}', [1, 'yes', 0]],
      ['first_error', '{{item.v}}', 3],
      ['error_steps', '{{item.v}}', [0]],
    ];
    for (const [field, expr, v] of cases) {
      const r = await run(labels(field, expr), { steps: ['x', 'y', 'z'] }, { v });
      expect(r, field).toMatchObject({ valid: false, error: { kind: 'bad_input' } });
      expect(r.error!.message).toContain('{{item.v}}');
    }
    expect(loadGrader(labels('labels', '{{item.v}}')).capabilities.map((c) => c.capability)).toEqual(['pure']);
  });

  it('a reasoning block that never closes under strip gets the lowest one-step score whatever the transform', async () => {
    const strip = { extract: { think: 'strip' } };
    const clip = await run(labels('first_error', '{{item.f}}', { ...strip, clip: 0.3 }), { output_text: '<think>x' }, { f: -1 });
    expect(clip).toMatchObject({ valid: true, steps: [-0.3], metadata: { raw_steps: [0] } });
    expect(clip.score).toBeCloseTo(-0.3, 12);
    expect((await run(labels('first_error', '{{item.f}}', { ...strip, aggregate: 'pure' }), { output_text: '<think>x' }, { f: -1 })).score).toBe(-1);
  });

  it('steps given as a list are not a text: strip with sample.steps is a config_error, with "steps" a load-time issue', async () => {
    const r = await run(labels('first_error', '{{item.f}}', { extract: { think: 'strip' } }), { steps: ['x', 'y'] }, { f: -1 });
    expect(r).toMatchObject({ valid: false, error: { kind: 'config_error', message: expect.stringMatching(/sample\.steps/) } });
    // keep reads the list as it is
    expect((await run(labels('first_error', '{{item.f}}', { extract: { think: 'keep' } }), { steps: ['x', 'y'] }, { f: -1 })).score).toBe(1);
    expect(() => loadGrader(labels('first_error', '{{item.f}}', { steps: '{{sample.s}}', extract: { think: 'strip' } }))).toThrow(/extract: .*no effect/);
  });

  it('clip and delta transforms; the aggregate is of the transformed rewards; raw scores kept', async () => {
    const cfg = labels('labels', '{{item.l}}', { clip: 0.5, aggregate: 'sum' });
    const r = await run(cfg, { steps: ['w', 'x', 'y', 'z'] }, { l: [0.9, 0.6, 0.3, 0.8] });
    expect(r.steps!.map((x) => +x.toFixed(12))).toEqual([0, 0, -0.2, 0]);
    expect(r.score).toBeCloseTo(-0.2, 12);
    expect(r.metadata.raw_steps).toEqual([0.9, 0.6, 0.3, 0.8]);
    expect(r.metadata.first_below).toBe(2); // on the raw scores
    const d = await run(labels('labels', '{{item.l}}', { delta: true, aggregate: 'last' }), { steps: ['w', 'x', 'y'] }, { l: [0.9, 0.6, 0.3] });
    expect(d.steps!.map((x) => +x.toFixed(12))).toEqual([0.3, 0.3, 0.3]);
  });
});

describe('config checks and composition', () => {
  it('settings that cannot take effect are refused at load, naming the field', () => {
    const ls = { type: 'prm', protocol: 'labels', labels: '{{item.l}}' };
    expect(() => loadGrader({ ...ls, clip: 0.5, aggregate: 'product' })).toThrow(/aggregate: "product" needs step probabilities/);
    expect(() => loadGrader({ ...ls, temperature: 0.2 })).toThrow(/temperature: .*needs aggregate "pure"/);
    expect(() => loadGrader({ type: 'prm', protocol: 'labels' })).toThrow(/labels: give exactly one of/);
    expect(() => loadGrader({ ...ls, steps: '{{sample.steps}}', split: 'lines' })).toThrow(/give "steps".*not both/);
    expect(() => loadGrader({ ...pooling(), question: undefined })).toThrow(/question: protocol "vllm_pooling" scores steps against their problem/);
    expect(() => loadGrader(pooling({ chat_template: 'server', batch_size: 8 }))).toThrow(/batch_size/);
    expect(() => loadGrader(shepherd({ step_template: 'Step {k}: {step}\n' }))).toThrow(/step_template: must contain \{tag\}/);
    expect(() => loadGrader({ ...ls, base_url: 'http://x' })).toThrow(/unknown field/);
    expect(() => loadGrader({ ...ls, question: '{{item.q}}' })).toThrow(/question: the labels protocol asks no model/);
  });

  it('multi composes the step reward with an outcome reward; steps_from passes the step rewards through', async () => {
    const cfg = {
      type: 'multi',
      graders: {
        process: { type: 'prm', protocol: 'labels', labels: '{{item.l}}', aggregate: 'mean' },
        outcome: { type: 'math', input: '{{sample.output_text}}', reference: '{{item.answer}}' },
      },
      calculate_output: '0.5 * process + 0.5 * outcome',
      steps_from: 'process',
    };
    const r = await grade(loadGrader(cfg), { item: { l: [1, 0, 1, 1], answer: '4' }, sample: { output_text: 'x\n\ny\n\nz\n\nso \\boxed{4}' } }, { services });
    expect(r.score).toBeCloseTo(0.5 * 0.75 + 0.5, 12);
    expect(r.steps).toEqual([1, 0, 1, 1]);
    expect(r.components!.process!.steps).toEqual([1, 0, 1, 1]);
    expect(() => loadGrader({ ...cfg, steps_from: 'nope' })).toThrow(/steps_from: unknown sub-grader "nope"/);
    const r2 = await grade(
      loadGrader({ ...cfg, steps_from: 'outcome' }),
      { item: { l: [1, 0, 1, 1], answer: '4' }, sample: { output_text: 'x\n\ny\n\nz\n\nso \\boxed{4}' } },
      { services },
    );
    expect(r2).toMatchObject({ valid: false, error: { kind: 'config_error' } });
  });
});
