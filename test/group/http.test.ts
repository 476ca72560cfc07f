// POST /v1/advantages and POST /v1/groups over real HTTP on loopback, and the monitors in /metrics.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeAdvantages } from '../../dist/index.js';
import { ANSWER_CHECK, gsm8kSolutions, get, post, start, type Running } from '../server/helpers.js';
import { registerValueType, value } from './helpers.js';

let srv: Running;
beforeAll(async () => {
  registerValueType();
  srv = await start(
    {
      exact: { type: 'string_check', input: '{{sample.output_text}}', reference: '{{item.label}}', operation: 'eq' },
      answer_check: ANSWER_CHECK,
      gdpo: { type: 'weighted_sum', graders: { acc: value('a'), fmt: value('f') }, weights: { acc: 1, fmt: 0.5 }, normalize: 'group' },
      annealed: {
        type: 'schedule',
        grader: value('a'),
        points: [
          [0, 1],
          [100, 0],
        ],
      },
    },
    { maxBatch: 512 },
  );
});
afterAll(() => srv.close());

describe('POST /v1/advantages', () => {
  it("returns the library's advantages for the records, in order, with a summary", async () => {
    const records = [
      { id: 'x', uid: 'p', score: 2 },
      { id: 'y', uid: 'p', score: 4 },
      { id: 'z', uid: 'p', score: 9 },
      { id: 'w', uid: 'q', score: 1, valid: false },
    ];
    const r = await post(`${srv.url}/v1/advantages`, { config: { estimator: 'grpo', norm_adv_by_std_in_grpo: false }, records });
    expect(r.status).toBe(200);
    expect(r.body.estimator).toBe('grpo');
    // Dr.GRPO: s - mean over [2, 4, 9] (mean 5)
    expect(r.body.records.map((x: { advantage: number }) => x.advantage)).toEqual([-3, -1, 4, 0]);
    expect(r.body.records).toEqual(computeAdvantages({ estimator: 'grpo', norm_adv_by_std_in_grpo: false }, records));
    expect(r.body.summary).toEqual({ count: 4, masked: 1, mask_reasons: { invalid_grade: 1 } });
  });

  it('400 for a bad config (with the issues), a missing config or records; 413 over the token cap', async () => {
    const a = await post(`${srv.url}/v1/advantages`, { config: { estimator: 'grpo', gamma: 1 }, records: [] });
    expect(a.status).toBe(400);
    expect(a.body.error.code).toBe('invalid_advantage_config');
    expect(a.body.error.details).toEqual([{ path: 'gamma', message: 'has no effect with grpo (it is an option of reinforce_plus_plus, gigpo)' }]);
    expect((await post(`${srv.url}/v1/advantages`, { records: [] })).status).toBe(400);
    expect((await post(`${srv.url}/v1/advantages`, { config: { estimator: 'rloo' } })).status).toBe(400);
    expect((await post(`${srv.url}/v1/advantages`, { config: 'grpo', records: [] })).status).toBe(400);
    const big = await post(`${srv.url}/v1/advantages`, {
      config: { estimator: 'reinforce_plus_plus' },
      records: [
        { score: 1, response_length: 1_000_000 },
        { score: 1, response_length: 1_000_000 },
        { score: 1, response_length: 1_000_000 },
        { score: 1, response_length: 1_000_000 },
        { score: 1, response_length: 1_000_000 },
      ],
    });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('too_many_tokens');
  });
});

