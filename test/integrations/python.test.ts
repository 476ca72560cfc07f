// The Python integrations (verl compute_score, TRL reward function) run with python3 against a
// live server started by the test, on real GSM8K solutions.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, endsWithAnswer, get, gsm8k, registerTestTypes, start, type Running } from '../server/helpers.js';

const DRIVER = fileURLToPath(new URL('./driver.py', import.meta.url));
const TOKEN = 'integration-token';
let srv: Running;
let busy: Running;

function py(cmd: unknown, env: Record<string, string> = {}, url = srv.url): Promise<{ code: number | null; out: any; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [DRIVER], { env: { ...process.env, ARBITER_URL: url, ARBITER_TOKEN: TOKEN, ARBITER_RETRIES: '20', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      let out: unknown;
      try {
        out = JSON.parse(stdout);
      } catch {
        out = undefined;
      }
      resolve({ code, out, stderr });
    });
    child.stdin.end(JSON.stringify(cmd));
  });
}

beforeAll(async () => {
  registerTestTypes();
  srv = await start(
    {
      'openai/gsm8k': ANSWER_CHECK,
      gsm8k_ci: { type: 'string_check', input: '{{sample.output_text}}', reference: 'a: {{item.label}}', operation: 'ilike' },
      needs_extra: { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.extra_info.answer}}', operation: 'like' },
    },
    { token: TOKEN },
  );
  busy = await start({ slow: { type: 'test_sleep', ms: 150 } }, { token: TOKEN, concurrency: 1, maxQueue: 2 });
});
afterAll(async () => {
  await srv.close();
  await busy.close();
});

const data = gsm8k(60);
const expected = data.map((d) => (endsWithAnswer(d.solution, d.label) ? 1 : 0));

describe('verl compute_score', () => {
  it('routes by data_source and returns {score, arbiter_invalid} per sample', async () => {
    const samples = data.slice(0, 20).map((d) => ({ data_source: 'openai/gsm8k', solution_str: d.solution, ground_truth: d.label }));
    const r = await py({ kind: 'verl_single', samples });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toEqual(expected.slice(0, 20).map((s) => ({ score: s, arbiter_invalid: 0 })));
  });

  it('batches mixed data sources (one request per grader), keeps order, and falls back on invalid grades', async () => {
    const samples = data.map((d, i) =>
      i % 3 === 0
        ? { data_source: 'gsm8k_ci', solution_str: d.solution.replace(/A: /, 'a: '), ground_truth: d.label }
        : i % 3 === 1
          ? { data_source: 'openai/gsm8k', solution_str: d.solution, ground_truth: d.label }
          : { data_source: 'needs_extra', solution_str: d.solution, ground_truth: d.label, extra_info: i % 2 ? { answer: d.label } : { index: i } },
    );
    // ARBITER_MAX_BATCH=7 also makes the client send each grader's samples in several chunks
    const r = await py({ kind: 'verl_batch', samples }, { ARBITER_FALLBACK_REWARD: '-0.5', ARBITER_MAX_BATCH: '7' });
    expect(r.code).toBe(0);
    const want = data.map((d, i) => {
      if (i % 3 === 0) return { score: d.solution.replace(/A: /, 'a: ').toLowerCase().includes(`a: ${d.label}`.toLowerCase()) ? 1 : 0, arbiter_invalid: 0 };
      if (i % 3 === 1) return { score: expected[i], arbiter_invalid: 0 };
      return i % 2 ? { score: d.solution.includes(d.label) ? 1 : 0, arbiter_invalid: 0 } : { score: -0.5, arbiter_invalid: 1 };
    });
    expect(r.out).toEqual(want);
  });

  it('maps data sources with ARBITER_GRADER_MAP, returns floats with ARBITER_RETURN=float', async () => {
    const samples = data.slice(0, 5).map((d) => ({ data_source: 'gsm8k-train', solution_str: d.solution, ground_truth: d.label }));
    const r = await py({ kind: 'verl_batch', samples }, { ARBITER_GRADER_MAP: JSON.stringify({ 'gsm8k-train': 'openai/gsm8k' }), ARBITER_RETURN: 'float' });
    expect(r.out).toEqual(expected.slice(0, 5));
  });

  it('raises (never invents rewards) for an unknown grader or a wrong token', async () => {
    const unknown = await py({ kind: 'verl_single', samples: [{ data_source: 'no/such', solution_str: 'x', ground_truth: '1' }] });
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/ArbiterError: .*HTTP 404: .*unknown grader \\"no\/such\\"/);
    const denied = await py(
      { kind: 'verl_single', samples: [{ data_source: 'openai/gsm8k', solution_str: 'x', ground_truth: '1' }] },
      { ARBITER_TOKEN: 'wrong' },
    );
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/HTTP 401/);
  });

  it('retries after 429 (Retry-After) until the busy server takes every sample', async () => {
    const r = await py({ kind: 'verl_parallel', data_source: 'slow', threads: 8 }, {}, busy.url);
    expect(r.code).toBe(0);
    expect(r.out).toEqual(new Array(8).fill({ score: 1, arbiter_invalid: 0 }));
    const after = (await get(`${busy.url}/metrics`, { authorization: `Bearer ${TOKEN}` })).text;
    const rejections = (t: string) => Number(/arbiter_queue_rejections_total\{route="\/v1\/score"\} (\d+)/.exec(t)?.[1] ?? 0);
    expect(rejections(after)).toBeGreaterThan(0);
  });
});

