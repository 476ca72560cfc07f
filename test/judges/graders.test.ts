// Judge graders end to end: real config → real client → real HTTP → scripted judge server, with
// realistic inputs from JudgeBench, RM-Bench and GSM8K. Checks scores, rationale, metadata, and
// that every failure (refusal, unparsable, server error, timeout) is an invalid result with the
// raw output kept, never a score.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { grade, loadGrader, Services } from '../../dist/index.js';
import { startTestServer, type RecordedRequest, type TestServer } from '../helpers/openai-test-server.js';
import { dataPath } from '../helpers/data.js';

const data = dataPath;
const judgebench = readFileSync(data('judgebench/judgebench_gpt-4o.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l));
const rmChat = JSON.parse(readFileSync(data('rm-bench/chat_filtered.json'), 'utf8')) as { prompt: string; chosen: string[]; rejected: string[] }[];
const gsm = readFileSync(data('gsm8k/example_model_solutions.jsonl'), 'utf8')
  .split('\n')
  .filter(Boolean)
  .slice(0, 30)
  .map((l) => JSON.parse(l));

// started at load time: configs below are built while the suite is collected
const server: TestServer = await startTestServer();
const dir = mkdtempSync(join(tmpdir(), 'arbiter-judges-'));
let services: Services;

afterAll(async () => {
  await services?.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await services?.close();
  server.requests.length = 0;
  server.rejectJsonSchema = false;
  server.ignoreN = false;
  server.onChat(() => ({ content: 'Score: 1' }));
});

function svc() {
  services = new Services({ cacheDir: dir });
  return services;
}

const userText = (r: RecordedRequest) =>
  r.body.messages
    .filter((m: any) => m.role === 'user')
    .map((m: any) => m.content)
    .join('\n');
const base = () => ({ model: 'judge-model', base_url: server.url, max_retries: 2, cache: false as const });

const scoreCfg = (extra: Record<string, unknown> = {}) => ({
  type: 'score_model',
  name: 'helpfulness',
  ...base(),
  range: [1, 10],
  input: [
    { role: 'developer', content: 'You are a strict grader of helpfulness.' },
    { role: 'user', content: 'Question: {{item.prompt}}\n\nResponse: {{sample.output_text}}' },
  ],
  ...extra,
});

describe('score_model', () => {
  const row = rmChat[0]!;
  const input = { item: { prompt: row.prompt }, sample: { output_text: row.chosen[0] } };

  it('renders the messages, asks for a json_schema verdict, and scores it with the rationale', async () => {
    server.enqueue({ content: '{"steps": [{"description": "lists drawer types", "conclusion": "covers the main categories"}], "result": 8}' });
    const r = await grade(loadGrader(scoreCfg()), input, { services: svc() });
    expect(r).toMatchObject({ valid: true, score: 8, reason: 'lists drawer types → covers the main categories' });
    expect(r.metadata).toMatchObject({ grader: 'helpfulness', type: 'score_model', verdict: 8, verdict_format: 'json', model: 'judge-model' });
    expect((r.metadata.usage as any).prompt_tokens).toBe(10);
    const sent = server.chatRequests[0]!.body;
    expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are a strict grader of helpfulness.' });
    expect(sent.messages[1].content).toContain(row.prompt);
    expect(sent.messages[1].content).toContain(row.chosen[0]);
    expect(sent.messages[1].content).toMatch(/"result": <a number from 1 to 10>/);
    expect(sent.response_format.type).toBe('json_schema');
    expect(sent.response_format.json_schema.schema.properties.result).toEqual({ type: 'number', minimum: 1, maximum: 10 });
    expect(sent.temperature).toBe(0);
  });

  it('works prompt-only against a server without json_schema, parsing free-text verdicts', async () => {
    server.rejectJsonSchema = true;
    server.onChat(() => ({ content: '<think>maybe 3? no.</think>The answer is complete and accurate; 2 minor gaps.\nRating: [[9]]' }));
    const r = await grade(loadGrader(scoreCfg()), input, { services: svc() });
    expect(r.score).toBe(9);
    expect(r.metadata.schema_fallback).toBe(true);
    expect(r.reason).toContain('2 minor gaps');
    expect(r.reason).not.toContain('maybe 3');
  });

  it('self-consistency: k samples with n, mean and spread in metadata', async () => {
    server.enqueue({ choices: [{ content: 'Score: 6' }, { content: 'Score: 7' }, { content: 'Score: 8' }] });
    const r = await grade(loadGrader(scoreCfg({ samples: 3, sampling_params: { temperature: 0.7 } })), input, { services: svc() });
    expect(r.score).toBeCloseTo(7);
    expect(r.metadata.samples).toMatchObject({ requested: 3, valid: 3, scores: [6, 7, 8], min: 6, max: 8 });
    expect((r.metadata.samples as any).std).toBeCloseTo(Math.sqrt(2 / 3));
    expect(server.chatRequests.length).toBe(1);
    expect(server.chatRequests[0]!.body.n).toBe(3);
  });

  it('self-consistency tops up when the server ignores n, and uses median/majority when asked', async () => {
    server.ignoreN = true;
    const answers = ['Score: 2', 'Score: 9', 'Score: 9'];
    let i = 0;
    server.onChat(() => ({ content: answers[i++ % 3] }));
    const r = await grade(loadGrader(scoreCfg({ samples: 3, aggregate: 'median', sampling_params: { temperature: 1, seed: 100 } })), input, {
      services: svc(),
    });
    expect(r.score).toBe(9);
    expect(server.chatRequests.length).toBe(3);
    expect(
      server.chatRequests
        .slice(1)
        .map((x) => x.body.seed)
        .sort(),
    ).toEqual([101, 102]);
  });

  it('a minority of unparsable samples is tolerated; a majority makes the grade invalid', async () => {
    server.enqueue({ choices: [{ content: 'Score: 6' }, { content: 'no idea' }, { content: 'Score: 8' }] });
    const ok = await grade(loadGrader(scoreCfg({ samples: 3 })), input, { services: svc() });
    expect(ok.score).toBe(7);
    expect(ok.metadata.samples).toMatchObject({ valid: 2 });
    server.enqueue({ choices: [{ content: 'Score: 6' }, { content: 'hmm' }, { content: 'Score: 99' }] });
    const bad = await grade(loadGrader(scoreCfg({ samples: 3 })), input, { services: svc() });
    expect(bad).toMatchObject({ valid: false, score: null, error: { kind: 'judge_parse_error' } });
    expect(bad.error!.message).toMatch(/1 of 3 judge samples/);
    expect((bad.metadata.raw_samples as any[]).map((s) => s.raw)).toEqual(['Score: 6', 'hmm', 'Score: 99']);
  });

  it('logprob score: expected value over the verdict token alternatives', async () => {
    const alts = [
      { token: '7', logprob: Math.log(0.25) },
      { token: '8', logprob: Math.log(0.5) },
      { token: '9', logprob: Math.log(0.2) },
      { token: 'eight', logprob: Math.log(0.05) },
    ];
    server.enqueue({ content: 'Clear and correct.\nScore: 8', alternatives: { token: '8', top: alts } });
    const r = await grade(loadGrader(scoreCfg({ logprob_score: true })), input, { services: svc() });
    expect(server.chatRequests[0]!.body).toMatchObject({ logprobs: true, top_logprobs: 20 });
    expect(r.score).toBeCloseTo((7 * 0.25 + 8 * 0.5 + 9 * 0.2) / 0.95);
    expect(r.metadata.logprob_score).toBe(true);
  });

  it('logprob score falls back to the parsed verdict when the server sends no logprobs', async () => {
    server.enqueue({ content: 'Score: 6', logprobs: [] });
    const r = await grade(loadGrader(scoreCfg({ logprob_score: true })), input, { services: svc() });
    expect(r.score).toBe(6);
    expect(r.metadata.logprob_score).toEqual({ fallback: 'the server returned no logprobs' });
  });

  it('caches temperature-0 judge calls on disk: a rerun costs no request', async () => {
    server.onChat(() => ({ content: 'Score: 4' }));
    const cfg = scoreCfg({ cache: 'auto' });
    const s = svc();
    const first = await grade(loadGrader(cfg), input, { services: s });
    await s.close();
    const second = await grade(loadGrader(cfg), input, { services: svc() });
    expect(first.metadata.cached).toBe(false);
    expect(second.metadata.cached).toBe(true);
    expect(second.score).toBe(4);
    expect(server.chatRequests.length).toBe(1);
  });

  it('does not cache sampled (temperature > 0) calls by default', async () => {
    server.onChat(() => ({ content: 'Score: 4' }));
    const cfg = scoreCfg({ cache: 'auto', sampling_params: { temperature: 0.8 } });
    await grade(loadGrader(cfg), input, { services: svc() });
    await grade(loadGrader(cfg), input, { services: svc() });
    expect(server.chatRequests.length).toBe(2);
  });
});

describe('failure semantics: invalid results with the raw output kept, never a score', () => {
  const input = { item: { prompt: rmChat[1]!.prompt }, sample: { output_text: rmChat[1]!.rejected[0] } };
  const cases: [string, Record<string, unknown>, string, (r: any) => void][] = [
    ['refusal text', { content: "I'm sorry, but I can't help with grading this." }, 'judge_refusal', (r) => expect(r.metadata.raw).toMatch(/can't help/)],
    ['structured refusal', { content: null, refusal: 'Refused by policy.' }, 'judge_refusal', (r) => expect(r.metadata.refusal).toBe('Refused by policy.')],
    [
      'unparsable verdict',
      { content: 'The response is decent, I suppose.' },
      'judge_parse_error',
      (r) => expect(r.metadata.raw).toBe('The response is decent, I suppose.'),
    ],
    ['malformed JSON verdict', { content: '{"steps": [{"description": "ok"' }, 'judge_parse_error', (r) => expect(r.metadata.parse_error).toBe('no_verdict')],
    ['out-of-range verdict', { content: 'Reward: 100' }, 'judge_parse_error', (r) => expect(r.metadata.parse_error).toBe('out_of_range')],
    [
      'verdict only inside an unclosed think block',
      { content: '<think>Score: 8 but let me', finish_reason: 'length' },
      'judge_parse_error',
      (r) => {
        expect(r.error.message).toMatch(/cut off at max_tokens/);
        expect(r.metadata.finish_reason).toBe('length');
      },
    ],
    [
      'HTTP 500 until retries run out',
      { status: 500, body: { error: { message: 'CUDA out of memory' } } },
      'judge_server_error',
      (r) => {
        expect(r.metadata.http_status).toBe(500);
        expect(r.metadata.raw).toMatch(/CUDA out of memory/);
        expect(r.metadata.attempts).toBe(3);
      },
    ],
    ['dropped connections', { drop: true }, 'judge_server_error', (r) => expect(r.error.message).toMatch(/connection/i)],
  ];
  for (const [what, reply, kind, more] of cases) {
    it(what, async () => {
      server.onChat(() => reply as any);
      const r = await grade(loadGrader(scoreCfg({ max_retries: 2 })), input, { services: svc() });
      expect(r.valid).toBe(false);
      expect(r.score).toBeNull();
      expect(r.error!.kind).toBe(kind);
      more(r);
    });
  }

  it('a slow judge is a timeout (request timeout, and the grader time budget)', async () => {
    server.onChat(() => ({ content: 'Score: 5', delay_ms: 500 }));
    const r = await grade(loadGrader(scoreCfg({ request_timeout_ms: 100, max_retries: 0 })), input, { services: svc() });
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'timeout' } });
    const r2 = await grade(loadGrader(scoreCfg({ timeout_ms: 100 })), input, { services: svc() });
    expect(r2).toMatchObject({ valid: false, score: null, error: { kind: 'timeout' } });
  });

  it('a missing template variable is a template_error before any request', async () => {
    const r = await grade(loadGrader(scoreCfg()), { item: {}, sample: { output_text: 'x' } }, { services: svc() });
    expect(r.error!.kind).toBe('template_error');
    expect(server.chatRequests.length).toBe(0);
  });
});

describe('label_model', () => {
  const cfg = {
    type: 'label_model',
    ...base(),
    input: [{ role: 'user', content: 'Is this response safe?\n{{sample.output_text}}' }],
    labels: ['safe', 'unsafe'],
    passing_labels: ['safe'],
  };

  it('scores 1 for a passing label and 0 otherwise; the schema lists the labels', async () => {
    server.enqueue(
      { content: '{"steps": [{"description": "declines politely", "conclusion": "no harm"}], "result": "safe"}' },
      { content: 'Gives instructions.\nLabel: unsafe' },
    );
    const g = loadGrader(cfg);
    const a = await grade(g, { output_text: 'I cannot help with that.' }, { services: svc() });
    const b = await grade(g, { output_text: 'Step 1: ...' }, { services: svc() });
    expect([b.error, server.chatRequests.length]).toEqual([undefined, 2]);
    expect([a.score, a.metadata.label, b.score, b.metadata.label]).toEqual([1, 'safe', 0, 'unsafe']);
    expect(server.chatRequests[0]!.body.response_format.json_schema.schema.properties.result.enum).toEqual(['safe', 'unsafe']);
  });

  it('an unknown label is a parse error with the raw output', async () => {
    server.enqueue({ content: '{"result": "borderline"}' });
    const r = await grade(loadGrader(cfg), { output_text: 'hmm' }, { services: svc() });
    expect(r).toMatchObject({
      valid: false,
      error: { kind: 'judge_parse_error' },
      metadata: { parse_error: 'unknown_label', raw: '{"result": "borderline"}' },
    });
  });

  it('rejects passing labels that are not labels at load time', () => {
    expect(() => loadGrader({ ...cfg, passing_labels: ['ok'] })).toThrow(/passing_labels\[0\].*not one of the labels/);
  });
});

describe('pairwise on JudgeBench pairs', () => {
  const pairs = judgebench.slice(0, 12);
  const cfg = { type: 'pairwise', ...base(), question: '{{item.question}}', response_a: '{{item.response_A}}', response_b: '{{item.response_B}}' };
  // a judge that knows the right answer: prefers whichever response is the labelled winner
  const winners = new Map(pairs.map((p) => [p.label === 'A>B' ? p.response_A : p.response_B, true]));
  const knowing = (r: RecordedRequest) => {
    const t = userText(r);
    const a = t.slice(t.indexOf('[Response A]\n') + 13, t.indexOf('\n[End of Response A]'));
    return { content: `Checking both derivations against the question.\n\n${winners.has(a) ? '[[A]]' : '[[B]]'}` };
  };

  it('judges both orders; a consistent judge reproduces the labels', async () => {
    server.onChat(knowing);
    const g = loadGrader(cfg);
    const s = svc();
    const results = await Promise.all(pairs.map((p) => grade(g, { item: p, sample: {} }, { services: s })));
    results.forEach((r, i) => {
      expect(r.valid).toBe(true);
      expect(r.score).toBe(pairs[i]!.label === 'A>B' ? 1 : 0);
      expect(r.metadata.consistent).toBe(true);
    });
    expect(server.chatRequests.length).toBe(pairs.length * 2);
    // the second order really swapped the responses
    const req2 = server.chatRequests.find(
      (r) => userText(r).includes(pairs[0]!.question) && userText(r).indexOf(pairs[0]!.response_B) < userText(r).indexOf(pairs[0]!.response_A),
    );
    expect(req2).toBeDefined();
  });

  it('a position-biased judge gets 0.5 and consistent: false', async () => {
    server.onChat(() => ({ content: 'The first response is better.\n[[A]]' }));
    const r = await grade(loadGrader(cfg), { item: pairs[0], sample: {} }, { services: svc() });
    expect(r).toMatchObject({ valid: true, score: 0.5, metadata: { consistent: false, verdict_ab: 'A', verdict_ba: 'B', winner: 'tie' } });
  });

  it('ties count half; single order asks once', async () => {
    server.onChat(() => ({ content: 'Equally good.\n[[C]]' }));
    const r = await grade(loadGrader({ ...cfg, orders: 'single' }), { item: pairs[1], sample: {} }, { services: svc() });
    expect(r.score).toBe(0.5);
    expect(server.chatRequests.length).toBe(1);
    expect(server.chatRequests[0]!.body.messages[0].content).toContain('[[C]]');
  });

  it('an unparsable verdict in either order makes the grade invalid', async () => {
    let n = 0;
    server.onChat(() => ({ content: n++ === 0 ? '[[A]]' : 'Both have merits.' }));
    const r = await grade(loadGrader(cfg), { item: pairs[2], sample: {} }, { services: svc() });
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'judge_parse_error' } });
  });
});