describe('POST /v1/groups', () => {
  it('grades a group and returns scores and advantages in one call (invalid grades masked)', async () => {
    const samples = [
      { id: 1, item: { label: '4' }, output_text: '4' },
      { id: 2, item: { label: '4' }, output_text: '5' },
      { id: 3, item: { label: '4' }, output_text: '4' },
      { id: 4, item: {}, output_text: '4' }, // no label: template_error
      { id: 5, item: 'bad', output_text: '4' },
    ];
    const r = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ grader: 'exact', estimator: 'grpo' });
    const res = r.body.results;
    expect(res.map((x: { score: number | null }) => x.score)).toEqual([1, 0, 1, null, null]);
    // grpo over [1, 0, 1]: mean 2/3, std sqrt(1/3)
    const sd = Math.sqrt(1 / 3) + 1e-6;
    expect(res[0].advantage).toBeCloseTo(1 / 3 / sd, 12);
    expect(res[1].advantage).toBeCloseTo(-2 / 3 / sd, 12);
    expect(res[3]).toMatchObject({
      valid: false,
      error: { kind: 'template_error' },
      advantage: 0,
      advantage_masked: true,
      advantage_mask_reason: 'invalid_grade',
    });
    expect(res[4].error.message).toMatch(/^samples\[4\]: field "item" must be an object/);
    expect(r.body.summary).toMatchObject({ count: 5, valid: 3, invalid: 2, masked: 2 });
  });

  it('groups by uid, takes any estimator config, and advantages: null gives scores only', async () => {
    const samples = [
      { uid: 'p', item: { label: 'a' }, output_text: 'a' },
      { uid: 'q', item: { label: 'b' }, output_text: 'b' },
      { uid: 'p', item: { label: 'a' }, output_text: 'x' },
      { uid: 'q', item: { label: 'b' }, output_text: 'b' },
    ];
    const r = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples, advantages: { estimator: 'rloo' } });
    // p: [1, 0] -> rloo ±1; q: [1, 1] -> 0
    expect(r.body.results.map((x: { advantage: number }) => x.advantage)).toEqual([1, 0, -1, 0]);
    expect(r.body.results.map((x: { uid: string }) => x.uid)).toEqual(['p', 'q', 'p', 'q']);
    const n = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples, advantages: null });
    expect(n.body.estimator).toBeNull();
    expect(n.body.results[0].advantage).toBeUndefined();
    const mixed = await post(`${srv.url}/v1/groups`, {
      grader: 'exact',
      samples: [
        { uid: 'p', item: { label: 'a' }, output_text: 'a' },
        { item: { label: 'a' }, output_text: 'a' },
      ],
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.message).toMatch(/1 of 2 samples have a "uid"/);
    const badCfg = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples, advantages: { estimator: 'nope' } });
    expect(badCfg.status).toBe(400);
    expect(badCfg.body.error.code).toBe('invalid_advantage_config');
  });

  it("runs the root grader's group stage: per-component normalisation across the group", async () => {
    const items = [
      { a: 1, f: 1 },
      { a: 0, f: 1 },
      { a: 0.5, f: 0 },
    ];
    const r = await post(`${srv.url}/v1/groups`, {
      grader: 'gdpo',
      samples: items.map((item) => ({ item, output_text: '' })),
      advantages: { estimator: 'grpo', norm_adv_by_std_in_grpo: false },
    });
    expect(r.status).toBe(200);
    // acc [1, 0, .5]: mean .5, std .5; fmt [1, 1, 0]: mean 2/3, std sqrt(1/3)
    const sa = 0.5 + 1e-6;
    const sf = Math.sqrt(1 / 3) + 1e-6;
    const want = [0.5 / sa + (0.5 * (1 / 3)) / sf, -0.5 / sa + (0.5 * (1 / 3)) / sf, (0.5 * (-2 / 3)) / sf];
    r.body.results.forEach((x: { score: number }, i: number) => expect(x.score).toBeCloseTo(want[i]!, 9));
    expect(r.body.results[0].metadata.weighted.fmt).toBeCloseTo((0.5 * (1 / 3)) / sf, 9);
    // the same grader on /v1/score refuses: it has no group there
    const one = await post(`${srv.url}/v1/score`, { grader: 'gdpo', samples: [{ item: items[0], output_text: '' }] });
    expect(one.body.results[0]).toMatchObject({ valid: false, error: { kind: 'config_error' } });
  });

  it("passes the request's global_step to graders as item.global_step", async () => {
    const r = await post(`${srv.url}/v1/groups`, {
      grader: 'annealed',
      global_step: 75,
      samples: [
        { item: { a: 1 }, output_text: '' },
        { item: { a: 0.5 }, output_text: '' },
      ],
    });
    // weight at step 75 of 1 -> 0 over 100 steps: 0.25
    expect(r.body.results.map((x: { score: number }) => x.score)).toEqual([0.25, 0.125]);
    const clash = await post(`${srv.url}/v1/groups`, { grader: 'annealed', global_step: 75, samples: [{ item: { a: 1, global_step: 3 }, output_text: '' }] });
    expect(clash.status).toBe(400);
    expect((await post(`${srv.url}/v1/groups`, { grader: 'annealed', global_step: -1, samples: [] })).status).toBe(400);
  });

  it("real GSM8K groups: four models' solutions per question, graded and turned into GRPO advantages", async () => {
    const rows = readFileSync(gsm8kSolutions(), 'utf8')
      .trim()
      .split('\n')
      .slice(0, 100)
      .map((l) => JSON.parse(l));
    const models = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];
    const samples = rows.flatMap((r, q) => {
      const label = /A: (.*)$/.exec(r.ground_truth.trim())![1]!.trim();
      return models.map((m) => ({ id: `${q}/${m}`, uid: `q${q}`, item: { label }, output_text: r[m].solution }));
    });
    const res = await post(`${srv.url}/v1/groups`, { grader: 'answer_check', samples });
    expect(res.status).toBe(200);
    const out = res.body.results;
    expect(out).toHaveLength(400);
    // the advantages are GRPO's over the scores the endpoint returned, group by group
    const want = computeAdvantages(
      { estimator: 'grpo' },
      out.map((x: { uid: string; score: number; valid: boolean }) => ({ uid: x.uid, score: x.score, valid: x.valid })),
    );
    out.forEach((x: { advantage: number }, i: number) => expect(x.advantage).toBe(want[i]!.advantage));
    // a question every model solves (or none does) gives no signal: all four advantages are 0
    for (let q = 0; q < 100; q++) {
      const g = out.slice(q * 4, q * 4 + 4);
      const s = g.map((x: { score: number }) => x.score);
      if (s.every((v: number) => v === s[0])) for (const x of g) expect(Math.abs(x.advantage)).toBeLessThan(1e-9);
      else expect(g.some((x: { advantage: number }) => x.advantage > 0) && g.some((x: { advantage: number }) => x.advantage < 0)).toBe(true);
    }
  });

  it('404 for an unknown grader, 413 over the batch limit', async () => {
    expect((await post(`${srv.url}/v1/groups`, { grader: 'nope', samples: [] })).status).toBe(404);
    const r = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples: new Array(513).fill({ item: { label: 'a' }, output_text: 'a' }) });
    expect(r.status).toBe(413);
  });
});