describe('TRL reward function', () => {
  it('grades string completions with dataset columns as the item', async () => {
    const d = data.slice(0, 16);
    const r = await py({
      kind: 'trl',
      make: { grader: 'openai/gsm8k' },
      prompts: d.map((x) => x.question),
      completions: d.map((x) => x.solution),
      columns: { answer: d.map((x) => x.label), split: d.map(() => 'test') },
    });
    expect(r.stderr).toBe('');
    expect(r.out.name).toBe('arbiter_openai_gsm8k');
    expect(r.out.rewards).toEqual(expected.slice(0, 16));
  });

  it('takes the last assistant message of conversational completions, and None as fallback when asked', async () => {
    const d = data.slice(0, 4);
    const r = await py({
      kind: 'trl',
      make: { grader: 'openai/gsm8k', label_key: 'gold', fallback: null },
      prompts: d.map((x) => [{ role: 'user', content: x.question }]),
      completions: d.map((x, i) => (i === 3 ? [{ role: 'assistant', content: 'A: 1' }] : [{ role: 'assistant', content: x.solution }])),
      columns: { gold: d.map((x, i) => (i === 3 ? null : x.label)) },
    });
    expect(r.code).toBe(0);
    // sample 3 has a null label: the grader renders it as text, so it is graded (valid)
    expect(r.out.rewards.slice(0, 3)).toEqual(expected.slice(0, 3));
    expect(r.out.rewards).toHaveLength(4);
  });

  it('returns None for ungradable samples when the fallback is None', async () => {
    const r = await py({
      kind: 'trl',
      make: { grader: 'needs_extra', fallback: null },
      prompts: ['q1', 'q2'],
      completions: ['the answer is 7', 'the answer is 8'],
      columns: { extra_info: [{ answer: '7' }, { other: 1 }] },
    });
    expect(r.out.rewards).toEqual([1, null]);
  });
});

