// /healthz and /metrics: what is loaded, and Prometheus counters that track real traffic.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANSWER_CHECK, get, post, start, type Running } from './helpers.js';

let srv: Running;
beforeAll(async () => {
  srv = await start({ gsm8k: ANSWER_CHECK, other: { ...ANSWER_CHECK, name: 'other' } }, { defaultGrader: 'other' });
});
afterAll(() => srv.close());

const metric = (text: string, line: RegExp) => {
  const m = text.split('\n').find((l) => line.test(l));
  return m === undefined ? undefined : Number(m.split(' ').pop());
};

describe('/healthz', () => {
  it('lists graders and the default', async () => {
    const r = await get(`${srv.url}/healthz`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ok', graders: ['gsm8k', 'other'], default_grader: 'other', in_flight: 0, queued: 0 });
  });
});

describe('/metrics', () => {
  it('counts requests, grades by validity and error kinds, in Prometheus text format', async () => {
    await post(`${srv.url}/get_reward`, { grader: 'gsm8k', query: ['A: 1', 'A: 2', 'A: 3'], labels: ['1', '2', '4'] });
    await post(`${srv.url}/get_reward`, { grader: 'gsm8k', query: ['A: 1'] });
    await post(`${srv.url}/v1/score`, { samples: [{ item: { label: '1' }, output_text: 'A: 1' }] });
    await post(`${srv.url}/v1/score`, '{oops');
    const r = await get(`${srv.url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    const t = r.text;
    expect(metric(t, /^arbiter_grades_total\{grader="gsm8k",type="string_check",valid="true"\}/)).toBe(3);
    expect(metric(t, /^arbiter_grades_total\{grader="gsm8k",type="string_check",valid="false"\}/)).toBe(1);
    expect(metric(t, /^arbiter_grades_total\{grader="other",type="string_check",valid="true"\}/)).toBe(1);
    expect(metric(t, /^arbiter_grade_errors_total\{grader="gsm8k",kind="template_error"\}/)).toBe(1);
    expect(metric(t, /^arbiter_http_requests_total\{route="\/get_reward",method="POST",status="200"\}/)).toBe(2);
    expect(metric(t, /^arbiter_http_requests_total\{route="\/v1\/score",method="POST",status="400"\}/)).toBe(1);
    expect(metric(t, /^arbiter_http_request_duration_seconds_count\{route="\/get_reward"\}/)).toBe(2);
    expect(metric(t, /^arbiter_grade_duration_seconds_count\{grader="gsm8k"\}/)).toBe(4);
    expect(metric(t, /^arbiter_queue_depth /)).toBe(0);
    expect(metric(t, /^arbiter_grades_in_flight /)).toBe(0);
    expect(metric(t, /^arbiter_http_requests_in_flight /)).toBe(1);
    expect(t).toMatch(/^# TYPE arbiter_http_request_duration_seconds histogram$/m);
    expect(t).toMatch(/^process_cpu_seconds_total /m);
  });
});