describe('rubric', () => {
  const item = {
    question: rmChat[0]!.prompt,
    rubric: [
      { criterion: 'Mentions a drawer for underwear', weight: 2 },
      { criterion: 'Mentions a drawer for shoes', weight: 1 },
      { criterion: 'Recommends buying new furniture', weight: -1 },
    ],
  };
  const judge = (r: RecordedRequest) => {
    const t = userText(r);
    const crit = t.slice(t.indexOf('[Criterion]\n') + 12);
    const resp = t.slice(t.indexOf('[Response]\n') + 11, t.indexOf('\n\n[Criterion]'));
    const word = /underwear|shoes|furniture/.exec(crit)![0];
    const met = resp.toLowerCase().includes(word);
    return { content: `The response ${met ? 'does' : 'does not'} mention ${word}.\nVerdict: [[${met ? 'YES' : 'NO'}]]` };
  };
  const cfg = { type: 'rubric', ...base(), question: '{{item.question}}', criteria: '{{item.rubric}}' };

  it('judges each item-specific criterion separately and combines the weights', async () => {
    server.onChat(judge);
    const r = await grade(loadGrader(cfg), { item, sample: { output_text: rmChat[0]!.chosen[0] } }, { services: svc() });
    expect(server.chatRequests.length).toBe(3);
    // RM-Bench chosen answer mentions underwear but not shoes (the planted error key is "shoes")
    expect(r.score).toBeCloseTo(2 / 3);
    expect(Object.values(r.components!).map((c) => c.score)).toEqual([1, 0, 0]);
    expect(r.components!.c0!.reason).toMatch(/does mention underwear/);
    expect(r.components!.c1!.metadata).toMatchObject({ criterion: 'Mentions a drawer for shoes', weight: 1, verdict: 'no' });
  });

  it('penalty criteria subtract; a rating scale normalises to [0, 1]', async () => {
    server.onChat(judge);
    const r = await grade(
      loadGrader(cfg),
      { item, sample: { output_text: 'Put underwear and shoes in drawers, and buy new furniture.' } },
      { services: svc() },
    );
    expect(r.score).toBeCloseTo((2 + 1 - 1) / 3);
    server.onChat(() => ({ content: 'Partly.\nRating: [[3]]' }));
    const fixed = { ...cfg, criteria: ['Is accurate', { criterion: 'Is concise', weight: 3 }], scale: [1, 5] };
    const s2 = await grade(loadGrader(fixed), { item, sample: { output_text: 'x' } }, { services: svc() });
    expect(s2.score).toBeCloseTo(0.5);
  });

  it('a criterion that cannot be judged invalidates the grade and keeps the components', async () => {
    let n = 0;
    server.onChat((r) => (n++ === 1 ? { content: "I'm sorry, but I can't evaluate this." } : judge(r)));
    const r = await grade(loadGrader(cfg), { item, sample: { output_text: 'underwear' } }, { services: svc() });
    expect(r).toMatchObject({ valid: false, error: { kind: 'judge_refusal' } });
    expect(Object.values(r.components!).filter((c) => !c.valid).length).toBe(1);
  });

  it('bad rubric data is bad_input', async () => {
    const r = await grade(loadGrader(cfg), { item: { question: 'q', rubric: 'be nice' }, sample: { output_text: 'x' } }, { services: svc() });
    expect(r.error!.kind).toBe('bad_input');
  });
});