describe('/metrics monitors', () => {
  it("exposes each monitor's value and alert over the recent window, per grader", async () => {
    // responses whose reward rises with their length, in prompt groups
    const samples = [];
    for (let g = 0; g < 8; g++)
      for (let i = 0; i < 8; i++)
        samples.push({ uid: `g${g}`, item: { label: 'w '.repeat(i + 1).trim() }, output_text: 'w '.repeat(i + 1).trim(), response_length: 10 * (i + 1) });
    const scored = samples.map((s, i) => ({ ...s, item: { label: i % 8 >= 4 ? s.output_text : 'nope' } }));
    const r = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples: scored });
    expect(r.status).toBe(200);
    const m = await get(`${srv.url}/metrics`);
    const line = (re: RegExp) => m.text.split('\n').find((l) => re.test(l));
    expect(line(/^arbiter_monitor_alert\{grader="exact",monitor="reward_length_correlation"\} 1$/)).toBeDefined();
    const v = Number(
      line(/^arbiter_monitor_value\{grader="exact",monitor="reward_length_correlation"\}/)!
        .split(' ')
        .pop(),
    );
    expect(v).toBeGreaterThan(0.8);
    expect(line(/^arbiter_monitor_alert\{grader="exact",monitor="invalid_rate"\} 0$/)).toBeDefined();
    expect(
      Number(
        line(/^arbiter_monitor_window_size\{grader="exact"\}/)!
          .split(' ')
          .pop(),
      ),
    ).toBeGreaterThanOrEqual(64);
  });
});

describe('the pipeline over HTTP', () => {
  it("/v1/score carries uid and global_step (or the body's keep fields) after the id", async () => {
    const samples = [
      { id: 'a', uid: 'q1', global_step: 7, item: { label: '4' }, output_text: '4' },
      { id: 'b', uid: 12345678901234567891n.toString(), item: { label: '4', global_step: 3 }, output_text: '5' },
    ];
    const r = await post(`${srv.url}/v1/score`, { grader: 'exact', samples });
    expect(r.status).toBe(200);
    expect(r.body.results[0]).toMatchObject({ id: 'a', uid: 'q1', global_step: 7, score: 1 });
    expect(Object.keys(r.body.results[0]).slice(0, 3)).toEqual(['id', 'uid', 'global_step']);
    // global_step is found in the item when the top level lacks it
    expect(r.body.results[1]).toMatchObject({ id: 'b', uid: '12345678901234567891', global_step: 3, score: 0 });
    const k = await post(`${srv.url}/v1/score`, { grader: 'exact', samples, keep: ['global_step'] });
    expect(k.body.results[0].uid).toBeUndefined();
    expect(k.body.results[0].global_step).toBe(7);
    const bad = await post(`${srv.url}/v1/score`, { grader: 'exact', samples, keep: ['valid'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/field "keep": "valid" is a field of every result/);
  });

  it('/v1/groups with monitors: each result gets monitor_alerts, the reports come back beside the results', async () => {
    const samples = Array.from({ length: 16 }, (_, i) => ({ id: i, uid: `p${i % 4}`, item: { label: '4' }, output_text: i % 3 ? '4' : '5' }));
    const r = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples, monitors: { thresholds: { min_points: 4 } } });
    expect(r.status).toBe(200);
    const names = r.body.monitors.map((m: { monitor: string }) => m.monitor);
    expect(names).toContain('reward_variance_collapse');
    const alerts = r.body.monitors.filter((m: { alert: boolean }) => m.alert).map((m: { monitor: string }) => m.monitor);
    for (const x of r.body.results) expect(x.monitor_alerts).toEqual(alerts);
    const bad = await post(`${srv.url}/v1/groups`, { grader: 'exact', samples, monitors: { thresholds: { nope: 1 } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_monitor_config');
    expect(bad.body.error.message).toMatch(/nope/);
  });
});