describe('group rewards from Python (ArbiterClient / AsyncArbiterClient)', () => {
  const sampleOf = (d: (typeof data)[number], i: number) => ({
    id: `s${i}`,
    uid: `q${i % 3}`,
    item: { label: d.label },
    sample: { output_text: i % 2 ? d.solution : 'A: -1' },
  });
  const samples = data.slice(0, 12).map(sampleOf);
  // what the server answers to the same body, without the clients (durations differ between calls)
  const strip = (res: any) => ({
    grader: res.grader,
    estimator: res.estimator,
    results: res.results.map((r: any) => ({ id: r.id, uid: r.uid, score: r.score, valid: r.valid, advantage: r.advantage })),
  });
  async function direct(path: string, body: unknown): Promise<any> {
    const r = await fetch(srv.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
    return r.json();
  }

  it('groups() posts one /v1/groups request and returns its results in order, with advantages', async () => {
    const args = { samples, grader: 'openai/gsm8k', advantages: { estimator: 'rloo' }, global_step: 3 };
    const want = strip(await direct('/v1/groups', { grader: 'openai/gsm8k', samples, advantages: { estimator: 'rloo' }, global_step: 3 }));
    expect(want.estimator).toBe('rloo');
    expect(new Set(want.results.map((r: any) => r.advantage)).size).toBeGreaterThan(1);
    const r = await py({ kind: 'groups', args });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(strip(r.out.sync)).toEqual(want);
    expect(strip(r.out.async)).toEqual(want);
    expect(r.out.sync.summary).toEqual(expect.objectContaining({ count: 12 }));
  });

  it('groups(advantages=None) returns scores only; left out, the server default (grpo) applies', async () => {
    const none = await py({ kind: 'groups', args: { samples, grader: 'openai/gsm8k', advantages: null } });
    expect(none.code).toBe(0);
    expect(none.out.sync.results.every((x: any) => x.advantage === undefined)).toBe(true);
    expect(none.out.sync.results.map((x: any) => x.score)).toEqual(samples.map((_, i) => (i % 2 ? expected[i] : 0)));
    const dflt = await py({ kind: 'groups', args: { samples, grader: 'openai/gsm8k' } });
    expect(dflt.code).toBe(0);
    expect(strip(dflt.out.async)).toEqual(strip(await direct('/v1/groups', { grader: 'openai/gsm8k', samples })));
    expect(dflt.out.async.estimator).toBe('grpo');
  });

  it('advantages() computes advantages for scored records, and a bad config raises ArbiterError', async () => {
    const records = [0, 1, 1, 0, 0.5, 1].map((score, i) => ({ id: `r${i}`, uid: `g${i % 2}`, score }));
    const config = { estimator: 'grpo', norm_adv_by_std_in_grpo: false };
    const want = await direct('/v1/advantages', { config, records });
    const r = await py({ kind: 'advantages', args: { config, records } });
    expect(r.code).toBe(0);
    expect(r.out.sync.records).toEqual(want.records);
    expect(r.out.async.records).toEqual(want.records);
    // unnormalised grpo: score minus the group's mean (g0: 0, 1, 0.5; g1: 1, 0, 1)
    expect(r.out.sync.records.map((x: any) => x.advantage)).toEqual([0 - 0.5, 1 - 2 / 3, 1 - 0.5, 0 - 2 / 3, 0.5 - 0.5, 1 - 2 / 3]);
    const bad = await py({ kind: 'advantages', args: { config: { estimator: 'no-such-estimator' }, records } });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/ArbiterError: arbiter .*\/v1\/advantages: HTTP 400/);
  });

  it('a reply with fewer results or records than were sent raises ArbiterError, never a short list', async () => {
    // a server on loopback that answers every request with empty lists
    const { createServer } = await import('node:http');
    const short = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"results": [], "records": [], "estimator": "grpo"}'));
    });
    await new Promise<void>((r) => short.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(short.address() as { port: number }).port}`;
    try {
      const g = await py({ kind: 'groups', args: { samples: samples.slice(0, 3), grader: 'openai/gsm8k' } }, {}, url);
      expect(g.code).not.toBe(0);
      expect(g.stderr).toMatch(/ArbiterError: arbiter returned 0 results for 3 samples/);
      const records = [0, 1].map((score, i) => ({ id: `r${i}`, uid: 'g', score }));
      const a = await py({ kind: 'advantages', args: { config: { estimator: 'grpo' }, records } }, {}, url);
      expect(a.code).not.toBe(0);
      expect(a.stderr).toMatch(/ArbiterError: arbiter returned 0 records for 2/);
    } finally {
      await new Promise((r) => short.close(r));
    }
  });
});