describe('reference_verify on GSM8K model solutions', () => {
  const finalOf = (s: string) => /A:\s*(.*)\s*$/.exec(s.trim())?.[1]?.trim() ?? '';
  const cfg = { type: 'reference_verify', ...base(), question: '{{item.question}}', reference: '{{item.answer}}' };
  // a judge that compares the final numbers
  const judge = (r: RecordedRequest) => {
    const t = userText(r);
    const ref = t.slice(t.indexOf('[Reference answer]\n') + 19, t.indexOf('\n\n[Response]'));
    const resp = finalOf(t.slice(t.indexOf('[Response]\n') + 11));
    const same = Number(ref.replace(/[$,]/g, '')) === Number(resp.replace(/[$,]/g, ''));
    return {
      content: `Reference ${ref}, response ${resp}.\nVerdict: [[${same ? 'YES' : 'NO'}]]`,
      alternatives: {
        token: same ? 'YES' : 'NO',
        top: [
          { token: 'YES', logprob: Math.log(same ? 0.9 : 0.2) },
          { token: 'NO', logprob: Math.log(same ? 0.1 : 0.8) },
        ],
      },
    };
  };

  it('agrees with the official is_correct labels when the judge compares final answers', async () => {
    server.onChat(judge);
    const g = loadGrader(cfg);
    const s = svc();
    let agree = 0;
    for (const row of gsm) {
      const sol = row['175b_verification'];
      const r = await grade(g, { item: { question: row.question, answer: finalOf(row.ground_truth) }, sample: { output_text: sol.solution } }, { services: s });
      expect(r.valid).toBe(true);
      if ((r.score === 1) === sol.is_correct) agree++;
    }
    expect(agree).toBe(gsm.length);
  });

  it('logprob score gives P(yes)', async () => {
    server.onChat(judge);
    const row = gsm[0];
    const r = await grade(
      loadGrader({ ...cfg, logprob_score: true }),
      { item: { question: row.question, answer: '18' }, sample: { output_text: 'So she makes $18.\nA: 18' } },
      { services: svc() },
    );
    expect(r.score).toBeCloseTo(0.9);
  });

  it('logprob score gives P(yes) from a structured (json_schema) answer too', async () => {
    server.enqueue({
      content: '{"steps": [{"description": "both are 18", "conclusion": "same"}], "result": "[[YES]]"}',
      alternatives: {
        token: 'YES',
        top: [
          { token: 'YES', logprob: Math.log(0.7) },
          { token: 'NO', logprob: Math.log(0.3) },
        ],
      },
    });
    const r = await grade(
      loadGrader({ ...cfg, logprob_score: true }),
      { item: { question: 'q', answer: '18' }, sample: { output_text: 'A: 18' } },
      { services: svc() },
    );
    expect(r.metadata.logprob_score).toBe(true);
    expect(r.score).toBeCloseTo(0.7);
  });
});

describe('reward_model', () => {
  it('vLLM /pooling with chat messages: last token reward, offset/scale normalisation', async () => {
    server.onReward((r) => ({
      body: { object: 'list', data: [{ index: 0, object: 'pooling', data: [[0.1], [0.2], [r.body.messages[1].content.length / 100]] }] },
    }));
    const g = loadGrader({
      type: 'reward_model',
      model: 'Skywork-Reward',
      base_url: server.url,
      protocol: 'vllm_pooling',
      offset: 1,
      scale: 2,
      input: [
        { role: 'user', content: '{{item.prompt}}' },
        { role: 'assistant', content: '{{sample.output_text}}' },
      ],
    });
    const out = rmChat[2]!.chosen[0]!;
    const r = await grade(g, { item: { prompt: rmChat[2]!.prompt }, sample: { output_text: out } }, { services: svc() });
    expect(r.metadata.raw_reward).toBeCloseTo(out.length / 100);
    expect(r.score).toBeCloseTo((out.length / 100 - 1) / 2);
    expect(server.requests[0]!.path).toBe('/pooling');
  });

  it('vLLM /classify and SGLang /classify batch text inputs', async () => {
    server.onReward((r) => {
      const texts: string[] = r.body.input ?? r.body.text;
      return r.body.text
        ? { body: texts.map((t) => ({ embedding: [t.length], meta_info: {} })) }
        : { body: { data: texts.map((t, index) => ({ index, label: 'LABEL_0', probs: [t.length / 1000], num_classes: 1 })) } };
    });
    for (const protocol of ['vllm_classify', 'sglang'] as const) {
      server.requests.length = 0;
      const g = loadGrader({
        type: 'reward_model',
        model: 'rm',
        base_url: `${server.url}`,
        protocol,
        text: '<|user|>{{item.prompt}}<|assistant|>{{sample.output_text}}',
        batch_size: 8,
      });
      const s = svc();
      const rows = rmChat.slice(0, 20);
      const rs = await Promise.all(rows.map((row) => grade(g, { item: { prompt: row.prompt }, sample: { output_text: row.chosen[0] } }, { services: s })));
      rs.forEach((r, i) => {
        const len = `<|user|>${rows[i]!.prompt}<|assistant|>${rows[i]!.chosen[0]}`.length;
        expect(r.score).toBeCloseTo(protocol === 'sglang' ? len : len / 1000);
      });
      expect(server.requests.length).toBe(3); // 20 inputs in batches of 8
      expect(server.requests[0]!.path).toBe('/classify');
      await s.close();
    }
  });

  it('server failures and wrong-shaped answers are judge_server_error; messages need vllm_pooling', async () => {
    server.onReward(() => ({ status: 500, body: { error: 'down' } }));
    const cfg = { type: 'reward_model', model: 'rm', base_url: server.url, protocol: 'sglang', text: '{{sample.output_text}}', max_retries: 0 };
    const r = await grade(loadGrader(cfg), { output_text: 'x' }, { services: svc() });
    expect(r).toMatchObject({ valid: false, score: null, error: { kind: 'judge_server_error' }, metadata: { http_status: 500 } });
    server.onReward(() => ({ body: [{ embedding: [] }] }));
    const r2 = await grade(loadGrader(cfg), { output_text: 'x' }, { services: svc() });
    expect(r2.error!.message).toMatch(/no finite score/);
    expect(() => loadGrader({ ...cfg, text: undefined, input: [{ role: 'user', content: 'x' }] })).toThrow(/vllm_pooling/);
  });
});
